"""Baselines of Section 7 on the same rich-observation environments as HOMER: A2C and PPO from
stable-baselines3, with or without a random-network-distillation bonus (:mod:`.rnd`), and
PCID (Du et al. 2019, :mod:`.pcid`). Each reports its episodes and the exact value of what it
learned (:mod:`.evaluation`)."""

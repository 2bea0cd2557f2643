"""Baselines of Section 7 on the same rich-observation environments as HOMER: A2C and PPO, with
or without a random-network-distillation bonus - batched as the paper ran them
(:mod:`.batched` on :mod:`.vector_env`, checkpoints in :mod:`.batched_checkpoint`) and from
stable-baselines3 on one environment (:mod:`.actor_critic`, :mod:`.rnd`, the reference) - and
PCID (Du et al. 2019, :mod:`.pcid`). Each reports its episodes and the exact value of what it
learned (:mod:`.evaluation`)."""

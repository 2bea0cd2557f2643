"""The defaults and ranges of the settings of homer's commands other than HOMER's own (those
are :mod:`homer.config`'s): the merge threshold of ``evaluate`` and ``compare``, the reference
learners and their capacity, the learning rate and RND coefficient of a sweep's baselines, the
objectives and sample sizes of ``homer objectives``.

Each is defined here, and used by the module that does the work (and importable from it:
:mod:`homer.evaluate`, :mod:`homer.reference_learners`, :mod:`homer.sweep`), so that the
command line's parser, which needs them for its defaults, help and checks, imports neither
scikit-learn nor matplotlib nor torch: ``python -m homer --help`` and argument errors answer
before any of them loads (:mod:`homer.cli`).
"""

from __future__ import annotations

from kinematic.arguments import NumberRange

__all__ = ["DEFAULT_INTRINSIC_COEFFICIENT", "DEFAULT_LEARNING_RATE", "EVALUATE_AGAINST",
           "LEARNED_OBJECTIVES", "MERGE_THRESHOLD", "MERGE_THRESHOLDS", "MULTISTEP_EPISODES",
           "MULTISTEP_RESTARTS", "OBJECTIVES_LOCK", "PPE_SAMPLES", "REFERENCE_CAPACITY",
           "REFERENCE_LEARNERS"]

MERGE_THRESHOLD = 0.05
"""The default ``merge_threshold``: a pair of exact classes whose merge rate exceeds it is a wrong
merge. Sampling noise stays well below it at the default 500 encodings per observation: the
standard error of a rate is at most 0.022 over one observation's encodings, and 0.0045 for a
rate of 1%, which so lies nine standard errors below 0.05. Above the noise, 0.05 is a convention,
not a bound of the paper's: a merge rate r means one learned class holds a share of at least r
of both classes' encodings, so the internal reward of that class (HOMER's ``1{phi(x') = i}``)
is earned at rate at least r in each; 5% is small against the alpha of 1/2 a cover needs
(``def:policy-cover``), and a lower threshold (with more samples) hunts smaller leaks."""


MERGE_THRESHOLDS = NumberRange(float, low=0, high=1, open_high=True)
"""The values ``merge_threshold`` may take: ``[0, 1)`` (0: any leak is a wrong merge)."""

REFERENCE_LEARNERS = {
    "oracle": "the latent state of each observation: 0 wrong merges by construction",
    "random": "a uniformly random class among the capacity for every encoding",
    "kmeans": "k-means of the encoded observations into the capacity",
    "pca-kmeans": "k-means after projecting on the leading principal components",
}
"""The reference abstractions by name, each with what it is."""

EVALUATE_AGAINST = ("endogenous",)
"""The exact partitions ``homer evaluate --against`` adds to the backward KI, forward KI and KI
ones: ``endogenous``, the endogenous partition of an exogenous Block MDP (its spec declares the
factorisation: :mod:`kinematic.exogenous_spec`)."""

REFERENCE_CAPACITY = NumberRange(int, low=1, high=10**9)
"""The classes a reference learner may have (``--capacity``): from 1 to 10^9, far more than the
encodings of a step that fits in memory could fill (``random`` draws among them as int64s)."""

DEFAULT_LEARNING_RATE = 1e-3
"""PPO's and A2C's (+RND) learning rate in ``tab:aac-hyperparam`` and ``tab:ppo-hyperparam``
(:class:`homer.baselines.batched.BatchedConfig`); every record without one ran with it."""
DEFAULT_INTRINSIC_COEFFICIENT = 100.0
"""RND's intrinsic reward coefficient in the same tables; every record without one ran with
it."""

LEARNED_OBJECTIVES = ("multistep_inverse", "ppe_path_prediction")
"""The objectives ``homer objectives`` learns (:mod:`homer.learned_objectives`): the multi-step
inverse objective (MusIK / AC-State) and PPE's path prediction, named as
``python -m kinematic objectives`` names their exact solutions
(:data:`kinematic.counterexamples.catalogue.OBJECTIVES`)."""

MULTISTEP_EPISODES = 2000
"""Episodes of the uniformly random policy the multi-step inverse objective learns from: at
layer ``t`` each gives ``t - 1`` examples (one per gap)."""

MULTISTEP_RESTARTS = 4
"""Models of the multi-step inverse objective trained per layer, the lowest validation loss
kept (as ``homer counterexamples`` trains Section 5's objectives: a training stuck in a local
optimum would say something about the optimiser, not the objective)."""

OBJECTIVES_LOCK: dict[str, int | str] = {"horizon": 4, "actions": 2, "exogenous_bits": 2,
                                         "flip": "1/10"}
"""The exogenous lock ``homer objectives`` learns on without ``--spec``: H, K, the noise bits
and their flip probability."""

PPE_SAMPLES = 5000
"""PPE's rollouts per step, split evenly over its paths: microsoft/Intrepid's
``encoder_training_num_samples`` for its combination locks."""

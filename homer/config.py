"""HOMER's hyperparameters: one frozen dataclass, the paper's values as defaults where they fit a
2-core CPU, every deviation named with its reason."""

from __future__ import annotations

from dataclasses import dataclass, fields

from homer.wording import setting
from kinematic.arguments import NumberRange, at_least, fraction, positive

__all__ = ["DEFAULT_TORCH_THREADS", "OBJECTIVES", "RANGES", "HomerConfig"]

DEFAULT_TORCH_THREADS = 1
"""Intra-op threads of a HOMER or baseline run unless its configuration says otherwise
(homer/process_state.py)."""

RANGES: dict[str, NumberRange] = {
    "backward_capacity": at_least(2), "forward_capacity": at_least(2),
    "pretraining_width": at_least(2), "hidden": at_least(1),
    "learning_rate": positive(), "batch_size": at_least(1), "max_epochs": at_least(1),
    "patience": at_least(1), "min_epochs": at_least(0), "restarts": at_least(1),
    "forward_restarts": at_least(1), "validation_fraction": fraction(),
    "gumbel_temperature": positive(), "transitions": at_least(1),
    "max_transitions": at_least(1), "psdp_samples": at_least(1), "eval_samples": at_least(1),
    "gps_epsilon": fraction(), "ridge": positive(), "evaluation_episodes": at_least(1),
    "torch_threads": at_least(1),
}
"""The values each numeric :class:`HomerConfig` field accepts (also the command line's flag
types). A capacity of 1 cannot tell a real transition from an imposter, so capacities start at
2."""

OBJECTIVES = ("contrastive", "inverse_dynamics", "pcid", "autoencoder", "one_class")
"""The values of ``HomerConfig.objective`` (homer/objectives.py)."""


@dataclass(frozen=True)
class HomerConfig:
    """Hyperparameters of HOMER (Table ``tab:homer-hyperparam``, Section 7, Appendix
    ``app:appendix-experiment``).

    ======================  ===============  =================================================
    field                   paper            here (reason)
    ======================  ===============  =================================================
    backward_capacity       N = 2            2
    forward_capacity        M = 3            3
    pretraining_width       N or M           16: pre-training embeds each side in 16
                                             dimensions, then k-means quantises the
                                             bottleneck side into N (or M) classes before
                                             the Gumbel phase (phi_F merged forward-KI
                                             classes at half the lock's steps otherwise)
    hidden                  56               56
    learning_rate           0.001            0.001
    batch_size              32               64 (CPU throughput; same optimiser otherwise).
                                             128 trains in about two thirds of the CPU time
                                             but GPS rejected twice as many first rounds at
                                             H = 100 (more episodes): homer_speed.md
    max_epochs              200              100 per phase; the pre-training phase runs all
                                             100, the Gumbel phase stops early (patience 10)
                                             on the 20% validation split; the best epoch of
                                             each phase is kept, as in the paper
    transitions             10,000 per step  adaptive: 2,000 real transitions (+ as many
                                             imposters) per round; another round (up to
                                             8,000) when greedy policy search (GPS) rejects
                                             a class, before falling back to full PSDP
                                             (fewer episodes; with 1,000 or 1,500 phi_B
                                             stays on the ln 2 plateau at 3 of 16 layers of
                                             the lock at H = 100, and the extra rounds cost
                                             more than they save: homer_speed.md)
    psdp_samples            20,000           2,000 per CB problem (only used when the greedy
                                             policy search fails)
    eval_samples            -                500 per step of the reward-sensitive PSDP
    gps_epsilon             epsilon          0.1: GPS accepts when the estimated value of the
                                             composed policy is at least 1 - 0.1
    ridge                   -                0.1 x the mean squared norm of the rows: the
                                             CB oracle solves the square-loss regression in
                                             closed form (ridge-regularised, intercept free)
                                             instead of 50 epochs of Adam; relative to the
                                             observations' size, so the authors' +-1 and the
                                             orthonormal encodings give the same choices.
                                             Where an action has about d rows the
                                             regression interpolates the encoder's noise
                                             unless the penalty holds it back: at H = 50
                                             (d = 64, ~50 rows per action in the
                                             reward-sensitive PSDP; squared norm ~2.5 on the
                                             orthonormal scale) penalties 1e-3 gave value
                                             0.05 from exact covers, 0.01 failed 2 of 6
                                             seeds, 0.03 - 3 solved all; 0.1 x 2.5 = 0.25; a
                                             larger penalty lowers GPS's estimates (a surely
                                             reached class: 0.981 at 1e-3, 0.972 at 0.3,
                                             0.957 at 1; threshold 0.9).
                                             tests/homer/test_psdp.py
    gumbel_temperature      1                1
    restarts                1                2 backward models per round, the better kept
    forward_restarts        1                1
                                             (trained together with the forward model as
                                             one vectorised ensemble: homer/models.py)
    torch_threads           -                1 (shared machines; a second thread saves 4 -
                                             15% of a mini-batch step's wall-clock for
                                             twice the CPU: homer_speed.md)
    ======================  ===============  =================================================
    """

    backward_capacity: int = 2
    """N: number of abstract states of the backward abstraction (phi_B on x'); a run refuses
    less than the most backward-KI classes of one layer of the MDP."""
    forward_capacity: int = 3
    """M: number of abstract states of the forward abstraction (phi_F on x); a run refuses less
    than the most forward-KI classes of one layer of the MDP."""
    pretraining_width: int = 16
    """Width of the continuous embedding of each side during pre-training; k-means then
    quantises the bottleneck side into N (or M) classes (homer/models.py). With width M = 3 the
    forward model's pre-training barely used x on the lock
    (benchmarks/results/lock_abstractions.md)."""
    hidden: int = 56
    """Hidden units of the contrastive classifier."""
    learning_rate: float = 1e-3
    """Adam's learning rate for the contrastive models."""
    batch_size: int = 64
    """Mini-batch size of the contrastive models."""
    max_epochs: int = 100
    """Epochs per training phase (pre-training without bottleneck, then Gumbel-softmax)."""
    patience: int = 10
    """Epochs without validation improvement before a phase stops."""
    min_epochs: int = 100
    """Epochs of the first (continuous) phase before early stopping may end it: the loss sits
    on a plateau near ln 2 for a long while before the rare informative transitions (5% on the
    lock) are fitted, and stopping early leaves a poor abstraction."""
    restarts: int = 2
    """Backward models trained from different initialisations at each round; the one with the
    lowest validation loss is kept (a training that stays on the ln 2 plateau loses)."""
    forward_restarts: int = 1
    """Forward models trained from different initialisations at each round, the one with the
    lowest validation loss kept (with quantisation one suffices on the lock:
    benchmarks/lock_abstractions.py)."""
    validation_fraction: float = 0.2
    """Share of the transitions held out for early stopping."""
    gumbel_temperature: float = 1.0
    """Temperature of the Gumbel-softmax bottleneck."""
    transitions: int = 2000
    """Real transitions collected per round at a time step (n_reg; as many imposters)."""
    max_transitions: int = 8000
    """Most real transitions at one time step: rounds continue while greedy policy search (GPS)
    rejects a class."""
    psdp_samples: int = 2000
    """Episodes per contextual-bandit problem of a full PSDP (fallback of GPS)."""
    eval_samples: int = 500
    """Episodes per step of the reward-sensitive PSDP."""
    gps_epsilon: float = 0.1
    """Greedy policy search (GPS; Section 4, "Efficient Implementation of HOMER") learns the
    last step of a class's policy from the transitions already collected and appends it to the
    best policy of the previous cover; it accepts the composed policy when its estimated internal
    value is >= 1 - gps_epsilon, else the class gets a full PSDP."""
    ridge: float = 0.1
    """Relative ridge penalty of the linear Q regression of the contextual-bandit oracle: the
    penalty is ``ridge`` times the mean squared norm of the regression's observations
    (:func:`homer.psdp.ridge_penalty`; the intercept is not penalised). On the lock at H = 50
    (squared norm about 2.5 on the orthonormal scale) penalties 0.03 - 3 solve and 0.01 or less
    interpolate the observation noise."""
    evaluation_episodes: int = 2000
    """Rollouts used to estimate the value of the final policy (not counted as learning)."""
    torch_threads: int = DEFAULT_TORCH_THREADS
    """torch intra-op threads during the run (homer/process_state.py: one thread keeps a run
    steady next to other busy processes; part of the run's identity, since another thread count
    may change the last bits of the training)."""

    objective: str = "contrastive"
    """The abstraction step (homer/objectives.py): contrastive (HOMER), inverse_dynamics
    (curiosity), pcid, autoencoder, or one_class (the trivial reward-free bisimulation) - the
    last four are Section 5's failing objectives."""
    allow_small_capacity: bool = False
    """Run even when a capacity is below the most backward- or forward-KI classes of a layer (an
    experiment on a too narrow bottleneck): a one-line warning instead of the refusal."""

    def __post_init__(self) -> None:
        for item in fields(self):
            if item.name in RANGES:
                RANGES[item.name].check(getattr(self, item.name), item.name)
        if not isinstance(self.allow_small_capacity, bool):
            raise ValueError(f"allow_small_capacity must be True or False, got "
                             f"{self.allow_small_capacity!r}")
        if self.objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got "
                             f"{self.objective!r}")
        # the settings named as the reader types them: flags on the command line
        if self.min_epochs > self.max_epochs:
            raise ValueError(f"{setting('min_epochs', self.min_epochs)} must be at most "
                             f"{setting('max_epochs', self.max_epochs)}")
        if self.pretraining_width < max(self.backward_capacity, self.forward_capacity):
            raise ValueError(f"{setting('pretraining_width', self.pretraining_width)} must be "
                             f"at least the capacities "
                             f"({setting('backward_capacity', self.backward_capacity)}, "
                             f"{setting('forward_capacity', self.forward_capacity)})")
        if self.max_transitions < self.transitions:
            raise ValueError(f"{setting('max_transitions', self.max_transitions)} must be at "
                             f"least {setting('transitions', self.transitions)}")

    @classmethod
    def field_help(cls) -> dict[str, str]:
        """Field name -> its docstring (for the command line)."""
        import ast
        import inspect
        from itertools import pairwise

        definition = ast.parse(inspect.getsource(cls)).body[0]
        assert isinstance(definition, ast.ClassDef), "the source of a class"
        helps: dict[str, str] = {}
        for node, following in pairwise(definition.body):
            if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                    and isinstance(following, ast.Expr)
                    and isinstance(following.value, ast.Constant)
                    and isinstance(following.value.value, str)):
                helps[node.target.id] = following.value.value
        return {f.name: helps.get(f.name, "") for f in fields(cls)}

"""AC-State's and ACDF's objectives on ACDF's four tabular MDPs, at the population limit of the
ACDF paper's own experiment (Levine, Stone and Zhang 2024, "Multistep Inverse Is Not All You
Need", ``midi-lab/acdf``, ``numerical_experiments/numerical_experiments.py``).

Their experiment: one long trajectory per test, from a uniform start over the 10 observations,
with uniformly random actions; the counts of ``(a_t, x_t, x_{t+k})`` pooled over ``t`` for
``k = 1 .. K``; for every encoder ``phi`` (a set partition of the observations), the AC-State
loss (Lamb et al. 2022, "Guaranteed Discovery of Control-Endogenous Latent States with
Multi-Step Inverse Models": predict the first action from the encoded current and k-step-later
observations, one encoder on both ends)

``L_AC(phi; K) = (1/K) sum_{k=1..K} CE(a_t | phi(x_t), phi(x_{t+k}))``

and the ACDF loss ``L_AC(phi; K) + CE(phi(x_{t+1}) | phi(x_t), a_t)`` (the latent forward
model), each cross entropy of a plug-in predictor from training counts on validation counts
(their ``compute_rep_loss``); per ``K`` the selected encoder is the one with the fewest classes
whose loss is within a factor ``1 + 0.001`` of the minimum.

Population limit. The four chains under uniform actions are irreducible on the 10
observations, so the pooled counts of one trajectory, divided by their number, converge almost
surely (the ergodic theorem for the Markov chain of windows ``(x_t, a_t, .., x_{t+k})``) to
``J_k(x, a, y) = pi(x) / |A| * [T_a T_u^{k-1}](x, y)``, with ``pi`` the unique stationary
distribution of ``T_u`` (uniform actions) whatever the start: the Cesaro average
``(1/T) sum_t mu_0 T_u^t`` converges to ``pi`` even for a periodic chain, where
``mu_0 T_u^t`` itself does not (``periodic_example`` has period 3). The cross entropies become
conditional entropies under ``J_k``, so

- AC-State: ``L_AC(phi; K) >= (1/K) sum_k H(a | x, y under J_k)``, with equality iff ``phi``
  keeps ``p(a | x, y)`` under every ``J_k``, ``k <= K`` (decided exactly, Fractions);
- ACDF: the sum is at least that bound plus 0, and an encoder attaining both - AC-State
  optimal and ``phi(x_{t+1})`` a function of ``(phi(x_t), a_t)`` - is decided exactly. When
  none does (never on these four examples: each has deterministic endogenous moves), the
  minimisers are the encoders within ``1e-12`` (relative) of the float64 minimum.

Their ``0.001`` tolerance is the finite-sample version of the exact minimum; applied to the
population losses it can select a coarser encoder than the exact one (``tolerance_rule``).

>>> result = population_experiment("periodic_example", max_k=2)
>>> [(row.k, row.objective, row.classes, len(row.encoders), row.verdict)
...  for row in result.exact]  # doctest: +NORMALIZE_WHITESPACE
[(1, 'ac_state', 3, 91, 'incorrect'), (1, 'acdf', 4, 1, 'incorrect'),
 (2, 'ac_state', 3, 4, 'incorrect'), (2, 'acdf', 5, 1, 'correct')]
>>> result.exact[-1].names
('0,5|1,6|2,7|3,8|4,9',)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from math import gcd

import numpy as np

from kinematic.counterexamples.partition_search import (
    keeps_posteriors,
    latent_tables,
    partition_name,
    posterior_ids,
    set_partitions,
)
from kinematic.exogenous_examples import ACDF_EXAMPLES

__all__ = [
    "ACDF_GROUND_TRUTH",
    "ACDF_MAX_K",
    "ExperimentResult",
    "Selection",
    "acdf_chain",
    "chain_period",
    "classify_encoder",
    "k_step_joints",
    "population_experiment",
    "population_losses",
    "stationary_distribution",
]

ACDF_MAX_K = {"periodic_example": 4, "control_example": 4, "single_prime_loop": 7,
              "double_prime_loop": 30}
"""The largest ``K`` of each example's calls of ``run_test`` in their code."""

ACDF_GROUND_TRUTH = {
    name: np.arange(10) if name == "double_prime_loop" else np.arange(10) % 5
    for name in ACDF_MAX_K}
"""Their ground truths as labels of ``o = 0 .. 9``: the pairs ``{o, o + 5}``, the ten singletons
for ``double_prime_loop``."""

RELATIVE_TIE = 1e-12
"""Float losses within ``1e-12 * max(|minimum|, 1)`` of the minimum count as minimal (relative,
with an absolute floor for a minimum of 0 nats, which float64 computes within about 1e-16)."""

THEIR_TOLERANCE = 0.001
"""``loss_tolerace`` of their ``run_test`` calls."""


def acdf_chain(name: str) -> np.ndarray:
    """``T(y | x, a)`` of the example ``name`` on their observations ``o = 0 .. 9``, shape
    ``(10, 2, 10)`` of Fractions, read from the layered rebuild
    (:mod:`kinematic.exogenous_examples`; its observation ``"s@1|b"`` is ``o = s + 5 b``).

    >>> chain = acdf_chain("periodic_example")
    >>> [y for y in range(10) if chain[0, 1, y]]  # 0 -> 3 by action 1, bit flips w.p. 1/4
    [3, 8]
    """
    if name not in ACDF_EXAMPLES:
        raise ValueError(f"unknown ACDF example {name!r}; one of {', '.join(ACDF_EXAMPLES)}")
    mdp = ACDF_EXAMPLES[name](2).mdp

    def index(observation: str) -> int:
        state, bit = observation.split("@")[0], observation.split("|")[1]
        return int(state) + (5 * int(bit) if bit != "-" else 0)

    order = [index(x) for x in mdp.observations[0]]
    following = [index(y) for y in mdp.observations[1]]
    chain = np.empty((10, 2, 10), dtype=object)
    tensor = mdp.observation_transition_tensor(0)
    for i, x in enumerate(order):
        for j, y in enumerate(following):
            chain[x, :, y] = [Fraction(p) for p in tensor[i, :, j]]
    return chain


def _reachable(matrix: np.ndarray, source: int) -> list[int]:
    """Breadth-first distances from ``source`` (``-1``: unreachable)."""
    distance = [-1] * len(matrix)
    distance[source], frontier = 0, [source]
    while frontier:
        following = []
        for x in frontier:
            for y in np.flatnonzero(matrix[x] != 0):
                if distance[y] < 0:
                    distance[y] = distance[x] + 1
                    following.append(int(y))
        frontier = following
    return distance


def chain_period(matrix: np.ndarray) -> int:
    """The period of an irreducible chain ``matrix[x, y]``: the gcd of ``d(x) + 1 - d(y)`` over
    its edges, ``d`` the distances from state 0.

    >>> chain_period(np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]]))
    3
    """
    distance = _reachable(matrix, 0)
    period = 0
    for x, y in zip(*np.nonzero(matrix), strict=True):
        period = gcd(period, distance[x] + 1 - distance[y])
    return period


def stationary_distribution(matrix: np.ndarray) -> np.ndarray:
    """The stationary distribution ``pi = pi T`` of an irreducible chain ``matrix[x, y]`` of
    Fractions, exactly (Gauss-Jordan elimination over the rationals); a reducible chain is
    refused (its long-run average would depend on the start).

    >>> stationary_distribution(np.array([[Fraction(1, 2), Fraction(1, 2)], [1, 0]],
    ...                                   dtype=object)).tolist()
    [Fraction(2, 3), Fraction(1, 3)]
    """
    size = len(matrix)
    if any(d < 0 for x in range(size) for d in _reachable(matrix, x)):
        raise ValueError("the chain is reducible: its long-run distribution depends on the start")
    # pi (T - I) = 0 with sum(pi) = 1: the transposed system, its last equation replaced
    rows = [[Fraction(matrix[y][x]) - (x == y) for y in range(size)] + [Fraction(0)]
            for x in range(size)]
    rows[-1] = [Fraction(1)] * size + [Fraction(1)]
    for column in range(size):
        pivot = next(r for r in range(column, size) if rows[r][column] != 0)
        rows[column], rows[pivot] = rows[pivot], rows[column]
        lead = rows[column][column]
        rows[column] = [v / lead for v in rows[column]]
        for r in range(size):
            if r != column and rows[r][column] != 0:
                factor = rows[r][column]
                rows[r] = [v - factor * w for v, w in zip(rows[r], rows[column], strict=True)]
    return np.array([row[-1] for row in rows], dtype=object)


def k_step_joints(chain: np.ndarray, max_k: int) -> list[np.ndarray]:
    """``J_k(x, a, y) = pi(x) / |A| * [T_a T_u^{k-1}](x, y)`` for ``k = 1 .. max_k`` (exact),
    ``pi`` the stationary distribution of ``T_u`` (uniform actions): the limit of their pooled
    ``(x_t, a_t, x_{t+k})`` frequencies."""
    actions = chain.shape[1]
    uniform = chain.sum(axis=1) / actions
    pi = stationary_distribution(uniform)
    reach = chain.copy()  # [T_a T_u^{k-1}](x, y) as (x, a, y)
    joints = []
    for _ in range(max_k):
        joints.append(pi[:, None, None] * reach / actions)
        reach = np.einsum("xay,yz->xaz", reach, uniform)
    return joints


def classify_encoder(labels: np.ndarray, truth: np.ndarray) -> str:
    """Their ``classify_output``: ``"incorrect"`` when a class of ``labels`` meets two classes
    of ``truth``, else ``"correct"`` when both have as many classes, else ``"too many
    states"``.

    >>> classify_encoder(np.array([0, 0, 1, 2]), np.array([0, 0, 1, 1]))
    'too many states'
    """
    refines = all(len(set(truth[labels == c])) == 1 for c in np.unique(labels))
    if not refines:
        return "incorrect"
    return "correct" if len(np.unique(labels)) == len(np.unique(truth)) else "too many states"


@dataclass(frozen=True, eq=False)
class Selection:
    """The encoders an objective selects at one ``K``.

    Attributes
    ----------
    objective : str
        ``"ac_state"`` or ``"acdf"``.
    k : int
        ``K``: the loss averages the inverse terms of ``k = 1 .. K``.
    encoders : tuple of ndarrays
        Every selected encoder (labels of ``o = 0 .. 9``), all with ``classes`` classes.
    names : tuple of str
        The same, as :func:`~kinematic.counterexamples.partition_search.partition_name`.
    verdict : str
        :func:`classify_encoder` of the encoders against the ground truth (``"incorrect"`` if
        any of several is).
    loss : float
        The population loss of the selected encoders, in nats.
    decided : str
        ``"exact"`` (Fractions) or ``"float"`` (within :data:`RELATIVE_TIE`, or the tolerance
        rule).
    coarser_margin : float
        ``(L' - L) / L``: how far above the selected loss ``L`` the best encoder with fewer
        classes is (``inf`` when there is none; below :data:`THEIR_TOLERANCE` their rule
        selects that coarser encoder).
    """

    objective: str
    k: int
    encoders: tuple[np.ndarray, ...]
    names: tuple[str, ...]
    classes: int
    verdict: str
    loss: float
    decided: str
    coarser_margin: float

    @property
    def unique(self) -> bool:
        return len(self.encoders) == 1

    def __repr__(self) -> str:
        ties = "" if self.unique else f" (one of {len(self.encoders)})"
        return (f"<Selection {self.objective} K={self.k}: {self.verdict}, {self.classes} "
                f"classes, {self.names[0]}{ties}>")


@dataclass(frozen=True, eq=False)
class ExperimentResult:
    """:func:`population_experiment`'s answer: ``exact`` holds the coarsest exact minimisers
    (per ``K``: AC-State, then ACDF), ``tolerance_rule`` what their rule (the fewest classes
    within ``1 + 0.001`` of the minimum) selects on the population losses; ``period`` is the
    chain's period under uniform actions, ``seconds`` the time of the enumeration."""

    example: str
    max_k: int
    period: int
    exact: tuple[Selection, ...]
    tolerance_rule: tuple[Selection, ...]
    seconds: float

    def __repr__(self) -> str:
        return (f"<ExperimentResult {self.example}: K = 1..{self.max_k}, period {self.period}; "
                "print it for the table>")

    def __str__(self) -> str:
        """One line per ``K`` and objective: the verdict, the classes, a coarsest minimiser
        (how many tie) and what their 0.001 rule selects where it differs."""
        rule = {(s.objective, s.k): s for s in self.tolerance_rule}
        lines = [f"{self.example} at its population limit (period {self.period}):"]
        for chosen in self.exact:
            ties = "" if chosen.unique else f" (one of {len(chosen.encoders)})"
            other = rule[chosen.objective, chosen.k]
            differs = ("" if other.names == chosen.names else
                       f"; their 0.001 rule: {other.verdict}, {other.names[0]}")
            lines.append(f"  K={chosen.k:<2} {chosen.objective:8} {chosen.verdict:15} "
                         f"{chosen.classes:2} classes  {chosen.names[0]}{ties}{differs}")
        return "\n".join(lines)


def _selection(objective: str, k: int, labels: np.ndarray, chosen: np.ndarray,
               losses: np.ndarray, truth: np.ndarray, decided: str) -> Selection:
    encoders = tuple(labels[chosen])
    verdicts = {classify_encoder(e, truth) for e in encoders}
    verdict = "incorrect" if "incorrect" in verdicts else verdicts.pop()
    classes = int(labels[chosen][0].max()) + 1
    loss = float(losses[chosen].min())
    coarser = losses[labels.max(axis=1) + 1 < classes]
    margin = ((float(coarser.min()) - loss) / loss if len(coarser) and loss > RELATIVE_TIE
              else np.inf)  # a minimum of 0: no coarser encoder is within any factor of it
    return Selection(objective, k, encoders, tuple(partition_name(e) for e in encoders),
                     classes, verdict, loss, decided, margin)


def _coarsest(mask: np.ndarray, classes: np.ndarray) -> np.ndarray:
    return mask & (classes == classes[mask].min())


def _tolerance_rule(losses: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Their rule on population losses: the fewest classes whose best loss is within
    ``1 + 0.001`` of the minimum, and the encoders of that size attaining that size's best."""
    fewest = classes[_within(losses, THEIR_TOLERANCE)].min()
    return _within(np.where(classes == fewest, losses, np.inf), 0.0)


def _within(losses: np.ndarray, relative: float) -> np.ndarray:
    """The losses within ``relative`` of the minimum (:data:`RELATIVE_TIE`'s absolute floor)."""
    best = losses.min()
    return losses <= best + relative * abs(best) + RELATIVE_TIE * max(1.0, abs(best))


def population_losses(joints: list[np.ndarray], labels: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For encoders ``labels`` (``(E, m)``, one per row, on both ends) and the joints ``J_k`` of
    :func:`k_step_joints`: the inverse entropies ``H(a | phi(x), phi(y))`` under each ``J_k``
    (``(K, E)``, nats), whether each ``J_k``'s posteriors are kept (``(K, E)``, exact), the
    forward entropy ``H(phi(y) | phi(x), a)`` under ``J_1`` (``(E,)``) and whether it is exactly
    0 (``(E,)``)."""
    inverse = np.empty((len(joints), len(labels)))
    keeps = np.empty((len(joints), len(labels)), dtype=bool)
    forward, deterministic = np.empty(len(labels)), np.empty(len(labels), dtype=bool)
    for k, joint in enumerate(joints):
        keeps[k] = keeps_posteriors(posterior_ids(joint), labels)
        start = 0
        for tables in latent_tables(joint, labels):
            stop = start + len(tables.tables)
            inverse[k, start:stop] = tables.action_entropy()
            if k == 0:
                forward[start:stop] = tables.forward_entropy()
                deterministic[start:stop] = tables.forward_deterministic()
            start = stop
    return inverse, keeps, forward, deterministic


def population_experiment(name: str, max_k: int | None = None) -> ExperimentResult:
    """Every encoder of the 10 observations of ACDF's example ``name`` scored by AC-State's and
    ACDF's population losses for ``K = 1 .. max_k`` (default :data:`ACDF_MAX_K`), the coarsest
    minimisers selected exactly (module docstring), and their tolerance rule."""
    max_k = ACDF_MAX_K.get(name, 1) if max_k is None else max_k
    if max_k < 1:
        raise ValueError(f"max_k must be at least 1, got {max_k}")
    chain = acdf_chain(name)
    truth = ACDF_GROUND_TRUTH[name]
    started = time.perf_counter()
    labels = set_partitions(10)
    classes = labels.max(axis=1).astype(int) + 1
    inverse, keeps, forward, deterministic = population_losses(k_step_joints(chain, max_k),
                                                               labels)
    exact, rule = [], []
    for k in range(1, max_k + 1):
        ac_loss = inverse[:k].mean(axis=0)
        optimal = np.all(keeps[:k], axis=0)
        exact.append(_selection("ac_state", k, labels, _coarsest(optimal, classes), ac_loss,
                                truth, "exact"))
        acdf_loss = ac_loss + forward
        if (optimal & deterministic).any():
            acdf_optimal: np.ndarray = optimal & deterministic
            decided = "exact"
        else:
            acdf_optimal = _within(acdf_loss, 0.0)
            decided = "float"
        exact.append(_selection("acdf", k, labels, _coarsest(acdf_optimal, classes), acdf_loss,
                                truth, decided))
        for objective, loss in (("ac_state", ac_loss), ("acdf", acdf_loss)):
            rule.append(_selection(objective, k, labels, _tolerance_rule(loss, classes), loss,
                                   truth, "float"))
    period = chain_period(chain.sum(axis=1))
    return ExperimentResult(name, max_k, period, tuple(exact), tuple(rule),
                            time.perf_counter() - started)

"""Score any learner's state abstraction and policy cover against the exact answers of the Block
MDP its observations come from - HOMER's or anyone's (``python -m homer evaluate``).

An **abstraction** is a function ``phi(observations, step) -> classes``: ``observations`` an
``(n, d)`` array of encoded observations of time step ``step`` (1-based, as the paper's ``h``),
the result ``n`` integer classes. Every latent observation ``o`` of step ``h`` is dressed in
``samples`` fresh encodings (:class:`homer.encoded.EncodedObservations`; the paper's encoder
:class:`homer.encoders.HadamardNoise` unless another is given) and ``phi``'s classes of them are
compared with each exact partition of the step - backward KI (``def:bki``), forward KI
(``def:fki``) and KI (``def:ki``), and for an exogenous Block MDP, when asked, its endogenous
partition (``exact_partitions(mdp, endogenous=...)``, ``homer evaluate --against endogenous``):

- the **confusion** matrix (learned class x exact class, sample counts), **purity** and the
  **adjusted Rand index** over the samples;
- the **merge rate** of every pair of distinct exact classes ``C != D`` of the step (kinematically
  separable states, for KI): with ``share_C(l)`` the share of C's encodings in the learned class
  ``l``, ``rate(C -> D)`` is the largest ``share_C(l)`` over the learned classes ``l`` that hold
  at least as large a share of D's encodings, ``share_D(l) >= share_C(l)`` (there is always one:
  both shares sum to 1 over ``l``; a tie goes to the smallest class); the pair's merge rate is
  ``max(rate(C -> D), rate(D -> C))``, that is the largest share of both classes that one learned
  class holds, ``max_l min(share_C(l), share_D(l))``. Comparing with D's majority learned class
  alone (the rule before) is blind when D is split: D 50/50 between ``L1`` and ``L2`` and 40% of
  C in ``L2`` give a policy rewarded for ``L2`` no way to tell C from D, yet neither D's
  majority class nor C's holds both. Shares pool a class's encodings, that is weight the latent
  observations of a class equally (each has ``samples`` encodings), as the confusion matrix,
  purity and *misassigned* do - not by the cover's roll-in, which only the pairwise agreement
  uses. The standard error of ``rate(C -> D) = p`` is the binomial ``sqrt(p (1 - p) / n)`` over
  the ``n`` encodings of C (with an equal number per observation, a bound on that of the
  stratified estimate). A **wrong merge** is a pair whose merge rate exceeds ``merge_threshold``
  (default 0.05, :data:`homer.settings.MERGE_THRESHOLD`): a learned class that also holds, say,
  40% of a separable state's encodings is a stochastic merge of the two - what HOMER's
  guarantee needs absent - even though each observation's majority still lands in its own
  class. A step with one exact class has no pair, hence no wrong merge;
- each observation is **assigned** to the learned class most of its encodings fall into (ties:
  the smallest class); a **split** is an exact class whose observations are assigned to more
  than one learned class (harmless for correctness, costs capacity); **misassigned** is the share
  of encodings outside their observation's assigned class; ``majority_wrong_merges`` counts the
  pairs of distinct exact classes with observations assigned to one learned class, the rule
  before merge rates, kept so that reports stay comparable with earlier ones: every pair it
  counts has a positive merge rate (its learned class holds encodings of both), so merge rates
  see all of them once ``merge_threshold`` is low enough;
- the **pairwise agreement** of Intrepid's ``evaluate_state_decoder.py`` (the authors' later
  library): two observations drawn independently from the roll-in of a policy cover, the event
  that ``phi`` gives them the same class exactly when they come from the same latent state. It is
  computed in closed form, ``1 - P(same state) - P(same class) + 2 P(same state, same class)``,
  over the roll-in of the exact cover (a uniformly chosen exact homing policy of a state of the
  step, ``def:homing``, as :func:`kinematic.homing_policy` gives it: :func:`cover_roll_in`)
  and ``phi``'s class shares, instead of from 5,000 sampled pairs of a learned cover. It
  compares with latent states, not KI classes: a learner that keeps kinematically inseparable
  states together (as HOMER may) loses agreement without any wrong merge.

>>> import numpy as np
>>> from kinematic import combination_lock
>>> lock = combination_lock(horizon=3, actions=2, seed=0)
>>> report = evaluate_abstraction(lock, lambda observations, step: np.zeros(len(observations),
...                                                                         dtype=int))
>>> [step["ki"].wrong_merges for step in report.steps]  # one class: all separable pairs merged
[1, 3, 1]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from math import sqrt
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.metrics import adjusted_rand_score
from sklearn.metrics.cluster import contingency_matrix

from homer.encoded import EncodedObservations, Encoder
from homer.encoders import HadamardNoise
from homer.policy_evaluation import (
    CoverReport,
    ObservationPolicy,
    evaluate_policies,
    float_model,
    returned_array,
)
from homer.settings import EVALUATE_AGAINST, MERGE_THRESHOLD, MERGE_THRESHOLDS
from kinematic.homing import homing_policies
from kinematic.inseparability import backward_ki_partition, forward_ki_partition, ki_partition
from kinematic.model import BlockMDP
from kinematic.partition import Partition
from kinematic.visitation import observation_visitation

__all__ = [
    "EVALUATE_AGAINST", "KINDS", "MERGE_THRESHOLD", "MERGE_THRESHOLDS", "Abstraction",
    "AbstractionComparison",
    "AbstractionReport", "CoverReport", "EncodedObservations", "Encoder", "Leak", "MergeRate",
    "ObservationPolicy", "compare_classes", "cover_roll_in", "evaluate_abstraction",
    "evaluate_policies", "exact_partitions", "learned_classes", "merge_rates",
    "pairwise_agreement",
]

Abstraction = Callable[[np.ndarray, int], ArrayLike]
"""``phi(observations, step) -> classes``: encoded observations ``(n, d)`` of time step ``step``
(1-based) -> one integer class per row."""

KINDS = ("backward", "forward", "ki")
"""The exact partitions a learned abstraction is compared with: backward KI (``def:bki``),
forward KI (``def:fki``) and KI (``def:ki``)."""


@dataclass(frozen=True)
class Leak:
    """``rate(C -> D)`` (module docstring): the largest share of the encodings of the exact class
    ``source`` (C) in a learned class holding at least as large a share of the encodings of the
    exact class ``target`` (D). Classes are indices into
    :attr:`AbstractionComparison.exact_classes`.
    """

    source: int
    target: int
    learned_class: int
    """The learned class attaining the rate (the smallest on a tie)."""
    rate: float
    """The share of C's encodings in :attr:`learned_class`."""
    standard_error: float
    """``sqrt(rate (1 - rate) / encodings)``."""
    encodings: int
    """C's encodings: the ``n`` of the standard error."""
    target_share: float
    """The share of D's encodings in :attr:`learned_class`: at least :attr:`rate`."""

    def to_json(self) -> dict[str, Any]:
        return {"from": self.source, "into": self.target, "learned_class": self.learned_class,
                "rate": self.rate, "standard_error": self.standard_error,
                "encodings": self.encodings, "target_share": self.target_share}


@dataclass(frozen=True)
class MergeRate:
    """A pair of distinct exact classes ``first < second`` and its two leaks, ``first ->
    second`` then ``second -> first``; the pair's merge rate is the larger (module docstring).
    """

    first: int
    second: int
    leaks: tuple[Leak, Leak]

    @property
    def worst(self) -> Leak:
        """The leak with the larger rate (``first -> second`` on a tie)."""
        forth, back = self.leaks
        return back if back.rate > forth.rate else forth

    @property
    def rate(self) -> float:
        """``max(rate(first -> second), rate(second -> first))``."""
        return self.worst.rate

    def to_json(self) -> dict[str, Any]:
        """The pair (indices into the comparison's ``exact_classes``), its merge rate and the
        standard error of the larger leak, and both leaks."""
        return {"classes": [self.first, self.second], "rate": self.rate,
                "standard_error": self.worst.standard_error,
                "leaks": [leak.to_json() for leak in self.leaks]}


def merge_rates(confusion: np.ndarray, learned_classes: list[int]) -> list[MergeRate]:
    """The merge rate of every pair of exact classes with encodings, from ``confusion``
    (encoding counts, rows ``learned_classes``, columns the exact classes; module docstring).

    Exact class 0 has 10 encodings, 4 of them in learned class 7, which holds all 10 of exact
    class 1's:

    >>> [pair] = merge_rates(np.array([[6, 0], [4, 10]]), [3, 7])
    >>> pair.rate, pair.worst.learned_class, pair.worst.target_share
    (0.4, 7, 1.0)
    >>> round(pair.worst.standard_error, 4)
    0.1549
    >>> pair.leaks[1].rate  # none of class 1 in a class holding as much of class 0
    0.0
    """
    counts = np.asarray(confusion)
    encodings = counts.sum(axis=0)

    def leak(source: int, target: int) -> Leak:
        # share_D(l) >= share_C(l) in integers: counts[l, D] n_C >= counts[l, C] n_D
        holds = counts[:, target] * encodings[source] >= counts[:, source] * encodings[target]
        row = int(np.where(holds, counts[:, source], -1).argmax())  # the first: smallest class
        n = int(encodings[source])
        rate = float(counts[row, source] / n)
        return Leak(source, target, int(learned_classes[row]), rate,
                    sqrt(rate * (1.0 - rate) / n), n,
                    float(counts[row, target] / encodings[target]))

    seen = [int(k) for k in np.flatnonzero(encodings > 0)]
    return [MergeRate(first, second, (leak(first, second), leak(second, first)))
            for first, second in combinations(seen, 2)]


@dataclass(frozen=True)
class AbstractionComparison:
    """Learned classes of one time step against one exact partition of it."""

    kind: str
    """``backward``, ``forward``, ``ki`` or ``endogenous``: the exact partition compared with."""
    exact_classes: list[list[str]]
    learned_classes: list[int]
    confusion: np.ndarray
    """Sample counts, rows ``learned_classes``, columns ``exact_classes``."""
    assignment: dict[str, int]
    """Latent observation -> the learned class most of its encodings fall into."""
    misassigned: float
    """Share of the encodings not in their observation's assigned class."""
    splits: int
    """Exact classes whose observations are assigned to two or more learned classes."""
    purity: float
    adjusted_rand_index: float
    pairwise_agreement: float | None = None
    """Intrepid's permutation-invariant agreement with the latent states (module docstring);
    None when the observations' roll-in weights were not given."""
    merge_rates: list[MergeRate] = field(default_factory=list)
    """Every pair of distinct exact classes with encodings and its merge rate."""
    merge_threshold: float = MERGE_THRESHOLD
    """A pair whose merge rate exceeds it is a wrong merge."""
    majority_wrong_merges: int = 0
    """Pairs of distinct exact classes whose observations are assigned to one learned class
    (each pair counted once, however many learned classes merge it; module docstring)."""

    @property
    def merges(self) -> list[MergeRate]:
        """The wrong merges: the pairs whose merge rate exceeds :attr:`merge_threshold`, the
        largest rate first (then in the order of :attr:`merge_rates`)."""
        return sorted((pair for pair in self.merge_rates if pair.rate > self.merge_threshold),
                      key=lambda pair: -pair.rate)

    @property
    def wrong_merges(self) -> int:
        """How many pairs of distinct exact classes are wrongly merged (:attr:`merges`)."""
        return len(self.merges)

    @property
    def one_class(self) -> bool:
        """The exact partition of the step has one class (or none): nothing to merge, so
        misassigned encodings cost nothing there."""
        return len(self.exact_classes) < 2

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "exact_classes": self.exact_classes,
            "learned_classes": self.learned_classes, "confusion": self.confusion.tolist(),
            "assignment": self.assignment, "misassigned": self.misassigned,
            "wrong_merges": self.wrong_merges, "merge_threshold": self.merge_threshold,
            "merge_rates": [pair.to_json() for pair in self.merge_rates],
            "majority_wrong_merges": self.majority_wrong_merges, "splits": self.splits,
            "purity": self.purity, "adjusted_rand_index": self.adjusted_rand_index,
            "pairwise_agreement": self.pairwise_agreement,
        }


def learned_classes(phi: Abstraction, observations: np.ndarray, step: int,
                    name: str = "phi") -> np.ndarray:
    """``phi(observations, step)`` checked: one integer class per row, as int64; anything
    else (None, a ragged list, a wrong shape or dtype) raises ``ValueError`` naming ``name``
    and the step."""
    returned = phi(observations, step)
    if returned is None:
        raise ValueError(f"{name}(observations, {step}) returned None; expected one integer "
                         f"class per row of the {len(observations)} observations")
    classes = returned_array(returned, f"{name}(observations, {step})",
                             "one integer class per row")
    if classes.shape != (len(observations),):
        raise ValueError(f"{name}(observations, {step}) returned an array of shape "
                         f"{classes.shape}; expected one class per row of the {len(observations)}"
                         f" observations: shape ({len(observations)},)")
    integral = classes.dtype.kind in "iu" or (
        classes.dtype.kind == "f" and bool(np.all(np.abs(classes) < 2.0 ** 62))
        and bool(np.all(classes == np.round(classes))))
    if not integral:
        raise ValueError(f"{name}(observations, {step}) must return integer classes, got "
                         f"dtype {classes.dtype} (first values {classes[:3].tolist()})")
    return classes.astype(np.int64)


def majority(counts: Counter) -> Any:
    """The most common key of ``counts``, the smallest on a tie.

    >>> majority(Counter([2, 1, 2, 1, 0]))
    1
    """
    return min(counts, key=lambda key: (-counts[key], key))


def pairwise_agreement(states: np.ndarray, shares: np.ndarray, weights: np.ndarray) -> float:
    """Probability that two observations drawn independently from ``weights`` (one per latent
    observation) get the same learned class exactly when they come from the same latent state:
    ``1 - P(same state) - P(same class) + 2 P(same state, same class)``, each observation's
    class drawn from its row of ``shares`` (observation x class) and ``states`` the index of
    the state emitting each observation.

    Two observations of two states, each always given its own class, agree always; one class
    for both agrees only on pairs from the same state:

    >>> pairwise_agreement(np.array([0, 1]), np.eye(2), np.array([0.5, 0.5]))
    1.0
    >>> pairwise_agreement(np.array([0, 1]), np.array([[1.0], [1.0]]), np.array([0.5, 0.5]))
    0.5
    """
    joint = weights[:, None] * shares  # P(observation, class)
    by_state = np.zeros((int(states.max()) + 1, shares.shape[1]))
    np.add.at(by_state, states, joint)
    same_state = float(np.sum(by_state.sum(axis=1) ** 2))
    same_class = float(np.sum(joint.sum(axis=0) ** 2))
    both = float(np.sum(by_state ** 2))
    return 1.0 - same_state - same_class + 2.0 * both


def compare_classes(mdp: BlockMDP, step: int, kind: str, exact_classes: list[list[str]],
                    observation_ids: np.ndarray, learned: np.ndarray,
                    roll_in: np.ndarray | None = None,
                    merge_threshold: float = MERGE_THRESHOLD) -> AbstractionComparison:
    """Compare the learned classes ``learned`` of encodings of the observations
    ``observation_ids`` of time step ``step`` (1-based) with ``exact_classes`` (lists of state
    names, as :meth:`kinematic.Partition.blocks` gives them); ``roll_in`` (a weight per
    observation of the step, :func:`cover_roll_in`) adds the pairwise agreement, over the
    observations among ``observation_ids``; a pair of exact classes whose merge rate exceeds
    ``merge_threshold`` is a wrong merge."""
    MERGE_THRESHOLDS.check(merge_threshold, "merge_threshold")
    layer = step - 1
    class_of_state = {state: k for k, block in enumerate(exact_classes) for state in block}
    observations = mdp.observations[layer]
    state_of_observation = np.asarray(mdp.emission_state[layer])
    exact_of_observation = np.array([class_of_state[mdp.layers[layer][s]]
                                     for s in state_of_observation])
    exact = exact_of_observation[observation_ids]
    classes = sorted(int(c) for c in np.unique(learned))
    confusion = contingency_matrix(learned, exact)
    full = np.zeros((len(classes), len(exact_classes)), dtype=np.int64)
    full[:, sorted(set(exact.tolist()))] = confusion
    shares = np.zeros((len(observations), len(classes)))
    np.add.at(shares, (observation_ids, np.searchsorted(classes, learned)), 1)
    seen = shares.sum(axis=1) > 0
    picked = shares.argmax(axis=1)  # the first largest: the smallest class on a tie (majority)
    assignment: dict[str, int] = {}
    merged: dict[int, set[int]] = {}
    spread: dict[int, set[int]] = {}
    for x in np.flatnonzero(seen):
        chosen = classes[picked[x]]
        assignment[observations[x]] = chosen
        merged.setdefault(chosen, set()).add(int(exact_of_observation[x]))
        spread.setdefault(int(exact_of_observation[x]), set()).add(chosen)
    misassigned = float((shares.sum(axis=1) - shares.max(axis=1)).sum())
    agreement = None
    if roll_in is not None and roll_in[seen].sum() > 0:
        # over the observations with encodings, their roll-in weights renormalised
        agreement = pairwise_agreement(state_of_observation[seen],
                                       shares[seen] / shares[seen].sum(axis=1, keepdims=True),
                                       roll_in[seen] / roll_in[seen].sum())
    return AbstractionComparison(
        kind=kind, exact_classes=[list(block) for block in exact_classes],
        learned_classes=classes, confusion=full, assignment=assignment,
        misassigned=misassigned / len(learned),
        splits=sum(len(spread_of) > 1 for spread_of in spread.values()),
        purity=float(full.max(axis=1).sum() / full.sum()),
        adjusted_rand_index=float(adjusted_rand_score(exact, learned)),
        pairwise_agreement=agreement, merge_rates=merge_rates(full, classes),
        merge_threshold=merge_threshold,
        majority_wrong_merges=len({pair for blocks in merged.values()
                                   for pair in combinations(sorted(blocks), 2)}),
    )


def exact_partitions(mdp: BlockMDP, endogenous: Partition | None = None
                     ) -> dict[str, Partition]:
    """The backward KI, forward KI and KI partitions of ``mdp``, by :data:`KINDS`, and
    ``endogenous`` (the endogenous partition of an exogenous Block MDP,
    :func:`kinematic.endogenous_partition`) as ``"endogenous"`` when given.

    >>> from kinematic import (combination_lock, endogenous_partition, exogenous_block_mdp,
    ...                        exogenous_chain)
    >>> coin = exogenous_chain(["h", "t"], {"h": "1/2", "t": "1/2"},
    ...                        {"h": {"h": "1/2", "t": "1/2"}, "t": {"h": "1/2", "t": "1/2"}},
    ...                        horizon=3)
    >>> noisy = exogenous_block_mdp(combination_lock(3, 2, seed=0), coin)
    >>> list(exact_partitions(noisy.mdp, endogenous_partition(noisy)))
    ['backward', 'forward', 'ki', 'endogenous']
    """
    backward, forward = backward_ki_partition(mdp), forward_ki_partition(mdp)
    partitions = {"backward": backward, "forward": forward,
                  "ki": ki_partition(mdp, backward, forward)}
    if endogenous is not None:
        if endogenous.kind != "endogenous":
            raise ValueError(f"endogenous: a partition of kind 'endogenous' "
                             f"(kinematic.endogenous_partition), got kind {endogenous.kind!r}")
        partitions["endogenous"] = endogenous
    return partitions


def _kinds(steps: list[dict[str, AbstractionComparison]]) -> tuple[str, ...]:
    """The exact partitions the steps were compared with: :data:`KINDS` and those of
    :data:`EVALUATE_AGAINST` present."""
    present = {kind for step in steps for kind in step}
    return (*KINDS, *(kind for kind in EVALUATE_AGAINST if kind in present))


def cover_roll_in(mdp: BlockMDP) -> list[np.ndarray]:
    """Per time step, the distribution of its observations when a state of the step is chosen
    uniformly and its exact homing policy (``def:homing``) is followed: the roll-in of
    an ideal policy cover, over which :func:`pairwise_agreement` draws its pairs (floats).
    The homing policies are :func:`kinematic.homing_policies`: ties to the first action, and
    the first action at the states from which the target cannot be reached."""
    floats = float_model(mdp)
    homing = homing_policies(floats)
    roll_in = []
    for layer, states in enumerate(floats.layers):
        total = np.zeros(len(floats.observations[layer]))
        for state in states:
            reached = observation_visitation(floats, homing[state])
            total += np.asarray(reached[layer], dtype=float)
        roll_in.append(total / len(states))
    return roll_in


@dataclass(frozen=True)
class AbstractionReport:
    """:func:`evaluate_abstraction`'s result: per time step (``steps[h - 1]``), the learned
    classes against each exact partition (:data:`KINDS`, and ``endogenous`` when given)."""

    mdp: str
    samples: int
    seed: int
    steps: list[dict[str, AbstractionComparison]]
    merge_threshold: float = MERGE_THRESHOLD
    """A pair of exact classes whose merge rate exceeds it is a wrong merge."""

    def __repr__(self) -> str:
        """One line: where the wrong merges are against each exact partition (the numbers are in
        :attr:`steps`, the text summary is ``homer evaluate``'s)."""
        merges = ", ".join(f"{kind} {self.steps_with_wrong_merges(kind) or 'none'}"
                           for kind in _kinds(self.steps))
        return (f"<AbstractionReport on {self.mdp!r}: {len(self.steps)} steps, {self.samples} "
                f"encodings per observation (seed {self.seed}); steps with wrong merges (merge "
                f"rate above {self.merge_threshold}) vs {merges}>")

    def steps_with_wrong_merges(self, kind: str = "ki") -> list[int]:
        """The steps (1-based) where the abstraction merges distinct ``kind`` classes (a merge
        rate above :attr:`merge_threshold`)."""
        return [h for h, step in enumerate(self.steps, start=1)
                if kind in step and step[kind].wrong_merges]

    def to_json(self) -> dict[str, Any]:
        """``report.json`` of ``homer evaluate``'s abstraction part: each step's comparison
        with each exact partition (:meth:`AbstractionComparison.to_json`: every pair's merge
        rate, with standard errors) and ``merge_threshold``."""
        return {
            "mdp": self.mdp, "samples": self.samples, "seed": self.seed,
            "merge_threshold": self.merge_threshold,
            "steps_with_wrong_merges": {kind: len(self.steps_with_wrong_merges(kind))
                                        for kind in _kinds(self.steps)},
            "steps": [{"step": h, "wrong_merges": step["ki"].wrong_merges,
                       "splits": step["ki"].splits,
                       "abstractions": {kind: c.to_json() for kind, c in step.items()}}
                      for h, step in enumerate(self.steps, start=1)],
        }


def compare_steps(mdp: BlockMDP, encoded: EncodedObservations,
                  abstractions: Mapping[int, Mapping[str, Abstraction]],
                  partitions: Mapping[str, Partition] | None = None,
                  roll_in: list[np.ndarray] | None = None,
                  names: Mapping[str, str] | None = None,
                  merge_threshold: float = MERGE_THRESHOLD,
                  ) -> dict[int, dict[str, AbstractionComparison]]:
    """The per-step abstraction report, one implementation for ``homer evaluate`` and ``homer
    compare``: ``abstractions[step][kind]`` is compared with the exact ``kind`` partition on
    the step's encodings (``names[kind]`` names the function in errors; a merge rate above
    ``merge_threshold`` is a wrong merge); a function given for several kinds is called once
    per step."""
    partitions = exact_partitions(mdp) if partitions is None else partitions
    roll_in = cover_roll_in(mdp) if roll_in is None else roll_in
    names = names or {}
    compared: dict[int, dict[str, AbstractionComparison]] = {}
    for step, functions in abstractions.items():
        ids, vectors = encoded.step(step)
        compared[step] = {}
        classified: dict[int, tuple[Abstraction, np.ndarray]] = {}
        for kind, phi in functions.items():
            if id(phi) not in classified:
                classified[id(phi)] = phi, learned_classes(phi, vectors, step,
                                                           names.get(kind, "phi"))
            learned = classified[id(phi)][1]
            compared[step][kind] = compare_classes(mdp, step, kind,
                                                   partitions[kind].blocks(step), ids, learned,
                                                   roll_in[step - 1], merge_threshold)
    return compared


def evaluate_abstraction(mdp: BlockMDP, phi: Abstraction, encoder: Encoder | None = None,
                         samples: int = 500, seed: int = 0, name: str = "phi",
                         partitions: Mapping[str, Partition] | None = None,
                         merge_threshold: float = MERGE_THRESHOLD) -> AbstractionReport:
    """Score the abstraction ``phi(observations, step) -> classes`` at every time step of
    ``mdp`` against its backward KI, forward KI and KI partitions (module docstring), and its
    endogenous partition when ``partitions`` has one (:func:`exact_partitions`):
    ``samples`` encodings of each latent observation by ``encoder``
    (:class:`homer.encoders.HadamardNoise` when None), drawn from ``seed``; ``name`` names
    ``phi`` in errors (a result that is not one integer class per row); ``partitions`` are
    :func:`exact_partitions` when already computed; a pair of exact classes whose merge rate
    exceeds ``merge_threshold`` (in ``[0, 1)``) is a wrong merge.

    >>> import numpy as np
    >>> from kinematic import combination_lock
    >>> lock = combination_lock(horizon=3, actions=2, seed=0)
    >>> report = evaluate_abstraction(lock, lambda x, step: np.zeros(len(x), dtype=int))
    >>> report.steps_with_wrong_merges("ki"), report.steps_with_wrong_merges("backward")
    ([1, 2, 3], [2, 3])
    """
    MERGE_THRESHOLDS.check(merge_threshold, "merge_threshold")
    encoder = HadamardNoise() if encoder is None else encoder
    encoded = EncodedObservations(mdp, encoder, samples, seed)
    encoded.check_fits(doing="scoring an abstraction")
    partitions = exact_partitions(mdp) if partitions is None else partitions
    kinds = [*KINDS, *(kind for kind in EVALUATE_AGAINST if kind in partitions)]
    steps = range(1, mdp.horizon + 1)
    compared = compare_steps(mdp, encoded, {h: dict.fromkeys(kinds, phi) for h in steps},
                             partitions, names=dict.fromkeys(kinds, name),
                             merge_threshold=merge_threshold)
    return AbstractionReport(mdp.name, samples, seed, [compared[h] for h in steps],
                             merge_threshold)

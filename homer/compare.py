"""Learned vs exact: HOMER's abstractions, covers, recovered dynamics and policy against the
exact answers of the latent Block MDP.

Everything learned acts on encoded observations; the comparison dresses every latent
observation ``o`` of layer ``h`` in ``samples`` fresh encodings and

- **abstractions** (per layer): the learned classes of the encodings against an exact partition
  (phi_B vs backward KI ``def:bki``, phi_F vs forward KI ``def:fki``, phi-bar = (phi_F, phi_B)
  vs KI ``def:ki``; with ``endogenous``, phi-bar vs the endogenous partition of an exogenous
  Block MDP too, ``homer compare --against endogenous``): the confusion matrix (learned class x
  exact class, sample counts), purity and adjusted Rand index over the samples. A **wrong
  merge** is a pair of distinct exact classes (kinematically separable states) whose *merge
  rate* exceeds ``merge_threshold``: the largest share of both classes' encodings that one
  learned class holds (:mod:`homer.evaluate` defines it, with its standard error). Each
  observation is *assigned* to the learned class that most of its encodings fall into; a
  **split** is an exact class whose observations are assigned to more than one learned class;
- **policies**: a linear policy's action distribution at each latent observation is the share
  of the encodings on which it picks each action (standard error ``sqrt(p (1 - p) / samples)``
  reported); with these distributions the visitation probabilities follow exactly by dynamic
  programming over the latent states (:func:`kinematic.visitation.state_visitation`, floats),
  hence alpha per state and per step against the exact eta (``def:policy-cover``) and the
  reward-sensitive policy's value next to V*;
- **dynamics** (the footnote to Figure ``fig:learned-dynamics``): transitions drawn from
  ``Unf(Psi_{h-1}) o Unf(A)``, ``T^(j | i, a)`` = frequencies of the learned abstract states,
  each learned state matched to the canonical state (``fig:mdp-canonical``) most of its samples
  come from, and the total-variation distance to the canonical form's ``T(. | c(i), a)``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from homer.artefacts import RunArtefacts
from homer.encoded import EncodedObservations
from homer.evaluate import (
    EVALUATE_AGAINST,
    MERGE_THRESHOLD,
    MERGE_THRESHOLDS,
    Abstraction,
    AbstractionComparison,
    compare_steps,
    cover_roll_in,
    exact_partitions,
    majority,
)
from homer.policy_evaluation import (
    LatentPolicies,
    ObservationPolicy,
    cover_step,
    eta_floats,
    read_cover,
    smallest_alpha,
)
from homer.run_directory import mdp_fingerprint
from homer.sampler import BatchSampler, LinearPolicy, batch_bytes
from homer.summary import (
    ENDOGENOUS_LEGEND,
    abstraction_table,
    agreement_lines,
    cover_lines,
    merge_lines,
    table_legend,
)
from homer.wording import setting
from kinematic.canonical import canonical_form
from kinematic.exogenous import ExogenousBlockMDP
from kinematic.families import exogenous_combination_lock
from kinematic.json_input import display_path
from kinematic.model import BlockMDP
from kinematic.partition import Partition
from kinematic.planning import optimal_values
from kinematic.quotient import Quotient

__all__ = [
    "ABSTRACTION_NAMES", "ComparisonReport", "DynamicsComparison",
    "LinearPolicies", "combined_classifier", "compare_dynamics", "compare_run",
    "format_summary", "recorded_factorisation", "run_abstractions", "summary_legend",
]

Classifier = Callable[[np.ndarray], np.ndarray]
"""Encoded observations ``(n, d)`` -> learned class per row."""


def combined_classifier(artefacts: RunArtefacts, layer: int) -> Classifier | None:
    """phi-bar of ``layer`` (0-based): the pair (phi_F, phi_B) where both exist (one of them on
    the first and last layers, or where a stopped run has only one); None when neither
    exists."""
    forward, backward = artefacts.forward.get(layer), artefacts.backward.get(layer)
    if forward is None:
        return None if backward is None else backward.classes
    if backward is None:
        return forward.classes
    width = len(backward.bias)
    return lambda encoded: forward.classes(encoded) * width + backward.classes(encoded)


def run_abstractions(artefacts: RunArtefacts, step: int) -> dict[str, Abstraction]:
    """A run's learned abstractions of time step ``step`` (1-based) as functions
    ``(observations, step) -> classes`` (:data:`homer.evaluate.Abstraction`), keyed by the
    exact partition each is compared with: phi_B (``backward``), phi_F (``forward``) and
    phi-bar (``ki``), those the run has."""
    layer = step - 1
    classifiers: dict[str, Classifier | None] = {
        "backward": getattr(artefacts.backward.get(layer), "classes", None),
        "forward": getattr(artefacts.forward.get(layer), "classes", None),
        "ki": combined_classifier(artefacts, layer)}
    return {kind: _each_step(classify) for kind, classify in classifiers.items()
            if classify is not None}


EXOGENOUS_LOCK_NAME = re.compile(
    r"combolock(?P<released>-released)?-H(?P<horizon>[0-9]+)-K(?P<actions>[0-9]+)"
    r"-seed(?P<seed>[0-9]+)-exo(?P<bits>[0-9]+)-flip(?P<flip>[0-9]+(?:/[0-9]+)?)")
"""The name :func:`kinematic.exogenous_combination_lock` gives its Block MDP (``homer run --env
combolock --exogenous-bits K --flip P``): how the run's MDP was built, as its ``config.json``
and ``mdp.json`` record it."""


def recorded_factorisation(mdp: BlockMDP) -> ExogenousBlockMDP:
    """The factorisation of a run's ``mdp`` made by ``homer run --env combolock
    --exogenous-bits K``: the exogenous lock rebuilt from the settings its recorded name holds
    (:data:`EXOGENOUS_LOCK_NAME`), accepted only when its Block MDP is ``mdp``, spec for spec
    (the same :func:`homer.run_directory.mdp_fingerprint`; the run's checkpoint vouches for its
    ``mdp.json``). State names are not parsed: for any other MDP it raises ``ValueError``
    (give its exogenous spec to ``homer compare --spec``).

    >>> from kinematic.families import combination_lock, exogenous_combination_lock
    >>> lock = exogenous_combination_lock(3, 2, seed=0, bits=1)
    >>> recorded_factorisation(lock.mdp).parts == lock.parts
    True
    >>> recorded_factorisation(combination_lock(3, 2, seed=0))
    Traceback (most recent call last):
    ...
    ValueError: --against endogenous: the run's MDP 'combolock-H3-K2-seed0' was not made by ...
    """
    found = EXOGENOUS_LOCK_NAME.fullmatch(mdp.name)
    why = "its name is not that of an exogenous lock, combolock-H...-exo...-flip..."
    if found is not None:
        horizon, actions = int(found["horizon"]), int(found["actions"])
        why = "it is not the exogenous lock its name describes"
        if (horizon, actions) == (mdp.horizon, mdp.number_of_actions):
            model = exogenous_combination_lock(
                horizon, actions, int(found["seed"]), int(found["bits"]), found["flip"],
                "released" if found["released"] else "paper")
            if mdp_fingerprint(model.mdp) == mdp_fingerprint(mdp):
                return model
    raise ValueError(
        f"--against endogenous: the run's MDP {mdp.name!r} was not made by "
        f"'homer run --env combolock --exogenous-bits' ({why}), so the run records no "
        "factorisation; give the MDP's exogenous spec with --spec ('endogenous' and "
        "'exogenous', or a Block MDP with its 'factorisation': docs/guide/spec-format.md)")


def _each_step(classify: Classifier) -> Abstraction:
    """``classify`` as an abstraction ``(observations, step) -> classes`` (of any step)."""
    return lambda observations, _step: classify(observations)


class LinearPolicies:
    """HOMER's linear policies as :data:`homer.policy_evaluation.ObservationPolicy` functions:
    uniformly random beyond their last step (as in ``Unf(Psi) o Unf(A)``); the actions of a
    step's weights on one array of encodings are computed once, whichever policy of the cover
    extends them."""

    def __init__(self, actions: int) -> None:
        self.actions = actions
        self._actions: dict[tuple[int, int, int], np.ndarray] = {}
        self._policies: dict[int, tuple[LinearPolicy, ObservationPolicy]] = {}

    def policy(self, linear: LinearPolicy) -> ObservationPolicy:
        if id(linear) not in self._policies:
            def act(observations: np.ndarray, step: int) -> np.ndarray:
                if step > linear.length:
                    return np.full((len(observations), self.actions), 1 / self.actions)
                weight, bias = linear.weights[step - 1], linear.biases[step - 1]
                key = (id(weight), id(bias), id(observations))
                if key not in self._actions:
                    self._actions[key] = linear.act(step - 1, observations)
                return self._actions[key]
            self._policies[id(linear)] = (linear, act)  # kept alive: ids stay unique
        return self._policies[id(linear)][1]


@dataclass(frozen=True)
class DynamicsComparison:
    """Recovered transitions from layer ``h - 1`` into ``h`` against the canonical form."""

    transitions: int
    learned_from: list[int]
    learned_to: list[int]
    matched_from: dict[int, str]
    """Learned class of layer ``h - 1`` -> the canonical state most of its samples come from."""
    matched_to: dict[int, str]
    estimated: np.ndarray
    """``T^(j | i, a)``, shape ``(len(learned_from), |A|, len(learned_to))`` (NaN: no data)."""
    counts: np.ndarray
    """Transitions behind each ``T^(. | i, a)``, shape ``(len(learned_from), |A|)``."""
    total_variation_max: float
    """Over the pairs ``(i, a)`` with at least ``min_count`` transitions (0 if none)."""
    total_variation_mean: float
    """Over all pairs ``(i, a)`` with data, weighted by their counts."""

    def to_json(self) -> dict[str, Any]:
        return {"transitions": self.transitions,
                "matched_from": {str(k): v for k, v in self.matched_from.items()},
                "matched_to": {str(k): v for k, v in self.matched_to.items()},
                "total_variation_max": self.total_variation_max,
                "total_variation_mean": self.total_variation_mean}


def _majority(classes: np.ndarray, names: np.ndarray) -> dict[int, str]:
    matched = {}
    for c in np.unique(classes):
        counts = Counter(names[classes == c].tolist())
        matched[int(c)] = majority(counts)
    return matched


def compare_dynamics(artefacts: RunArtefacts, layer: int, transitions: int,
                     rng: np.random.Generator, canonical: Quotient | None = None,
                     min_count: int = 20) -> DynamicsComparison | None:
    """The footnote's model ``T^`` for the transitions into ``layer`` (>= 1), matched to the
    canonical form; None when phi-bar is missing on either layer or the cover is. A few
    encodings fall into a learned class by noise, so the maximal distance only counts the
    pairs ``(i, a)`` seen ``min_count`` times."""
    mdp = artefacts.mdp
    before, after = combined_classifier(artefacts, layer - 1), combined_classifier(artefacts,
                                                                                   layer)
    if before is None or after is None or layer - 1 >= len(artefacts.covers):
        return None
    canonical = canonical_form(mdp) if canonical is None else canonical
    sampler = BatchSampler(mdp, artefacts.encoder, rng)
    batch = sampler.run(transitions, artefacts.covers[layer - 1], layer - 1, last_step=layer)
    i, j = before(batch.observations[:, layer - 1]), after(batch.observations[:, layer])
    a = batch.actions[:, layer - 1]
    names = [np.array([canonical.state_map[mdp.layers[t][s]] for s in batch.states[:, t]])
             for t in (layer - 1, layer)]
    matched_from, matched_to = _majority(i, names[0]), _majority(j, names[1])
    learned_from, learned_to = sorted(matched_from), sorted(matched_to)
    actions = mdp.number_of_actions
    counts = np.zeros((len(learned_from), actions, len(learned_to)))
    np.add.at(counts, (np.searchsorted(learned_from, i), a, np.searchsorted(learned_to, j)), 1)
    totals = counts.sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        estimated = counts / totals[:, :, None]
    canon = canonical.mdp
    to_index = {name: k for k, name in enumerate(canon.layers[layer])}
    from_index = {name: k for k, name in enumerate(canon.layers[layer - 1])}
    exact = np.asarray(canon.transition_tensor(layer - 1), dtype=float)
    distances, weights, reliable = [], [], []
    for r, c in enumerate(learned_from):
        for action in range(actions):
            if totals[r, action] == 0:
                continue
            predicted = np.zeros(len(canon.layers[layer]))
            for k, target in enumerate(learned_to):
                predicted[to_index[matched_to[target]]] += estimated[r, action, k]
            truth = exact[from_index[matched_from[c]], action]
            distances.append(0.5 * np.abs(predicted - truth).sum())
            weights.append(totals[r, action])
            if totals[r, action] >= min_count:
                reliable.append(distances[-1])
    return DynamicsComparison(
        transitions=transitions, learned_from=learned_from, learned_to=learned_to,
        matched_from=matched_from, matched_to=matched_to, estimated=estimated, counts=totals,
        total_variation_max=float(max(reliable, default=0.0)),
        total_variation_mean=float(np.average(distances, weights=weights)),
    )


@dataclass
class ComparisonReport:
    """Everything ``homer compare`` reports; :meth:`to_json` is ``report.json``."""

    mdp: str
    samples: int
    steps: list[dict[str, Any]]
    value: float | None
    optimal_value: float
    policy_standard_error: float | None
    abstractions: dict[int, dict[str, AbstractionComparison]] = field(repr=False)
    """Time step (1-based) -> the run's learned abstractions of the step against the exact
    partitions (:data:`LEARNED_NAMES`)."""
    dynamics: dict[int, DynamicsComparison] = field(repr=False)
    """Time step (1-based, from 2) -> the recovered transitions into it."""
    visitation_counts: list[np.ndarray] = field(repr=False)
    """Expected visits of each latent state during the cover-learning phase (the episodes of
    each step in the run log, rolled in with ``Unf(Psi_{h-1}) o Unf(A)``)."""
    uncovered: list[int] = field(default_factory=list)
    """The steps the run has no cover of (it stopped before learning them): not compared."""
    merge_threshold: float = MERGE_THRESHOLD
    """A pair of exact classes whose merge rate exceeds it is a wrong merge."""

    @property
    def against(self) -> list[str]:
        """The exact partitions phi-bar was also compared with beyond KI
        (:data:`homer.settings.EVALUATE_AGAINST`: ``endogenous``, whenever a factorisation was
        given)."""
        return [kind for kind in EVALUATE_AGAINST
                if any(kind in layer for layer in self.abstractions.values())]

    @property
    def steps_with_wrong_merges(self) -> int:
        """Steps whose phi-bar merges states of distinct KI classes."""
        return sum(1 for s in self.steps if s["wrong_merges"])

    def steps_with_wrong_merges_of(self, kind: str) -> int:
        """Steps whose learned ``kind`` abstraction (``backward``: phi_B, ``forward``: phi_F,
        ``ki``: phi-bar) merges states of distinct exact classes of the same kind
        (``endogenous``: phi-bar merges states of distinct endogenous classes)."""
        return sum(1 for s in self.steps
                   if s["abstractions"].get(kind, {}).get("wrong_merges"))

    @property
    def alpha_min(self) -> float | None:
        """The smallest alpha of the learned cover over the steps; None when the run stopped
        before learning the covers of some steps (:attr:`uncovered`)."""
        return smallest_alpha(self.steps, self.uncovered)

    def to_json(self) -> dict[str, Any]:
        """``report.json``: ``steps_with_wrong_merges`` and each step's ``wrong_merges`` and
        ``splits`` are phi-bar's against KI (``steps_with_wrong_merges_by_abstraction`` and each
        step's ``abstractions`` hold phi_B's and phi_F's, and with ``against: ["endogenous"]``
        phi-bar's against the endogenous partition, under ``endogenous``);
        ``policy_standard_error`` is the
        largest standard error of the learned policy's estimated action probabilities;
        ``alpha_min`` is null when ``uncovered_steps`` (the steps the run has no cover of)
        are not empty; a wrong merge is a merge rate above ``merge_threshold`` (each step's
        ``abstractions`` hold every pair's merge rate)."""
        return {
            "mdp": self.mdp, "samples": self.samples, "merge_threshold": self.merge_threshold,
            "steps_with_wrong_merges": self.steps_with_wrong_merges,
            "steps_with_wrong_merges_by_abstraction": {
                kind: self.steps_with_wrong_merges_of(kind)
                for kind in ("backward", "forward", "ki", *self.against)},
            "against": self.against,
            "total_wrong_merges": sum(s["wrong_merges"] or 0 for s in self.steps),
            "alpha_min": self.alpha_min, "uncovered_steps": self.uncovered, "value": self.value,
            "optimal_value": self.optimal_value,
            "policy_standard_error": self.policy_standard_error,
            "steps": self.steps,
        }


def compare_run(artefacts: RunArtefacts, samples: int = 500, transitions: int = 2000,
                seed: int = 0, progress: Callable[[Sequence], Iterable] = lambda x: x,
                merge_threshold: float = MERGE_THRESHOLD,
                endogenous: Partition | None = None) -> ComparisonReport:
    """Compare a run with the exact answers of its MDP (see the module docstring): the run's
    abstractions and covers are scored by :mod:`homer.evaluate` (the same encodings as
    ``evaluate_abstraction(mdp, phi, run's encoder, samples, seed, merge_threshold=...)``),
    the dynamics here. The covers are read as ``evaluate_policies`` reads a cover
    (:func:`homer.policy_evaluation.read_cover`): the steps a stopped run has no cover of are
    not compared, and named (:attr:`ComparisonReport.uncovered`). A pair of exact classes whose
    merge rate exceeds ``merge_threshold`` (in ``[0, 1)``) is a wrong merge. ``endogenous``,
    the endogenous partition of the run's MDP when it is an exogenous Block MDP
    (:func:`kinematic.endogenous_partition` of :func:`recorded_factorisation` or of its
    exogenous spec), scores phi-bar against it too (``homer compare --against endogenous``)."""
    if transitions < 1:
        raise ValueError(f"transitions must be positive, got {transitions}")
    MERGE_THRESHOLDS.check(merge_threshold, "merge_threshold")
    mdp = artefacts.mdp
    encoded = EncodedObservations(mdp, artefacts.encoder, samples, seed)
    encoded.check_fits(batch_bytes(transitions, mdp.horizon, artefacts.encoder.dimension(mdp)),
                       "comparing", setting("transitions", transitions))
    partitions = exact_partitions(mdp, endogenous)
    if endogenous is not None and tuple(endogenous.layers) != mdp.layers:
        raise ValueError(f"endogenous: a partition of the states of {mdp.name!r} (the run's "
                         "MDP), got one of other states")
    canonical = canonical_form(mdp, partitions["ki"])
    latent, linear = LatentPolicies(encoded), LinearPolicies(mdp.number_of_actions)
    roll_in, eta = cover_roll_in(latent.floats), eta_floats(latent.floats)
    rng = np.random.default_rng([seed, 0, 2])  # the dynamics' transitions

    learned = read_cover(mdp, {h + 1: [linear.policy(p) for p in cover]
                               for h, cover in enumerate(artefacts.covers[:mdp.horizon])},
                         "the run's cover Psi")

    def visitation_of(policy: LinearPolicy) -> tuple[tuple[np.ndarray, ...], tuple[float, ...]]:
        return latent.visitation(linear.policy(policy), "a cover's policy")

    steps, abstractions, dynamics = [], {}, {}
    counts = [np.zeros(len(layer)) for layer in mdp.layers]
    for step in progress(list(learned.steps)):
        h = step - 1
        functions = run_abstractions(artefacts, step)
        if endogenous is not None and "ki" in functions:
            functions["endogenous"] = functions["ki"]  # phi-bar, classified once
        abstractions[step] = compare_steps(mdp, encoded, {step: functions},
                                           partitions, roll_in, LEARNED_NAMES,
                                           merge_threshold)[step]
        cover = cover_step(mdp, step, [latent.visitation(learned.policies[k], learned.names[k])
                                       for k in learned.steps[step]], eta)
        if h >= 1:
            found = compare_dynamics(artefacts, h, transitions, rng, canonical)
            if found is not None:
                dynamics[step] = found
        ki = abstractions[step].get("ki")
        steps.append({
            "step": step,
            "wrong_merges": None if ki is None else ki.wrong_merges,
            "splits": None if ki is None else ki.splits,
            **{key: value for key, value in cover.items() if key != "step"},
            "abstractions": {k: c.to_json() for k, c in abstractions[step].items()},
            "dynamics": dynamics[step].to_json() if step in dynamics else None,
        })
    for entry in artefacts.log:
        layer = entry["step"] - 1
        if layer - 1 < len(artefacts.covers):
            mixture = [visitation_of(p)[0] for p in artefacts.covers[layer - 1]]
            for t in range(layer + 1):
                counts[t] += entry["episodes"] * np.mean([v[t] for v in mixture], axis=0)
    value, error = None, None
    if artefacts.policy is not None:
        value, error = latent.value(linear.policy(artefacts.policy), "the learned policy")
    return ComparisonReport(
        mdp=mdp.name, samples=samples, steps=steps, value=value,
        optimal_value=float(optimal_values(latent.floats).value),
        policy_standard_error=error, abstractions=abstractions, dynamics=dynamics,
        visitation_counts=counts, uncovered=learned.uncovered, merge_threshold=merge_threshold,
    )


LEARNED_NAMES = {"backward": "phi_B", "forward": "phi_F", "ki": "phi-bar", "endogenous": "phi-bar"}
"""A run's learned abstractions, by the exact partition each is compared with."""

ABSTRACTION_NAMES = {"ki": "phi-bar = (phi_F, phi_B) vs KI", "backward": "phi_B vs backward KI",
                "forward": "phi_F vs forward KI", "endogenous": "phi-bar vs endogenous"}
"""The rows of the summary's abstraction table: each learned abstraction against its exact
partition (``def:ki``, ``def:bki``, ``def:fki``), and phi-bar against the endogenous partition
with ``--against endogenous``."""

def summary_legend(merge_threshold: float, against: Sequence[str] = ()) -> tuple[str, ...]:
    """What the summary's abstraction table counts, printed below it
    (:func:`homer.summary.table_legend`, and what phi-bar is; with ``against`` holding
    ``endogenous``, what its row means)."""
    return (*table_legend(merge_threshold),
            "  phi-bar separates what phi_F or phi_B separates; the cover is learned on phi_B's "
            "classes.", *(ENDOGENOUS_LEGEND if "endogenous" in against else ()))


def format_summary(report: ComparisonReport) -> str:
    """The text summary of ``homer compare``: which learned abstraction is compared with which
    exact partition (with a legend of what is counted), the cover's smallest alpha after step 1
    and the learned policy's value.

    The value is exact for the policy's action probabilities at each latent observation, which
    are shares of ``report.samples`` encodings; their largest standard error
    ``sqrt(p (1 - p) / samples)`` (one standard error, estimated) is given with it.
    """
    rows = {name: {step: layer[kind] for step, layer in sorted(report.abstractions.items())
                   if kind in layer}
            for kind, name in ABSTRACTION_NAMES.items()}
    lines = [f"{display_path(report.mdp)} vs the exact answers: {len(report.steps)} time steps, "
             f"{report.samples} encodings of each latent observation",
             *abstraction_table(rows), *merge_lines(rows),
             *summary_legend(report.merge_threshold, report.against),
             *agreement_lines({step: layer["ki"] for step, layer in report.abstractions.items()
                               if "ki" in layer}),
             *cover_lines(report.steps, report.uncovered,
                          " (the run stopped before learning "
                          f"{'it' if len(report.uncovered) == 1 else 'them'})")]
    if report.value is None:
        lines.append("learned policy: none (the run stopped before the reward-sensitive PSDP)")
    else:
        lines += [
            f"learned policy: value {report.value:.3f} vs optimal {report.optimal_value:.3f}",
            "  exact, given its action probabilities at the latent observations, each the share "
            f"of the {report.samples}",
            "  encodings of an observation on which it takes the action (largest standard error: "
            f"{report.policy_standard_error:.3f})"]
    return "\n".join(lines)

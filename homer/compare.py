"""Learned vs exact: HOMER's abstractions, covers, recovered dynamics and policy against the
exact answers of the latent Block MDP (issue "Learned vs ground truth").

Everything learned acts on encoded observations; the comparison dresses every latent
observation ``o`` of layer ``h`` in ``samples`` fresh encodings and

- **abstractions** (per layer): the learned classes of the encodings against an exact partition
  (phi_B vs backward KI ``def:bki``, phi_F vs forward KI ``def:fki``, phi-bar = (phi_F, phi_B)
  vs KI ``def:ki``): the confusion matrix (learned class x exact class, sample counts), purity
  and adjusted Rand index over the samples. Each observation is *assigned* to the learned class
  that most of its encodings fall into; a **wrong merge** is a pair of distinct exact classes
  (kinematically separable states) with observations assigned to one learned class, a **split**
  an exact class whose observations are assigned to more than one learned class;
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

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
from sklearn.metrics import adjusted_rand_score
from sklearn.metrics.cluster import contingency_matrix

from homer.artefacts import RunArtefacts
from homer.sampler import BatchSampler, LinearPolicy, batch_bytes
from homer.wording import setting
from kinematic.canonical import canonical_form
from kinematic.display import listed
from kinematic.homing import maximum_visitation
from kinematic.inseparability import backward_ki_partition, forward_ki_partition, ki_partition
from kinematic.model import BlockMDP, with_float_numbers
from kinematic.planning import optimal_values
from kinematic.policies import Policy
from kinematic.quotient import Quotient
from kinematic.resources import check_memory
from kinematic.visitation import policy_value, state_visitation

__all__ = [
    "ABSTRACTION_NAMES", "SUMMARY_LEGEND", "AbstractionComparison", "ComparisonReport",
    "DynamicsComparison", "PolicyEstimator", "combined_classifier", "compare_abstraction",
    "compare_dynamics", "compare_run", "format_summary",
]

Classifier = Callable[[np.ndarray], np.ndarray]
"""Encoded observations ``(n, d)`` -> learned class per row."""


@dataclass(frozen=True)
class AbstractionComparison:
    """Learned classes of one layer against one exact partition of it."""

    kind: str
    """``backward`` (phi_B vs backward KI), ``forward`` (phi_F vs forward KI) or ``ki``."""
    exact_classes: list[list[str]]
    learned_classes: list[int]
    confusion: np.ndarray
    """Sample counts, rows ``learned_classes``, columns ``exact_classes``."""
    assignment: dict[str, int]
    """Latent observation -> the learned class most of its encodings fall into."""
    misassigned: float
    """Share of the encodings not in their observation's assigned class."""
    wrong_merges: int
    splits: int
    purity: float
    adjusted_rand_index: float

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "exact_classes": self.exact_classes,
            "learned_classes": self.learned_classes, "confusion": self.confusion.tolist(),
            "assignment": self.assignment, "misassigned": self.misassigned,
            "wrong_merges": self.wrong_merges, "splits": self.splits, "purity": self.purity,
            "adjusted_rand_index": self.adjusted_rand_index,
        }


def _encodings(artefacts: RunArtefacts, layer: int, samples: int,
               rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``samples`` encodings of every latent observation of ``layer``: (ids, encodings)."""
    mdp = artefacts.mdp
    ids = np.repeat(np.arange(len(mdp.observations[layer])), samples)
    return ids, artefacts.encoder.encode(mdp, layer, ids, rng)


def compare_abstraction(mdp: BlockMDP, layer: int, kind: str, exact_classes: list[list[str]],
                        observation_ids: np.ndarray, learned: np.ndarray
                        ) -> AbstractionComparison:
    """Compare the learned classes ``learned`` of encodings of the observations
    ``observation_ids`` of ``layer`` with ``exact_classes`` (lists of state names)."""
    class_of_state = {state: k for k, block in enumerate(exact_classes) for state in block}
    observations = mdp.observations[layer]
    exact_of_observation = np.array([
        class_of_state[mdp.layers[layer][mdp.emission_state[layer][x]]]
        for x in range(len(observations))])
    exact = exact_of_observation[observation_ids]
    learned_classes = sorted(int(c) for c in np.unique(learned))
    confusion = contingency_matrix(learned, exact)
    full = np.zeros((len(learned_classes), len(exact_classes)), dtype=np.int64)
    full[:, sorted(set(exact.tolist()))] = confusion
    assignment, misassigned = {}, 0
    merged: dict[int, set[int]] = {}
    spread: dict[int, set[int]] = {}
    for x, name in enumerate(observations):
        counts = Counter(learned[observation_ids == x].tolist())
        if not counts:
            continue
        chosen = min(counts, key=lambda c: (-counts[c], c))
        assignment[name] = int(chosen)
        misassigned += sum(counts.values()) - counts[chosen]
        merged.setdefault(chosen, set()).add(int(exact_of_observation[x]))
        spread.setdefault(int(exact_of_observation[x]), set()).add(chosen)
    wrong_merges = sum(len(list(combinations(blocks, 2))) for blocks in merged.values())
    return AbstractionComparison(
        kind=kind, exact_classes=[list(block) for block in exact_classes],
        learned_classes=learned_classes, confusion=full, assignment=assignment,
        misassigned=misassigned / len(learned),
        wrong_merges=wrong_merges,
        splits=sum(len(classes) > 1 for classes in spread.values()),
        purity=float(full.max(axis=1).sum() / full.sum()),
        adjusted_rand_index=float(adjusted_rand_score(exact, learned)),
    )


def combined_classifier(artefacts: RunArtefacts, layer: int) -> Classifier | None:
    """phi-bar of ``layer``: the pair (phi_F, phi_B) where both exist (one of them on the first
    and last layers, or where a stopped run has only one); None when neither exists."""
    forward, backward = artefacts.forward.get(layer), artefacts.backward.get(layer)
    if forward is None and backward is None:
        return None
    if forward is None or backward is None:
        return (forward or backward).classes
    width = len(backward.bias)
    return lambda encoded: forward.classes(encoded) * width + backward.classes(encoded)


class PolicyEstimator:
    """Action distributions of linear policies at the latent observations, from ``samples``
    encodings per observation and layer (shared by all policies: common random numbers)."""

    def __init__(self, artefacts: RunArtefacts, samples: int, rng: np.random.Generator):
        self.artefacts, self.samples, self.rng = artefacts, samples, rng
        self.mdp = artefacts.mdp
        self._encodings: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._cache: dict[tuple[int, int, int], np.ndarray] = {}

    def encodings(self, layer: int) -> tuple[np.ndarray, np.ndarray]:
        if layer not in self._encodings:
            self._encodings[layer] = _encodings(self.artefacts, layer, self.samples, self.rng)
        return self._encodings[layer]

    def layer_probabilities(self, weight: np.ndarray, bias: np.ndarray, layer: int
                            ) -> np.ndarray:
        """``(m_h, |A|)``: the share of each observation's encodings on which
        ``argmax(W x + b)`` picks each action."""
        key = (id(weight), id(bias), layer)
        if key not in self._cache:
            ids, encoded = self.encodings(layer)
            actions = np.argmax(encoded @ weight.T + bias, axis=1)
            counts = np.zeros((len(self.mdp.observations[layer]), self.mdp.number_of_actions))
            np.add.at(counts, (ids, actions), 1)
            self._cache[key] = counts / self.samples
        return self._cache[key]

    def stochastic_policy(self, probabilities: Callable[[int, np.ndarray], np.ndarray]
                          ) -> tuple[Policy, float]:
        """The latent observation policy of any policy on encodings, given as
        ``probabilities(step, encodings) -> (n, |A|)`` action probabilities (e.g. a neural
        actor), averaged over each observation's encodings; and the largest standard error of
        those averages (``sqrt(p (1 - p) / samples)``, a bound for the mean of values in
        ``[0, 1]``)."""
        layers, error = [], 0.0
        for t in range(self.mdp.horizon):
            ids, encoded = self.encodings(t)
            shares = np.zeros((len(self.mdp.observations[t]), self.mdp.number_of_actions))
            rows = np.asarray(probabilities(t, encoded), dtype=np.float64)
            np.add.at(shares, ids, rows / rows.sum(axis=1, keepdims=True))  # float32 sums
            p = shares / self.samples
            error = max(error, float(np.sqrt(p * (1 - p) / self.samples).max()))
            layers.append(p)
        return Policy(tuple(layers), self.mdp), error

    def policy(self, linear: LinearPolicy) -> tuple[Policy, float]:
        """The latent observation policy of ``linear`` (uniform beyond its last step, as in
        ``Unf(Psi) o Unf(A)``) and the largest standard error of its action probabilities."""
        actions = self.mdp.number_of_actions
        layers, error = [], 0.0
        for t in range(self.mdp.horizon):
            if t < linear.length:
                p = self.layer_probabilities(linear.weights[t], linear.biases[t], t)
                error = max(error, float(np.sqrt(p * (1 - p) / self.samples).max()))
            else:
                p = np.full((len(self.mdp.observations[t]), actions), 1 / actions)
            layers.append(p)
        return Policy(tuple(layers), self.mdp), error


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
        matched[int(c)] = min(counts, key=lambda n: (-counts[n], n))
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
    dynamics: dict[int, DynamicsComparison] = field(repr=False)
    visitation_counts: list[np.ndarray] = field(repr=False)
    """Expected visits of each latent state during the cover-learning phase (the episodes of
    each step in the run log, rolled in with ``Unf(Psi_{h-1}) o Unf(A)``)."""

    @property
    def steps_with_wrong_merges(self) -> int:
        """Steps whose phi-bar merges states of distinct KI classes."""
        return sum(1 for s in self.steps if s["wrong_merges"])

    def steps_with_wrong_merges_of(self, kind: str) -> int:
        """Steps whose learned ``kind`` abstraction (``backward``: phi_B, ``forward``: phi_F,
        ``ki``: phi-bar) merges states of distinct exact classes of the same kind."""
        return sum(1 for s in self.steps
                   if s["abstractions"].get(kind, {}).get("wrong_merges"))

    @property
    def alpha_min(self) -> float:
        return min(s["alpha_min"] for s in self.steps if s["alpha_min"] is not None)

    def to_json(self) -> dict[str, Any]:
        """``report.json``: ``steps_with_wrong_merges`` and each step's ``wrong_merges`` and
        ``splits`` are phi-bar's against KI (``steps_with_wrong_merges_by_abstraction`` and each
        step's ``abstractions`` hold phi_B's and phi_F's); ``policy_standard_error`` is the
        largest standard error of the learned policy's estimated action probabilities."""
        return {
            "mdp": self.mdp, "samples": self.samples,
            "steps_with_wrong_merges": self.steps_with_wrong_merges,
            "steps_with_wrong_merges_by_abstraction": {
                kind: self.steps_with_wrong_merges_of(kind)
                for kind in ("backward", "forward", "ki")},
            "total_wrong_merges": sum(s["wrong_merges"] or 0 for s in self.steps),
            "alpha_min": self.alpha_min, "value": self.value,
            "optimal_value": self.optimal_value,
            "policy_standard_error": self.policy_standard_error,
            "steps": self.steps,
        }


def _floats(mdp: BlockMDP) -> BlockMDP:
    return with_float_numbers(mdp) if mdp.mode.exact else mdp


def _check_fits(artefacts: RunArtefacts, samples: int, transitions: int) -> None:
    """Raise :class:`~kinematic.errors.TooLarge` before any work when the encodings kept for
    every layer (``samples`` per latent observation: float32 vectors and their ids) and a
    batch of ``transitions`` episodes exceed this machine's memory."""
    mdp = artefacts.mdp
    dimension = artefacts.encoder.dimension(mdp)
    observations = sum(len(layer) for layer in mdp.observations)
    check_memory(samples * observations * (4 * dimension + 8)
                 + batch_bytes(transitions, mdp.horizon, dimension),
                 f"comparing with {setting('samples', samples)} and "
                 f"{setting('transitions', transitions)} on {mdp.name!r} ({observations} latent "
                 f"observations, H = {mdp.horizon}, dimension {dimension})")


def compare_run(artefacts: RunArtefacts, samples: int = 500, transitions: int = 2000,
                seed: int = 0, progress: Callable[[Sequence], Sequence] = lambda x: x
                ) -> ComparisonReport:
    """Compare a run with the exact answers of its MDP (see the module docstring)."""
    if samples < 1 or transitions < 1:
        raise ValueError(f"samples and transitions must be positive, got {samples}, "
                         f"{transitions}")
    mdp, rng = artefacts.mdp, np.random.default_rng(seed)
    _check_fits(artefacts, samples, transitions)
    floats = _floats(mdp)
    eta = [np.asarray(layer, dtype=float) for layer in maximum_visitation(floats)]
    backward, forward = backward_ki_partition(mdp), forward_ki_partition(mdp)
    partitions = {"backward": backward, "forward": forward,
                  "ki": ki_partition(mdp, backward, forward)}
    canonical = canonical_form(mdp, partitions["ki"])
    estimator = PolicyEstimator(artefacts, samples, rng)
    visitations: dict[int, tuple[tuple[np.ndarray, ...], float]] = {}

    def visitation_of(policy: LinearPolicy) -> tuple[tuple[np.ndarray, ...], float]:
        if id(policy) not in visitations:
            latent, error = estimator.policy(policy)
            visitations[id(policy)] = (tuple(np.asarray(v, dtype=float)
                                             for v in state_visitation(floats, latent)), error)
        return visitations[id(policy)]

    steps, abstractions, dynamics = [], {}, {}
    counts = [np.zeros(len(layer)) for layer in mdp.layers]
    for h in progress(range(min(mdp.horizon, len(artefacts.covers)))):
        ids, encoded = estimator.encodings(h)
        learned = {"backward": artefacts.backward.get(h), "forward": artefacts.forward.get(h)}
        classifiers = {kind: a.classes for kind, a in learned.items() if a is not None}
        combined = combined_classifier(artefacts, h)
        if combined is not None:
            classifiers["ki"] = combined
        abstractions[h] = {
            kind: compare_abstraction(mdp, h, kind, partitions[kind].blocks(h + 1), ids,
                                      classify(encoded))
            for kind, classify in classifiers.items()}
        cover = [visitation_of(policy) for policy in artefacts.covers[h]]
        best = np.max([v[h] for v, _ in cover], axis=0)
        alpha = best / eta[h]
        if h >= 1:
            found = compare_dynamics(artefacts, h, transitions, rng, canonical)
            if found is not None:
                dynamics[h] = found
        ki = abstractions[h].get("ki")
        steps.append({
            "step": h + 1,
            "wrong_merges": None if ki is None else ki.wrong_merges,
            "splits": None if ki is None else ki.splits,
            "alpha_min": float(alpha.min()),
            "alpha_per_state": dict(zip(mdp.layers[h], alpha.tolist(), strict=True)),
            "visitation": dict(zip(mdp.layers[h], best.tolist(), strict=True)),
            "eta": dict(zip(mdp.layers[h], eta[h].tolist(), strict=True)),
            "action_standard_error": max(e for _, e in cover),
            "abstractions": {k: c.to_json() for k, c in abstractions[h].items()},
            "dynamics": dynamics[h].to_json() if h in dynamics else None,
        })
    for entry in artefacts.log:
        layer = entry["step"] - 1
        if layer - 1 < len(artefacts.covers):
            mixture = [visitation_of(p)[0] for p in artefacts.covers[layer - 1]]
            for t in range(layer + 1):
                counts[t] += entry["episodes"] * np.mean([v[t] for v in mixture], axis=0)
    value, error = None, None
    if artefacts.policy is not None:
        latent, error = estimator.policy(artefacts.policy)
        value = float(policy_value(floats, latent))
    return ComparisonReport(
        mdp=mdp.name, samples=samples, steps=steps, value=value,
        optimal_value=float(optimal_values(floats).value), policy_standard_error=error,
        abstractions=abstractions, dynamics=dynamics, visitation_counts=counts,
    )


ABSTRACTION_NAMES = {"ki": "phi-bar = (phi_F, phi_B) vs KI", "backward": "phi_B vs backward KI",
                "forward": "phi_F vs forward KI"}
"""The rows of the summary's abstraction table: each learned abstraction against its exact
partition (``def:ki``, ``def:bki``, ``def:fki``)."""

SUMMARY_LEGEND = (
    "  each latent observation is assigned to the learned class most of its encodings fall into;",
    "  wrong merge: one learned class is assigned the observations of two exact classes;",
    "  split: the observations of one exact class are assigned to two or more learned classes;",
    "  misassigned: the share of a step's encodings outside their observation's assigned class;",
    "  phi-bar separates what phi_F or phi_B separates; the cover is learned on phi_B's classes.",
)
"""What the summary's abstraction table counts, printed below it."""


def _steps(hits: list[int], total: int, shown: int = 3) -> str:
    """``'1 of 3 (step 2)'``: how many of ``total`` steps are ``hits``, the first few named."""
    if not hits:
        return f"0 of {total}"
    named = listed(map(str, hits), shown)
    return f"{len(hits)} of {total} (step{'s' if len(hits) > 1 else ''} {named})"


def _abstraction_rows(report: ComparisonReport) -> list[str]:
    """The table of wrong merges, splits and misassigned shares per learned abstraction."""
    header = ("learned vs exact", "steps with wrong merges", "steps with splits",
              "max misassigned")
    rows = []
    for kind, name in ABSTRACTION_NAMES.items():
        compared = {h + 1: layer[kind] for h, layer in sorted(report.abstractions.items())
                    if kind in layer}
        if not compared:
            continue
        worst = max(compared, key=lambda step: compared[step].misassigned)
        most = compared[worst].misassigned
        rows.append((name,
                     _steps([h for h, c in compared.items() if c.wrong_merges], len(compared)),
                     _steps([h for h, c in compared.items() if c.splits], len(compared)),
                     f"{most:.3f}" + (f" (step {worst})" if most else "")))
    widths = [max(len(row[k]) for row in [header, *rows]) for k in range(len(header))]
    return ["  " + "   ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
            .rstrip() for row in [header, *rows]]


def _cover_lines(report: ComparisonReport) -> list[str]:
    """The smallest alpha over the steps after the first (layer 1 is reached by the start
    distribution alone: alpha 1 there), and what alpha is."""
    later = [s for s in report.steps if s["step"] >= 2]
    if not later:
        return ["policy cover: only step 1 compared (the run stopped before learning step 2)"]
    lowest = min(later, key=lambda s: s["alpha_min"])
    steps = f"steps 2-{later[-1]['step']}" if len(later) > 1 else "step 2"
    if all(s["alpha_min"] == lowest["alpha_min"] for s in later):
        found = f"alpha {lowest['alpha_min']:.3f} at each of {steps}"
    else:
        found = f"smallest alpha {lowest['alpha_min']:.3f} at step {lowest['step']} of {steps}"
    return [f"policy cover: {found} (step 1 needs no policy)",
            "  alpha of a step: min over its states s of max_{pi in cover} P_pi(s) / eta(s) "
            "(def:policy-cover)"]


def format_summary(report: ComparisonReport) -> str:
    """The text summary of ``homer compare``: which learned abstraction is compared with which
    exact partition (with a legend of what is counted), the cover's smallest alpha after step 1
    and the learned policy's value.

    The value is exact for the policy's action probabilities at each latent observation, which
    are shares of ``report.samples`` encodings; their largest standard error
    ``sqrt(p (1 - p) / samples)`` (one standard error, estimated) is given with it.
    """
    lines = [f"{report.mdp} vs the exact answers: {len(report.steps)} time steps, "
             f"{report.samples} encodings of each latent observation",
             *_abstraction_rows(report), *SUMMARY_LEGEND, *_cover_lines(report)]
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

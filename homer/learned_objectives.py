"""The objectives that came after HOMER, learned on rich observations of the exogenous lock and
scored against the exact partitions (``python -m homer objectives``): the multi-step inverse
objective (:mod:`homer.multistep_inverse`) and PPE (:mod:`homer.ppe`), each a row.

The lock is :func:`kinematic.families.exogenous_combination_lock` with the observations of
``homer run --env combolock --exogenous-bits K`` (:class:`homer.encoders.HadamardNoise`,
``layout="exogenous-bits"``, the authors' encoding). Each learned abstraction is scored by
:func:`homer.evaluate.evaluate_abstraction` against backward KI, forward KI, KI and the
endogenous partition (``homer evaluate --against endogenous``); PPE's kept paths also give a
cover, whose alpha is exact (:func:`kinematic.cover.policy_cover_alpha`).

A row keeps, per step, how many of each observation's evaluation encodings fell into each
learned class (``counts``), so that it can be judged later against any exact prediction
without rerunning: :func:`as_predicted`. Each row is judged against its objective's exact
solution (:func:`exact_prediction`: the coarsest Bayes-optimal abstraction of
:mod:`kinematic.counterexamples.multistep_inverse` or :mod:`kinematic.counterexamples.ppe`, and
PPE's kept paths with exact oracles): ``row["prediction"]``.

The bottleneck of the multi-step inverse objective has, by default, as many classes at each
layer as the endogenous partition has blocks there: room for the endogenous state, so that the
row shows whether the objective finds it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace
from fractions import Fraction
from typing import Any

import numpy as np

from homer.config import HomerConfig
from homer.encoders import HadamardNoise
from homer.evaluate import (
    AbstractionReport,
    compare_classes,
    evaluate_abstraction,
    exact_partitions,
)
from homer.multistep_inverse import learn_multistep_inverse
from homer.ppe import PPESettings, cover_policies, learn_ppe
from homer.process_state import process_state
from homer.settings import (
    LEARNED_OBJECTIVES,
    MERGE_THRESHOLD,
    MULTISTEP_EPISODES,
    MULTISTEP_RESTARTS,
    PPE_SAMPLES,
)
from kinematic.counterexamples.multistep_inverse import multistep_inverse_solution
from kinematic.counterexamples.ppe import exact_ppe
from kinematic.cover import policy_cover_alpha
from kinematic.exogenous import ExogenousBlockMDP, endogenous_partition
from kinematic.inseparability import ki_partition
from kinematic.model import BlockMDP
from kinematic.numbers import number_text
from kinematic.partition import Partition

__all__ = ["LEARNED_OBJECTIVES", "as_predicted", "exact_prediction", "judge", "learned_row",
           "objectives_table", "run_objectives", "run_objectives_on", "step_verdicts"]


def _scores(report: AbstractionReport) -> list[dict[str, Any]]:
    """Per step: the learned classes (observation names per class), each observation's
    encodings per learned class, and against each exact partition the wrong merges, the
    largest merge rate, the splits and the numbers of classes."""
    steps = []
    for h, compared in enumerate(report.steps, start=1):
        ki = compared["ki"]
        classes: dict[int, list[str]] = {}
        for observation, chosen in ki.assignment.items():
            classes.setdefault(chosen, []).append(observation)
        scores = {kind: {"wrong_merges": c.wrong_merges,
                         "largest_merge_rate": round(max((p.rate for p in c.merge_rates),
                                                         default=0.0), 4),
                         "splits": c.splits, "exact_classes": len(c.exact_classes)}
                  for kind, c in compared.items()}
        steps.append({"step": h, "learned_classes": [classes[k] for k in sorted(classes)],
                      "scores": scores})
    return steps


def _counts(mdp: BlockMDP, phi: Any, encoder: HadamardNoise, samples: int,
            seed: int) -> list[dict[str, dict[str, int]]]:
    """Per step, observation -> learned class -> encodings (the evaluation's encodings)."""
    from homer.encoded import EncodedObservations

    encoded = EncodedObservations(mdp, encoder, samples, seed)
    counts = []
    for h in range(1, mdp.horizon + 1):
        ids, vectors = encoded.step(h)
        learned = np.asarray(phi(vectors, h))
        step: dict[str, dict[str, int]] = {}
        for x, name in enumerate(mdp.observations[h - 1]):
            values, numbers = np.unique(learned[ids == x], return_counts=True)
            step[name] = {str(int(v)): int(n) for v, n in zip(values, numbers, strict=True)}
        counts.append(step)
    return counts


def _parts(model: BlockMDP | ExogenousBlockMDP) -> tuple[BlockMDP, Partition | None]:
    """The Block MDP of ``model`` and its endogenous partition (None for a plain Block MDP)."""
    if isinstance(model, ExogenousBlockMDP):
        return model.mdp, endogenous_partition(model)
    return model, None


def learned_row(noisy: BlockMDP | ExogenousBlockMDP, objective: str, seed: int,
                encoder: HadamardNoise,
                episodes: int = MULTISTEP_EPISODES, num_samples: int = PPE_SAMPLES,
                capacity: int | None = None, samples: int = 500,
                merge_threshold: float = MERGE_THRESHOLD,
                config: HomerConfig | None = None) -> dict[str, Any]:
    """Learn ``objective`` (one of :data:`LEARNED_OBJECTIVES`) on ``noisy``'s rich observations
    from ``seed`` with one torch thread and score it (module docstring): the row.
    ``episodes``: the multi-step inverse's random episodes; ``num_samples``: PPE's rollouts per
    step; ``capacity``: the multi-step inverse's classes at every layer (default: the
    endogenous partition's blocks of each layer); ``samples``: evaluation encodings per
    observation; ``config``: the multi-step inverse's model and training (default
    :class:`HomerConfig` with :data:`MULTISTEP_RESTARTS` restarts)."""
    if objective not in LEARNED_OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(LEARNED_OBJECTIVES)}, got "
                         f"{objective!r}")
    mdp, endogenous = _parts(noisy)
    row: dict[str, Any] = {"objective": objective, "mdp": mdp.name, "seed": seed,
                           "encoder": asdict(encoder), "evaluation_samples": samples,
                           "merge_threshold": merge_threshold}
    with process_state(1):
        started = time.perf_counter()
        if objective == "multistep_inverse":
            config = config or HomerConfig(restarts=MULTISTEP_RESTARTS)
            room = endogenous or ki_partition(mdp)
            layers = room.blocks_per_layer if capacity is None else (capacity,) * mdp.horizon
            config = replace(config, pretraining_width=max(config.pretraining_width, *layers))
            learned = learn_multistep_inverse(mdp, encoder, episodes, config, seed, layers)
            seconds = time.perf_counter() - started
            phi = learned.phi
            row.update(episodes=episodes, capacity=list(learned.capacity),
                       config=asdict(config),
                       validation_loss=[layer.validation_loss for layer in learned.layers])
        else:
            ppe = learn_ppe(mdp, encoder, num_samples, seed, PPESettings())
            seconds = time.perf_counter() - started
            phi = ppe.phi
            kept = ppe.kept_paths()
            alpha = policy_cover_alpha(mdp, cover_policies(mdp, kept))
            row.update(num_samples=num_samples, classifier=asdict(PPESettings()),
                       kept_paths=[[list(p) for p in s] for s in kept],
                       capacity=[1, *(len(s) for s in kept)],
                       merged=[{str(i): list(m) for i, m in s.merged.items()}
                               for s in ppe.steps],
                       thresholds=[s.threshold for s in ppe.steps],
                       gaps=[s.gaps.round(4).tolist() for s in ppe.steps],
                       validation_loss=[s.validation_loss for s in ppe.steps],
                       cover_alpha=number_text(alpha.alpha),
                       cover_alpha_per_layer=[number_text(a) for a in alpha.alpha_per_layer])
        report = evaluate_abstraction(mdp, phi, encoder, samples, seed,
                                      partitions=exact_partitions(mdp, endogenous),
                                      merge_threshold=merge_threshold)
        row["steps"] = _scores(report)
        row["counts"] = _counts(mdp, phi, encoder, samples, seed)
    row["seconds"] = round(seconds, 1)
    row["prediction"] = judge(noisy, row)
    return row


def run_objectives_on(model: BlockMDP | ExogenousBlockMDP, seed: int,
                      objectives: Sequence[str] = LEARNED_OBJECTIVES,
                      **settings: Any) -> list[dict[str, Any]]:
    """The rows of ``objectives`` learned from ``seed`` on rich observations of any exact Block
    MDP (``python -m homer objectives --spec``): the authors' encoding with one-hot
    observations, scored against the KI partitions and, for an exogenous Block MDP, its
    endogenous partition; ``settings`` go to :func:`learned_row` (the multi-step inverse's
    capacity defaults to the endogenous partition's blocks of each layer, or KI's without one).

    >>> from kinematic import deterministic_combination_lock
    >>> [row] = run_objectives_on(deterministic_combination_lock(3, 2, seed=0), seed=0,
    ...                           objectives=["ppe_path_prediction"], num_samples=40, samples=5)
    >>> row["kept_paths"], row["prediction"]["as_predicted"]
    ([[['a1'], ['a2']], [['a1', 'a1'], ['a2', 'a2']]], True)
    """
    mdp, _ = _parts(model)
    if not mdp.mode.exact:
        raise ValueError(f"{mdp.name!r} is a float-mode MDP: its learned rows are judged against "
                         "exact solutions, which need exact probabilities (strings such as "
                         "\"1/3\" in the spec)")
    return [learned_row(model, objective, seed, HadamardNoise(), **settings)
            for objective in objectives]


def run_objectives(horizon: int, actions: int, bits: int, flip: Fraction, seed: int,
                   lock_seed: int | None = None, objectives: Sequence[str] = LEARNED_OBJECTIVES,
                   **settings: Any) -> list[dict[str, Any]]:
    """The rows of ``objectives`` on ``exogenous_combination_lock(horizon, actions, lock_seed,
    bits, flip)`` (``lock_seed`` defaults to ``seed``, as ``homer run``'s), each learned from
    ``seed``; ``settings`` go to :func:`learned_row`.

    >>> rows = run_objectives(3, 2, 1, Fraction(1, 10), seed=0, objectives=["ppe_path_prediction"],
    ...                       num_samples=40, samples=5)
    >>> rows[0]["kept_paths"][0], rows[0]["steps"][1]["scores"]["endogenous"]["exact_classes"]
    ([['a1']], 3)
    """
    from kinematic.families import exogenous_combination_lock

    noisy = exogenous_combination_lock(horizon, actions, seed if lock_seed is None else lock_seed,
                                       bits, flip)
    encoder = HadamardNoise(layout="exogenous-bits")
    return [learned_row(noisy, objective, seed, encoder, **settings) for objective in objectives]


def as_predicted(mdp: BlockMDP, row: Mapping[str, Any], predicted: Partition,
                 kept_paths: Sequence[Sequence[Sequence[str]]] | None = None) -> bool:
    """Whether a learned ``row`` (of :func:`learned_row`, on ``mdp``) is as the exact
    ``predicted`` partition (the objective's coarsest Bayes-optimal abstraction of each layer,
    as states) says, and for PPE whether it kept the predicted ``kept_paths`` (per step,
    tuples of action names). At every step, from the row's ``counts``:

    - no **wrong merge of predicted classes**: no two distinct predicted classes with a merge
      rate (:mod:`homer.evaluate`) above the row's ``merge_threshold``;
    - no **split of a predicted class** where the learner had no spare capacity (its classes
      at that layer, ``row["capacity"]``, at most the predicted classes): every predicted class
      has more than ``1 - merge_threshold`` of its encodings in one learned class. With more
      classes than the prediction needs, the objective's optimum is not unique (the prediction
      is the *coarsest* one) and a split costs it nothing, so none is predicted;
    - for PPE (a row with ``kept_paths``), the kept paths are the predicted ones, in order.

    >>> from kinematic import exogenous_combination_lock
    >>> lock = exogenous_combination_lock(2, 2, seed=0, bits=1).mdp
    >>> row = {"merge_threshold": 0.05, "capacity": [1, 2], "counts": [
    ...     {x: {"0": 10} for x in lock.observations[0]},
    ...     {x: {"0" if x.startswith("s2c") else "1": 10} for x in lock.observations[1]}]}
    >>> alive = Partition.from_labels(lock, {s: s.startswith("s2c") for s in lock.states})
    >>> as_predicted(lock, row, alive)
    True
    >>> by_bit = Partition.from_labels(lock, {s: s[-1] for s in lock.states})
    >>> as_predicted(lock, row, by_bit)  # learned class 1 merges s2a|0 and s2a|1
    False
    >>> one = Partition.from_labels(lock, dict.fromkeys(lock.states, 0))
    >>> as_predicted(lock, row, one)  # two classes where one is optimal: a split is free
    True
    """
    return all(step_verdicts(mdp, row, predicted, kept_paths))


def step_verdicts(mdp: BlockMDP, row: Mapping[str, Any], predicted: Partition,
                  kept_paths: Sequence[Sequence[Sequence[str]]] | None = None) -> list[bool]:
    """:func:`as_predicted` step by step (``[i]``: step ``i + 1``): whether the step has no
    wrong merge of predicted classes, no split of one without spare capacity, and for PPE the
    predicted kept paths of the step (PPE's step ``h`` keeps the paths reaching layer ``h``;
    step 1 has none)."""
    threshold = float(row["merge_threshold"])
    learned_paths: list[list[tuple[str, ...]]] = []
    if "kept_paths" in row:
        if kept_paths is None:
            raise ValueError("row: a PPE row (it has kept_paths) is judged with the predicted "
                             "kept_paths too")
        learned_paths = [[tuple(path) for path in step] for step in row["kept_paths"]]
        kept_paths = [[tuple(path) for path in step] for step in kept_paths]
    verdicts = []
    for h, counts in enumerate(row["counts"], start=1):
        names = mdp.observations[h - 1]
        ids, learned_classes = [], []
        for x, name in enumerate(names):
            for label, number in counts[name].items():
                ids += [x] * number
                learned_classes += [int(label)] * number
        blocks = predicted.blocks(h)
        compared = compare_classes(mdp, h, "predicted", blocks, np.array(ids),
                                   np.array(learned_classes), None, threshold)
        good = not compared.wrong_merges
        if row["capacity"][h - 1] <= len(blocks):
            largest = compared.confusion.max(axis=0) / np.maximum(compared.confusion.sum(axis=0), 1)
            good &= not np.any(largest <= 1 - threshold)
        if learned_paths and h >= 2:
            good &= (learned_paths[h - 2] if h - 2 < len(learned_paths) else None) == (
                kept_paths[h - 2] if kept_paths is not None and h - 2 < len(kept_paths)
                else None)
        verdicts.append(bool(good))
    if learned_paths and len(learned_paths) != len(kept_paths or []):
        verdicts[-1] = False
    return verdicts


def exact_prediction(noisy: BlockMDP | ExogenousBlockMDP, objective: str
                     ) -> tuple[Partition, list[list[tuple[str, ...]]] | None]:
    """What the exact solution of ``objective`` predicts for its learned row on ``noisy``, as a
    partition of states per layer (one class on layer 1, which neither learner abstracts): for
    the multi-step inverse, the coarsest Bayes-optimal abstraction of every layer ``h >= 2`` of
    MusIK's every-gap objective under the uniform random policy (:func:`~kinematic.
    counterexamples.multistep_inverse.multistep_inverse_solution`); for PPE, what its decoder
    computes from the Bayes-optimal path classifier - each observation to the kept path of the
    largest posterior, Intrepid's ``PPEDecoder`` (``decoder_labels`` of :func:`~kinematic.
    counterexamples.ppe.exact_ppe`; the classifier's own level sets, :func:`~kinematic.
    counterexamples.ppe.ppe_solution`, are finer where the kept paths are fewer than the
    candidates) - and PPE's kept paths of every step.

    >>> from kinematic import exogenous_combination_lock
    >>> partition, kept = exact_prediction(exogenous_combination_lock(3, 2, seed=0, bits=1),
    ...                                    "ppe_path_prediction")
    >>> partition.blocks(2), kept
    ([['s2a|0', 's2a|1', 's2b|0', 's2b|1', 's2c|0', 's2c|1']], [[('a1',)], [('a1', 'a1')]])
    """
    if objective not in LEARNED_OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(LEARNED_OBJECTIVES)}, got "
                         f"{objective!r}")
    mdp, _ = _parts(noisy)
    first = [[0] * len(mdp.observations[0])]
    if objective == "multistep_inverse":
        labels = first + [multistep_inverse_solution(mdp, h).labels.tolist()
                          for h in range(1, mdp.horizon)]
        return Partition.from_observation_labels(mdp, labels, kind=objective), None
    ppe = exact_ppe(mdp)
    labels = first + [ppe.step(h).decoder_labels.tolist() for h in range(1, mdp.horizon)]
    kept = [list(ppe.step(h).kept_paths) for h in range(1, mdp.horizon)]
    return Partition.from_observation_labels(mdp, labels, kind=objective), kept


def judge(noisy: BlockMDP | ExogenousBlockMDP, row: Mapping[str, Any]) -> dict[str, Any]:
    """``row`` (of :func:`learned_row` on ``noisy``) against :func:`exact_prediction`: the
    predicted classes of every step (state names), PPE's predicted kept paths, and
    :func:`as_predicted`'s verdict."""
    mdp, _ = _parts(noisy)
    partition, kept = exact_prediction(noisy, row["objective"])
    steps = step_verdicts(mdp, row, partition, kept)
    return {"classes": [partition.blocks(h) for h in range(1, mdp.horizon + 1)],
            "kept_paths": None if kept is None else [[list(p) for p in step] for step in kept],
            "steps": steps, "as_predicted": all(steps)}


def objectives_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """The rows as a Markdown table: per objective and step, the learned classes, their wrong
    merges and splits against KI and the endogenous partition (largest merge rate in
    brackets), the classes of the exact prediction and the row's verdict (:func:`judge`), and
    the seconds."""
    lines = ["| objective | step | classes | KI: wrong merges (largest rate) | KI: splits | "
             "endogenous: wrong merges (largest rate) | endogenous: splits | exact prediction "
             "| s |", "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        prediction = row.get("prediction")
        for step in row["steps"]:
            ki, endo = step["scores"]["ki"], step["scores"].get("endogenous")
            if prediction is None:
                predicted = "not judged"
            else:
                classes = len(prediction["classes"][step["step"] - 1])
                good = prediction.get("steps", [prediction["as_predicted"]] * len(row["steps"]))
                predicted = (f"{classes} {'class' if classes == 1 else 'classes'}: "
                             + ("as predicted" if good[step["step"] - 1] else "not as predicted"))
            lines.append(
                f"| {row['objective']} | {step['step']} | {len(step['learned_classes'])} of "
                f"{row['capacity'][step['step'] - 1]} | {ki['wrong_merges']} "
                f"({ki['largest_merge_rate']:.2f}) of {ki['exact_classes']} classes | "
                f"{ki['splits']} | " + ("- | - | " if endo is None else
                                         f"{endo['wrong_merges']} "
                                         f"({endo['largest_merge_rate']:.2f}) of "
                                         f"{endo['exact_classes']} classes | {endo['splits']} | ")
                + f"{predicted} | {row['seconds']} |")
    return "\n".join(lines)

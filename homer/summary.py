"""The text of ``homer compare`` and ``homer evaluate``: one table of learned abstractions against
the exact partitions (backward KI ``def:bki``, forward KI ``def:fki``, KI ``def:ki``), the policy
cover's alpha (``def:policy-cover``), and ``homer evaluate``'s whole report (:class:`Evaluation`:
``summary.txt`` and ``report.json``). Torch-free, as :mod:`homer.evaluate`.

>>> import numpy as np
>>> from kinematic import combination_lock
>>> from homer.evaluate import evaluate_abstraction
>>> lock = combination_lock(horizon=3, actions=2, seed=0)
>>> one_class = lambda observations, step: np.zeros(len(observations), dtype=int)
>>> report = evaluate_abstraction(lock, one_class, samples=10)
>>> ki = {h: step["ki"] for h, step in enumerate(report.steps, start=1)}
>>> print("\\n".join(abstraction_table({"phi vs KI": ki})))
  learned vs exact   steps with wrong merges   wrong merges   steps with splits   max misassigned
  phi vs KI          3 of 3 (steps 1, 2, 3)    5              0 of 3              0.000
>>> print("\\n".join(merge_lines({"phi vs KI": ki}, shown=2)))  # doctest: +NORMALIZE_WHITESPACE
  phi vs KI wrong merges:
    step 1: 100.0% of s1a's encodings in a learned class holding 100.0% of s1b's
      (standard error 0.0%)
    step 2: 100.0% of s2a's encodings in a learned class holding 100.0% of s2b's
      (standard error 0.0%)
    ... (3 more; report.json has every merge rate)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from homer.evaluate import AbstractionComparison, AbstractionReport, MergeRate
from homer.policy_evaluation import CoverReport, steps_named
from homer.wording import setting
from kinematic.display import listed, name_text
from kinematic.json_input import display_path
from kinematic.partition import block_text

__all__ = ["ENDOGENOUS_LEGEND", "EVALUATION_NAMES", "Evaluation", "abstraction_table",
           "agreement_lines", "class_text", "cover_lines", "format_evaluation", "merge_lines",
           "merge_text", "steps_phrase", "table_legend"]


def table_legend(merge_threshold: float) -> tuple[str, ...]:
    """What :func:`abstraction_table` counts, printed below it: wrong merges by merge rate
    above ``merge_threshold`` (:mod:`homer.evaluate`'s docstring defines the rate).

    >>> print("\\n".join(table_legend(0.05)[1:3]))
      merge rate of exact classes C, D: the largest share of both C's and D's encodings that
      one learned class holds (max over learned classes of the smaller of its two shares);
    """
    return (
        f"  wrong merge: a pair of exact classes with a merge rate above {merge_threshold} "
        f"({setting('merge_threshold', ...)});",
        "  merge rate of exact classes C, D: the largest share of both C's and D's encodings that",
        "  one learned class holds (max over learned classes of the smaller of its two shares);",
        "  split: the observations of one exact class are assigned to two or more learned classes,",
        "  each observation to the learned class most of its encodings fall into;",
        "  misassigned: the share of a step's encodings outside their observation's assigned "
        "class;",
        "  its maximum leaves out the steps with one exact class (nothing to merge: misassigned",
        "  encodings cost nothing there; - when every step has one);",
        "  a wrong merge breaks what HOMER's guarantees need; a split only costs capacity;",
    )

ENDOGENOUS_LEGEND = (
    "  the row against the endogenous partition: a wrong merge joins two endogenous states",
    "  (what the decoder x -> s keeps apart); a split keeps exogenous values of one endogenous",
    "  state apart, as KI does when the noise has memory - where the endogenous state is the",
    "  target, the KI rows' wrong merges of exogenous values are what it asks for.")
"""What the row of phi (``homer evaluate``) or phi-bar (``homer compare``) against the
endogenous partition of an exogenous Block MDP counts, printed below the table."""


EVALUATION_NAMES = {"ki": "phi vs KI", "backward": "phi vs backward KI",
                    "forward": "phi vs forward KI", "endogenous": "phi vs endogenous"}
"""The rows of ``homer evaluate``'s table: the one abstraction against each exact partition it
was compared with (``endogenous`` with ``--against endogenous`` only)."""


def steps_phrase(hits: Sequence[int], total: int, shown: int = 3) -> str:
    """How many of ``total`` steps are ``hits``, the first ``shown`` named (all of them when
    one more would be left out).

    >>> steps_phrase([2], 4), steps_phrase([], 4), steps_phrase([1, 2, 3, 4], 4)
    ('1 of 4 (step 2)', '0 of 4', '4 of 4 (steps 1, 2, 3, 4)')
    >>> steps_phrase([1, 2, 3, 4, 5], 6)
    '5 of 6 (steps 1, 2, 3, ... (2 more))'
    """
    if not hits:
        return f"0 of {total}"
    named = listed(map(str, hits), shown if len(hits) > shown + 1 else len(hits))
    return f"{len(hits)} of {total} (step{'s' if len(hits) > 1 else ''} {named})"


def abstraction_table(rows: Mapping[str, Mapping[int, AbstractionComparison]]) -> list[str]:
    """The table of wrong merges (merge rates above the threshold), splits and the largest
    misassigned share over the steps with two or more exact classes (``-`` when there is none):
    one row per ``rows`` entry (its name -> time step, 1-based -> the comparison of that step),
    empty rows left out; the lines, indented by two spaces."""
    header = ("learned vs exact", "steps with wrong merges", "wrong merges", "steps with splits",
              "max misassigned")
    cells = []
    for name, compared in rows.items():
        if not compared:
            continue
        counted = [h for h, c in compared.items() if not c.one_class]
        most_text = "-"
        if counted:
            worst = max(counted, key=lambda step: compared[step].misassigned)
            most = compared[worst].misassigned
            most_text = f"{most:.3f}" + (f" (step {worst})" if most else "")
        cells.append((name,
                      steps_phrase([h for h, c in compared.items() if c.wrong_merges],
                                   len(compared)),
                      str(sum(c.wrong_merges for c in compared.values())),
                      steps_phrase([h for h, c in compared.items() if c.splits], len(compared)),
                      most_text))
    widths = [max(len(row[k]) for row in [header, *cells]) for k in range(len(header))]
    return ["  " + "   ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
            .rstrip() for row in [header, *cells]]


def class_text(block: Sequence[str]) -> str:
    """An exact class as the merge lines name it: its state alone, or its states in braces
    (names quoted when they could be misread: :func:`kinematic.display.name_text`).

    >>> class_text(["s2c"]), class_text(["s2a", "s2b"]), class_text(["a\\nb"])
    ('s2c', '{s2a, s2b}', "'a\\\\nb'")
    """
    return name_text(block[0]) if len(block) == 1 else block_text(block)


def merge_text(comparison: AbstractionComparison, pair: MergeRate) -> str:
    """The larger leak of ``pair`` in words: how much of one exact class's encodings fall into a
    learned class, how much of the other's that class holds, and the standard error of the
    first."""
    leak = pair.worst
    classes = comparison.exact_classes
    return (f"{leak.rate:.1%} of {class_text(classes[leak.source])}'s encodings in a learned "
            f"class holding {leak.target_share:.1%} of {class_text(classes[leak.target])}'s "
            f"(standard error {leak.standard_error:.1%})")


def merge_lines(rows: Mapping[str, Mapping[int, AbstractionComparison]],
                shown: int = 3) -> list[str]:
    """Where the wrong merges of :func:`abstraction_table`'s rows are: per row with any, its
    first ``shown`` wrong merges (by step, then largest merge rate first), each naming the
    two exact classes and the rate (:func:`merge_text`), and how many are left out.

    >>> import numpy as np
    >>> from homer.evaluate import merge_rates
    >>> leaking = AbstractionComparison("ki", [["s2a", "s2b"], ["s2c"]], [0, 1],
    ...                                 np.array([[10, 4], [0, 6]]), {}, 0.0, 0, 0.5, 0.0,
    ...                                 merge_rates=merge_rates(np.array([[10, 4], [0, 6]]),
    ...                                                         [0, 1]))
    >>> lines = merge_lines({"phi vs KI": {2: leaking}})
    >>> print("\\n".join(lines))  # doctest: +NORMALIZE_WHITESPACE
      phi vs KI wrong merges:
        step 2: 40.0% of s2c's encodings in a learned class holding 100.0% of {s2a, s2b}'s
          (standard error 15.5%)
    """
    lines = []
    for name, compared in rows.items():
        found = [f"    step {h}: {merge_text(compared[h], pair)}"
                 for h in sorted(compared) for pair in compared[h].merges]
        if not found:
            continue
        left = len(found) - shown
        more = [f"    ... ({left} more; report.json has every merge rate)"] if left > 0 else []
        lines += [f"  {name} wrong merges:", *found[:shown], *more]
    return lines


def _smallest_alpha(later: Sequence[Mapping[str, Any]]) -> str:
    """The smallest alpha of the steps ``later`` (at least one) and where it is."""
    lowest = min(later, key=lambda s: s["alpha_min"])
    named = steps_named([s["step"] for s in later])
    if len(later) == 1:
        return f"alpha {lowest['alpha_min']:.3f} at {named}"
    if all(s["alpha_min"] == lowest["alpha_min"] for s in later):
        return f"alpha {lowest['alpha_min']:.3f} at each of {named}"
    return f"smallest alpha {lowest['alpha_min']:.3f} at step {lowest['step']} of {named}"


ALPHA_LEGEND = ("  alpha of a step: min over its states s of max_{pi in cover} P_pi(s) / eta(s) "
                "(def:policy-cover)")
"""What the alpha of :func:`cover_lines` is, printed below it."""


def cover_lines(steps: Sequence[Mapping[str, Any]], uncovered: Sequence[int],
                why: str = "") -> list[str]:
    """The smallest alpha of a cover over the steps after the first (layer 1 is reached by the
    start distribution alone: alpha 1 there) and what alpha is; ``steps`` are
    :func:`homer.policy_evaluation.cover_step` reports, ``uncovered`` the steps from 2 on with
    no policies (:attr:`homer.policy_evaluation.PolicyCover.uncovered`), ``why`` said after
    them. With some uncovered, the cover has no alpha: the lines name those steps first, then
    the smallest alpha of the steps that have policies."""
    later = [s for s in steps if s["step"] >= 2]
    if uncovered:
        have = "has" if len(uncovered) == 1 else "have"
        lines = [f"policy cover: alpha not defined - {steps_named(uncovered)} {have} no "
                 f"policies{why}"]
        if later:
            lines.append(f"  the steps with policies: {_smallest_alpha(later)}")
        return [*lines, ALPHA_LEGEND]
    if not later:
        return ["policy cover: horizon 1 (step 1 needs no policy)"]
    return [f"policy cover: {_smallest_alpha(later)} (step 1 needs no policy)", ALPHA_LEGEND]


@dataclass(frozen=True)
class Evaluation:
    """What ``homer evaluate`` reports: the abstraction ``abstraction`` (a reference learner's
    name or ``MODULE:FUNCTION``; ``capacity`` the most classes it may use, for the reference
    learners that take one: k-means clusters a step into fewer when the step has fewer
    observations) and, when policies were given, their cover."""

    abstraction: str
    capacity: int | None
    report: AbstractionReport
    cover: CoverReport | None = None
    policies: str | None = None
    """The ``--policies`` given (``MODULE:FUNCTION``), None without."""

    def to_json(self) -> dict[str, Any]:
        """``report.json``: :meth:`homer.evaluate.AbstractionReport.to_json` (per step the
        comparison with each exact partition under ``abstractions``, with every pair's merge
        rate; ``wrong_merges`` and ``splits`` against KI; ``merge_threshold``) with
        ``abstraction``, ``capacity``, ``policies`` and ``cover``
        (:meth:`homer.policy_evaluation.CoverReport.to_json`, None without policies)."""
        return {"abstraction": self.abstraction, "capacity": self.capacity,
                **self.report.to_json(), "policies": self.policies,
                "cover": None if self.cover is None else self.cover.to_json()}


def agreement_lines(comparisons: Mapping[int, AbstractionComparison]) -> list[str]:
    """The lowest and mean pairwise agreement of ``comparisons`` (step -> a learned
    abstraction against KI) and what it is; nothing when none has one."""
    agreements = {h: c.pairwise_agreement for h, c in comparisons.items()
                  if c.pairwise_agreement is not None}
    if not agreements:
        return []
    lowest = min(agreements, key=lambda h: agreements[h])
    mean = sum(agreements.values()) / len(agreements)
    return [f"pairwise agreement with the latent states: lowest {agreements[lowest]:.3f} (step "
            f"{lowest}), mean {mean:.3f} over the steps",
            "  the chance that two observations drawn from the exact cover's roll-in (the homing "
            "policy of",
            "  a uniformly chosen state of the step, followed to it) get one class exactly when "
            "they come",
            "  from one latent state, as Intrepid (Microsoft Research's rich-observation RL "
            "library)",
            "  measures it; two states of one KI class in one class are no wrong merge but cost "
            "agreement"]


def _value_lines(evaluation: Evaluation, cover: CoverReport) -> list[str]:
    if cover.values is None or cover.action_standard_errors is None:  # both None, or neither
        return ["values: none (the MDP has no rewards)"]
    values = cover.values
    if len(values) == 1:
        found = f"value {values[0]:.3f}"
    else:
        best = max(range(len(values)), key=lambda k: values[k])
        found = f"best value of the {len(values)} policies {values[best]:.3f} (policy {best})"
    return [f"{found} vs optimal {cover.optimal_value:.3f}",
            "  exact, given each policy's action probabilities at the latent observations, each "
            "the mean",
            f"  over the {evaluation.report.samples} encodings of an observation (largest standard "
            f"error: {max(cover.action_standard_errors):.3f})"]


def format_evaluation(evaluation: Evaluation) -> str:
    """``homer evaluate``'s summary: the abstraction against each exact partition (the table of
    :func:`abstraction_table` with its legend), its pairwise agreement with the latent states
    and, with policies, their cover's alpha after step 1 (not defined when a step after the
    first has no policies: those steps are named instead) and their values against V*."""
    report = evaluation.report
    capacity = "" if evaluation.capacity is None else f" (capacity {evaluation.capacity})"
    rows = {name: {h: step[kind] for h, step in enumerate(report.steps, start=1) if kind in step}
            for kind, name in EVALUATION_NAMES.items()}
    lines = [f"phi = {display_path(evaluation.abstraction)}{capacity} on "
             f"{display_path(report.mdp)} vs the exact answers:",
             f"  {len(report.steps)} time steps, {report.samples} encodings of each latent "
             f"observation (seed {report.seed})",
             *abstraction_table(rows), *merge_lines(rows),
             *table_legend(report.merge_threshold),
             *(ENDOGENOUS_LEGEND if rows["phi vs endogenous"] else ()),
             *agreement_lines({h: step["ki"] for h, step in enumerate(report.steps, start=1)})]
    cover = evaluation.cover
    if cover is None:
        lines.append(f"policies: none given (give {setting('policies', ..., flag='--policies')} "
                     "to score a policy cover)")
    else:
        lines += [f"policies: {display_path(evaluation.policies or '')}",
                  *cover_lines(cover.steps, cover.uncovered),
                  *_value_lines(evaluation, cover)]
    return "\n".join(lines)

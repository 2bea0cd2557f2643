"""One call that computes every exact quantity of Sections 2-3 for a Block MDP, as JSON-ready data
(the output of ``python -m kinematic analyze --json``), and its readable text report.

An exogenous Block MDP (:class:`kinematic.exogenous.ExogenousBlockMDP`, or a spec that declares a
factorisation) adds its endogenous partition beside the KI partitions, and whether KI
separates exogenous values (:func:`ki_separation`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kinematic.canonical import canonical_form
from kinematic.certified_induction import exact_operations
from kinematic.display import LISTED, listed, name_text
from kinematic.exogenous import ExogenousBlockMDP, endogenous_partition
from kinematic.homing import eta, eta_error_bound, homing_policy_choices
from kinematic.inseparability import (
    Partition,
    backward_ki_partition,
    forward_ki_partition,
    ki_partition,
)
from kinematic.model import BlockMDP
from kinematic.partition import block_text
from kinematic.planning import optimal_values
from kinematic.policies import Policy
from kinematic.spec import to_spec

__all__ = ["ETA_MIN_LISTED", "SLOW_EXACT_SECONDS", "SlowExactAnalysis", "analyze",
           "attained_text", "eta_min_states", "exact_operations", "format_report", "has_rewards",
           "ki_separation", "ki_separation_text", "merged_blocks", "tie_rule"]

EXACT_SECONDS_PER_OPERATION = 2.5e-7
"""Seconds of exact eta per integer multiply-add of :func:`exact_operations`, everything
included (float decisions, exact ones, the integer evaluation), on one core: the random exact
MDP of H = 100, width 100, 10 actions, 5 successors, probabilities k/100 took 30.5 s on two
processes (``benchmarks/exact_scale.py``), about 61 CPU-s for 2.5e8 operations."""
SLOW_EXACT_SECONDS = 60.0
"""Exact analyses estimated to take longer than this warn before they start."""


ETA_MIN_LISTED = 10
"""States the reports name as attaining ``eta_min`` before ``... (N more)``; :func:`analyze`'s
result lists them all."""


class SlowExactAnalysis(UserWarning):
    """An exact analysis that will take long; the message gives the estimate."""


def _warn_if_slow(mdp: BlockMDP) -> None:
    if not mdp.mode.exact:
        return
    operations = exact_operations(mdp)
    seconds = operations * EXACT_SECONDS_PER_OPERATION
    if seconds > SLOW_EXACT_SECONDS:
        warnings.warn(
            f"exact analysis of {mdp.name!r} needs {operations:.2g} integer "
            f"multiply-adds, about {seconds / 60:.0f} min on one core at "
            f"{EXACT_SECONDS_PER_OPERATION * 1e6:.2f} us each; written with float "
            "probabilities it is analysed in float mode in seconds", SlowExactAnalysis,
            stacklevel=3)


def has_rewards(mdp: BlockMDP) -> bool:
    """Whether some observation and action has a non-zero expected reward.

    >>> from kinematic import figure2_split
    >>> has_rewards(figure2_split())
    False
    """
    return any(bool(np.any(rewards != 0)) for rewards in mdp.rewards)


def _blocks_with_layers(partition: Partition) -> list[dict]:
    return [{"layer": layer, "states": block}
            for layer in range(1, len(partition.layers) + 1) for block in partition.blocks(layer)]


def _decisions(mdp: BlockMDP, policy: Policy) -> list[dict]:
    """A deterministic observation policy as ``[{"layer": h, "decisions": {x: action}}]``."""
    return [
        {"layer": h + 1,
         "decisions": {x: mdp.actions[int(np.argmax(row != 0))]
                       for x, row in zip(mdp.observations[h], table, strict=True)}}
        for h, table in enumerate(policy.action_probabilities)
    ]


def _attaining(mdp: BlockMDP, eta_per_layer: Sequence[np.ndarray]) -> list[dict]:
    """The states of the smallest eta in ``eta_per_layer`` (:func:`eta_min_states`)."""
    minimum = min(min(values) for values in eta_per_layer)
    groups = []
    for h, (layer, values) in enumerate(zip(mdp.layers, eta_per_layer, strict=True)):
        states = [state for state, value in zip(layer, values, strict=True)
                  if mdp.mode.equal(value, minimum)]
        if states:
            groups.append({"layer": h + 1, "states": states})
    return groups


def eta_min_states(mdp: BlockMDP, eta_error: float | None = None) -> list[dict]:
    """Where ``eta_min = min_s eta(s)`` (Section 2) is attained: the states whose ``eta`` is the
    smallest, grouped by layer, ``[{"layer": 7, "states": ["s7_15_end"]}]`` (layers from 1, in
    order; the states of a layer in its order). All of them when several tie (in float mode:
    those whose computed ``eta`` is within ``atol`` of the smallest, as float mode compares
    computed values; ``eta_error`` as in :func:`analyze`). :func:`analyze` gives the same as
    ``"eta_min_states"``; :func:`kinematic.eta_min` gives the value.

    >>> from kinematic import combination_lock
    >>> eta_min_states(combination_lock(horizon=2, actions=2, seed=0))
    [{'layer': 1, 'states': ['s1a', 's1b']}, {'layer': 2, 'states': ['s2a', 's2b']}]
    """
    return _attaining(mdp, eta(mdp, error=eta_error))


def attained_text(groups: list[dict], name: Callable[[str], str] = name_text,
                  limit: int = ETA_MIN_LISTED) -> str:
    """Where ``eta_min`` is attained (:func:`eta_min_states`) as the reports print it: the number
    of states, then ``layer h: state, state; layer h': ...``, the first ``limit`` states and a
    count of the rest, each state as ``name`` writes it (:func:`kinematic.display.name_text` in
    the text report; in the tables, that and then the table's escape).

    >>> attained_text([{"layer": 7, "states": ["s7_15_end"]}])
    '1 state: layer 7: s7_15_end'
    >>> attained_text([{"layer": 1, "states": ["a", "b"]}, {"layer": 2, "states": ["c"]}], limit=2)
    '3 states: layer 1: a, b, ... (1 more)'
    """
    total = sum(len(group["states"]) for group in groups)
    parts, shown = [], 0
    for group in groups:
        states = group["states"][:limit - shown]
        if not states:
            break
        parts.append(f"layer {group['layer']}: {', '.join(map(name, states))}")
        shown += len(states)
    text = f"{total:,} state{'s' if total != 1 else ''}: " + "; ".join(parts)
    return text + (f", ... ({total - shown:,} more)" if total > shown else "")


def ki_separation(ki: Partition, endogenous: Partition) -> dict | None:
    """Where the KI partition ``ki`` first separates exogenous values: the first layer at which
    two states of one block of ``endogenous`` (one endogenous state with two exogenous values)
    lie in two KI classes, as ``{"layer": h, "states": [z1, z2]}`` (the first such block, its
    first state and the first of its states outside that one's KI class); None when every
    endogenous class lies within one KI class. At a layer with more KI classes than endogenous
    ones there is always such a pair; a layer with fewer may have one too.

    >>> from kinematic import combination_lock, exogenous_block_mdp, exogenous_chain, ki_partition
    >>> lock = combination_lock(3, 2, seed=0)
    >>> flip = exogenous_chain(["0", "1"], {"0": "1/2", "1": "1/2"},
    ...                        {"0": {"0": "9/10", "1": "1/10"}, "1": {"0": "1/10", "1": "9/10"}},
    ...                        horizon=3)
    >>> noisy = exogenous_block_mdp(lock, flip)
    >>> ki_separation(ki_partition(noisy.mdp), endogenous_partition(noisy))
    {'layer': 1, 'states': ['s1a|0', 's1a|1']}
    """
    for h in range(len(ki.layers)):
        class_of = dict(zip(ki.layers[h], ki.labels[h].tolist(), strict=True))
        for block in endogenous.blocks(h + 1):
            apart = [state for state in block if class_of[state] != class_of[block[0]]]
            if apart:
                return {"layer": h + 1, "states": [block[0], apart[0]]}
    return None


def ki_separation_text(separation: dict | None, name: Callable[[str], str] = name_text) -> str:
    """:func:`ki_separation`'s result as the reports' one line, states written by ``name``.

    >>> print(ki_separation_text({"layer": 2, "states": ["s|0", "s|1"]}))
    ... # doctest: +NORMALIZE_WHITESPACE
    KI separates exogenous values: first at layer 2, where s|0 and s|1 (one endogenous state)
    are in two KI classes
    >>> ki_separation_text(None)
    'KI separates no exogenous values: every endogenous class lies within one KI class'
    """
    if separation is None:
        return ("KI separates no exogenous values: every endogenous class lies within one KI "
                "class")
    first, second = map(name, separation["states"])
    return (f"KI separates exogenous values: first at layer {separation['layer']}, where "
            f"{first} and {second} (one endogenous state) are in two KI classes")


def analyze(mdp: BlockMDP | ExogenousBlockMDP, policies: bool = False,
            eta_error: float | None = None) -> dict:
    """eta, eta_min, the three KI partitions and their sizes, per-layer counts, the canonical form,
    the optimal value ``V*`` when the MDP has rewards, and (with ``policies``) a deterministic
    homing policy for every state (``def:homing``) and an optimal policy; for an exogenous Block
    MDP (an :class:`~kinematic.exogenous.ExogenousBlockMDP`: its ``.mdp`` is analysed), its
    endogenous partition too.

    Float mode: every eta is within ``eta_error`` (default ``1e-3 atol``, recorded as
    ``"eta_error"``) plus rounding of its exact value (``kinematic.homing.eta``);
    exact mode refuses ``eta_error``. ``V*`` is computed by dynamic programming
    (:func:`kinematic.planning.optimal_values`), exact in exact mode.

    Exact numbers are ``"p/q"`` (or ``"p"``) strings, float numbers JSON numbers. Layers count
    from 1. The keys:

    - ``name``, ``mode`` (``"exact"`` or ``"float"``), ``horizon``, ``states`` (their number);
    - ``eta``: state -> ``eta(s) = max_pi P_pi(s)``; ``eta_min``: the smallest;
      ``eta_min_states``: the states attaining it, every one, by layer
      (:func:`eta_min_states`: ``[{"layer": 7, "states": ["s7_15_end"]}]``);
    - ``partitions``: ``"backward"``, ``"forward"``, ``"ki"`` (``def:bki``, ``def:fki``,
      ``def:ki``), each a list of blocks ``{"layer": 2, "states": ["s2a", "s2b"]}``, layer by
      layer;
    - ``n_bd``, ``n_fd``, ``n_kd``: the numbers of blocks;
    - ``per_layer``: ``{"layer", "states", "n_bd", "n_fd", "n_kd", "eta_min"}`` per layer;
    - ``canonical``: the spec of the canonical form; ``canonical_state_map``: state -> its
      state there;
    - ``eta_error`` (float mode): the bound on the error of every eta;
    - ``optimal_value`` (only when some expected reward is non-zero): ``V* = max_pi V(pi; R)``
      from the start distribution; ``optimal_state_values`` (with it): state -> ``V*(s)``, the
      optimal expected total reward from ``s`` at its layer on;
    - ``homing_policies`` (with ``policies``): state ``s`` -> {earlier state: action} of a
      deterministic policy reaching ``s`` with probability ``eta(s)``;
    - for an exogenous Block MDP only: ``partitions["endogenous"]`` (the endogenous partition,
      :func:`kinematic.exogenous.endogenous_partition`), ``n_endogenous`` its number of blocks,
      ``"endogenous"`` in each ``per_layer`` row (its number of blocks there), and
      ``ki_separates_exogenous`` (:func:`ki_separation`: ``{"layer", "states"}`` where KI first
      separates two exogenous values of one endogenous state, or null);
    - ``optimal_policy`` (with ``policies``, when ``optimal_value`` is there): per layer
      ``{"layer": 1, "decisions": {observation: action}}``, a deterministic policy attaining
      ``V*``; ties go to the action listed first in the spec. In float mode every action within
      ``atol`` of the best is a tie (so that actions tied in exact arithmetic, which rounding
      sets apart, are still decided as in exact mode), and each decision may then give up to
      ``atol`` of value: the policy attains ``V*`` only within ``horizon * atol`` (plus
      rounding; the performance difference lemma sums the loss of each layer's decision).

    An exact analysis estimated (:func:`exact_operations`) to take over
    :data:`SLOW_EXACT_SECONDS` warns first (:class:`SlowExactAnalysis`).

    >>> from kinematic import figure2_split
    >>> result = analyze(figure2_split())
    >>> result["eta_min"], result["eta_min_states"], result["n_kd"]
    ('1/5', [{'layer': 2, 'states': ['s2b']}], 3)
    >>> [block for block in result["partitions"]["ki"] if len(block["states"]) > 1]
    [{'layer': 2, 'states': ['s2a', 's2b']}]
    """
    model = mdp if isinstance(mdp, ExogenousBlockMDP) else None
    mdp = mdp.mdp if isinstance(mdp, ExogenousBlockMDP) else mdp
    _warn_if_slow(mdp)
    number = mdp.mode.to_json
    eta_per_layer = eta(mdp, error=eta_error)
    backward = backward_ki_partition(mdp)
    forward = forward_ki_partition(mdp)
    ki = ki_partition(mdp, backward, forward)
    canonical = canonical_form(mdp, ki)
    endogenous = None if model is None else endogenous_partition(model)
    partitions = [backward, forward, ki, *([] if endogenous is None else [endogenous])]
    result: dict[str, Any] = {
        "name": mdp.name,
        "mode": "exact" if mdp.mode.exact else "float",
        "horizon": mdp.horizon,
        "states": len(mdp.states),
        "eta": {
            state: number(value)
            for layer, values in zip(mdp.layers, eta_per_layer, strict=True)
            for state, value in zip(layer, values, strict=True)
        },
        "eta_min": number(min(min(values) for values in eta_per_layer)),
        "eta_min_states": _attaining(mdp, eta_per_layer),
        "partitions": {p.kind: _blocks_with_layers(p) for p in partitions},
        "n_bd": backward.number_of_blocks,
        "n_fd": forward.number_of_blocks,
        "n_kd": ki.number_of_blocks,
        "per_layer": [
            {
                "layer": h + 1,
                "states": mdp.width(h),
                "n_bd": backward.blocks_per_layer[h],
                "n_fd": forward.blocks_per_layer[h],
                "n_kd": ki.blocks_per_layer[h],
                **({} if endogenous is None
                   else {"endogenous": endogenous.blocks_per_layer[h]}),
                "eta_min": number(min(eta_per_layer[h])),
            }
            for h in range(mdp.horizon)
        ],
        "canonical": to_spec(canonical.mdp),
        "canonical_state_map": canonical.state_map,
    }
    if endogenous is not None:
        result["n_endogenous"] = endogenous.number_of_blocks
        result["ki_separates_exogenous"] = ki_separation(ki, endogenous)
    if not mdp.mode.exact:
        result["eta_error"] = eta_error_bound(mdp, eta_error)
    optimum = optimal_values(mdp) if has_rewards(mdp) else None
    if optimum is not None:
        result["optimal_value"] = number(optimum.value)
        result["optimal_state_values"] = {state: number(value) for state, value
                                          in optimum.state_values.by_state.items()}
    if policies:
        result["homing_policies"] = homing_policy_choices(mdp)
        if optimum is not None:
            result["optimal_policy"] = _decisions(mdp, optimum.policy)
    return result


def _merged_states(state_map: dict[str, str]) -> str:
    """The states of a canonical form that merge several states (``def:ki``, Section 3), each as
    ``merged <- its states``, from :func:`analyze`'s ``canonical_state_map``; the first
    :data:`kinematic.display.LISTED` of them, or ``"none"``. Names as
    :func:`kinematic.display.name_text` prints them.

    >>> _merged_states({"s1": "s1", "s2a": "s2a+s2b", "s2b": "s2a+s2b", "s3": "s3"})
    's2a+s2b <- s2a, s2b'
    >>> _merged_states({"s1": "s1", "s2": "s2"})
    'none'
    """
    sources: dict[str, list[str]] = {}
    for state, merged in state_map.items():
        sources.setdefault(merged, []).append(state)
    return listed((f"{name_text(merged)} <- {listed(map(name_text, states), LISTED)}"
                   for merged, states in sources.items() if len(states) > 1),
                  LISTED, "; ") or "none"


def merged_blocks(blocks: list[dict]) -> str:
    """The blocks of more than one state of a partition in :func:`analyze`'s format, with their
    layers, or ``"none"``; a layer's first :data:`kinematic.display.LISTED` blocks, each by its
    first as many states (:func:`kinematic.display.listed`), named as
    :func:`kinematic.display.name_text` prints them.

    >>> merged_blocks([{"layer": 1, "states": ["s1"]}, {"layer": 2, "states": ["a", "b"]}])
    'layer 2: {a, b}'
    """
    per_layer: dict[int, list[str]] = {}
    for block in blocks:
        if len(block["states"]) > 1:
            per_layer.setdefault(block["layer"], []).append(
                block_text(block["states"], LISTED))
    return "; ".join(f"layer {layer}: {listed(sets)}"
                     for layer, sets in per_layer.items()) or "none"


def tie_rule(mode: str) -> str:
    """How :func:`analyze`'s optimal policy breaks ties in ``mode`` (``"exact"`` or ``"float"``),
    as the reports state it.

    >>> tie_rule("exact")
    'ties go to the action listed first in the spec'
    """
    if mode == "exact":
        return "ties go to the action listed first in the spec"
    return ("ties, any action within atol of the best, go to the one listed first in the spec, "
            "so the policy's value is within horizon * atol of V*")


def format_report(analysis: dict) -> str:
    """A readable text report of :func:`analyze`'s result, one line per field.

    The MDP's name is quoted (``repr``); a state, observation or action name prints as itself
    unless a newline, another character that does not print as itself or a separator of the
    report (``: ``, ``->``, ``, ``, ...) would make it forge a line or a field: then it is
    quoted with escapes (:func:`kinematic.display.name_text`).

    >>> from kinematic import from_spec
    >>> spec = {"name": "forged", "horizon": 1, "actions": ["a"], "start": {"s1": "1/2",
    ...         "A\\neta_min = 1": "1/2"}, "layers": [["s1", "A\\neta_min = 1"]],
    ...         "transitions": {}}
    >>> report = format_report(analyze(from_spec(spec))).split("\\n")
    >>> print("\\n".join(report[report.index("eta(s):") + 1:][:2]))
      s1: 1/2
      'A\\neta_min = 1': 1/2
    """
    exogenous = "n_endogenous" in analysis
    lines = [
        f"Block MDP {analysis['name']!r}: horizon {analysis['horizon']}, "
        f"{analysis['states']} states, {analysis['mode']} arithmetic",
        f"eta_min = {analysis['eta_min']}",
        f"eta_min attained by {attained_text(analysis['eta_min_states'])}",
        f"N_BD = {analysis['n_bd']}, N_FD = {analysis['n_fd']}, N_KD = {analysis['n_kd']}, "
        f"|S| = {analysis['states']}"
        + (f", endogenous classes = {analysis['n_endogenous']}" if exogenous else ""),
    ]
    if exogenous:
        lines.append(ki_separation_text(analysis["ki_separates_exogenous"]))
    if "optimal_value" in analysis:
        lines.append(f"V* = {analysis['optimal_value']} (the optimal expected total reward "
                     "from the start distribution)")
    endogenous = f" {'endogenous':>10}" if exogenous else ""
    lines += ["", f"{'layer':>5} {'states':>6} {'N_BD':>5} {'N_FD':>5} {'N_KD':>5}{endogenous}"
                  "  eta_min"]
    for row in analysis["per_layer"]:
        endogenous = f" {row['endogenous']:>10}" if exogenous else ""
        lines.append(
            f"{row['layer']:>5} {row['states']:>6} {row['n_bd']:>5} {row['n_fd']:>5} "
            f"{row['n_kd']:>5}{endogenous}  {row['eta_min']}"
        )
    lines += ["", "eta(s):"]
    lines += [f"  {name_text(state)}: {value}" for state, value in analysis["eta"].items()]
    for kind in ("backward", "forward", "ki", *(["endogenous"] if exogenous else [])):
        label = {"ki": "KI", "endogenous": "endogenous partition"}.get(kind, f"{kind} KI")
        lines.append(f"{label} blocks with more than one state: "
                     f"{merged_blocks(analysis['partitions'][kind])}")
    canonical_size = sum(len(layer) for layer in analysis["canonical"]["layers"])
    lines.append(
        f"canonical form: {canonical_size} states (from {analysis['states']})"
        + (" - already canonical" if canonical_size == analysis["states"] else
           f", merged: {_merged_states(analysis['canonical_state_map'])}")
    )
    if "homing_policies" in analysis:
        lines += ["", "homing policies (state: decisions of a deterministic homing policy):"]
        for state, choices in analysis["homing_policies"].items():
            decisions = ", ".join(f"{name_text(s)}->{name_text(a)}"
                                  for s, a in choices.items()) or "(start state)"
            lines.append(f"  {name_text(state)}: {decisions}")
    if "optimal_policy" in analysis:
        lines += ["", "optimal policy (observation->action per layer; "
                      f"{tie_rule(analysis['mode'])}):"]
        for layer in analysis["optimal_policy"]:
            decisions = ", ".join(f"{name_text(x)}->{name_text(a)}"
                                  for x, a in layer["decisions"].items())
            lines.append(f"  layer {layer['layer']}: {decisions}")
    return "\n".join(lines)

"""One call that computes every exact quantity of Sections 2-3 for a Block MDP, as JSON-ready data
(the output format of ``python -m kinematic analyze``, DESIGN.md "JSON spec and analysis").
"""

from __future__ import annotations

import warnings

from kinematic.canonical import canonical_form
from kinematic.certified_induction import exact_operations
from kinematic.homing import eta_error_bound, homing_policies, maximum_visitation
from kinematic.inseparability import backward_ki_partition, forward_ki_partition, ki_partition
from kinematic.model import BlockMDP
from kinematic.spec import to_spec

__all__ = ["SLOW_EXACT_SECONDS", "SlowExactAnalysis", "analyze", "exact_operations",
           "format_report"]

EXACT_SECONDS_PER_OPERATION = 2.5e-7
"""Seconds of exact eta per integer multiply-add of :func:`exact_operations`, everything
included (float decisions, exact ones, the integer evaluation), on one core: the random exact
MDP of H = 100, width 100, 10 actions, 5 successors, probabilities k/100 took 30.5 s on two
processes (``benchmarks/exact_scale.py``), about 61 CPU-s for 2.5e8 operations."""
SLOW_EXACT_SECONDS = 60.0
"""Exact analyses estimated to take longer than this warn before they start."""


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


def analyze(mdp: BlockMDP, policies: bool = False, eta_error: float | None = None) -> dict:
    """eta, eta_min, the three KI partitions and their sizes, per-layer counts, the canonical form,
    and (with ``policies``) a deterministic homing policy for every state.

    Float mode: every eta is within ``eta_error`` (default ``1e-3 atol``, recorded as
    ``"eta_error"``) plus rounding of its exact value (``kinematic.homing.maximum_visitation``);
    exact mode refuses ``eta_error``.

    Exact numbers are ``"p/q"`` strings, float numbers JSON numbers. An exact analysis estimated
    (:func:`exact_operations`) to take over :data:`SLOW_EXACT_SECONDS` warns first
    (:class:`SlowExactAnalysis`).
    """
    _warn_if_slow(mdp)
    number = mdp.mode.to_json
    eta_per_layer = maximum_visitation(mdp, error=eta_error)
    backward = backward_ki_partition(mdp)
    forward = forward_ki_partition(mdp)
    ki = ki_partition(mdp, backward, forward)
    canonical = canonical_form(mdp, ki)
    result = {
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
        "partitions": {p.kind: p.blocks() for p in (backward, forward, ki)},
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
                "eta_min": number(min(eta_per_layer[h])),
            }
            for h in range(mdp.horizon)
        ],
        "canonical": to_spec(canonical.mdp),
        "canonical_state_map": canonical.state_map,
    }
    if not mdp.mode.exact:
        result["eta_error"] = eta_error_bound(mdp, eta_error)
    if policies:
        result["homing_policies"] = homing_policies(mdp)
    return result


def format_report(analysis: dict) -> str:
    """A readable text report of :func:`analyze`'s result."""
    lines = [
        f"Block MDP {analysis['name']!r}: horizon {analysis['horizon']}, "
        f"{analysis['states']} states, {analysis['mode']} arithmetic",
        f"eta_min = {analysis['eta_min']}",
        f"N_BD = {analysis['n_bd']}, N_FD = {analysis['n_fd']}, N_KD = {analysis['n_kd']}, "
        f"|S| = {analysis['states']}",
        "",
        f"{'layer':>5} {'states':>6} {'N_BD':>5} {'N_FD':>5} {'N_KD':>5}  eta_min",
    ]
    for row in analysis["per_layer"]:
        lines.append(
            f"{row['layer']:>5} {row['states']:>6} {row['n_bd']:>5} {row['n_fd']:>5} "
            f"{row['n_kd']:>5}  {row['eta_min']}"
        )
    lines += ["", "eta(s):"]
    lines += [f"  {state}: {value}" for state, value in analysis["eta"].items()]
    for kind in ("backward", "forward", "ki"):
        blocks = [b for b in analysis["partitions"][kind] if len(b) > 1]
        label = "KI" if kind == "ki" else f"{kind} KI"
        merged = ", ".join("{" + ", ".join(b) + "}" for b in blocks) or "none"
        lines.append(f"{label} blocks with more than one state: {merged}")
    canonical_size = sum(len(layer) for layer in analysis["canonical"]["layers"])
    lines.append(
        f"canonical form: {canonical_size} states (from {analysis['states']})"
        + (" - already canonical" if canonical_size == analysis["states"] else "")
    )
    if "homing_policies" in analysis:
        lines += ["", "homing policies (state: decisions of a deterministic homing policy):"]
        for state, choices in analysis["homing_policies"].items():
            decisions = ", ".join(f"{s}->{a}" for s, a in choices.items()) or "(start state)"
            lines.append(f"  {state}: {decisions}")
    return "\n".join(lines)

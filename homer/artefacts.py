"""A HOMER run directory read back: the latent MDP, the encoder, the covers, the abstractions
phi_B and phi_F per layer, the reward-sensitive policy and the log (what ``homer compare``
compares with the exact answers). A run stopped early still loads: its covers and abstractions
up to the last completed step, without a reward-sensitive policy."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from homer.algorithm import CHECKPOINT, CONFIG, MDP_SPEC, covers_from_state, mdp_fingerprint
from homer.checkpoint import CheckpointError, load_checkpoint
from homer.encoders import HadamardNoise
from homer.models import LinearAbstraction
from homer.sampler import LinearPolicy
from kinematic.arguments import at_least, nonnegative
from kinematic.json_input import read_json_file
from kinematic.model import BlockMDP
from kinematic.spec import load_spec

__all__ = ["RunArtefacts", "load_run"]

REQUIRED = frozenset({"mdp", "encoder", "covers", "backward", "forward", "log"})
"""Entries of a checkpoint that ``load_run`` reads."""


@dataclass(frozen=True, eq=False)
class RunArtefacts:
    """What a run learned, indexed by 0-based layer."""

    mdp: BlockMDP
    encoder: HadamardNoise
    covers: list[list[LinearPolicy]]
    """``covers[h]`` reaches layer ``h``; ``covers[0]`` is the empty policy."""
    backward: dict[int, LinearAbstraction]
    """Layer ``h >= 1`` -> phi_B on ``x_h`` (learned from the transitions into ``h``)."""
    forward: dict[int, LinearAbstraction]
    """Layer ``h <= H - 2`` -> phi_F on ``x_h`` (learned from the transitions out of ``h``)."""
    policy: LinearPolicy | None
    """The reward-sensitive policy (None if the run stopped before it)."""
    log: list[dict[str, Any]]
    summary: dict[str, Any]
    """``result.json`` without its log (empty if the run did not finish)."""


def _linear(weight: object, bias: object, dimension: int, what: str,
            actions: int | None = None) -> tuple[np.ndarray, ...]:
    """``weight`` ``(rows, dimension)`` and ``bias`` ``(rows,)`` as finite float arrays; a policy
    step (``actions`` given) has one row per action."""
    weight, bias = np.asarray(weight), np.asarray(bias)
    if (weight.ndim != 2 or weight.shape[1] != dimension or weight.shape[0] < 1
            or bias.shape != (weight.shape[0],)):
        raise ValueError(f"{what}: weight {weight.shape} and bias {bias.shape} do not fit "
                         f"observations of dimension {dimension}")
    if not (np.issubdtype(weight.dtype, np.floating) and np.issubdtype(bias.dtype, np.floating)
            and np.isfinite(weight).all() and np.isfinite(bias).all()):
        raise ValueError(f"{what}: weights must be finite floats")
    if actions is not None and weight.shape[0] != actions:
        raise ValueError(f"{what}: {weight.shape[0]} actions, not {actions}")
    return weight, bias


def _abstractions(stored: dict, mdp: BlockMDP, dimension: int, name: str
                  ) -> dict[int, LinearAbstraction]:
    abstractions = {}
    for layer, (weight, bias) in stored.items():
        if not isinstance(layer, int) or not 0 <= layer < mdp.horizon:
            raise ValueError(f"{name} of layer {layer!r}: the MDP {mdp.name!r} has layers "
                             f"0 .. {mdp.horizon - 1}")
        abstractions[layer] = LinearAbstraction(
            *_linear(weight, bias, dimension, f"{name} of layer {layer + 1}"))
    return abstractions


def _covers(stored: dict, mdp: BlockMDP, dimension: int) -> list[list[LinearPolicy]]:
    """The covers, each policy checked: ``covers[h]`` has policies of ``h`` steps over the
    MDP's actions."""
    arrays = stored["arrays"]
    for cover in stored["policies"]:
        for weights, biases in cover:
            for i in (*weights, *biases):
                if not isinstance(i, int) or not 0 <= i < len(arrays):
                    raise ValueError(f"a cover refers to array {i!r} of {len(arrays)}")
    covers = covers_from_state(stored)
    if not 1 <= len(covers) <= mdp.horizon:
        raise ValueError(f"{len(covers)} covers for horizon {mdp.horizon}")
    for h, cover in enumerate(covers):
        for policy in cover:
            if policy.length != h or len(policy.biases) != h:
                raise ValueError(f"a policy of cover {h} has {policy.length} steps, not {h}")
            for weight, bias in zip(policy.weights, policy.biases, strict=True):
                _linear(weight, bias, dimension, f"a policy of cover {h}",
                        mdp.number_of_actions)
    return covers


def _policy(path: Path, mdp: BlockMDP, dimension: int) -> LinearPolicy | None:
    if not path.exists():
        return None
    try:
        with open(path, "rb") as handle, np.load(handle, allow_pickle=False) as arrays:
            stored = [arrays[f"arr_{i}"] for i in range(len(arrays.files))]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(f"{path}: not a policy written by HOMER ({error})") from None
    horizon = mdp.horizon
    if len(stored) != 2 * horizon:
        raise ValueError(f"{path}: expected {2 * horizon} arrays (weights and biases of "
                         f"{horizon} steps), found {len(stored)}")
    for step, (weight, bias) in enumerate(zip(stored[:horizon], stored[horizon:], strict=True)):
        _linear(weight, bias, dimension, f"{path}, step {step + 1}", mdp.number_of_actions)
    return LinearPolicy(stored[:horizon], stored[horizon:])


def load_run(run_dir: str | Path, mdp: BlockMDP | None = None) -> RunArtefacts:
    """Read a run directory written by :func:`homer.algorithm.run_homer`.

    ``mdp`` replaces the run's ``mdp.json`` (needed for runs written before it was saved); it
    must have the run's name and shape.
    """
    run_dir = Path(run_dir)
    checkpoint = run_dir / CHECKPOINT
    if not checkpoint.exists():
        if (run_dir / CONFIG).exists():
            raise FileNotFoundError(f"{checkpoint} not found: the run in {run_dir} stopped "
                                    "before its first step, or has horizon 1 (nothing learned "
                                    "to compare)")
        raise FileNotFoundError(f"{checkpoint} not found: not a HOMER run directory")
    state = load_checkpoint(checkpoint)
    missing = sorted(REQUIRED - set(state))
    if missing:
        raise CheckpointError(f"{checkpoint}: not a HOMER checkpoint (no {', '.join(missing)})")
    source = "the given MDP"
    if mdp is None:
        spec = run_dir / MDP_SPEC
        if not spec.exists():
            raise FileNotFoundError(f"{spec} not found: pass the run's MDP (--spec)")
        mdp, source = load_spec(spec), str(spec)
    if mdp.name != state["mdp"]:
        raise ValueError(f"{checkpoint}: the run's MDP is {state['mdp']!r}, not {mdp.name!r} "
                         f"({source})")
    if "mdp_sha256" in state and mdp_fingerprint(mdp) != state["mdp_sha256"]:
        raise ValueError(f"{checkpoint}: the run's MDP is not {mdp.name!r} of {source}: same "
                         "name, other spec (their SHA-256 differ)")
    try:
        parts = _parse_state(state, mdp)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as error:
        raise CheckpointError(f"{checkpoint}: not a HOMER checkpoint ({error})") from None
    encoder, covers, backward, forward, log = parts
    result = run_dir / "result.json"
    summary = read_json_file(result) if result.exists() else {}
    if not isinstance(summary, dict):
        raise ValueError(f"{result}: not a HOMER result (a JSON {type(summary).__name__})")
    summary.pop("log", None)
    return RunArtefacts(mdp, encoder, covers, backward, forward,
                        _policy(run_dir / "policy.npz", mdp, encoder.dimension(mdp)), log,
                        summary)


def _check_log(log: object, horizon: int) -> None:
    """The run log: one record per learned step, with its step (2 .. H) and episode count."""
    if not isinstance(log, list) or not all(isinstance(e, dict) for e in log):
        raise ValueError("log is not a list of records")
    for entry in log:
        step, episodes = entry.get("step"), entry.get("episodes")
        if not at_least(2).contains(step) or step > horizon or not at_least(0).contains(episodes):
            raise ValueError(f"log record {entry!r}: needs a step in 2 .. {horizon} and a "
                             "number of episodes >= 0")


def _parse_state(state: dict, mdp: BlockMDP) -> tuple:
    """Encoder, covers, phi_B, phi_F and log of a checkpoint, each checked against ``mdp``."""
    if not isinstance(state["encoder"], dict):
        raise ValueError("encoder is not a mapping")
    encoder = HadamardNoise(**state["encoder"])
    if not nonnegative().contains(encoder.noise_variance):
        raise ValueError(f"noise variance {encoder.noise_variance!r}")
    dimension = encoder.dimension(mdp)
    backward = _abstractions(state["backward"], mdp, dimension, "phi_B")
    forward = _abstractions(state["forward"], mdp, dimension, "phi_F")
    _check_log(state["log"], mdp.horizon)
    return encoder, _covers(state["covers"], mdp, dimension), backward, forward, state["log"]

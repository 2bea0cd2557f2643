"""A HOMER run directory read back: the latent MDP, the encoder, the covers, the abstractions
phi_B and phi_F per layer, the reward-sensitive policy and the log (what ``homer compare``
compares with the exact answers). A run stopped early still loads: its covers and abstractions
up to the last completed step, without a reward-sensitive policy."""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from homer.algorithm import CHECKPOINT, MDP_SPEC, covers_from_state, mdp_fingerprint
from homer.checkpoint import CheckpointError, load_checkpoint
from homer.encoders import HadamardNoise
from homer.models import LinearAbstraction
from homer.sampler import LinearPolicy
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


def _abstractions(stored: dict) -> dict[int, LinearAbstraction]:
    return {int(layer): LinearAbstraction(np.asarray(weight), np.asarray(bias))
            for layer, (weight, bias) in stored.items()}


def _policy(path: Path, horizon: int) -> LinearPolicy | None:
    if not path.exists():
        return None
    try:
        with open(path, "rb") as handle, np.load(handle, allow_pickle=False) as arrays:
            stored = [arrays[f"arr_{i}"] for i in range(len(arrays.files))]
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
        raise ValueError(f"{path}: not a policy written by HOMER ({error})") from None
    if len(stored) != 2 * horizon:
        raise ValueError(f"{path}: expected {2 * horizon} arrays (weights and biases of "
                         f"{horizon} steps), found {len(stored)}")
    return LinearPolicy(stored[:horizon], stored[horizon:])


def load_run(run_dir: str | Path, mdp: BlockMDP | None = None) -> RunArtefacts:
    """Read a run directory written by :func:`homer.algorithm.run_homer`.

    ``mdp`` replaces the run's ``mdp.json`` (needed for runs written before it was saved); it
    must have the run's name and shape.
    """
    run_dir = Path(run_dir)
    checkpoint = run_dir / CHECKPOINT
    if not checkpoint.exists():
        raise FileNotFoundError(f"{checkpoint} not found: not a HOMER run directory, or the run "
                                "stopped before its first step")
    state = load_checkpoint(checkpoint)
    missing = sorted(REQUIRED - set(state))
    if missing:
        raise CheckpointError(f"{checkpoint}: not a HOMER checkpoint (no {', '.join(missing)})")
    if mdp is None:
        spec = run_dir / MDP_SPEC
        if not spec.exists():
            raise FileNotFoundError(f"{spec} not found: pass the run's MDP (--spec)")
        mdp = load_spec(spec)
    if mdp.name != state["mdp"]:
        raise ValueError(f"the MDP {mdp.name!r} is not the run's MDP {state['mdp']!r}")
    if "mdp_sha256" in state and mdp_fingerprint(mdp) != state["mdp_sha256"]:
        raise ValueError(f"the MDP {mdp.name!r} is not the run's MDP: same name, other spec "
                         f"(its SHA-256 differs from the one in {checkpoint})")
    encoder = HadamardNoise(**state["encoder"])
    dimension = encoder.dimension(mdp)
    backward, forward = _abstractions(state["backward"]), _abstractions(state["forward"])
    for name, abstractions in (("phi_B", backward), ("phi_F", forward)):
        for layer, abstraction in abstractions.items():
            if not 0 <= layer < mdp.horizon or abstraction.weight.shape[1] != dimension:
                raise ValueError(f"{name} of layer {layer + 1} does not fit the MDP "
                                 f"{mdp.name!r} (horizon {mdp.horizon}, dimension {dimension})")
    result = run_dir / "result.json"
    try:
        summary = json.loads(result.read_text()) if result.exists() else {}
    except ValueError as error:
        raise ValueError(f"{result}: malformed JSON ({error})") from None
    summary.pop("log", None)
    return RunArtefacts(mdp, encoder, covers_from_state(state["covers"]), backward, forward,
                        _policy(run_dir / "policy.npz", mdp.horizon), state["log"], summary)

"""A HOMER run directory read back: the latent MDP, the encoder, the covers, the abstractions
phi_B and phi_F per layer, the reward-sensitive policy and the log (what ``homer compare``
compares with the exact answers). A run stopped early still loads: its covers and abstractions
up to the last completed step, without a reward-sensitive policy."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from homer.encoders import HadamardNoise
from homer.models import LinearAbstraction
from homer.run_directory import (
    CHECKPOINT,
    CONFIG,
    MDP_SPEC,
    POLICY,
    RESULT,
    check_run_checkpoint,
    mdp_fingerprint,
    read_checkpoint_fields,
    read_policy,
)
from homer.safe_files import present, read_regular_file
from homer.sampler import LinearPolicy
from homer.wording import setting
from kinematic.errors import InvalidBlockMDP
from kinematic.json_input import read_json
from kinematic.model import BlockMDP
from kinematic.spec import from_spec

__all__ = ["RunArtefacts", "load_run"]


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


def _json(path: Path) -> object:
    """The JSON document in ``path`` (a regular file of UTF-8 text), errors naming it."""
    try:
        text = read_regular_file(path).decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 text ({error.reason} at byte "
                         f"{error.start})") from None
    return read_json(text, str(path))


def _run_mdp(path: Path) -> BlockMDP:
    """The run's MDP from its spec ``mdp.json``; errors name the file."""
    if not present(path):
        raise FileNotFoundError(f"{path} not found: pass the run's MDP "
                                f"({setting('mdp', ..., flag='--spec')})")
    try:
        return from_spec(_json(path))
    except InvalidBlockMDP as error:
        raise InvalidBlockMDP(f"{path}: {error}") from None
    except ValueError as error:
        raise InvalidBlockMDP(str(error)) from None


def load_run(run_dir: str | Path, mdp: BlockMDP | None = None,
             source: str = "the given MDP") -> RunArtefacts:
    """Read a run directory written by :func:`homer.algorithm.run_homer`.

    ``mdp`` replaces the run's ``mdp.json``; it must be the run's MDP (same spec hash as the
    checkpoint's; a refusal names ``source``, where ``mdp`` came from). Its checkpoint is
    checked as ``--resume`` checks it (:func:`homer.run_directory.check_run_checkpoint`);
    every file read must be a regular file (a symlink or a FIFO is refused naming it).
    """
    run_dir = Path(run_dir)
    checkpoint = run_dir / CHECKPOINT
    if not present(checkpoint):
        if present(run_dir / CONFIG):
            raise FileNotFoundError(f"{checkpoint} not found: the run in {run_dir} stopped "
                                    "before its first step, or has horizon 1 (nothing learned "
                                    "to compare)")
        raise FileNotFoundError(f"{checkpoint} not found: not a HOMER run directory")
    fields = read_checkpoint_fields(checkpoint)
    if mdp is None:
        spec = run_dir / MDP_SPEC
        mdp, source = _run_mdp(spec), str(spec)
    stored = check_run_checkpoint(fields, checkpoint, mdp,
                                  {"mdp_sha256": mdp_fingerprint(mdp)}, source)
    result = run_dir / RESULT
    summary = _json(result) if present(result) else {}
    if not isinstance(summary, dict):
        raise ValueError(f"{result}: not a HOMER result (a JSON {type(summary).__name__})")
    summary.pop("log", None)
    encoder = stored.identity.encoder
    return RunArtefacts(
        mdp, encoder, stored.covers,
        {layer: LinearAbstraction(*pair) for layer, pair in stored.backward.items()},
        {layer: LinearAbstraction(*pair) for layer, pair in stored.forward.items()},
        read_policy(run_dir / POLICY, mdp, encoder.dimension(mdp), stored.completed_step),
        stored.log, summary)

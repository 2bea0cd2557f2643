"""The run directory of a batched baseline (:func:`homer.baselines.batched.run_batched_baseline`):
whose run it is, and its checkpoint, as data.

- ``identity.json``: the run's identity (algorithm, RND, seed, configuration, MDP name and
  spec hash, encoder, rewards, evaluation settings), written when the run starts and compared
  when it resumes: another identity, or a file that is not a JSON object, is refused naming
  the file (and the fields that differ).
- ``checkpoint.npz``: every array of the run (network weights, optimiser states, RND target and
  predictor, visit counts, curves) and one ``metadata`` entry, the UTF-8 JSON of the rest
  (counters, the states of the environment's and the learner's numpy generators, the bonus
  normaliser, the identity again; torch draws nothing after the networks are initialised from
  the seed - actions and minibatches are numpy's draws - so no torch generator state is
  needed). One file, written atomically (:func:`homer.safe_files.write_atomically`), so a
  stopped run never leaves a torn or mixed checkpoint. Read as data through ONE loader,
  :func:`read_checkpoint`: through :func:`homer.safe_files.read_regular_file` (a link is
  refused), never with numpy's loader: each entry's ``.npy`` header is checked before its data
  is read (:mod:`.npz_entries`: no allocation an entry's header asks for, no pickle), then
  every entry and field against what the run expects (:mod:`.batched_state`). Anything else
  is a :class:`~homer.run_state.CheckpointError` of one line naming the file and the entry
  (and the field): ``.../checkpoint.npz: entry 'metadata', field 'episodes' must be an int in
  [0, ...], got -5``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from homer.baselines.batched_state import METADATA, BatchedState, Layout, differing, read_state
from homer.baselines.npz_entries import NpzEntries
from homer.encoders import with_named_encoding
from homer.run_state import CheckpointError
from homer.safe_files import check_own_path, present, read_regular_file, write_atomically
from kinematic.json_input import read_json

__all__ = ["CHECKPOINT", "IDENTITY", "claim", "read_checkpoint", "write_checkpoint"]

IDENTITY = "identity.json"
"""The run's identity (compared on resume)."""
CHECKPOINT = "checkpoint.npz"
"""The run's arrays and, as the ``metadata`` entry, its other state."""


def claim(run_dir: Path, identity: Mapping[str, Any]) -> bool:
    """Make ``run_dir`` this run's; whether it holds a checkpoint to resume. A directory
    holding another run's identity is refused (``ValueError`` naming the fields that differ);
    a link where a file belongs is refused (:class:`~homer.safe_files.UnsafePathError`).

    >>> import tempfile
    >>> directory = Path(tempfile.mkdtemp())
    >>> claim(directory, {"seed": 0}), claim(directory, {"seed": 0})
    (False, False)
    >>> claim(directory, {"seed": 1})
    Traceback (most recent call last):
    ...
    ValueError: ... holds another run (seed differs in ...identity.json): use another directory
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    for name in (IDENTITY, CHECKPOINT):
        check_own_path(run_dir / name)
    expected = json.loads(json.dumps(identity))
    path = run_dir / IDENTITY
    if present(path):
        try:
            text = read_regular_file(path).decode()
        except UnicodeDecodeError as error:
            raise ValueError(f"{path}: not UTF-8 ({error})") from None
        stored = with_named_encoding(read_json(text, str(path)))
        if not isinstance(stored, dict):
            raise ValueError(f"{path}: not a run's identity (a JSON object expected)")
        differ = differing(expected, stored)
        if differ:
            raise ValueError(f"{run_dir} holds another run ({', '.join(differ)} "
                             f"differ{'s' if len(differ) == 1 else ''} in {path}): use another "
                             "directory")
    else:
        if present(run_dir / CHECKPOINT):
            raise ValueError(f"{run_dir / CHECKPOINT} has no {IDENTITY} beside it: whose run "
                             "it is cannot be checked; use another directory")
        write_atomically(path, json.dumps(expected, indent=1))
    return present(run_dir / CHECKPOINT)


def write_checkpoint(run_dir: Path, arrays: Mapping[str, np.ndarray],
                     metadata: Mapping[str, Any]) -> None:
    """Write ``arrays`` and ``metadata`` (JSON) to ``run_dir / checkpoint.npz`` atomically."""
    if METADATA in arrays:
        raise ValueError(f"{METADATA!r} is the checkpoint's own entry, not an array's name")
    buffer = io.BytesIO()
    text = json.dumps(metadata, allow_nan=False).encode()
    entries = {**arrays, METADATA: np.frombuffer(text, dtype=np.uint8)}
    np.savez(buffer, allow_pickle=False, **entries)
    write_atomically(run_dir / CHECKPOINT, buffer.getvalue())


def read_checkpoint(run_dir: Path, layout: Layout) -> BatchedState:
    """The checked state of ``run_dir / checkpoint.npz`` (:func:`.batched_state.read_state`);
    a :class:`~homer.run_state.CheckpointError` naming the file, the entry and the field for
    anything but a checkpoint of the run ``layout`` describes."""
    path = run_dir / CHECKPOINT
    data = read_regular_file(path)
    try:
        return read_state(NpzEntries(data), layout)
    except CheckpointError as error:
        raise CheckpointError(f"{path}: {error}") from None

"""The run directory of a batched baseline (:func:`homer.baselines.batched.run_batched_baseline`):
whose run it is, and its checkpoint, as data.

- ``identity.json``: the run's identity (algorithm, RND, seed, configuration, MDP name and
  spec hash, encoder, rewards, evaluation settings), written when the run starts and compared
  when it resumes: another identity is refused, naming the fields that differ.
- ``checkpoint.npz``: every array of the run (network weights, optimiser states, RND target and
  predictor, visit counts, curves) and one ``metadata`` entry, the UTF-8 JSON of the rest
  (counters, the states of the environment's and the learner's numpy generators, the bonus
  normaliser, the identity again; torch draws nothing after the networks are initialised from
  the seed - actions and minibatches are numpy's draws - so no torch generator state is
  needed). One file, written
  atomically (:func:`homer.safe_files.write_atomically`), so a stopped run never leaves a torn
  or mixed checkpoint; read with ``allow_pickle=False`` through
  :func:`homer.safe_files.read_regular_file` (a link is refused), every entry checked against
  the arrays the run expects: a missing, extra or misshapen entry is a
  :class:`~homer.run_state.CheckpointError` naming the file and the entry.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from homer.encoders import with_named_encoding
from homer.run_state import CheckpointError
from homer.safe_files import check_own_path, present, read_regular_file, write_atomically
from kinematic.json_input import read_json

__all__ = ["CHECKPOINT", "IDENTITY", "claim", "read_checkpoint", "write_checkpoint"]

IDENTITY = "identity.json"
"""The run's identity (compared on resume)."""
CHECKPOINT = "checkpoint.npz"
"""The run's arrays and, as the ``metadata`` entry, its other state."""
_METADATA = "metadata"


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
        stored = with_named_encoding(read_json(read_regular_file(path).decode(), str(path)))
        if not isinstance(stored, dict):
            raise ValueError(f"{path}: not a run's identity (a JSON object expected)")
        differ = sorted(set(expected) ^ set(stored)
                        | {key for key in expected.keys() & stored.keys()
                           if expected[key] != stored[key]})
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


def _is(value: object, kind: type | tuple[type, ...]) -> bool:
    """``isinstance``, except that a bool is not an int here (JSON tells them apart)."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return isinstance(value, kinds) and (bool in kinds or not isinstance(value, bool))


def write_checkpoint(run_dir: Path, arrays: Mapping[str, np.ndarray],
                     metadata: Mapping[str, Any]) -> None:
    """Write ``arrays`` and ``metadata`` (JSON) to ``run_dir / checkpoint.npz`` atomically."""
    if _METADATA in arrays:
        raise ValueError(f"{_METADATA!r} is the checkpoint's own entry, not an array's name")
    buffer = io.BytesIO()
    text = json.dumps(metadata, allow_nan=False).encode()
    entries = {**arrays, _METADATA: np.frombuffer(text, dtype=np.uint8)}
    np.savez(buffer, allow_pickle=False, **entries)
    write_atomically(run_dir / CHECKPOINT, buffer.getvalue())


def read_checkpoint(run_dir: Path, expected: Mapping[str, tuple[tuple[int, ...], np.dtype]],
                    metadata_keys: Mapping[str, type | tuple[type, ...]],
                    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and metadata of ``run_dir / checkpoint.npz``. ``expected`` gives every
    array's shape and type (an entry whose first dimension is ``-1`` may have any length);
    ``metadata_keys`` the type of every metadata field. Anything else - a file that is not an
    npz, an object array, a missing, extra or misshapen entry, a metadata field missing or of
    another type - is a :class:`~homer.run_state.CheckpointError` naming the file and entry."""
    path = run_dir / CHECKPOINT
    try:
        archive = np.load(io.BytesIO(read_regular_file(path)), allow_pickle=False)
        with archive:
            entries = {name: archive[name] for name in archive.files}
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as error:
        raise CheckpointError(f"{path}: not a checkpoint of a batched baseline "
                              f"({error})") from None
    wanted = {*expected, _METADATA}
    for name in sorted(wanted ^ set(entries)):
        raise CheckpointError(f"{path}: entry {name!r} is "
                              f"{'missing' if name in wanted else 'not a checkpoint entry'}")
    for name, (shape, dtype) in expected.items():
        array = entries[name]
        free = len(shape) > 0 and shape[0] == -1
        if (array.dtype != dtype or array.ndim != len(shape)
                or array.shape[free:] != shape[free:]):
            raise CheckpointError(f"{path}: entry {name!r} is {array.dtype} of shape "
                                  f"{array.shape}, expected {np.dtype(dtype)} of shape {shape}")
    raw = entries.pop(_METADATA)
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise CheckpointError(f"{path}: entry {_METADATA!r} is not UTF-8 JSON bytes")
    try:
        metadata = read_json(raw.tobytes().decode(), f"{path}, entry {_METADATA!r}")
    except (ValueError, UnicodeDecodeError) as error:
        raise CheckpointError(f"{path}: entry {_METADATA!r}: {error}") from None
    if not isinstance(metadata, dict):
        raise CheckpointError(f"{path}: entry {_METADATA!r} is not a JSON object")
    for key, kind in metadata_keys.items():
        if key not in metadata or not _is(metadata[key], kind):
            raise CheckpointError(f"{path}: entry {_METADATA!r} has no field {key!r} of type "
                                  f"{kind}")
    extra = sorted(set(metadata) - set(metadata_keys))
    if extra:
        raise CheckpointError(f"{path}: entry {_METADATA!r} has unknown fields {extra}")
    return entries, metadata

"""A HOMER run directory: its files, whose run it is, and what its checkpoint holds.

:func:`homer.algorithm.run_homer` writes a run directory and :func:`homer.artefacts.load_run`
(``homer compare``) reads it; both go through this module, neither through the other.

- The files: :data:`ARTEFACTS` (``config.json``, ``mdp.json``, ``checkpoint.pt``,
  ``policy.npz``, ``result.json``) and those ``homer compare`` writes into ``compare``.
- The run's identity (:class:`RunIdentity`: config, seed, MDP name and spec hash, encoder,
  rewards), written to ``config.json`` and into every checkpoint and compared on resume.
- Claiming a directory (:func:`claim_run_directory`): another run's is refused unless resumed
  (the same identity) or forced (its files deleted, nothing else); a directory with a
  symbolic link where a file belongs is refused (:func:`check_run_directory`).
- The checkpoint (:class:`RunCheckpoint`), saved after every learned step
  (:func:`write_checkpoint`) and read back with every field checked
  (:func:`read_run_checkpoint`, the checks in :mod:`homer.run_state`), by ``--resume`` and by
  ``homer compare`` alike.

Run directories are what people send each other, so a checkpoint is data: numpy arrays are
stored as torch tensors and everything else as plain containers (dict, list, tuple, str, int,
float, bool, None), and it is read back with ``torch.load(weights_only=True)``, whose
unpickler refuses any other object (a pickle that would call ``os.system`` is rejected before
anything runs). Files are written through :func:`homer.safe_files.write_atomically`.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch

from homer.config import HomerConfig
from homer.encoders import ENCODINGS, UNNAMED_ENCODING, HadamardNoise, with_named_encoding
from homer.run_state import (
    CheckpointError,
    Linear,
    check_identity,
    check_policy_step,
    check_progress,
)
from homer.safe_files import (
    UnsafePathError,
    check_own_path,
    present,
    read_regular_file,
    write_atomically,
)
from homer.sampler import LinearPolicy
from homer.wording import setting
from kinematic.json_input import read_json_file
from kinematic.model import BlockMDP
from kinematic.spec import dumps_spec

__all__ = ["ARTEFACTS", "CHECKPOINT", "COMPARE_DIRECTORY", "COMPARE_OUTPUTS", "COMPARE_PLOTS",
           "CONFIG", "MDP_SPEC", "POLICY", "RESULT", "RunCheckpoint",
           "RunIdentity", "check_compare_outputs", "check_run_checkpoint", "check_run_directory",
           "claim_run_directory", "load_checkpoint", "mdp_fingerprint", "read_checkpoint_fields",
           "read_policy", "read_run_checkpoint", "save_checkpoint", "write_checkpoint",
           "write_identity", "write_policy"]

CONFIG = "config.json"
"""The run's identity (:class:`RunIdentity`; compared on resume)."""
MDP_SPEC = "mdp.json"
"""The latent Block MDP of the run as a kinematic JSON spec (read by ``homer compare``)."""
CHECKPOINT = "checkpoint.pt"
"""The run's state after its last learned step (:class:`RunCheckpoint`)."""
POLICY = "policy.npz"
"""The reward-sensitive policy: its ``H`` weights, then its ``H`` biases."""
RESULT = "result.json"
"""The run's summary and log."""
ARTEFACTS = (CONFIG, MDP_SPEC, CHECKPOINT, POLICY, RESULT)
"""The files a run writes to its directory."""
COMPARE_DIRECTORY = "compare"
"""The directory of a run where ``homer compare`` writes by default."""
COMPARE_PLOTS = ("visitation", "dynamics", "alpha", "confusion")
"""The figures of ``homer compare``, each saved as PNG and SVG."""
COMPARE_OUTPUTS = ("report.json", "summary.txt",
                   *(f"{plot}.{kind}" for plot in COMPARE_PLOTS for kind in ("png", "svg")))
"""The files ``homer compare`` writes (all ``--force`` deletes in ``COMPARE_DIRECTORY``)."""


def mdp_fingerprint(mdp: BlockMDP, spec: str | None = None) -> str:
    """SHA-256 of the MDP's spec (``spec``: ``dumps_spec(mdp)`` if already written): a resumed
    or compared run must have this very MDP, not only its name.

    >>> from kinematic.families import combination_lock
    >>> len(mdp_fingerprint(combination_lock(2, 2, 0)))
    64
    """
    return hashlib.sha256((dumps_spec(mdp) if spec is None else spec).encode()).hexdigest()


@dataclass(frozen=True)
class RunIdentity:
    """Which run a directory holds: a resumed run must match every field (the fields, in this
    order, of ``config.json`` and of every checkpoint)."""

    config: dict[str, Any]
    """The :class:`~homer.config.HomerConfig` as a mapping of setting names to values."""
    seed: int
    mdp: str
    """The MDP's name."""
    mdp_sha256: str
    """:func:`mdp_fingerprint` of the MDP."""
    encoder: HadamardNoise
    rewards: str
    """``'sampled'`` (drawn from their distributions) or ``'expected'``."""

    @classmethod
    def of(cls, mdp: BlockMDP, config: HomerConfig, seed: int, encoder: HadamardNoise,
           sample_rewards: bool, spec: str | None = None) -> RunIdentity:
        """The identity of a run of ``mdp`` (``spec``: ``dumps_spec(mdp)`` if already written).

        >>> from kinematic.families import combination_lock
        >>> RunIdentity.of(combination_lock(2, 2, 0), HomerConfig(), 0, HadamardNoise(),
        ...                True).rewards
        'sampled'
        """
        return cls(asdict(config), seed, mdp.name, mdp_fingerprint(mdp, spec), encoder,
                   "sampled" if sample_rewards else "expected")

    def to_json(self) -> dict[str, Any]:
        """The fields as ``config.json`` and a checkpoint hold them."""
        return {**{item.name: getattr(self, item.name) for item in fields(self)},
                "encoder": asdict(self.encoder)}


IDENTITY = tuple(item.name for item in fields(RunIdentity))
"""The names of the identity's fields."""


def _encoding_hint(stored: Any, differ: list[str]) -> str:
    """What to say when a run's encoder differs from the one asked for: the encoding it ran
    with, and how to resume a run written before encodings were named."""
    if "encoder" not in differ or not isinstance(stored, dict):
        return ""
    ran = stored["encoder"].get("encoding") if isinstance(stored.get("encoder"), dict) else None
    if ran not in ENCODINGS:
        return ""
    return f"; it ran with the {ran!r} encoding" + (
        " (every run written before encodings were named did): resume it with --encoding "
        "orthonormal, from Python encoder=HadamardNoise(encoding='orthonormal')"
        if ran == UNNAMED_ENCODING else "")


def write_identity(run_dir: Path, identity: RunIdentity, spec: str) -> None:
    """Write ``config.json`` (the identity) and ``mdp.json`` (``spec``, the MDP's)."""
    write_atomically(run_dir / CONFIG, json.dumps(identity.to_json(), indent=1))
    write_atomically(run_dir / MDP_SPEC, spec)


def check_compare_outputs(directory: Path) -> None:
    """Refuse (:class:`~homer.safe_files.UnsafePathError` naming the path) a ``homer compare``
    output ``directory`` that exists but is not a directory, or where a file of
    ``COMPARE_OUTPUTS`` is a symbolic link or not a regular file. Absent paths pass."""
    if directory.exists() and not directory.is_dir():
        raise UnsafePathError(f"{directory} is a file, not a directory")
    for name in COMPARE_OUTPUTS:
        check_own_path(directory / name)


def check_run_directory(run_dir: Path) -> None:
    """Refuse (:class:`~homer.safe_files.UnsafePathError` naming the path) a run directory
    where a file of ``ARTEFACTS``, the ``compare`` directory or one of its ``COMPARE_OUTPUTS``
    is a symbolic link or not of its kind (regular file, directory): run directories are handed
    over, and a planted link would make a run or ``homer compare`` write (or ``--force``
    delete) outside. ``run_dir`` itself may be a link (the user chose it)."""
    if run_dir.exists() and not run_dir.is_dir():
        raise UnsafePathError(f"{run_dir} is a file, not a run directory")
    for name in ARTEFACTS:
        check_own_path(run_dir / name)
    check_own_path(run_dir / COMPARE_DIRECTORY, directory=True)
    check_compare_outputs(run_dir / COMPARE_DIRECTORY)


def _holds_run(run_dir: Path) -> bool:
    """Whether ``run_dir`` holds a HOMER run: its ``config.json`` is a JSON object with every
    field of a run's identity (a ``checkpoint.pt`` alone is a common name for other files)."""
    try:
        stored = read_json_file(run_dir / CONFIG)
    except ValueError:
        return False
    return (isinstance(stored, dict) and stored.keys() >= set(IDENTITY)
            and isinstance(stored["config"], dict))


def _delete_run(run_dir: Path, present: list[str]) -> None:
    """Delete the run's ``present`` artefacts and the files ``homer compare`` wrote in its
    ``compare`` directory, then that directory if nothing else is left in it; nothing else
    (other files there are not ours). Every path was checked by :func:`check_run_directory`;
    ``unlink`` never follows a link."""
    for name in present:
        (run_dir / name).unlink()
    compare = run_dir / COMPARE_DIRECTORY
    for name in COMPARE_OUTPUTS:
        (compare / name).unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # absent, or holding files that are not ours
        compare.rmdir()


def claim_run_directory(run_dir: Path, identity: RunIdentity, resume: bool,
                        force: bool) -> None:
    """Make ``run_dir`` this run's: refuse a directory holding another run's artefacts unless
    ``force`` (which deletes them) or ``resume`` (which needs the same identity).

    ``run_dir`` has passed :func:`check_run_directory` (no links where files are expected).
    ``force`` deletes only the files a run and ``homer compare`` write, and only when the
    directory holds a run (:func:`_holds_run`): files named like artefacts without a run are
    refused, naming them; with none, the run starts afresh.
    """
    present = [name for name in ARTEFACTS if (run_dir / name).exists()]
    if not present:
        return
    if force:
        if not _holds_run(run_dir):
            raise FileExistsError(
                f"{run_dir} holds {', '.join(present)} but no HOMER run ({run_dir / CONFIG} "
                f"is not a run's identity): {setting('force')} replaces only a run; move them "
                "or use another directory")
        _delete_run(run_dir, present)
    elif resume:
        config = run_dir / CONFIG
        if config.exists():
            stored = with_named_encoding(read_json_file(config))
            expected = json.loads(json.dumps(identity.to_json()))
            differ = [key for key, value in expected.items()
                      if not isinstance(stored, dict) or stored.get(key) != value]
            if differ:
                names = (f"; its MDP is {stored['mdp']}, this one {identity.mdp}"
                         if "mdp" in differ and isinstance(stored, dict)
                         and isinstance(stored.get("mdp"), str) else "")
                names += _encoding_hint(stored, differ)
                raise ValueError(f"{run_dir} holds another run ({', '.join(differ)} "
                                 f"differ{'s' if len(differ) == 1 else ''} in {config}{names}): "
                                 "use another directory, or "
                                 f"{setting('force')} to replace it")
    else:
        raise FileExistsError(
            f"{run_dir} holds a run ({', '.join(present)}): pass {setting('resume')} to "
            f"continue it, {setting('force')} to replace it, or use another directory")


@dataclass(eq=False)
class RunCheckpoint:
    """What a run saves after each learned step (``checkpoint.pt``), so that a stopped run
    resumes with the results of an uninterrupted one and ``homer compare`` finds what it
    learned. Layers are 0-based."""

    identity: RunIdentity
    completed_step: int
    """The last layer whose cover is learned (0 before the first): ``covers`` has
    ``completed_step + 1`` entries, the log one record per learned step."""
    episodes: int
    """Learning episodes so far."""
    seconds: float
    """Running time so far (over every session of a resumed run)."""
    numpy_rng: dict[str, Any]
    """The state of the run's numpy generator (episodes, encodings, rewards)."""
    torch_rng: torch.Tensor
    """The state of the run's ``torch.Generator`` (initialisation, mini-batches)."""
    torch_global_rng: torch.Tensor
    """The state of torch's global generator (the Gumbel-softmax noise of the models)."""
    covers: list[list[LinearPolicy]]
    """``covers[h]`` reaches layer ``h``; ``covers[0]`` is the empty policy."""
    backward: dict[int, Linear]
    """Layer ``h >= 1`` -> phi_B on ``x_h`` as a weight and a bias."""
    forward: dict[int, Linear]
    """Layer ``h`` -> phi_F on ``x_h`` (learned with phi_B of layer ``h + 1``)."""
    log: list[dict[str, Any]]

    def to_state(self) -> dict[str, Any]:
        """The checkpoint's fields as stored: the identity's fields at the top, and the covers
        as arrays and policies indexing them (policies found by GPS share their prefix with a
        policy of the previous cover, so each array is stored once)."""
        arrays: list[np.ndarray] = []
        index: dict[int, int] = {}

        def ref(array: np.ndarray) -> int:
            if id(array) not in index:
                index[id(array)] = len(arrays)
                arrays.append(array)
            return index[id(array)]

        policies = [[([ref(w) for w in p.weights], [ref(b) for b in p.biases]) for p in cover]
                    for cover in self.covers]
        progress = {item.name: getattr(self, item.name) for item in fields(self)
                    if item.name != "identity"}
        return {**self.identity.to_json(), **progress,
                "covers": {"arrays": arrays, "policies": policies}}


def _from_state(state: Mapping[str, Any], encoder: HadamardNoise) -> RunCheckpoint:
    """A :class:`RunCheckpoint` of fields checked by :mod:`homer.run_state` (fresh containers,
    so a resumed run may update them)."""
    arrays = state["covers"]["arrays"]
    covers = [[LinearPolicy([arrays[i] for i in weights], [arrays[i] for i in biases])
               for weights, biases in cover] for cover in state["covers"]["policies"]]
    identity = RunIdentity(**{**{name: state[name] for name in IDENTITY}, "encoder": encoder})
    return RunCheckpoint(
        identity=identity, completed_step=state["completed_step"], episodes=state["episodes"],
        seconds=float(state["seconds"]), numpy_rng=state["numpy_rng"],
        torch_rng=state["torch_rng"], torch_global_rng=state["torch_global_rng"],
        covers=covers, backward=dict(sorted(state["backward"].items())),
        forward=dict(sorted(state["forward"].items())), log=list(state["log"]))


TORCH_STATES = frozenset({"torch_rng", "torch_global_rng"})
"""Fields that are torch tensors in a :class:`RunCheckpoint` as well (generator states)."""


def _convert_leaves(value: Any, leaf: type, convert: Callable[[Any], Any]) -> Any:
    """``value`` with every ``leaf`` inside its dicts, lists and tuples replaced by
    ``convert(leaf)``."""
    if isinstance(value, leaf):
        return convert(value)
    if isinstance(value, dict):
        return {key: _convert_leaves(item, leaf, convert) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_convert_leaves(item, leaf, convert) for item in value)
    return value


def _to_tensor(array: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(array))


def save_checkpoint(path: Path, state: Mapping[str, Any]) -> None:
    """Save a checkpoint's fields (:meth:`RunCheckpoint.to_state`; numpy arrays become
    tensors, ``TORCH_STATES`` stay tensors) atomically: a stopped run never leaves a broken
    file."""
    stored = {key: value if key in TORCH_STATES else _convert_leaves(value, np.ndarray, _to_tensor)
              for key, value in state.items()}
    buffer = io.BytesIO()
    torch.save(stored, buffer)
    write_atomically(path, buffer.getvalue())


def write_checkpoint(run_dir: Path, checkpoint: RunCheckpoint) -> None:
    """Save ``checkpoint`` as ``run_dir``'s ``checkpoint.pt``."""
    save_checkpoint(run_dir / CHECKPOINT, checkpoint.to_state())


def load_checkpoint(path: Path) -> dict[str, Any]:
    """The fields of a checkpoint written by :func:`save_checkpoint`, unchecked; anything else
    is refused.

    Raises :class:`CheckpointError` naming the file for a truncated, empty or foreign file,
    and for a pickle holding objects other than tensors and plain containers (which is never
    executed); ``ValueError`` (:func:`~homer.safe_files.read_regular_file`) for a symlink, a
    FIFO or anything else but a regular file. :func:`read_run_checkpoint` checks the fields.
    """
    data = read_regular_file(path)
    try:
        state = torch.load(io.BytesIO(data), weights_only=True)
    except Exception as error:
        # The file is data: any failure to read it (UnpicklingError, BadZipFile, EOFError,
        # struct.error from a flipped byte, ...: the fuzz test met each) means it is not a
        # checkpoint, never a crash.
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise CheckpointError(f"{path}: not a HOMER checkpoint (refused to load: "
                              f"{message})") from None
    if not isinstance(state, dict):
        raise CheckpointError(f"{path}: not a HOMER checkpoint (a {type(state).__name__}, "
                              "not a dict)")
    try:
        return {key: value if key in TORCH_STATES
                else _convert_leaves(value, torch.Tensor, torch.Tensor.numpy)
                for key, value in state.items()}
    except RecursionError:  # before RuntimeError, its base class
        raise CheckpointError(f"{path}: not a HOMER checkpoint (containers nested too deeply: "
                              "a run's are at most a few levels deep)") from None
    except (RuntimeError, TypeError) as error:  # a tensor numpy cannot hold (bfloat16, grad)
        raise CheckpointError(f"{path}: not a HOMER checkpoint (a tensor that is not an "
                              f"array: {str(error).splitlines()[0]})") from None


STATE_FIELDS = (*IDENTITY, *(item.name for item in fields(RunCheckpoint)
                             if item.name != "identity"))
"""The fields of a stored checkpoint."""


def read_checkpoint_fields(path: Path) -> dict[str, Any]:
    """The fields of the checkpoint ``path``, all present and the identity type-checked (what
    can be checked without the MDP); :func:`check_run_checkpoint` checks the rest.

    Raises :class:`CheckpointError` naming ``path`` and the field (``ValueError`` for a file
    that is not a regular file).
    """
    state = load_checkpoint(path)
    missing = [name for name in STATE_FIELDS if name not in state]
    if missing:
        raise CheckpointError(f"{path}: not a HOMER checkpoint (no field "
                              f"{', '.join(map(repr, missing))})")
    try:
        check_identity(state)
    except CheckpointError as error:
        raise CheckpointError(f"{path}: not a HOMER checkpoint ({error})") from None
    return state


def _compare_identity(state: Mapping[str, Any], path: Path, mdp: BlockMDP,
                      expected: Mapping[str, object], source: str | None) -> None:
    """Refuse a checkpoint of another MDP (by name, then by spec hash, if ``source`` names
    where ``mdp`` came from) or of another run (any field of ``expected`` differs)."""
    if source is not None and state["mdp"] != mdp.name:
        raise CheckpointError(f"{path}: the run's MDP is {state['mdp']!r}, not {mdp.name!r} "
                              f"({source})")
    if source is not None and state["mdp_sha256"] != expected["mdp_sha256"]:
        raise CheckpointError(f"{path}: the run's MDP is not {mdp.name!r} of {source}: same "
                              "name, other spec (their SHA-256 differ)")
    stored = with_named_encoding(state)
    differ = [key for key, value in expected.items() if stored[key] != value]
    if differ:
        raise CheckpointError(f"{path} belongs to another run ({', '.join(differ)} differ"
                              f"{_encoding_hint(stored, differ)})")


def check_run_checkpoint(state: Mapping[str, Any], path: Path, mdp: BlockMDP,
                         expected: Mapping[str, object], source: str | None = None
                         ) -> RunCheckpoint:
    """The fields of :func:`read_checkpoint_fields` checked against ``mdp`` and against each
    other (:func:`homer.run_state.check_progress`), as a :class:`RunCheckpoint`.

    ``expected`` holds the identity fields the run must have, as stored: at least
    ``mdp_sha256`` (the fingerprint of ``mdp``); a resumed run gives all of them
    (:meth:`RunIdentity.to_json`). ``source`` (where ``mdp`` came from, e.g. the path of its
    spec) asks for errors that say which MDP the run has instead of which fields differ.
    Raises :class:`CheckpointError` naming ``path``: for another MDP or run, a mistyped field
    and fields that disagree with each other or with ``mdp``.
    """
    _compare_identity(state, path, mdp, expected, source)
    encoder = HadamardNoise.from_record(state["encoder"])
    try:
        check_progress(state, mdp, encoder)
    except CheckpointError as error:
        raise CheckpointError(f"{path}: not a HOMER checkpoint ({error})") from None
    return _from_state(state, encoder)


def read_run_checkpoint(path: Path, mdp: BlockMDP, expected: Mapping[str, object],
                        source: str | None = None) -> RunCheckpoint:
    """:func:`read_checkpoint_fields` then :func:`check_run_checkpoint`: the checkpoint of a
    run of ``mdp``, every field checked (the one loader of ``--resume`` and ``homer
    compare``)."""
    return check_run_checkpoint(read_checkpoint_fields(path), path, mdp, expected, source)


def write_policy(run_dir: Path, policy: LinearPolicy) -> None:
    """Save the reward-sensitive ``policy`` as ``run_dir``'s ``policy.npz``."""
    arrays = io.BytesIO()
    np.savez(arrays, *policy.weights, *policy.biases)
    write_atomically(run_dir / POLICY, arrays.getvalue())


def read_policy(path: Path, mdp: BlockMDP, dimension: int,
                completed_step: int) -> LinearPolicy | None:
    """The policy of ``policy.npz`` at ``path`` (None if absent: the run stopped before it),
    each step checked to act on observations of ``dimension`` with ``mdp``'s actions; a
    ``ValueError`` names the file (and the step).

    A run writes its policy once every step is learned, so a policy beside a checkpoint whose
    ``completed_step`` (the run's) stops short of the last layer is refused: the checkpoint was
    moved back, and the policy would be reported beside covers it was not learned from. (A
    resume of such a directory is harmless: it learns the remaining steps from the checkpoint's
    generator states and writes a new policy over the old one.)"""
    if not present(path):
        return None
    if completed_step != mdp.horizon - 1:
        raise ValueError(f"{path}: the policy of a finished run, but {path.parent / CHECKPOINT} "
                         f"has field 'completed_step' {completed_step} of {mdp.horizon - 1}: "
                         "the checkpoint is not this policy's")
    data = read_regular_file(path)
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            stored = [arrays[f"arr_{i}"] for i in range(len(arrays.files))]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(f"{path}: not a policy written by HOMER ({error})") from None
    horizon = mdp.horizon
    if len(stored) != 2 * horizon:
        raise ValueError(f"{path}: expected {2 * horizon} arrays (weights and biases of "
                         f"{horizon} steps), found {len(stored)}")
    for step, (weight, bias) in enumerate(zip(stored[:horizon], stored[horizon:], strict=True)):
        check_policy_step(weight, bias, dimension, mdp.number_of_actions,
                          f"{path}, step {step + 1}")
    return LinearPolicy(stored[:horizon], stored[horizon:])

"""HOMER's checkpoint (``checkpoint.pt``) and the other files of a run directory, written
atomically and read without executing anything.

Run directories are what people send each other, so a checkpoint is data: numpy arrays are
stored as torch tensors and everything else as plain containers (dict, list, tuple, str, int,
float, bool, None), and it is read back with ``torch.load(weights_only=True)``, whose unpickler
refuses any other object (a pickle that would call ``os.system`` is rejected before anything
runs). Every file is written to a temporary file beside its target and renamed over it, so a
stopped run never leaves a torn file; the temporary file gets a fresh name (never a planted
``<name>.tmp``) and a target that is a symbolic link is refused, so a handed-over directory
cannot redirect a write elsewhere.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from kinematic.errors import TooLarge
from kinematic.resources import check_memory

__all__ = ["CheckpointError", "UnsafePathError", "check_own_path", "load_checkpoint",
           "own_subdirectory", "present", "read_regular_file", "save_checkpoint",
           "write_atomically"]

TORCH_STATES = frozenset({"torch_rng", "torch_global_rng"})
"""Entries that are torch tensors in the run's state as well (random generator states)."""


class CheckpointError(ValueError):
    """A checkpoint that is not a HOMER checkpoint: unreadable, or holding anything but
    tensors and plain containers."""


class UnsafePathError(ValueError):
    """A path where HOMER keeps its own file or directory that is a symbolic link, or not a
    regular file (a directory) as expected: directories are handed over, so a planted link
    could make a write or a deletion land anywhere."""


def _kind(mode: int) -> str:
    """What a file of ``os.stat`` mode ``mode`` is, in words (links are refused before, by
    ``lstat`` or ``O_NOFOLLOW``)."""
    for test, kind in ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "a device"


def _symbolic_link(path: Path, kind: str) -> UnsafePathError:
    return UnsafePathError(f"{path}: a symbolic link where HOMER keeps its own {kind}; "
                           "refused (it could point anywhere): remove it")


def check_own_path(path: Path, directory: bool = False) -> None:
    """Refuse (:class:`UnsafePathError` naming ``path``) a ``path`` that is a symbolic link, or
    that exists as anything but a regular file (a directory if ``directory``); an absent path
    passes. Links are never followed: ``lstat``."""
    wanted = "directory" if directory else "regular file"
    try:
        mode = path.lstat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    if stat.S_ISLNK(mode):
        raise _symbolic_link(path, wanted)
    if not (stat.S_ISDIR(mode) if directory else stat.S_ISREG(mode)):
        raise UnsafePathError(f"{path}: not a {wanted} ({_kind(mode)})")


def own_subdirectory(root: Path, *names: str) -> Path:
    """``root / names[0] / names[1] ...``, each directory below ``root`` refused if it is a
    symbolic link or not a directory (:func:`check_own_path`): a command that makes run
    directories inside the directory the user named (a sweep's runs, the counterexamples'
    cases) must not follow a link planted there. ``root`` itself may be a link (the user chose
    it)."""
    path = Path(root)
    for name in names:
        path = path / name
        check_own_path(path, directory=True)
    return path


def write_atomically(path: Path, data: bytes | str) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory, renamed over
    ``path`` once complete and synced (a stopped write never leaves a torn file).

    The temporary file has a fresh random name and is created with ``O_CREAT | O_EXCL |
    O_NOFOLLOW`` (a planted ``<name>.tmp`` link is never opened) and the mode ``open`` gives a
    new file under the process's umask; it is removed if anything fails. A ``path``
    that is a symbolic link or a non-regular file is refused (:class:`UnsafePathError`
    naming it); an ``OSError`` names ``path``, not the temporary file.
    """
    path = Path(path)
    check_own_path(path)
    try:
        _replace(path, data.encode() if isinstance(data, str) else data)
    except OSError as error:
        if error.errno is None:
            raise
        raise type(error)(error.errno, error.strerror, str(path)) from error


def _new_file_beside(path: Path) -> tuple[int, Path]:
    """A new empty file in ``path``'s directory under a fresh random name, opened for writing:
    ``O_EXCL | O_NOFOLLOW`` (never an existing file or a link), mode 0o666 less the umask."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    while True:
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
        try:
            return os.open(temporary, flags, 0o666), temporary
        except FileExistsError:  # 2^-64 per try
            continue


def _replace(path: Path, content: bytes) -> None:
    """Write ``content`` to a fresh temporary file beside ``path``, sync it and rename it over
    ``path``; the temporary file is removed if anything fails (Ctrl-C included)."""
    descriptor, temporary = _new_file_beside(path)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


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


def save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    """Save a run's state (numpy arrays become tensors; ``TORCH_STATES`` stay tensors)."""
    stored = {key: value if key in TORCH_STATES else _convert_leaves(value, np.ndarray, _to_tensor)
              for key, value in state.items()}
    buffer = io.BytesIO()
    torch.save(stored, buffer)
    write_atomically(path, buffer.getvalue())


def present(path: Path) -> bool:
    """Whether ``path`` is there, as anything (a dangling symbolic link too: reading it is then
    refused naming it, rather than the file being taken as absent)."""
    return path.is_symlink() or path.exists()


def read_regular_file(path: Path) -> bytes:
    """The bytes of ``path``, which must be a regular file itself: run and sweep directories
    come from others, so a symbolic link (which could point anywhere), a FIFO (reading it would
    block forever), a device or a directory is refused (:class:`UnsafePathError`, the messages
    of :func:`check_own_path`); a file larger than this machine's memory is
    :class:`~kinematic.errors.TooLarge` and one that cannot be read a ``ValueError``, each
    naming it. The file is opened without following a link and without blocking, and checked
    once open, so nothing can swap it between the check and the read."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise _symbolic_link(path, "regular file") from None
        raise ValueError(f"{path}: cannot read it ({error.strerror})") from None
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(handle.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise UnsafePathError(f"{path}: not a regular file ({_kind(status.st_mode)})")
        check_memory(status.st_size, f"reading {path}")
        try:
            return handle.read()
        except OSError as error:
            raise ValueError(f"{path}: cannot read it ({error.strerror})") from None
        except MemoryError:
            raise TooLarge(f"{path}: too large to read into this machine's memory") from None


def load_checkpoint(path: Path) -> dict[str, Any]:
    """Read a checkpoint written by :func:`save_checkpoint`, refusing anything else.

    Raises :class:`CheckpointError` naming the file for a truncated, empty or foreign file,
    and for a pickle holding objects other than tensors and plain containers (which is never
    executed); ``ValueError`` (:func:`read_regular_file`) for a symlink, a FIFO or anything
    else but a regular file. Its fields are checked by
    :func:`homer.run_state.read_run_checkpoint`.
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

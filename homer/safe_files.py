"""Files of a run, sweep or report directory, written atomically and read only as regular
files, never through a symbolic link.

Run directories are what people send each other. Every file is written to a temporary file
beside its target and renamed over it, so a stopped run never leaves a torn file; the temporary
file gets a fresh name (never a planted ``<name>.tmp``) and a target that is a symbolic link is
refused, so a handed-over directory cannot redirect a write elsewhere. A file is read only if
it is a regular file itself (not a link, a FIFO or a device) and fits in memory. What a run
directory's checkpoint holds, and how it is read without executing anything, is
:mod:`homer.run_directory`'s.

Which links are refused. Every command writes under a *root* the user names (``homer run
--out``, ``homer compare``'s run directory or ``--out``, ``homer sweep --out``, ``homer
counterexamples --out``, the ``run_dir`` of :func:`homer.algorithm.run_homer` and of the
batched baselines). The root and its parents are the user's: they may be symbolic links (``/tmp``
is one on macOS, a home directory may be), and are followed. Everything the project keeps
*below* the root - its own subdirectories at every level (a sweep's ``runs/`` and each
``runs/<task>/``, a run's ``compare/``, a counterexample's case directory) and its files - must
not be a symbolic link: each is refused naming it (:class:`UnsafePathError`) before anything is
written, directories by :func:`own_subdirectory` level by level (a link at ``<sweep>/runs``
would otherwise carry every run below it elsewhere), files by :func:`check_own_path` and again
by :func:`write_atomically` at the moment of writing. The checks guard against directories as
they are handed over; a process that swaps one of the project's directories for a link while a
command runs in it (someone else writing to the directory at the same time) is not guarded
against.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

from kinematic.errors import TooLarge
from kinematic.resources import check_memory

__all__ = ["UnsafePathError", "check_own_path", "own_subdirectory", "present",
           "read_regular_file", "write_atomically"]


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
    symbolic link or not a directory (:func:`check_own_path`), checked from the top down so
    that no check looks through a link: a command that makes run directories inside the
    directory the user named (a sweep's runs, the counterexamples' cases) must not follow a
    link planted at any level. ``root`` itself may be a link (the user chose it: the rule of
    the module docstring)."""
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

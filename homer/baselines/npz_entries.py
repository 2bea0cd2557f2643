"""The entries of an npz archive (``numpy.savez``'s zip of ``<name>.npy`` members) someone
handed over, read one at a time without trusting them: each entry's ``.npy`` header is read
first (``numpy.lib.format.read_magic`` and ``read_array_header_1_0`` / ``_2_0``) and compared
with the type and shape expected before any of its data is read, so an entry whose header
declares 10^11 floats is refused, not allocated; an object (pickled) entry is refused from its
header and never unpickled. Every refusal is a :class:`~homer.run_state.CheckpointError`
naming the entry; the reader of the file (:mod:`.batched_checkpoint`) adds the file's name.
"""

from __future__ import annotations

import io
import math
import zipfile
import zlib

import numpy as np
from numpy.lib import format as npy_format

from homer.run_state import CheckpointError
from kinematic.errors import short_repr

__all__ = ["Dimension", "NpzEntries"]

Dimension = int | range
"""One dimension of an expected shape: its length, or the lengths it may have."""

_UNREADABLE = (zipfile.BadZipFile, zlib.error, ValueError, OSError, EOFError,
               NotImplementedError, RuntimeError)
"""What the zip and ``.npy`` readers raise on a damaged archive (a bad CRC, a truncated or
undecodable member, an encrypted one, a malformed header)."""

_FORMATS = {(1, 0): npy_format.read_array_header_1_0, (2, 0): npy_format.read_array_header_2_0}


def _shown(shape: tuple[Dimension, ...]) -> str:
    """An expected shape for a message: ``(7, 2)``, ``(0..6, 2)``."""
    dimensions = [str(d) if isinstance(d, int) else f"{d.start}..{d.stop - 1}" for d in shape]
    return f"({', '.join(dimensions)}{',' if len(shape) == 1 else ''})"


def _shown_error(error: Exception) -> str:
    """A reader's error on one line of at most 160 characters (the zip reader quotes the
    member's raw bytes)."""
    text = " ".join(str(error).split())
    return text if len(text) <= 160 else text[:157] + "..."


def _fits(shape: tuple[int, ...], expected: tuple[Dimension, ...]) -> bool:
    return len(shape) == len(expected) and all(
        length in wanted if isinstance(wanted, range) else length == wanted
        for length, wanted in zip(shape, expected, strict=True))


class NpzEntries:
    """The entries of the npz archive ``data``, by name (the member ``parameters.npy`` is the
    entry ``parameters``). A file that is not a zip archive, a member that is not a ``.npy``
    file, or an entry present twice is refused here; :meth:`array` reads one entry.

    >>> buffer = io.BytesIO()
    >>> np.savez(buffer, counts=np.arange(3))
    >>> entries = NpzEntries(buffer.getvalue())
    >>> sorted(entries.names), entries.array("counts", (range(0, 5),), np.dtype(np.int64))
    (['counts'], array([0, 1, 2]))
    >>> entries.array("counts", (2,), np.dtype(np.int64))
    Traceback (most recent call last):
    ...
    homer.run_state.CheckpointError: entry 'counts' is int64 of shape (3,), expected ... (2,)
    """

    def __init__(self, data: bytes) -> None:
        try:
            self._archive = zipfile.ZipFile(io.BytesIO(data))
            members = self._archive.infolist()
        except _UNREADABLE as error:
            raise CheckpointError(f"not an npz archive ({_shown_error(error)})") from None
        self.names: dict[str, zipfile.ZipInfo] = {}
        for member in members:
            name = member.filename.removesuffix(".npy")
            if name == member.filename:
                raise CheckpointError(f"member {short_repr(member.filename)} is not an array entry "
                                      "(a .npy file)")
            if name in self.names:
                raise CheckpointError(f"entry {short_repr(name)} is present twice")
            self.names[name] = member

    def array(self, name: str, shape: tuple[Dimension, ...], dtype: np.dtype) -> np.ndarray:
        """Entry ``name`` (present), which must be a ``dtype`` array of ``shape``: its header
        is checked before its data is read, and its data must be exactly what the header
        declares (a checked CRC). A copy of its own: writable, C-ordered."""
        member = self.names[name]
        if member.flag_bits & 0x1 or member.compress_type not in (zipfile.ZIP_STORED,
                                                                  zipfile.ZIP_DEFLATED):
            raise CheckpointError(f"entry {name!r} is encrypted or compressed by method "
                                  f"{member.compress_type} (npz entries are stored or deflated)")
        try:
            with self._archive.open(member) as stream:
                version = npy_format.read_magic(stream)
                if version not in _FORMATS:
                    raise CheckpointError(f"entry {name!r} is a .npy file of version "
                                          f"{version[0]}.{version[1]} (1.0 or 2.0 expected)")
                stored, fortran, stored_dtype = _FORMATS[version](stream)
                if stored_dtype.hasobject:
                    raise CheckpointError(f"entry {name!r} holds Python objects (dtype "
                                          f"{stored_dtype}): never unpickled, refused")
                if stored_dtype != dtype or not _fits(stored, shape):
                    raise CheckpointError(f"entry {name!r} is {stored_dtype} of shape {stored}, "
                                          f"expected {dtype} of shape {_shown(shape)}")
                size = math.prod(stored) * dtype.itemsize
                data = stream.read(size + 1)  # to the end: the CRC is checked there
        except CheckpointError:
            raise
        except _UNREADABLE as error:
            raise CheckpointError(f"entry {name!r} is unreadable ({_shown_error(error)})") from None
        if len(data) != size:
            raise CheckpointError(f"entry {name!r} holds {'more' if len(data) > size else 'less'}"
                                  f" data than its header declares ({size} bytes)")
        return np.array(np.frombuffer(data, dtype).reshape(stored, order="F" if fortran else "C"),
                        order="C")

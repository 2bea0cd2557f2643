"""JSON text from a file someone handed over, read defensively: a bounded nesting depth, no
duplicate keys, and errors that name the source and the place.

The standard parser accepts ``{"a": 1, "a": 2}`` (the last value wins, silently) and fails
with a ``RecursionError`` on deeply nested input; both are refused here before any use.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from kinematic.errors import TooLarge
from kinematic.resources import check_memory

__all__ = ["MAX_JSON_DEPTH", "display_path", "read_json", "read_json_file"]

MAX_JSON_DEPTH = 32
"""Deepest nesting of arrays and objects accepted (a spec needs 4, a run's artefacts 6)."""

_NOT_SYNTAX = bytes(sorted(set(range(256)) - set(b'"[]{}')))


def _nesting_depth(text: str) -> int:
    """Deepest nesting of ``[``/``{`` outside strings (no parsing, so no recursion), in linear
    time whatever the text.

    Only quotes and brackets are kept; a bracket after an odd number of quotes is inside a
    string. An escaped quote would break that count, so text with a backslash loses its escape
    sequences first: every ``\\\\`` pair, then every ``\\"`` left (in a run of backslashes
    the pairs go from the left, as a JSON string reads them, so what remains of an odd run
    escapes the character after it). Two linear passes; a backslash outside a string is a
    syntax error that the parser reports at that place, before any nesting that follows."""
    if "\\" in text:
        text = text.replace("\\\\", "").replace('\\"', "")
    syntax = np.frombuffer(text.encode().translate(None, _NOT_SYNTAX), dtype=np.uint8)
    inside_string = (np.cumsum(syntax == ord('"'), dtype=np.int64) % 2).astype(bool)
    steps = (((syntax == ord("[")) | (syntax == ord("{"))).astype(np.int64)
             - ((syntax == ord("]")) | (syntax == ord("}"))))
    steps[inside_string] = 0
    return int(np.cumsum(steps).max(initial=0))


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """``object_pairs_hook`` that refuses an object with a repeated key, naming it."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {key!r}")
            seen.add(key)
    return result


def read_json(text: str, source: str) -> object:
    """Parse ``text`` (read from ``source``, named in every error).

    Raises
    ------
    ValueError
        Malformed JSON (with line and column), nesting deeper than :data:`MAX_JSON_DEPTH`, a
        duplicate key in one object, or an integer literal longer than Python converts.
    """
    depth = _nesting_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise ValueError(f"{source}: JSON nested {depth} levels deep (at most "
                         f"{MAX_JSON_DEPTH} accepted)")
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as error:
        raise ValueError(f"{source}: malformed JSON at line {error.lineno}, column "
                         f"{error.colno}: {error.msg}") from None
    except ValueError as error:  # duplicate keys; integers over sys.get_int_max_str_digits()
        raise ValueError(f"{source}: {error}") from None


def display_path(path: Path | str) -> str:
    """``path`` as it is named in a one-line message: unchanged, or quoted with escapes (``repr``)
    when it holds a newline or another character that does not print as itself."""
    text = str(path)
    return text if text.isprintable() else repr(text)


def read_json_file(path: Path) -> object:
    """:func:`read_json` of a file: a missing path, anything but a regular file (a FIFO would
    block), a file larger than this machine's memory (:class:`~kinematic.errors.TooLarge`) and
    text that is not UTF-8 are ``ValueError`` naming the file too (on one line:
    :func:`display_path`)."""
    shown = display_path(path)
    if not path.is_file():
        raise ValueError(f"{shown}: no such file" if not path.exists()
                         else f"{shown}: not a regular file")
    check_memory(path.stat().st_size, f"reading {shown}")
    try:
        text = path.read_text(encoding="utf-8")
    except MemoryError:
        raise TooLarge(f"{shown}: too large to read into this machine's memory") from None
    except UnicodeDecodeError as error:
        raise ValueError(f"{shown}: not UTF-8 text ({error.reason} at byte "
                         f"{error.start})") from None
    return read_json(text, shown)

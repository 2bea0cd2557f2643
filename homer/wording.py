"""How a message names a setting the user can change: as the command line's flag inside
``python -m homer`` (:func:`command_line_wording`, entered by :func:`homer.cli.main`), as the
Python argument everywhere else - so a message tells each reader what to type.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from homer.config import flag_of

__all__ = ["command_line_wording", "setting"]

_COMMAND_LINE: ContextVar[bool] = ContextVar("command_line", default=False)


@contextmanager
def command_line_wording() -> Iterator[None]:
    """Within the block, :func:`setting` names command-line flags."""
    token = _COMMAND_LINE.set(True)
    try:
        yield
    finally:
        _COMMAND_LINE.reset(token)


def setting(name: str, value: object = True) -> str:
    """The setting ``name`` with ``value`` as the reader would type it; a switch (``value``
    True) is its flag alone on the command line.

    >>> setting("resume"), setting("backward_capacity", 3)
    ('resume=True', 'backward_capacity=3')
    >>> with command_line_wording():
    ...     setting("resume"), setting("backward_capacity", 3)
    ('--resume', '--backward-capacity 3')
    """
    if not _COMMAND_LINE.get():
        return f"{name}={value!r}"
    return flag_of(name) if value is True else f"{flag_of(name)} {value}"

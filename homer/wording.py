"""How a message names a setting the user can change: as the command line's flag inside
``python -m homer`` (:func:`command_line_wording`, entered by :func:`homer.cli.main`), as the
Python argument everywhere else - so a message tells each reader what to type.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["command_line_wording", "flag_of", "setting"]

_COMMAND_LINE: ContextVar[bool] = ContextVar("command_line", default=False)


@contextmanager
def command_line_wording() -> Iterator[None]:
    """Within the block, :func:`setting` names command-line flags."""
    token = _COMMAND_LINE.set(True)
    try:
        yield
    finally:
        _COMMAND_LINE.reset(token)


def setting(name: str, value: object = True, *, flag: str | None = None) -> str:
    """The setting ``name`` with ``value`` as the reader would type it; a switch (``value``
    True) is its flag alone on the command line, and ``value`` ``...`` stands for a value the
    message leaves to the reader. ``flag`` is the command line's name of the setting when it
    is not ``name``'s (:func:`flag_of`).

    >>> setting("resume"), setting("backward_capacity", 3), setting("mdp", ..., flag="--spec")
    ('resume=True', 'backward_capacity=3', 'mdp=...')
    >>> with command_line_wording():
    ...     setting("resume"), setting("backward_capacity", 3), setting("mdp", ..., flag="--spec")
    ('--resume', '--backward-capacity 3', '--spec')
    """
    if not _COMMAND_LINE.get():
        return f"{name}=..." if value is ... else f"{name}={value!r}"
    flag = flag or flag_of(name)
    return flag if value is True or value is ... else f"{flag} {value}"


def flag_of(name: str) -> str:
    """The command-line flag of the setting ``name`` (a field of
    :class:`homer.config.HomerConfig`, an argument of a function).

    >>> flag_of("max_transitions")
    '--max-transitions'
    """
    return "--" + name.replace("_", "-")

"""The rule that decides a Block MDP's number mode: its numbers are exact or floats, not both.

A spec (or a :func:`kinematic.model.block_mdp` call) is *exact* when every number is an int, a
``Fraction`` or a numeric string (``"1/3"``, ``"0.5"``), and in *float* mode when its numbers are
floats. Ints (``0``, ``1``, ``"1"``) are at home in both modes. A float beside a non-integer
exact number (``0.5`` beside ``"1/3"``) is refused: read in float mode, ``"1/3"`` would be
rounded without a word; read exactly, the float would be an approximation taken at face value.
The values of a stochastic reward (``{"1/10": 0.5, "0": 0.5}``) are JSON object keys, hence
strings: they follow the mode of the other numbers and never count as exact here.

>>> from fractions import Fraction
>>> number_mode([Fraction(1), 0.25, 0.75], places=lambda: iter(())).exact
False
>>> number_mode([Fraction(1, 3), Fraction(2, 3)], places=lambda: iter(())).exact
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from fractions import Fraction

from kinematic.errors import InvalidBlockMDP
from kinematic.numbers import DEFAULT_ATOL, Number, NumberMode, exact_text

__all__ = ["is_fractional", "number_mode"]


def is_fractional(value: Number) -> bool:
    """Whether ``value`` is an exact number that is not an integer (``Fraction(1, 3)``)."""
    return type(value) is Fraction and value.denominator != 1


def _kinds(values: Iterable[Number]) -> tuple[bool, bool]:
    """Whether ``values`` hold a float, and a non-integer exact number (set of types first: a
    C-speed pass over a spec's 10^6 transition entries)."""
    values = list(values)
    types = set(map(type, values))
    has_float = any(issubclass(kind, float) for kind in types)
    has_fraction = Fraction in types and any(map(is_fractional, values))
    return has_float, has_fraction


def number_mode(values: Iterable[Number], places: Callable[[], Iterator[tuple[str, Number]]],
                atol: float = DEFAULT_ATOL) -> NumberMode:
    """Float mode (tolerance ``atol``) if ``values`` hold a float, else exact mode.

    ``places`` gives the same numbers again with the entry each came from (``"start['s1']"``),
    in the order of the spec; it is read only to name the culprits when a float meets a
    non-integer exact number, which raises :class:`InvalidBlockMDP` naming the first of each
    and the ways out.
    """
    has_float, has_fraction = _kinds(values)
    if has_float and has_fraction:
        raise _mixing_error(places())
    return NumberMode(exact=not has_float, atol=atol)


def _shown(value: Fraction) -> str:
    """``'p/q'``, or for a long fraction its value to 3 digits (``about 1e-400``): the float it
    would become may be 0."""
    text = exact_text(value)
    if len(text) <= 40:
        return repr(text)
    return f"about {Decimal(value.numerator) / value.denominator:.3g}"


def _mixing_error(places: Iterator[tuple[str, Number]]) -> InvalidBlockMDP:
    """The error naming the first float and the first non-integer exact number of ``places``."""
    first_float: tuple[str, Number] | None = None
    first_exact: tuple[str, Number] | None = None
    for where, value in places:
        if first_float is None and isinstance(value, float):
            first_float = (where, value)
        elif first_exact is None and is_fractional(value):
            first_exact = (where, value)
        if first_float and first_exact:
            break
    assert first_float and first_exact, "places() lists the numbers that were checked"
    (float_place, float_value), (exact_place, exact_value) = first_float, first_exact
    return InvalidBlockMDP(
        f"numbers mix floats and exact fractions: {float_place} is the float {float_value!r} "
        f"but {exact_place} is the exact {_shown(exact_value)}; write every number "
        "exactly (ints, 'p/q' or decimal strings such as '0.5') or every number as a float "
        "(an exact MDP converts with kinematic.with_float_numbers)")

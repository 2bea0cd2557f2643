"""The rule that decides a Block MDP's number mode: its numbers are exact or floats, not both.

A spec (or a :func:`kinematic.model.block_mdp` call) is *exact* when every number is an int, a
``Fraction`` or a numeric string (``"1/3"``, ``"0.5"``), and in *float* mode when its numbers are
floats. Exact numbers that a float holds without rounding - ints (``0``, ``1``, ``"1"``) and
dyadic fractions (``"1/2"``, ``"0.25"``) - are at home in both modes. A float beside an exact
number that a float would round (``0.5`` beside ``"1/3"`` or ``"0.1"``) is refused: read in
float mode, ``"1/3"`` would be rounded without a word; read exactly, the float would be an
approximation taken at face value. The values of a stochastic reward (``{"1/10": 0.5, "0":
0.5}``) are JSON object keys, hence strings: they follow the mode of the other numbers and never
count as exact here (a float spec's keys are the shortest texts of its floats, which read back
as those floats).

>>> from fractions import Fraction
>>> number_mode([Fraction(1), Fraction(1, 4), 0.75], places=lambda: iter(())).exact
False
>>> number_mode([Fraction(1, 3), Fraction(2, 3)], places=lambda: iter(())).exact
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from fractions import Fraction
from typing import TypeGuard

from kinematic.errors import InvalidBlockMDP
from kinematic.numbers import DEFAULT_ATOL, Number, NumberMode, exact_text

__all__ = ["number_mode", "rounded_by_a_float"]


def rounded_by_a_float(value: Number) -> TypeGuard[Fraction]:
    """Whether ``value`` is an exact number that no float holds (``Fraction(1, 3)``, 1/10, a
    fraction beyond the float range); ints and dyadic fractions such as 1/4 are held exactly.

    >>> rounded_by_a_float(Fraction(1, 3)), rounded_by_a_float(Fraction(1, 4))
    (True, False)
    """
    if type(value) is not Fraction or value.denominator == 1:
        return False
    if value.denominator & (value.denominator - 1):  # not a power of 2: never a float
        return True
    try:
        return Fraction(float(value)) != value
    except OverflowError:
        return True


def _kinds(values: Iterable[Number]) -> tuple[bool, bool]:
    """Whether ``values`` hold a float, and an exact number that a float would round (set of
    types first: a C-speed pass over a spec's 10^6 transition entries; the exact numbers are
    looked at only beside a float)."""
    values = list(values)
    types = set(map(type, values))
    has_float = any(issubclass(kind, float) for kind in types)
    rounded = has_float and Fraction in types and any(map(rounded_by_a_float, values))
    return has_float, rounded


def number_mode(values: Iterable[Number], places: Callable[[], Iterator[tuple[str, Number]]],
                atol: float = DEFAULT_ATOL) -> NumberMode:
    """Float mode (tolerance ``atol``) if ``values`` hold a float, else exact mode.

    ``places`` gives the same numbers again with the entry each came from (``"start['s1']"``),
    in the order of the spec; it is read only to name the culprits when a float meets an exact
    number that a float would round, which raises :class:`InvalidBlockMDP` naming the first of
    each and the ways out.
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
    """The error naming the first float, and the first exact number of ``places`` that a float
    would round."""
    first_float: tuple[str, Number] | None = None
    first_exact: tuple[str, Fraction] | None = None
    for where, value in places:
        if first_float is None and isinstance(value, float):
            first_float = (where, value)
        elif first_exact is None and rounded_by_a_float(value):
            first_exact = (where, value)
        if first_float and first_exact:
            break
    assert first_float and first_exact, "places() lists the numbers that were checked"
    (float_place, float_value), (exact_place, exact_value) = first_float, first_exact
    return InvalidBlockMDP(
        f"numbers mix floats and exact fractions: {float_place} is the float {float_value!r} "
        f"but {exact_place} is the exact {_shown(exact_value)}, which a float would round; "
        "write every number "
        "exactly (ints, 'p/q' or decimal strings such as '0.5') or every number as a float "
        "(an exact MDP converts with kinematic.with_float_numbers)")

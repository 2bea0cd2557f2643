"""Reading a float that a program computed from a simple fraction back as that fraction.

Environments written for floating point store ``1/3`` as ``0.3333333333333333`` and
``(1 - 1/3) / 2`` as ``0.33333333333333337``. The rule: a float ``v`` stands for the fraction
``p/q`` nearest to it with ``q <= MAX_DENOMINATOR`` when the two differ by at most
``TOLERANCE * max(1, |v|)``. A few floating-point operations on simple fractions stay within a
few ``1e-16`` of them, and two distinct fractions of denominator at most 10,000 differ by at
least ``1e-8``, so a float within ``TOLERANCE`` of one is within it of no other: the reading is
unambiguous. Any other float (``0.123456789``, or a simple fraction plus noise above
``TOLERANCE``) has no such reading; callers keep floats then.
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Integral

__all__ = ["MAX_DENOMINATOR", "TOLERANCE", "simple_fraction"]

MAX_DENOMINATOR = 10_000
"""The largest denominator a float is read with (Taxi's start probability 1/300 needs 300)."""
TOLERANCE = 1e-12
"""How far (relative, for numbers beyond 1) a float may lie from the fraction it stands for."""


def simple_fraction(value: float | Fraction) -> Fraction | None:
    """``value`` as an exact fraction: ints and ``Fraction`` as they are, a finite float as the
    simple fraction it stands for (module docstring), None when it stands for none.

    >>> simple_fraction(0.33333333333333337), simple_fraction(-100), simple_fraction(0.1234567)
    (Fraction(1, 3), Fraction(-100, 1), None)
    """
    if isinstance(value, Fraction):
        return value
    if isinstance(value, Integral):
        return Fraction(int(value))
    number = float(value)
    if not math.isfinite(number):
        return None
    exact = Fraction(number)
    candidate = exact.limit_denominator(MAX_DENOMINATOR)
    if abs(candidate - exact) <= TOLERANCE * max(1.0, abs(number)):
        return candidate
    return None

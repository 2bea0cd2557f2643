"""Numbers a user types: one range type that validates Python arguments and command-line flags
alike, so a flag's error names the flag (``argument --transitions: must be an int >= 1, got
'0'``) and a dataclass field's error names the field."""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from typing import Generic, TypeVar

from kinematic.errors import short_repr

__all__ = ["NumberRange", "WorkCount", "at_least", "format_duration", "fraction", "nonnegative",
           "positive", "random_seed", "tolerance"]


Kind = TypeVar("Kind", int, float)
"""The kind of number a :class:`NumberRange` holds."""


@dataclass(frozen=True)
class NumberRange(Generic[Kind]):
    """A finite ``kind`` (int or float) within ``[low, high]``; ``open_low`` / ``open_high``
    exclude an end. ``None`` leaves an end unbounded."""

    kind: type[Kind]
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False

    def describe(self) -> str:
        """E.g. ``'an int >= 2'``, ``'a finite number in (0, 1)'``."""
        noun = "an int" if self.kind is int else "a finite number"
        low, high = _shown(self.low), _shown(self.high)
        if self.low is not None and self.high is not None:
            left, right = "(" if self.open_low else "[", ")" if self.open_high else "]"
            return f"{noun} in {left}{low}, {high}{right}"
        if self.low is not None:
            return f"{noun} {'>' if self.open_low else '>='} {low}"
        if self.high is not None:
            return f"{noun} {'<' if self.open_high else '<='} {high}"
        return noun

    def contains(self, value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if self.kind is int and not isinstance(value, int):
            return False
        if isinstance(value, float) and not math.isfinite(value):  # ints of any size are finite
            return False
        if self.low is not None and (value < self.low or (self.open_low and value == self.low)):
            return False
        return not (self.high is not None
                    and (value > self.high or (self.open_high and value == self.high)))

    def check(self, value: object, name: str) -> None:
        """Raise ``ValueError`` naming ``name`` unless ``value`` is in the range."""
        if not self.contains(value):
            raise ValueError(f"{name} must be {self.describe()}, got {short_repr(value)}")

    def __call__(self, text: str) -> Kind:
        """argparse ``type=``: parse ``text``; an error names the flag (argparse adds it)."""
        value: Kind | None
        try:
            value = self.kind(text)
        except ValueError:
            value = None
        if value is None or not self.contains(value):
            raise argparse.ArgumentTypeError(f"must be {self.describe()}, got {text!r}")
        return value


def _shown(bound: float | None) -> str:
    """A bound in a message: ints exactly (``2^64 - 1`` is not ``1.84467e+19``), floats short."""
    return str(bound) if isinstance(bound, int | None) else f"{bound:g}"


def at_least(low: int) -> NumberRange[int]:
    """An int ``>= low``."""
    return NumberRange(int, low=low)


def nonnegative() -> NumberRange[float]:
    """A finite float ``>= 0``."""
    return NumberRange(float, low=0)


def positive() -> NumberRange[float]:
    """A finite float ``> 0``."""
    return NumberRange(float, low=0, open_low=True)


def fraction() -> NumberRange[float]:
    """A float in the open interval ``(0, 1)``."""
    return NumberRange(float, low=0, high=1, open_low=True, open_high=True)


def tolerance() -> NumberRange[float]:
    """A float-mode tolerance ``atol`` in ``[0, 0.001]``: it judges sums and comparisons of
    probabilities, so a larger one would accept a row summing to 0.99 as a distribution (three
    decimals, e.g. ``0.333`` three times, need ``0.001``)."""
    return NumberRange(float, low=0, high=0.001)


def format_duration(seconds: float) -> str:
    """``90`` -> ``'1.5 min'``; seconds, minutes, hours, days, then years (of 365 days), with
    two significant digits below 100 (``'0.02 s'``) and whole numbers above (``'41,223 years'``)."""
    for unit, size, limit in (("s", 1, 60), ("min", 60, 3600), ("h", 3600, 2 * 86400),
                              ("days", 86400, 365 * 86400), ("years", 365 * 86400, math.inf)):
        if seconds < limit:
            amount = seconds / size
            return f"{amount:.2g} {unit}" if amount < 100 else f"{amount:,.0f} {unit}"
    raise ValueError(f"{seconds!r} is not a number of seconds")


@dataclass(frozen=True)
class WorkCount:
    """argparse ``type=`` of a count of work units (examples, instances): an int from 1 to
    ``high``. Beyond ``high`` the error estimates the time asked for from ``seconds_per_unit``,
    a time measured on the development machine (2 cores), so a typo of a few zeros fails at once
    with what it would cost instead of running for years."""

    high: int
    seconds_per_unit: float
    unit: str

    def __call__(self, text: str) -> int:
        value = at_least(1)(text)
        if value > self.high:
            asked = (f"about {format_duration(value * self.seconds_per_unit)}"
                     if value < 10**100 else "longer than the age of the universe")
            raise argparse.ArgumentTypeError(
                f"at most {self.high:,} (about {format_duration(self.seconds_per_unit)} per "
                f"{self.unit} measured on a 2-core machine; {short_repr(value)} would take "
                f"{asked}), got {short_repr(text)}")
        return value


def random_seed() -> NumberRange[int]:
    """A seed: an int in ``[0, 2^64 - 1]``, what torch's generators accept (numpy's accept
    larger ones, torch's ``manual_seed`` overflows beyond)."""
    return NumberRange(int, low=0, high=2**64 - 1)

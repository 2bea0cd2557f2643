"""The two number modes of the toolkit: exact rationals and floats with a tolerance.

A spec whose probabilities are ints, ``Fraction`` objects or strings such as ``"4/5"`` or
``"0.25"`` is *exact*: every number is a :class:`fractions.Fraction`, arrays have ``dtype=object``
and comparisons are ``==``. A spec whose numbers are floats is in *float* mode: arrays are
``float64``, transition matrices are ``scipy.sparse`` and comparisons use the absolute tolerance
``atol``. Ints go with both; floats beside non-integer exact numbers are refused
(:mod:`kinematic.number_mixing`).

One tolerance rule for every probability (start, transition, emission): its *support* is exact —
a probability is in the support iff it is > 0 as given, so ``5e-10`` is a genuine (tiny)
probability, never "unreachable" nor a deleted observation. ``atol`` judges only sums (a
distribution must sum to 1 within ``atol``) and comparisons of computed values (KI grouping,
equal values).

Algorithms are written once against :class:`NumberMode` and the ``@`` operator, which both
representations support.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from numbers import Integral, Real

import numpy as np

from kinematic.arguments import tolerance
from kinematic.errors import InvalidBlockMDP

__all__ = [
    "DEFAULT_ATOL", "MAX_EXPONENT", "MAX_NUMBER_LENGTH", "Number", "NumberMode", "exact_text",
    "number_text", "parse_exact", "parse_number",
]

Number = Fraction | float
DEFAULT_ATOL = 1e-9
MAX_NUMBER_LENGTH = 1000
"""Longest number string read from a spec (``"p/q"`` with up to ~500 digits each side)."""
MAX_EXPONENT = 1000
"""Largest exponent magnitude of a decimal string: ``Fraction("1e-30000000")`` alone takes
about a minute, so ``"1e-100000000"`` is refused instead of hanging."""
_SEPARATOR = "_"
"""Digit separator that ``Fraction`` accepts (``"1_000"``, ``"1e-99_999_999"``) and a spec
refuses: JSON numbers never have one, the exponent guard reads digits only, and ``"1_000"`` in a
probability is surely a typing mistake."""
_EXPONENT = re.compile(r"[eE]\s*([+-]?\d+)")


@lru_cache(maxsize=100_000)  # a spec repeats few distinct number strings many times
def _parse_string(text: str) -> Fraction:
    """``text`` as a ``Fraction``; ``ValueError`` with the reason (without the place)."""
    if len(text) > MAX_NUMBER_LENGTH:
        raise ValueError(f"a number string of {len(text)} characters (at most "
                         f"{MAX_NUMBER_LENGTH} accepted)")
    if _SEPARATOR in text:
        raise ValueError(f"{text!r} has an underscore (write numbers without digit separators: "
                         "'p/q', an int or a decimal)")
    exponent = _EXPONENT.search(text)
    if exponent and abs(int(exponent.group(1))) > MAX_EXPONENT:
        raise ValueError(f"{text!r} has exponent {exponent.group(1)} (at most {MAX_EXPONENT} in "
                         "absolute value accepted)")
    try:
        return Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{text!r} is not a number (use 'p/q', an int or a decimal)") from None


def parse_exact(text: str) -> Fraction:
    """A numeric string (``"p/q"``, an int, a decimal) as a ``Fraction``, under the guards of
    :func:`parse_number`; ``ValueError`` giving the reason without a place (a command-line flag's
    parser names the flag)."""
    return _parse_string(text)


def parse_number(value: object, where: str) -> Number:
    """Read one probability or reward from a spec or from Python.

    Ints, ``Fraction`` objects and numeric strings (``"p/q"``, ``"0.25"``) become exact
    ``Fraction`` values; floats stay floats. Booleans, NaN, infinities, strings longer than
    :data:`MAX_NUMBER_LENGTH`, with an exponent beyond :data:`MAX_EXPONENT` or with an underscore
    (a digit separator ``Fraction`` would read), and anything else raise
    :class:`InvalidBlockMDP` naming ``where``.
    """
    # The JSON types first, without abstract-class checks (speed: called once per number of
    # a spec, 10^5 and more for large MDPs).
    if type(value) is float and math.isfinite(value):
        return value
    if isinstance(value, str):
        try:
            return _parse_string(value)
        except ValueError as error:
            raise InvalidBlockMDP(f"{where}: {error}") from None
    if isinstance(value, bool):
        raise InvalidBlockMDP(f"{where}: {value!r} is a boolean, not a number")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, Integral):
        return Fraction(int(value))
    if isinstance(value, Real):
        number = float(value)
        if not math.isfinite(number):
            raise InvalidBlockMDP(f"{where}: {value!r} is not a finite number")
        return number
    raise InvalidBlockMDP(f"{where}: {value!r} is not a number")


@dataclass(frozen=True)
class NumberMode:
    """Exact (``Fraction``) or float (with absolute tolerance ``atol``) arithmetic.

    Attributes
    ----------
    exact : bool
        True for rationals, False for ``float64``.
    atol : float
        Tolerance used by every float comparison (ignored in exact mode).
    """

    exact: bool
    atol: float = DEFAULT_ATOL

    def __post_init__(self) -> None:
        tolerance().check(self.atol, "atol")

    @property
    def dtype(self) -> type:
        return object if self.exact else np.float64

    def scalar(self, value: Number) -> Number:
        return Fraction(value) if self.exact else float(value)

    def array(self, values: Iterable[Number] | np.ndarray) -> np.ndarray:
        """A 1-d or n-d array of this mode's numbers."""
        if self.exact:
            source = np.asarray(values, dtype=object)
            result = np.empty(source.shape, dtype=object)
            result.flat[:] = [Fraction(v) for v in source.flat]
            return result
        return np.asarray(values, dtype=np.float64)

    def zeros(self, shape: int | tuple[int, ...]) -> np.ndarray:
        if self.exact:
            result = np.empty(shape, dtype=object)
            result.fill(Fraction(0))
            return result
        return np.zeros(shape, dtype=np.float64)

    def identity(self, size: int) -> np.ndarray:
        result = self.zeros((size, size))
        np.fill_diagonal(result, self.scalar(1))
        return result

    def equal(self, left: Number, right: Number) -> bool:
        return left == right if self.exact else -self.atol <= left - right <= self.atol

    def positive(self, values: np.ndarray) -> np.ndarray:
        """Boolean mask of the strictly positive entries, in both modes.

        Supports are exact in float mode too: a probability is in the support iff it is > 0
        (``atol`` only judges sums and comparisons, see the module docstring). Probabilities are
        sums of products of non-negative numbers, so a zero is never produced by rounding.
        """
        return np.asarray(values > 0, dtype=bool)

    def to_json(self, value: Number) -> str | float:
        """``"p/q"`` strings in exact mode (of any size), plain floats otherwise."""
        return exact_text(Fraction(value)) if self.exact else float(value)


@contextmanager
def _unlimited_int_digits() -> Iterator[None]:
    """Lift Python's limit on int-to-str conversion (4,300 digits by default) for the block, and
    restore it after."""
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(previous)


def exact_text(value: Fraction) -> str:
    """``value`` as ``"p/q"`` (or ``"p"``), however many digits: an exact result is written in
    full. Python's int-to-str limit is lifted for this conversion only, when it is reached;
    reading stays guarded (:data:`MAX_NUMBER_LENGTH`, :func:`kinematic.json_input.read_json`)."""
    try:
        return str(value)
    except ValueError:  # over sys.get_int_max_str_digits() digits
        with _unlimited_int_digits():
            return str(value)


def number_text(value: Number | int | str, digits: int = 6) -> str:
    """A number as short readable text: an exact one (``Fraction`` or int) as ``p/q`` in full
    (:func:`exact_text`), a float with ``digits`` significant digits, and a string (the ``"p/q"``
    of an exact number in JSON results such as :func:`kinematic.analyze`'s) as it is.

    >>> number_text(Fraction(-3, 4)), number_text(0.1 + 0.2), number_text(2 / 3, digits=3)
    ('-3/4', '0.3', '0.667')
    """
    if isinstance(value, str):
        return value
    if isinstance(value, float | np.floating):
        return format(float(value), f".{digits}g")
    return exact_text(Fraction(value))

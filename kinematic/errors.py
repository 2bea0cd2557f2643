"""Exceptions raised by the exact core.

All are ``ValueError`` subclasses so that callers catching bad input in the usual way see them.
"""

from collections.abc import Mapping

__all__ = ["AmbiguousTolerance", "InvalidBlockMDP", "InvalidPartition", "InvalidPolicy", "TooLarge",
           "UndefinedQuotient", "UnknownLayer", "UnknownName", "require_mapping", "short_repr"]


class InvalidBlockMDP(ValueError):
    """A Block MDP (Python or JSON spec) violates the model of Section 2 of the paper.

    The message names the offending entry, e.g.
    ``transitions['s3']['a2'] sums to 9/10, not 1``.
    """


class AmbiguousTolerance(ValueError):
    """Float-mode grouping cannot decide a partition consistently at the given tolerance.

    Raised when states chain together within ``atol`` while their ends differ by more than
    ``atol`` (so "equal up to atol" is not an equivalence on the data). Use exact mode or another
    ``atol``.
    """


class InvalidPolicy(ValueError):
    """A policy does not fit its Block MDP (wrong shape, negative or non-summing probabilities)."""


class InvalidPartition(ValueError):
    """A partition given by the caller is not a partition of the MDP's states by layer: a block
    spans two layers, a state is in two blocks or has no label, an observation abstraction
    splits a state. The message names the argument and the states at fault."""


class UndefinedQuotient(ValueError):
    """Merging the states of a block gives no Block MDP with the same observation process: two
    of its states move differently to the next layer's blocks, or are not backward KI (their
    share of the block would depend on the policy). The message names the two states and the
    action or incoming pair (see :mod:`kinematic.quotient`)."""


class TooLarge(ValueError):
    """A request (horizon, actions, width, observation dimension, a learner's settings) would
    need more memory than the machine has, or run for longer than is accepted; the message
    gives the estimate and the limit."""


class UnknownName(KeyError, ValueError):
    """An argument names a state, observation or action the MDP does not have (the argument is
    at fault, not the MDP). The message names the argument and the closest valid names, e.g.
    ``state: unknown state 'zzz' (did you mean 's2a'?)``. A ``KeyError`` for lookups, a
    ``ValueError`` for bad input; printed without the quotes ``KeyError`` adds."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class UnknownLayer(IndexError, ValueError):
    """A layer number (from 1) or a layer position (from 0) out of range, or not an int; the
    message gives the valid range."""


def require_mapping(value: object, where: str) -> Mapping:
    """``value`` if it is a mapping (a JSON object), else :class:`InvalidBlockMDP` naming
    ``where``."""
    if not isinstance(value, Mapping):
        raise InvalidBlockMDP(f"{where} must be a mapping, got {type(value).__name__}")
    return value


def short_repr(value: object, limit: int = 60) -> str:
    """``repr(value)`` for a one-line message, cut to ``limit`` characters (``...`` at the
    end); an int too long to print (Python's int-to-str limit) is described by its digits."""
    if isinstance(value, int) and value.bit_length() > 10_000:
        return f"an int of about {int(value.bit_length() * 0.30103):,} digits"
    shown = repr(value)
    return shown if len(shown) <= limit else shown[:limit - 3] + "..."

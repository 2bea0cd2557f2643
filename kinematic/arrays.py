"""Large float-mode Block MDPs built from arrays, with no per-entry Python work.

A JSON spec of 10^6 states and 5 x 10^7 transition entries is not the way to write such an
MDP; :func:`block_mdp_from_arrays` takes the start distribution and one sparse transition
matrix per layer (the layout of :class:`kinematic.model.BlockMDP`: row ``s * |A| + a`` holds
``T(. | s, a)``) and validates them with vectorised checks, naming the offending layer, state
and action like :func:`kinematic.model.block_mdp` does. Every state emits one observation of its
own name (``s{h}_{i}``, layers from 1), as in the paper's tabular view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import scipy.sparse as sp

from kinematic.arguments import at_least
from kinematic.errors import InvalidBlockMDP
from kinematic.model import BlockMDP, check_reachable
from kinematic.numbers import DEFAULT_ATOL, NumberMode

__all__ = ["block_mdp_from_arrays"]


def _state(layer: int, index: int) -> str:
    return f"s{layer + 1}_{index}"


def _check_distributions(values: np.ndarray, sums: np.ndarray, what: str,
                         describe_row: Callable[[int], str], atol: float) -> None:
    """Finite, non-negative entries and rows summing to 1 within ``atol``."""
    if not np.isfinite(values).all():
        raise InvalidBlockMDP(f"{what}: a NaN or infinite probability")
    if (values < 0).any():
        raise InvalidBlockMDP(f"{what}: a negative probability")
    wrong = np.flatnonzero(np.abs(sums - 1.0) > atol)
    if wrong.size:
        raise InvalidBlockMDP(f"{describe_row(wrong[0])} sums to {float(sums[wrong[0]])!r}, not 1 "
                              f"(atol={atol})")


def _float_array(given: object, what: str) -> np.ndarray:
    """``given`` as a float64 array: any numbers numpy converts (``Fraction`` objects,
    numeric strings); otherwise :class:`InvalidBlockMDP` naming ``what``."""
    try:
        return np.asarray(given, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InvalidBlockMDP(f"{what} is not an array of numbers: {error}") from None


def _float_matrix(given: sp.sparray | np.ndarray, what: str) -> sp.csr_array:
    """``given`` (sparse or dense) as a float64 CSR matrix: dense entries may be any numbers
    numpy converts (``Fraction`` objects of an exact MDP, numeric strings); otherwise
    :class:`InvalidBlockMDP` naming ``what``."""
    entries = given if sp.issparse(given) else _float_array(given, what)
    # scipy-stubs: every sparray has a shape and converts to CSR at run time
    shape: tuple[int, ...] = entries.shape  # type: ignore[union-attr]
    if len(shape) != 2:
        raise InvalidBlockMDP(f"{what} must be a matrix (2-d), got shape {shape}")
    return sp.csr_array(entries).astype(np.float64)  # type: ignore[arg-type]


def block_mdp_from_arrays(
    name: str,
    start: np.ndarray,
    transitions: Sequence[sp.sparray | np.ndarray],
    actions: int,
    rewards: Sequence[np.ndarray] | None = None,
    atol: float = DEFAULT_ATOL,
) -> BlockMDP:
    """A validated float-mode :class:`BlockMDP` from arrays (Section 2's model, ``def:homing``
    needs every state reachable).

    Parameters
    ----------
    start : array, shape (n_1,)
        The start distribution.
    transitions : sequence of H - 1 matrices
        ``transitions[h]`` of shape ``(n_h * actions, n_{h+1})`` (sparse or dense), row
        ``s * actions + a`` the distribution ``T(. | s, a)``; stored as CSR of floats (dense
        entries may be any numbers numpy reads as floats: an exact MDP's ``Fraction`` objects,
        numeric strings).
    actions : int
        Number of actions, named ``a1 .. aK``.
    rewards : sequence of H arrays, optional
        ``rewards[h]`` of shape ``(n_h, actions)``: expected reward of each state and action.

    Raises
    ------
    InvalidBlockMDP
        Entries that are not numbers, wrong shapes, NaN, negative probabilities, a distribution
        not summing to 1 within ``atol``, or an unreachable state, naming the argument, the
        layer (from 1), state and action.

    >>> import numpy as np, scipy.sparse as sp
    >>> mdp = block_mdp_from_arrays("two", np.array([0.5, 0.5]),
    ...                             [sp.csr_array(np.full((2, 2), 0.5))], actions=1)
    >>> mdp.layers
    (('s1_0', 's1_1'), ('s2_0', 's2_1'))
    """
    mode = NumberMode(exact=False, atol=atol)
    if not at_least(1).contains(actions):
        raise InvalidBlockMDP(f"actions must be a positive int, got {actions!r}")
    start = _float_array(start, "start")
    if start.ndim != 1 or start.size == 0:
        raise InvalidBlockMDP(f"start must be a non-empty 1-d array, got shape {start.shape}")
    _check_distributions(start, np.array([start.sum()]), "start", lambda _: "start", atol)
    widths = [start.size]
    matrices = []
    for h, given in enumerate(transitions):
        matrix = _float_matrix(given, f"transitions[{h}] (layer {h + 1} -> {h + 2})")
        rows, following = matrix.shape
        if rows != widths[h] * actions or following == 0:
            raise InvalidBlockMDP(
                f"transitions[{h}] (layer {h + 1} -> {h + 2}) has shape {matrix.shape}, "
                f"expected ({widths[h]} states x {actions} actions, n_{h + 2} >= 1)")
        sums = np.asarray(matrix.sum(axis=1)).ravel()

        def describe(row: int, h: int = h) -> str:
            return f"T(. | {_state(h, row // actions)!r}, 'a{row % actions + 1}') (layer {h + 1})"

        _check_distributions(matrix.data, sums, f"transitions[{h}] (layer {h + 1})", describe,
                             atol)
        matrices.append(matrix)
        widths.append(following)
    horizon = len(widths)
    layers = tuple(tuple(_state(h, i) for i in range(width)) for h, width in enumerate(widths))
    if rewards is None:
        rewards = [np.zeros((width, actions)) for width in widths]
    if len(rewards) != horizon:
        raise InvalidBlockMDP(f"rewards has {len(rewards)} layers, the MDP {horizon}")
    reward_arrays = tuple(_float_array(r, f"rewards[{h}] (layer {h + 1})")
                          for h, r in enumerate(rewards))
    for h, reward in enumerate(reward_arrays):
        if reward.shape != (widths[h], actions) or not np.isfinite(reward).all():
            raise InvalidBlockMDP(f"rewards[{h}] must be finite of shape ({widths[h]}, "
                                  f"{actions}), got shape {reward.shape}")
    mdp = BlockMDP(
        name=name, layers=layers, actions=tuple(f"a{k + 1}" for k in range(actions)),
        start=start, transitions=tuple(matrices), observations=layers,
        emission_state=tuple(np.arange(width) for width in widths),
        emission_probability=tuple(np.ones(width) for width in widths),
        rewards=reward_arrays, mode=mode)
    check_reachable(mdp)
    return mdp

"""Maximum visitation eta(s), eta_min and homing policies (paper, Section 2, ``def:homing``).

``eta(s) = max_pi P_pi(s)`` over all non-stationary policies. By ``lem:homing_deterministic`` a
deterministic non-stationary policy attains it, so backward induction computes it: for the
targets ``S_h`` of one layer at once, ``V_h = I`` (one column per target) and
``V_t(s) = max_a sum_s' T(s'|s, a) V_{t+1}(s')``; then ``eta = mu^T V_1``. One sparse-times-dense
product per layer serves all targets of a layer together.

The LP over occupancy measures (:func:`lp_maximum_visitation`) maximises over *stochastic*
policies with ``scipy.optimize.linprog``; it is an independent cross-check of the dynamic program.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from typing import overload

import numpy as np
import scipy.sparse as sp

from kinematic import float_induction
from kinematic.arguments import nonnegative
from kinematic.certified_induction import certified_maximum_visitation
from kinematic.lookup import find
from kinematic.model import BlockMDP
from kinematic.named_values import StateValues
from kinematic.numbers import Number
from kinematic.policies import Policy, state_policy

__all__ = [
    "LinearProgramOptimum",
    "eta",
    "eta_error_bound",
    "eta_min",
    "homing_policies",
    "homing_policy",
    "homing_policy_choices",
    "lp_maximum_visitation",
    "lp_optimal_value",
]


def _bellman_step(mdp: BlockMDP, t: int, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Q_t = T_t V_{t+1}`` of shape ``(|A|, n_t, k)`` and ``V_t = max_a Q_t``."""
    product = mdp.action_major_transitions[t] @ values
    q = np.asarray(product).reshape(mdp.number_of_actions, mdp.width(t), values.shape[1])
    return q, q.max(axis=0)


def _backward_induction(
    mdp: BlockMDP, target_layer: int, terminal: np.ndarray
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """Yield ``(t, Q_t, V_t)`` for ``t = target_layer - 1, ..., 0``.

    ``terminal`` has shape ``(n_target_layer, k)``: ``k`` reward vectors on the target layer.
    """
    values = terminal
    for t in range(target_layer - 1, -1, -1):
        q, values = _bellman_step(mdp, t, values)
        yield t, q, values


def _greedy_actions(q: np.ndarray) -> np.ndarray:
    """Argmax over actions (axis 0), ties (equal values) broken towards the first action.

    No tolerance in float mode either: an action ``atol`` short of the best at every step would
    lose ``H atol`` over an episode. The greedy policy's visitation therefore differs from the
    computed ``eta`` by rounding only (see :func:`homing_policy_choices`).
    """
    return np.argmax(q, axis=0)


MIXED_TOLERANCE_FRACTION = 1e-3
"""Float mode's default error bound of each ``eta``, as a fraction of ``atol``: a target's induction
stops once its value column is constant within about twice this bound (the stopping rule of
:mod:`kinematic.float_induction`)."""

BLOCK_BYTES = 4 * 2**20
"""Float mode runs the targets of a layer in blocks whose product ``Q_t`` (``|A| W_t`` rows of
float64) takes at most about this much memory, so that it stays in the CPU cache (1,000 targets of
a width-1,000 layer, 10 actions: 0.77 s in blocks of 50-64, 0.99 s in one block, one thread;
width 100: one block, 25% faster than two). The blocks of all layers share the worker threads."""


def _block_columns(mdp: BlockMDP, t: int) -> int:
    """Targets per block when the induction passes layer ``t`` (at least 16)."""
    return max(16, BLOCK_BYTES // (8 * mdp.number_of_actions * mdp.width(t)))


def eta_error_bound(mdp: BlockMDP, error: float | None = None) -> float:
    """The absolute error bound of float-mode ``eta`` (default ``MIXED_TOLERANCE_FRACTION *
    atol``); exact mode takes none."""
    if mdp.mode.exact:
        if error is not None:
            raise ValueError(
                f"error applies to float mode; {mdp.name!r} is exact and its eta is computed "
                "exactly (convert it with kinematic.model.with_float_numbers)")
        return 0.0
    if error is None:
        return MIXED_TOLERANCE_FRACTION * mdp.mode.atol
    nonnegative().check(error, "error")
    return float(error)


def _start_values(
    mdp: BlockMDP, target_layer: int, terminal: np.ndarray, error: float
) -> np.ndarray:
    """``max_pi E_pi[terminal(s_h)]`` for each column of ``terminal`` (``target_layer >= 1``).

    Float mode: :func:`kinematic.float_induction.start_values` (each within ``error`` plus
    rounding). Exact mode (``error`` 0), the same stopping rule without a tolerance: each
    ``T(. | s, a)`` is a probability vector, so every value of a column in an earlier ``V``, and
    the answer ``mu^T V_1``, lies between the column's minimum and maximum in ``V_t``; a
    constant column gives its answer exactly and leaves the induction.
    """
    if not mdp.mode.exact:
        return float_induction.start_values(mdp, target_layer, terminal, error)
    result = mdp.mode.zeros(terminal.shape[1])
    active = np.arange(terminal.shape[1])
    values = terminal
    for t in range(target_layer - 1, 0, -1):
        _, values = _bellman_step(mdp, t, values)
        done = np.asarray((values == values[0]).all(axis=0), dtype=bool)
        if done.any():
            result[active[done]] = values[0, done]
            active, values = active[~done], values[:, ~done]
            if not len(active):
                return result
    _, values = _bellman_step(mdp, 0, values)
    result[active] = np.asarray(mdp.start @ values).reshape(-1)
    return result


def _unit_columns(mdp: BlockMDP, h: int, first: int, stop: int) -> np.ndarray:
    """Columns ``first .. stop - 1`` of the identity on layer ``h``: one target state each."""
    columns = mdp.mode.zeros((mdp.width(h), stop - first))
    columns[np.arange(first, stop), np.arange(stop - first)] = mdp.mode.scalar(1)
    return columns


def _eta_per_layer(
    mdp: BlockMDP, workers: int | None = None, error: float | None = None
) -> tuple[np.ndarray, ...]:
    """``eta(s)`` for every state, per layer: :func:`eta` without ``state``."""
    bound = eta_error_bound(mdp, error)
    if mdp.mode.exact:
        return _exact_maximum_visitation(mdp, workers)
    later = range(mdp.horizon - 1, 0, -1)  # longest inductions first
    sequential = mdp.horizon < 3
    block = (max(map(mdp.width, later), default=1) if sequential
             else min(_block_columns(mdp, t) for t in range(mdp.horizon - 1)))
    tasks = []
    for h in later:
        bounds = np.linspace(0, mdp.width(h), -(-mdp.width(h) // block) + 1).astype(int)
        tasks += [(h, int(first), int(stop)) for first, stop in itertools.pairwise(bounds)]

    def block_eta(task: tuple[int, int, int]) -> np.ndarray:
        h, first, stop = task
        return _start_values(mdp, h, _unit_columns(mdp, h, first, stop), bound)

    if sequential:
        blocks = [block_eta(task) for task in tasks]
    else:
        with ThreadPoolExecutor(max_workers=workers or os.cpu_count()) as pool:
            blocks = list(pool.map(block_eta, tasks))
    per_layer: dict[int, list[np.ndarray]] = {h: [] for h in later}
    for (h, _, _), values in zip(tasks, blocks, strict=True):
        per_layer[h].append(values)
    return (mdp.start.copy(), *(np.concatenate(per_layer[h]) for h in reversed(later)))


def _named_eta_per_layer(
    mdp: BlockMDP, workers: int | None = None, error: float | None = None
) -> StateValues:
    """:func:`_eta_per_layer`, read by state name too (its own function, so that :func:`eta`'s
    mutants keep their numbers in ``benchmarks/mutation_equivalents.py``)."""
    return StateValues(_eta_per_layer(mdp, workers, error), mdp.layers)


def _exact_maximum_visitation(mdp: BlockMDP, workers: int | None) -> tuple[np.ndarray, ...]:
    """Exact mode: :func:`kinematic.certified_induction.certified_maximum_visitation`, and the
    ``Fraction`` induction (:func:`_start_values`) for a layer where it gave up."""
    per_layer = certified_maximum_visitation(mdp, workers)
    layers = [mdp.start.copy()]
    for h in range(1, mdp.horizon):
        values = per_layer[h]
        layers.append(mdp.mode.array(values) if values is not None else
                      _start_values(mdp, h, _unit_columns(mdp, h, 0, mdp.width(h)), 0.0))
    return tuple(layers)


@overload
def eta(
    mdp: BlockMDP, state: None = None, *, workers: int | None = None, error: float | None = None
) -> StateValues: ...


@overload
def eta(mdp: BlockMDP, state: str, *, workers: None = None, error: float | None = None) -> Number:
    ...


def eta(
    mdp: BlockMDP, state: str | None = None, *, workers: int | None = None,
    error: float | None = None,
) -> StateValues | Number:
    """The maximum visitation ``eta(s) = max_pi P_pi(s)`` (``def:homing``, Section 2), the value
    of the homing policy of ``s``: of every state, per layer (``eta(mdp)[h][i]`` is ``eta`` of
    ``mdp.layers[h][i]``; ``eta(mdp).by_state`` maps each state's name to it, see
    :class:`kinematic.named_values.StateValues`), or of ``state`` alone.

    Every state: layer 1 is the start distribution; every later layer is a batched backward
    induction over its states. Exact mode: all of a layer's states at once, float decisions
    certified and exact integer values (:mod:`kinematic.certified_induction`), layers spread over
    ``workers`` processes when large. Float mode: in equal blocks (see :data:`BLOCK_BYTES`), the
    blocks of all layers spread over ``workers`` threads (default: one per CPU; numpy and scipy
    release the GIL in these products).

    One state: one backward induction for this target alone (``workers`` does not apply).

    Float mode: each ``eta`` is within ``error`` (default ``MIXED_TOLERANCE_FRACTION * atol``)
    plus rounding of the exact value, by the stopping rule and the float32 steps of
    :mod:`kinematic.float_induction`; exact mode refuses ``error``.

    >>> from kinematic.families import combination_lock
    >>> lock = combination_lock(3, 2, seed=0)
    >>> [str(value) for value in eta(lock)[2]]
    ['1/2', '1/2', '1']
    >>> eta(lock).by_state["s2a"]
    Fraction(1, 2)
    >>> eta(lock, "s3c")
    Fraction(1, 1)
    """
    if state is None:
        return _named_eta_per_layer(mdp, workers, error)
    if workers is not None:
        raise ValueError(f"workers applies to eta of every state; eta of {state!r} alone is one "
                         "induction")
    return _eta_of_state(mdp, state, error)


def eta_min(mdp: BlockMDP) -> Number:
    """The reachability parameter ``eta_min = min_s eta(s)`` (Section 2); the states attaining
    it: :func:`kinematic.analysis.eta_min_states`.

    >>> from kinematic import combination_lock
    >>> eta_min(combination_lock(horizon=3, actions=2, seed=0))
    Fraction(1, 2)
    """
    return min(min(values) for values in eta(mdp))


def _target(mdp: BlockMDP, state: str) -> tuple[int, int]:
    """The position of ``state`` (:class:`UnknownName` naming the argument ``state``)."""
    return find(mdp.state_location, state, "state", "state")


def _eta_of_state(mdp: BlockMDP, state: str, error: float | None = None) -> Number:
    """``eta(state)`` by one backward induction for this target alone: :func:`eta` with
    ``state``."""
    bound = eta_error_bound(mdp, error)
    h, i = _target(mdp, state)
    if h == 0:
        return mdp.start[i]
    return _start_values(mdp, h, _unit_columns(mdp, h, i, i + 1), bound)[0]


@overload
def homing_policy_choices(mdp: BlockMDP, state: None = None) -> dict[str, dict[str, str]]: ...


@overload
def homing_policy_choices(mdp: BlockMDP, state: str) -> dict[str, str]: ...


def homing_policy_choices(
    mdp: BlockMDP, state: str | None = None
) -> dict[str, str] | dict[str, dict[str, str]]:
    """The decisions of a deterministic homing policy (``lem:homing_deterministic``) for
    ``state``, or for every state: ``{state: its decisions}`` (as :func:`eta` gives ``eta`` of one
    state or of every state).

    The decisions of a homing policy for ``s`` are ``{earlier state: action}`` for the states of
    earlier layers from which ``s`` is reachable; the choice elsewhere cannot change ``P_pi(s)``
    (:func:`homing_policy` lifts them to a :class:`Policy`, taking the first action elsewhere).
    Ties go to the first action. Every state: one batched induction per layer, quadratic in the
    size of the MDP (each state's policy names a decision per earlier state); a state of layer 1
    needs none.

    In float mode the decisions are exact argmaxes of the computed values, so the policy reaches
    the ``eta(state)`` of :func:`eta` up to floating-point rounding of the two computations
    (``H`` layers of sums of ``d`` products each, ``d`` successors per state-action pair: of
    order ``H d 2**-52`` relative) plus ``MIXED_TOLERANCE_FRACTION * atol`` absolute, the
    stopping rule of :mod:`kinematic.float_induction` in :func:`eta`
    (``tests/kinematic/test_float_mode.py`` checks ``4 H d 2**-52 max(1, eta) + 1e-3 atol`` on
    generated float MDPs with tiny and drifting probabilities). Even ``eta(state) < atol`` gets
    its decisions.

    >>> from kinematic.families import combination_lock
    >>> lock = combination_lock(3, 2, seed=0)
    >>> homing_policy_choices(lock, "s2c")
    {'s1a': 'a1', 's1b': 'a2'}
    >>> every = homing_policy_choices(lock)
    >>> every["s1a"], every["s2c"] == homing_policy_choices(lock, "s2c")
    ({}, True)
    """
    if state is None:
        return _every_homing_policy_choices(mdp)
    h, i = _target(mdp, state)
    values = _unit_columns(mdp, h, i, i + 1)
    return _choices_for_targets(mdp, h, values)[0]


def _choices_for_targets(
    mdp: BlockMDP, h: int, terminal: np.ndarray
) -> list[dict[str, str]]:
    """Decisions per target (columns of ``terminal``), listed layer by layer."""
    per_layer = [
        (t, _greedy_actions(q), mdp.mode.positive(values))
        for t, q, values in _backward_induction(mdp, h, terminal)
    ]
    choices: list[dict[str, str]] = [{} for _ in range(terminal.shape[1])]
    for t, greedy, reaches in reversed(per_layer):
        for s, k in zip(*np.nonzero(reaches), strict=True):
            choices[k][mdp.layers[t][s]] = mdp.actions[greedy[s, k]]
    return choices


def _every_homing_policy_choices(mdp: BlockMDP) -> dict[str, dict[str, str]]:
    """:func:`homing_policy_choices` of every state, one batched induction per layer."""
    result: dict[str, dict[str, str]] = {state: {} for state in mdp.layers[0]}
    for h in range(1, mdp.horizon):
        per_target = _choices_for_targets(mdp, h, mdp.mode.identity(mdp.width(h)))
        result.update(zip(mdp.layers[h], per_target, strict=True))
    return result


def homing_policies(mdp: BlockMDP) -> dict[str, Policy]:
    """The homing policy ``pi_s`` (``def:homing``) of every state ``s``, as ``{s: Policy}``:
    :func:`homing_policy` of each state, from one batched induction per layer. Together they
    are a 1-policy cover (``def:policy-cover``): pass ``homing_policies(mdp)`` to
    :func:`kinematic.cover.policy_cover_alpha`. Their decisions alone:
    :func:`homing_policy_choices`.

    >>> from kinematic.cover import policy_cover_alpha
    >>> from kinematic.families import combination_lock
    >>> lock = combination_lock(3, 2, seed=0)
    >>> policies = homing_policies(lock)
    >>> policies["s2a"].at("s1a"), policies["s2a"].at("s1b")
    ({'a1': Fraction(0, 1), 'a2': Fraction(1, 1)}, {'a1': Fraction(1, 1), 'a2': Fraction(0, 1)})
    >>> policy_cover_alpha(lock, policies).alpha
    Fraction(1, 1)
    """
    return {state: _lifted(mdp, choices)
            for state, choices in _every_homing_policy_choices(mdp).items()}


def homing_policy(mdp: BlockMDP, state: str) -> Policy:
    """A deterministic non-stationary homing policy ``pi_s`` (``def:homing``) as a :class:`Policy`.

    States that cannot reach ``state``, and all layers from ``state``'s on, take the first action.
    """
    return _lifted(mdp, homing_policy_choices(mdp, state))


def _lifted(mdp: BlockMDP, choices: dict[str, str]) -> Policy:
    """A homing policy's decisions as a :class:`Policy`, the first action elsewhere."""
    return state_policy(mdp, choices, default_action=mdp.actions[0])


@dataclass(frozen=True)
class LinearProgramOptimum:
    """Result of :func:`lp_optimal_value` and :func:`lp_maximum_visitation`.

    Attributes
    ----------
    value : float
        The LP optimum ``max_{pi stochastic} V(pi; R)``.
    policy : Policy
        The stochastic observation policy read off the optimal occupancy measure,
        ``pi(a|x) = d(x, a) / sum_a' d(x, a')`` (uniform where ``d(x, .) = 0``), in the MDP's
        number mode (in exact mode rounded to rationals with denominators up to 10^6, the last
        action's share completing the sum to 1).
    """

    value: float
    policy: Policy


def lp_optimal_value(mdp: BlockMDP, rewards: tuple[np.ndarray, ...]) -> LinearProgramOptimum:
    """``max_pi V(pi; R)`` over stochastic observation policies, as a linear program over
    occupancy measures (solved in floating point by HiGHS).

    Variables ``d_h(x, a) >= 0``; constraints ``sum_a d_1(x, a) = mu(decoder(x)) q(x|decoder(x))``
    and ``sum_a d_{h+1}(x', a) = sum_{x, a} T(x'|x, a) d_h(x, a)``; objective
    ``sum_{h, x, a} d_h(x, a) R(x, a)``. Used to check ``lem:homing_deterministic``.
    """
    number_of_actions = mdp.number_of_actions
    sizes = [len(x) * number_of_actions for x in mdp.observations]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    blocks_rows, rhs = [], []
    for h in range(mdp.horizon):
        count = len(mdp.observations[h])
        row: list = [None] * mdp.horizon
        row[h] = sp.kron(sp.eye(count), np.ones((1, number_of_actions)))
        if h > 0:
            previous = mdp.observation_transition_tensor(h - 1).reshape(-1, count)
            row[h - 1] = -sp.csr_array(np.asarray(previous, dtype=np.float64).T)
            rhs.append(np.zeros(count))
        else:
            start = mdp.start[mdp.emission_state[0]] * mdp.emission_probability[0]
            rhs.append(np.asarray(start, dtype=np.float64))
        blocks_rows.append(row)
    objective = -np.concatenate([np.asarray(r, dtype=np.float64).reshape(-1) for r in rewards])
    from scipy.optimize import linprog  # here: importing it costs every CLI start 0.1 s

    # scipy-stubs' linprog takes no sparse A_eq; scipy's HiGHS methods do (and keep it sparse)
    solution = linprog(  # type: ignore[call-overload]
        objective,
        A_eq=sp.block_array(blocks_rows, format="csr"),
        b_eq=np.concatenate(rhs),
        bounds=(0, None),
        method="highs",
    )
    if solution.status != 0:
        raise RuntimeError(f"linprog failed: {solution.message}")
    tables = []
    for h in range(mdp.horizon):
        occupancy = solution.x[offsets[h]:offsets[h + 1]].reshape(-1, number_of_actions)
        table = mdp.mode.zeros(occupancy.shape)
        for x, row_values in enumerate(occupancy):
            total = row_values.sum()
            shares = row_values / total if total > 0 else np.full(number_of_actions, 1.0)
            table[x] = _distribution(mdp, shares)
        tables.append(table)
    return LinearProgramOptimum(-solution.fun, Policy(tuple(tables), mdp))


def lp_maximum_visitation(mdp: BlockMDP, state: str) -> LinearProgramOptimum:
    """``max_pi P_pi(state)`` over stochastic policies: :func:`lp_optimal_value` with reward 1 at
    the observations of ``state``. Used to check ``lem:homing_deterministic`` against
    :func:`eta`."""
    h, i = _target(mdp, state)
    rewards = [mdp.mode.zeros((len(x), mdp.number_of_actions)) for x in mdp.observations]
    rewards[h][mdp.emission_state[h] == i, :] = mdp.mode.scalar(1)
    return lp_optimal_value(mdp, tuple(rewards))


def _distribution(mdp: BlockMDP, probabilities: np.ndarray) -> list[Number]:
    """Action distribution in the MDP's mode; in exact mode rounded to rationals summing to 1."""
    probabilities = np.clip(probabilities, 0, None)
    probabilities = probabilities / probabilities.sum()
    if not mdp.mode.exact:
        return probabilities.tolist()
    rounded: list[Number] = [Fraction(p).limit_denominator(10**6) for p in probabilities[:-1]]
    rounded.append(1 - sum(rounded, Fraction(0)))
    if rounded[-1] < 0:  # rounding overshot: fall back to the most likely action
        best = int(np.argmax(probabilities))
        rounded = [Fraction(int(k == best)) for k in range(len(probabilities))]
    return rounded

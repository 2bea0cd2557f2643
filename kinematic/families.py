"""Named Block MDPs and transformations of them:

- the diabolical combination lock of Section 7 (:func:`combination_lock`, with the rewards of
  the paper's text or of the authors' released code, :data:`LOCK_VARIANTS`; its good actions and
  optimal policy: :func:`combination_lock_good_actions`, :func:`combination_lock_optimal_choices`);
- its deterministic counterpart, one live state per layer (:func:`deterministic_combination_lock`);
- the lock with the exogenous noise bits of the authors' later library
  (:func:`exogenous_combination_lock`, an :class:`~kinematic.exogenous.ExogenousBlockMDP`);
- the pair of Figure ``fig:mdp-canonical`` (Section 3): :func:`figure2_canonical` and its
  non-canonical :func:`figure2_split`;
- random layered MDPs for scale: :func:`random_sparse_mdp` (float mode) and
  :func:`random_exact_mdp` (exact mode);
- the state-splitting transformations that make a non-canonical MDP out of any MDP:
  :func:`split_state` (KI halves) and :func:`unequal_split` (halves that are not backward KI).

The paper's counterexample MDPs (Figure 1's and Section 5's) are in
:mod:`kinematic.counterexamples.mdps`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import product

import numpy as np
import scipy.sparse as sp

from kinematic.arrays import block_mdp_from_arrays
from kinematic.exogenous import ExogenousBlockMDP, exogenous_block_mdp, exogenous_chain
from kinematic.lookup import find
from kinematic.model import BlockMDP
from kinematic.numbers import Number, number_text, parse_number
from kinematic.resources import check_memory
from kinematic.spec import from_spec, to_spec

__all__ = [
    "LOCK_VARIANTS",
    "combination_lock",
    "combination_lock_good_actions",
    "combination_lock_optimal_choices",
    "deterministic_combination_lock",
    "exogenous_combination_lock",
    "figure2_canonical",
    "figure2_split",
    "random_exact_mdp",
    "random_sparse_mdp",
    "split_state",
    "unequal_split",
]

LOCK_VARIANTS = ("paper", "released")
"""The rewards :func:`combination_lock` can give the lock: ``"paper"``, the paper's text (Section
7), and ``"released"``, the authors' released baseline code."""

LOCK_BYTES_PER_LAYER_ACTION = 2500
"""Peak memory of building :func:`combination_lock` per layer and action (measured with
``tracemalloc`` at H = 200-400, K = 10-40: 2,100-2,450 bytes)."""


def combination_lock_good_actions(
    horizon: int, actions: int, seed: int
) -> tuple[list[str], list[str]]:
    """The good actions ``u_{1:H}`` (for ``s_{h,a}``) and ``v_{1:H}`` (for ``s_{h,b}``).

    Each coordinate is drawn uniformly from the ``K`` actions ``a1 .. aK`` with
    ``numpy.random.default_rng(seed)``.
    """
    if horizon < 1:
        raise ValueError(f"horizon must be at least 1, got {horizon}")
    if actions < 2:
        raise ValueError(f"the combination lock needs at least 2 actions, got {actions}")
    draws = np.random.default_rng(seed).integers(actions, size=(2, horizon))
    u, v = ([f"a{k + 1}" for k in row] for row in draws)
    return u, v


def combination_lock_optimal_choices(horizon: int, actions: int, seed: int) -> dict[str, str]:
    """The optimal policy ``pi*`` of Section 7 on latent states: ``u_h`` at ``s{h}a``, ``v_h`` at
    ``s{h}b`` (any action at ``s{h}c``), for either variant of :func:`combination_lock`. Lift it
    with :func:`kinematic.policies.state_policy`."""
    u, v = combination_lock_good_actions(horizon, actions, seed)
    choices = {f"s{h + 1}a": action for h, action in enumerate(u)}
    choices.update({f"s{h + 1}b": action for h, action in enumerate(v)})
    return choices


def combination_lock(horizon: int, actions: int, seed: int, variant: str = "paper") -> BlockMDP:
    """The diabolical combination lock of Section 7 ("The environment"), exact.

    States ``s{h}a, s{h}b`` for every ``h`` and ``s{h}c`` for ``h >= 2``; actions ``a1 .. aK``;
    start uniform over ``{s1a, s1b}``. The good action (``u_h`` at ``s{h}a``, ``v_h`` at
    ``s{h}b``, :func:`combination_lock_good_actions`) moves uniformly to ``{s{h+1}a,
    s{h+1}b}``; every other action, and every action at ``s{h}c``, moves to ``s{h+1}c``.
    ``variant`` (one of :data:`LOCK_VARIANTS`) chooses the rewards; the dead states ``s{h}c``
    pay 0 in both.

    ``variant="paper"`` (the paper's text): 1 for the good action at layer H; the anti-shaped
    ``0.1 x Ber(1/2)`` (a stochastic reward ``{1/10: 1/2, 0: 1/2}``, ``1/20`` in expectation)
    for leaving a good state for the bad one, at every layer ``h <= H``; 0 otherwise. Hence
    ``V* = 1``, ``eta_min = 1/2``, and a policy that always takes a wrong action is worth
    ``1/20``. At layer ``H`` the Block MDP has no next state, but the text's dynamics still move
    the agent ("after taking h actions the agent is in s_{h+1,a}, s_{h+1,b} or s_{h+1,c}", for
    every ``h``, so a wrong H-th action leads to ``s_{H+1,c}``) and pay the anti-shaped reward
    for that transition; the authors' code does the same in every lock it builds (its reward
    depends only on whether the next state is dead), and without it a wrong action at layer
    ``H`` would be worth 0 instead of the 0.05 that makes the lock anti-shaped to its end. Its
    name is ``combolock-H{H}-K{K}-seed{seed}``.

    ``variant="released"``: the lock of the authors' released baseline code (cereb-rl,
    ``rl_acid_environment.py``'s ``DiabolicalCombinationLock`` as ``environment_wrapper.py``
    builds it for ``diabcombolock``), named ``combolock-released-H{H}-K{K}-seed{seed}``. The
    same states, actions, transitions, good actions (so the same KI partitions, ``eta_min = 1/2``
    and :func:`combination_lock_optimal_choices`); its rewards differ from the paper's text:

    - the good action at layer H pays 5, not 1 (their ``optimal_reward``);
    - the good action at a layer ``h < H`` pays ``-1/(H-1)``: their reward of a step between
      two live states, so the optimal policy collects ``-1`` on its way and ``V* = 5 - 1 = 4``
      for ``H >= 2`` (their ``get_optimal_value()`` reports 5, the final reward alone).

    A wrong action at a live state pays the anti-shaped ``0.1 x Ber(1/2)`` at every layer, the
    last included, in both variants.

    For ``H = 1`` there is no step between live states, hence no penalty: the good action pays
    5, every other the anti-shaped reward, and ``V* = 5``. Not part of this spec: the released
    code draws its good actions with its own generator (so a seed here does not reproduce one of
    its locks). Its observation encoder (noise type ``hadamhardg``) is the default encoding of
    :class:`homer.encoders.HadamardNoise` (see that class).

    >>> from kinematic.planning import optimal_values
    >>> lock = combination_lock(horizon=4, actions=3, seed=0, variant="released")
    >>> lock.name, optimal_values(lock).value
    ('combolock-released-H4-K3-seed0', Fraction(4, 1))
    >>> optimal_values(combination_lock(horizon=4, actions=3, seed=0)).value
    Fraction(1, 1)

    Raises ``ValueError`` naming ``variant`` for a name not in :data:`LOCK_VARIANTS`, and
    :class:`~kinematic.errors.TooLarge` at once when the lock would not fit in memory.
    """
    if variant not in LOCK_VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(LOCK_VARIANTS)}, got {variant!r}")
    check_memory(LOCK_BYTES_PER_LAYER_ACTION * horizon * actions,
                 f"combination_lock(horizon={horizon}, actions={actions})")
    u, v = combination_lock_good_actions(horizon, actions, seed)
    released = variant == "released"
    action_names = [f"a{k + 1}" for k in range(actions)]
    half, anti_shaped = "1/2", {"1/10": "1/2", "0": "1/2"}
    final = "5" if released else "1"
    step_penalty = str(Fraction(-1, horizon - 1)) if released and horizon > 1 else None
    layers = [["s1a", "s1b"]] + [[f"s{h}a", f"s{h}b", f"s{h}c"] for h in range(2, horizon + 1)]
    transitions: dict[str, dict[str, dict[str, str]]] = {}
    rewards: dict[str, dict[str, str | dict[str, str]]] = {}
    for h in range(1, horizon + 1):
        good = {f"s{h}a": u[h - 1], f"s{h}b": v[h - 1]}
        for state, good_action in good.items():
            wrong: dict[str, str | dict[str, str]] = {
                a: anti_shaped for a in action_names if a != good_action}
            if h == horizon:
                rewards[state] = {**wrong, good_action: final}
                continue
            transitions[state] = {
                action: (
                    {f"s{h + 1}a": half, f"s{h + 1}b": half}
                    if action == good_action
                    else {f"s{h + 1}c": "1"}
                )
                for action in action_names
            }
            rewards[state] = wrong if step_penalty is None else {**wrong,
                                                                 good_action: step_penalty}
        if 1 < h < horizon:
            transitions[f"s{h}c"] = {a: {f"s{h + 1}c": "1"} for a in action_names}
    return from_spec(
        {
            "name": f"combolock{'-released' if released else ''}-H{horizon}-K{actions}"
                    f"-seed{seed}",
            "horizon": horizon,
            "actions": action_names,
            "layers": layers,
            "start": {"s1a": half, "s1b": half},
            "transitions": transitions,
            "rewards": rewards,
        }
    )


def deterministic_combination_lock(horizon: int, actions: int, seed: int) -> BlockMDP:
    """A combination lock with deterministic dynamics: start ``s1a``; the good action ``u_h``
    (:func:`combination_lock_good_actions`) moves ``s{h}a`` to ``s{h+1}a``, every other action
    to the dead ``s{h+1}c``, which stays dead. One live state per layer, so every state is
    reached surely by one action sequence (``eta = 1``): the near-deterministic endogenous
    dynamics PPE's guarantee assumes (Efroni et al., ICLR 2022). Rewards as
    :func:`combination_lock`'s paper variant: 1 for ``u_H`` at ``s{H}a``, the anti-shaped
    ``0.1 x Ber(1/2)`` for a wrong action at a live state. Named
    ``deterministic-lock-H{H}-K{K}-seed{seed}``.

    >>> from kinematic import eta_min
    >>> lock = deterministic_combination_lock(horizon=3, actions=2, seed=0)
    >>> lock.layers, eta_min(lock)
    ((('s1a',), ('s2a', 's2c'), ('s3a', 's3c')), Fraction(1, 1))
    """
    check_memory(LOCK_BYTES_PER_LAYER_ACTION * horizon * actions,
                 f"deterministic_combination_lock(horizon={horizon}, actions={actions})")
    u, _ = combination_lock_good_actions(horizon, actions, seed)
    action_names = [f"a{k + 1}" for k in range(actions)]
    anti_shaped = {"1/10": "1/2", "0": "1/2"}
    transitions: dict[str, dict[str, dict[str, str]]] = {}
    rewards: dict[str, dict[str, str | dict[str, str]]] = {}
    for h in range(1, horizon + 1):
        wrong: dict[str, str | dict[str, str]] = {a: anti_shaped for a in action_names
                                                  if a != u[h - 1]}
        rewards[f"s{h}a"] = {**wrong, u[h - 1]: "1"} if h == horizon else wrong
        if h < horizon:
            transitions[f"s{h}a"] = {a: {f"s{h + 1}{'a' if a == u[h - 1] else 'c'}": "1"}
                                     for a in action_names}
        if 1 < h < horizon:
            transitions[f"s{h}c"] = {a: {f"s{h + 1}c": "1"} for a in action_names}
    return from_spec({
        "name": f"deterministic-lock-H{horizon}-K{actions}-seed{seed}",
        "horizon": horizon, "actions": action_names,
        "layers": [["s1a"]] + [[f"s{h}a", f"s{h}c"] for h in range(2, horizon + 1)],
        "start": {"s1a": "1"}, "transitions": transitions, "rewards": rewards})


EXOGENOUS_LOCK_BYTES_PER_ENTRY = 400
"""Peak memory of building :func:`exogenous_combination_lock` per transition entry of the
product, of which there are at most ``6 K (H - 1) 4^k`` (measured with ``tracemalloc`` at
H = 3-6, K = 2-10, k = 2-6: 183-336 bytes)."""


def exogenous_combination_lock(horizon: int, actions: int, seed: int, bits: int,
                               flip: object = "1/10", variant: str = "paper"
                               ) -> ExogenousBlockMDP:
    """The diabolical combination lock with ``bits`` exogenous noise bits, each flipping with
    probability ``flip`` at every step whatever the action: the exogenous Block MDP of the
    authors' later library (microsoft/Intrepid, ``temporal_diabcombolock.py``: its ``exo_dim``
    and ``exo_flip_prob``, 1/10 in its configurations), with this project's lock as the
    endogenous part.

    The endogenous part is :func:`combination_lock` ``(horizon, actions, seed, variant)``
    unchanged. The exogenous part is a stationary chain over the ``2^bits`` bit strings
    (``"0101"``: bit ``i`` is character ``i``), uniform at layer 1 (each bit a fair coin, as
    Intrepid draws them) and moving from ``xi`` to ``xi'`` with probability ``flip^d (1 -
    flip)^(bits - d)``, ``d`` the number of bits in which they differ: the bits flip
    independently at every transition, together with the endogenous step. The product
    (:func:`kinematic.exogenous.exogenous_block_mdp`) has the states ``"s{h}a|0101"`` and the
    observations of the same names, each emitted by its state alone; its rewards are the
    lock's. Its name is the lock's followed by ``-exo{bits}-flip{flip}``. With ``flip = 1/2``
    the bits are i.i.d. at every layer.

    ``flip`` must be exact (``"1/10"``, ``Fraction(1, 10)``, ``0``, ``1``; a float is refused,
    since it would make the product a float-mode MDP) and lie in ``[0, 1]``. How this lock
    differs from Intrepid's: ``docs/guide/standard-environments.md``.

    >>> noisy = exogenous_combination_lock(horizon=3, actions=2, seed=0, bits=2)
    >>> noisy.mdp.name, noisy.mdp.layers[0][:3]
    ('combolock-H3-K2-seed0-exo2-flip1/10', ('s1a|00', 's1a|01', 's1a|10'))
    >>> noisy.chain.transitions[0]["00"]["01"], noisy.chain.transitions[0]["00"]["11"]
    (Fraction(9, 100), Fraction(1, 100))

    Raises ``ValueError`` naming ``bits`` (not an int >= 1), ``flip`` (not an exact number in
    ``[0, 1]``) or ``variant``, and :class:`~kinematic.errors.TooLarge` at once when the
    product would not fit in memory.
    """
    if isinstance(bits, bool) or not isinstance(bits, int) or bits < 1:
        raise ValueError(f"bits must be an int >= 1 (the number of exogenous bits), got "
                         f"{bits!r}")
    if isinstance(flip, float):
        raise ValueError(f"flip must be exact ('1/10', Fraction(1, 10)), not the float {flip!r}")
    p = parse_number(flip, "flip")
    if not 0 <= p <= 1:
        raise ValueError(f"flip must lie in [0, 1], got {number_text(p)}")
    check_memory(EXOGENOUS_LOCK_BYTES_PER_ENTRY * 6 * actions * max(horizon - 1, 1) * 4 ** bits,
                 f"exogenous_combination_lock(horizon={horizon}, actions={actions}, "
                 f"bits={bits})")
    lock = combination_lock(horizon, actions, seed, variant)
    values = ["".join(digits) for digits in product("01", repeat=bits)]
    by_distance = [p ** d * (1 - p) ** (bits - d) for d in range(bits + 1)]
    step = {xi: {xi2: by_distance[d] for xi2 in values
                 for d in [sum(a != b for a, b in zip(xi, xi2, strict=True))]
                 if by_distance[d]}
            for xi in values}
    chain = exogenous_chain(values, dict.fromkeys(values, Fraction(1, 2 ** bits)), step,
                            horizon=horizon)
    return exogenous_block_mdp(lock, chain,
                               name=f"{lock.name}-exo{bits}-flip{number_text(p)}")


def random_sparse_mdp(
    horizon: int, width: int, actions: int, successors: int, seed: int
) -> BlockMDP:
    """A random layered Block MDP in float mode, for measuring scale.

    ``width`` states per layer, ``actions`` actions, and for every state-action pair
    ``successors`` distinct next states with Dirichlet(1) probabilities; pair ``k`` of a layer
    always includes next state ``k mod width`` so that every state is reachable. One observation
    per state, no rewards. Built directly as arrays (:func:`kinematic.arrays.block_mdp_from_arrays`,
    no name dictionaries), so that large instances are cheap to make.
    """
    if not 1 <= successors <= width:
        raise ValueError(f"successors must lie in 1..width={width}, got {successors}")
    rng = np.random.default_rng(seed)
    pairs = width * actions
    transitions = []
    for _ in range(horizon - 1):
        columns = _distinct_successors(rng, pairs, width, successors)
        values = rng.dirichlet(np.ones(successors), size=pairs)
        rows = np.repeat(np.arange(pairs), successors)
        matrix = sp.csr_array(
            (values.reshape(-1), (rows, columns.reshape(-1))), shape=(pairs, width)
        )
        transitions.append(matrix)
    return block_mdp_from_arrays(
        f"random-H{horizon}-W{width}-A{actions}-S{successors}-seed{seed}",
        np.full(width, 1.0 / width), transitions, actions)


def random_exact_mdp(
    horizon: int, width: int, actions: int, successors: int, seed: int, denominator: int = 100
) -> BlockMDP:
    """A random layered Block MDP in exact mode, the exact counterpart of
    :func:`random_sparse_mdp`: the same successors per pair, with probabilities ``k /
    denominator`` (``k >= 1``, a uniformly random composition of ``denominator`` into
    ``successors`` parts); start uniform over the first layer. Built through a spec
    (:func:`kinematic.spec.from_spec`), so it costs what loading that spec costs.

    >>> mdp = random_exact_mdp(3, 2, 2, 2, seed=0, denominator=10)
    >>> mdp.mode.exact, sum(mdp.transitions[0][0])
    (True, Fraction(1, 1))
    """
    if not 1 <= successors <= min(width, denominator):
        raise ValueError(f"successors must lie in 1..min(width, denominator)="
                         f"{min(width, denominator)}, got {successors}")
    rng = np.random.default_rng(seed)
    layers = [[f"s{h + 1}_{i}" for i in range(width)] for h in range(horizon)]
    action_names = [f"a{k + 1}" for k in range(actions)]
    transitions: dict[str, dict[str, dict[str, str]]] = {}
    for h in range(horizon - 1):
        columns = _distinct_successors(rng, width * actions, width, successors)
        cuts = np.sort(np.argsort(rng.random((width * actions, denominator - 1)), axis=1)
                       [:, :successors - 1] + 1, axis=1)
        parts = np.diff(cuts, prepend=0, append=denominator, axis=1)
        for s, state in enumerate(layers[h]):
            transitions[state] = {
                action: {layers[h + 1][j]: f"{k}/{denominator}"
                         for j, k in zip(columns[s * actions + a], parts[s * actions + a],
                                         strict=True)}
                for a, action in enumerate(action_names)}
    return from_spec({
        "name": f"random-exact-H{horizon}-W{width}-A{actions}-S{successors}-D{denominator}"
                f"-seed{seed}",
        "horizon": horizon, "actions": action_names, "layers": layers,
        "start": {state: f"1/{width}" for state in layers[0]}, "transitions": transitions})


def _distinct_successors(rng: np.random.Generator, pairs: int, width: int,
                         successors: int) -> np.ndarray:
    """``(pairs, successors)`` next states: pair ``k`` gets ``k mod width`` and
    ``successors - 1`` other states drawn uniformly without replacement - by rejection (rows
    with a repeat are drawn again), so the cost is ``pairs x successors``, not ``pairs x
    width``; when more than half the states are needed, a random permutation per row."""
    forced = np.arange(pairs) % width
    if 2 * successors > width:
        others = np.argsort(rng.random((pairs, width - 1)), axis=1)[:, :successors - 1]
    else:
        others = rng.integers(width - 1, size=(pairs, successors - 1))
        while True:
            ordered = np.sort(others, axis=1)
            repeated = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
            if not repeated.any():
                break
            others[repeated] = rng.integers(width - 1, size=(int(repeated.sum()),
                                                             successors - 1))
    # skip the forced state: draws from 0..width-2 map onto the states other than it
    others = others + (others >= forced[:, None])
    return np.concatenate([forced[:, None], others], axis=1)


def figure2_canonical() -> BlockMDP:
    """The left MDP of Figure ``fig:mdp-canonical``: ``s1 -> s2 -> s3``, one action.

    ``s2`` emits observation ``x2a`` 80% of the time and ``x2b`` otherwise.
    """
    return from_spec(
        {
            "name": "figure2",
            "horizon": 3,
            "actions": ["a"],
            "layers": [["s1"], ["s2"], ["s3"]],
            "start": {"s1": "1"},
            "transitions": {"s1": {"a": {"s2": "1"}}, "s2": {"a": {"s3": "1"}}},
            "emissions": {"s2": {"x2a": "4/5", "x2b": "1/5"}},
        }
    )


def figure2_split() -> BlockMDP:
    """The right MDP of Figure ``fig:mdp-canonical``: ``s2`` treated as ``s2a`` (the observations
    it emits 80% of the time) and ``s2b`` (the rest). Its canonical form is
    :func:`figure2_canonical`.
    """
    return split_state(figure2_canonical(), "s2", observations_a=["x2a"], names=("s2a", "s2b"))


def split_state(
    mdp: BlockMDP,
    state: str,
    observations_a: Sequence[str] | None = None,
    weight: object | None = None,
    names: tuple[str, str] | None = None,
) -> BlockMDP:
    """Treat ``state`` as two states with the same forward and proportional backward dynamics.

    The two halves ``s_a, s_b`` are kinematically inseparable, so the result is not in canonical
    form, and its canonical form is that of ``mdp`` (up to the names of merged states).

    Give exactly one of:

    observations_a
        A non-empty proper subset of the observations of ``state``: ``s_a`` emits those,
        ``s_b`` the others, each renormalised; ``s_a`` receives the share ``q(observations_a |
        state)`` of every incoming probability.
    weight
        A number ``p`` in (0, 1): ``s_a`` receives the share ``p`` of every incoming
        probability, ``s_b`` the rest; each observation ``x`` of ``state`` is refined into
        ``x/a`` (emitted by ``s_a``) and ``x/b`` (by ``s_b``), with the rewards of ``x``.

    ``names`` defaults to ``(state + "/a", state + "/b")``.
    """
    _check_state(mdp, state)
    if (observations_a is None) == (weight is None):
        raise ValueError("split_state: give exactly one of observations_a and weight")
    if observations_a is None:
        share = mdp.mode.scalar(parse_number(weight, "split_state weight"))
        return _split(mdp, state, lambda source, action: share, names, by_observations=None)
    emitted = {x: mdp.mode.scalar(p) for x, p in mdp.observations_of(state).items()}
    chosen = _observation_subset(mdp, state, observations_a)
    share = sum((emitted[x] for x in chosen), mdp.mode.scalar(0))
    return _split(mdp, state, lambda source, action: share, names, by_observations=chosen)


def unequal_split(
    mdp: BlockMDP,
    state: str,
    predecessor: tuple[str, str],
    shares: tuple[object, object],
    names: tuple[str, str] | None = None,
    observations_a: Sequence[str] | None = None,
) -> BlockMDP:
    """Split ``state`` into two halves that are *not* backward KI (a negative control).

    The first half receives the share ``shares[0]`` of ``T(state | predecessor)`` and the share
    ``shares[1]`` of every other incoming probability; both halves keep the outgoing rows of
    ``state``. Observations are refined as with ``split_state(weight=...)``, or, with
    ``observations_a``, divided as with ``split_state(observations_a=...)``. Unless
    ``predecessor`` is the only pair leading to ``state``, the incoming columns of the halves are
    not proportional, so by ``lem:bki-ratio`` they are backward separable.
    """
    _check_state(mdp, state)
    _check_predecessor(mdp, state, predecessor)
    special, other = (mdp.mode.scalar(parse_number(v, "unequal_split share")) for v in shares)
    chosen = None if observations_a is None else _observation_subset(mdp, state, observations_a)
    return _split(
        mdp,
        state,
        lambda source, action: special if (source, action) == tuple(predecessor) else other,
        names,
        by_observations=chosen,
    )


def _observation_subset(mdp: BlockMDP, state: str, observations_a: Sequence[str]) -> set[str]:
    emitted = mdp.observations_of(state)
    for observation in observations_a:
        find(emitted, observation, "observation", "observations_a")
    chosen = set(observations_a)
    if not chosen or not chosen < set(emitted) or len(chosen) != len(observations_a):
        raise ValueError(
            f"split: observations_a must be a non-empty proper subset of "
            f"{sorted(emitted)}, got {list(observations_a)}"
        )
    return chosen


def _check_state(mdp: BlockMDP, state: str) -> None:
    """:class:`kinematic.UnknownName` naming the argument ``state`` if it is not a state."""
    find(mdp.state_location, state, "state", "state")


def _check_predecessor(mdp: BlockMDP, state: str, predecessor: tuple[str, str]) -> None:
    """``predecessor`` must be ``(None, None)`` (the start) for a state of layer 1, else a
    state of the previous layer and an action (:class:`kinematic.UnknownName` naming
    ``predecessor`` otherwise)."""
    source, action = predecessor
    layer = mdp.state_location[state][0]
    if layer == 0 and (source, action) == (None, None):
        return
    if layer == 0:
        raise ValueError(f"predecessor: {state!r} is in layer 1, reached from the start: "
                         "give (None, None)")
    find(mdp.state_location, source, "state", "predecessor")
    find(mdp.action_index, action, "action", "predecessor")
    if mdp.state_location[source][0] != layer - 1:
        raise ValueError(f"predecessor: {source!r} is in layer {mdp.state_location[source][0] + 1}"
                         f", not layer {layer}, the one before {state!r}")


def _split(
    mdp: BlockMDP,
    state: str,
    share_of: Callable[[str | None, str | None], Number],
    names: tuple[str, str] | None,
    by_observations: set[str] | None,
) -> BlockMDP:
    """Replace ``state`` by two halves; ``share_of(source, action)`` is the first half's share of
    ``T(state | source, action)`` (``source = action = None`` for the start distribution).

    With ``by_observations``, the first half emits those observations and the second the rest
    (renormalised); otherwise every observation ``x`` is refined into ``x/a`` and ``x/b``.
    """
    name_a, name_b = names or (f"{state}/a", f"{state}/b")
    spec = to_spec(mdp)
    emitted = {x: mdp.mode.scalar(p) for x, p in mdp.observations_of(state).items()}
    rewards = spec.get("rewards", {})
    emission_a: dict[str, Number]
    emission_b: dict[str, Number]
    if by_observations is not None:
        mass = sum((emitted[x] for x in by_observations), mdp.mode.scalar(0))
        emission_a = {x: p / mass for x, p in emitted.items() if x in by_observations}
        emission_b = {x: p / (1 - mass) for x, p in emitted.items() if x not in by_observations}
    else:
        emission_a = {f"{x}/a": p for x, p in emitted.items()}
        emission_b = {f"{x}/b": p for x, p in emitted.items()}
        for x in emitted:
            if x in rewards:
                per_action = rewards.pop(x)
                rewards[f"{x}/a"] = rewards[f"{x}/b"] = per_action

    def divide(distribution: dict[str, object], source: str | None, action: str | None) -> dict:
        if state not in distribution:
            return distribution
        share = share_of(source, action)
        if not 0 < share < 1:
            raise ValueError(f"split: shares must lie strictly between 0 and 1, got {share}")
        result = {k: v for k, v in distribution.items() if k != state}
        p = mdp.mode.scalar(parse_number(distribution[state], state))
        result[name_a] = _same_kind(p * share, mdp)
        result[name_b] = _same_kind(p * (1 - share), mdp)
        return result

    h, _ = mdp.state_location[state]
    spec["layers"][h] = [
        n for s in spec["layers"][h] for n in ((name_a, name_b) if s == state else (s,))
    ]
    spec["start"] = divide(spec["start"], None, None)
    for source, per_action in spec["transitions"].items():
        for action, distribution in per_action.items():
            per_action[action] = divide(distribution, source, action)
    if state in spec["transitions"]:
        row = spec["transitions"].pop(state)
        spec["transitions"][name_a] = spec["transitions"][name_b] = row
    emissions = spec.setdefault("emissions", {})
    emissions.pop(state, None)
    emissions[name_a] = {x: _same_kind(p, mdp) for x, p in emission_a.items()}
    emissions[name_b] = {x: _same_kind(p, mdp) for x, p in emission_b.items()}
    spec["rewards"] = rewards
    return from_spec(spec, atol=mdp.mode.atol)


def _same_kind(value: Number, mdp: BlockMDP) -> object:
    """Keep exact values exact (as ``"p/q"`` strings) and float values float."""
    return str(Fraction(value)) if mdp.mode.exact else float(value)

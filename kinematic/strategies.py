"""Hypothesis strategies for Block MDPs, split transformations and policies.

Public so that users can state their own properties over generated Block MDPs, as a test
function decorated with ``@given(block_mdps())`` (Hypothesis then calls it on many MDPs):

>>> from hypothesis import given, settings
>>> from kinematic import eta_min
>>> @settings(max_examples=20, database=None)
... @given(block_mdps())
... def test_every_state_is_reachable(mdp):
...     assert eta_min(mdp) > 0
>>> test_every_state_is_reachable()

Generated MDPs are exact (``Fraction``) and valid: every state is reachable, every start state
has positive probability, transition supports are sparse. States are named ``s{layer}_{i}``
(layers from 1), actions ``a0, a1, ...``, the observations of a state with several
``{state}.x{k}``. To exercise kinematic inseparability, some states copy the outgoing rows of an
earlier state of their layer (forward KI pairs) and some states are split in two with
:func:`kinematic.families.split_state` (KI pairs): the halves of ``s2_0`` are ``s2_0/a`` and
``s2_0/b``, and a canonical form (:func:`kinematic.canonical.canonical_form`) names the state
it merges them into by joining their names with ``+``: ``s2_0/a+s2_0/b``.

Exogenous Block MDPs (:mod:`kinematic.exogenous`) are drawn by :func:`exogenous_block_mdps`: an
endogenous Block MDP from :func:`block_mdps` and an exact exogenous chain
(:func:`exogenous_chains`) whose values are named ``x{k}`` in every layer.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import assume
from hypothesis import strategies as st

from kinematic.errors import short_repr
from kinematic.exogenous import (
    ExogenousBlockMDP,
    ExogenousChain,
    exogenous_block_mdp,
    exogenous_chain,
)
from kinematic.families import split_state, unequal_split
from kinematic.homing import homing_policy_choices
from kinematic.model import BlockMDP, block_mdp
from kinematic.policies import Policy, state_policy
from kinematic.spec import to_spec

__all__ = ["NOISE_KINDS", "block_mdps", "exogenous_block_mdps", "exogenous_chains", "policies",
           "separable_pairs", "split_states"]


def _distribution(draw: st.DrawFn, support: list[str], max_weight: int) -> dict[str, str]:
    weights = [draw(st.integers(1, max_weight)) for _ in support]
    total = sum(weights)
    return {name: str(Fraction(w, total)) for name, w in zip(support, weights, strict=True)}


@st.composite
def block_mdps(
    draw: st.DrawFn,
    min_horizon: int = 1,
    max_horizon: int = 4,
    max_width: int = 3,
    min_actions: int = 1,
    max_actions: int = 3,
    max_observations: int = 2,
    max_weight: int = 4,
    max_splits: int = 1,
    rewards: bool = True,
) -> BlockMDP:
    """Random exact Block MDPs with sparse supports and stochastic starts.

    Parameters bound the horizon, the width of each layer, the number of actions, the number of
    observations per state, the integer weights behind each probability, and the number of
    states split in two after generation.

    >>> from hypothesis import find, settings
    >>> quiet = settings(database=None, derandomize=True)
    >>> find(block_mdps(min_actions=2), lambda mdp: True, settings=quiet).actions
    ('a0', 'a1')
    """
    horizon = draw(st.integers(min_horizon, max_horizon))
    widths = [draw(st.integers(1, max_width)) for _ in range(horizon)]
    actions = [f"a{k}" for k in range(draw(st.integers(min_actions, max_actions)))]
    layers = [[f"s{h + 1}_{i}" for i in range(width)] for h, width in enumerate(widths)]

    transitions: dict[str, dict[str, dict[str, str]]] = {}
    for h in range(horizon - 1):
        following = layers[h + 1]
        # A twin copies the outgoing distributions of an earlier state of its layer (not only
        # their supports), so the two are forward KI.
        twin_of: dict[str, str] = {}
        supports: dict[tuple[str, str], list[str]] = {}
        for i, state in enumerate(layers[h]):
            twin = draw(st.sampled_from([None, *layers[h][:i]]))
            if twin is not None:
                twin_of[state] = twin_of.get(twin, twin)
                continue
            for action in actions:
                chosen = draw(st.sets(st.sampled_from(following), min_size=1))
                supports[state, action] = sorted(chosen, key=following.index)
        for target in following:
            if not any(target in support for support in supports.values()):
                parent = draw(st.sampled_from(sorted(supports)))
                supports[parent] = sorted({*supports[parent], target}, key=following.index)
        for state in layers[h]:
            if state in twin_of:
                transitions[state] = {action: dict(row)
                                      for action, row in transitions[twin_of[state]].items()}
                continue
            transitions[state] = {
                action: _distribution(draw, supports[state, action], max_weight)
                for action in actions
            }

    emissions = {}
    for layer in layers:
        for state in layer:
            count = draw(st.integers(1, max_observations))
            if count > 1:
                emissions[state] = _distribution(
                    draw, [f"{state}.x{k}" for k in range(count)], max_weight
                )
    reward_table = {}
    if rewards:
        states = [s for layer in layers for s in layer]
        rewarded = draw(st.sets(st.sampled_from(states)))
        for state in sorted(rewarded, key=states.index):  # not set order: it varies by process
            reward_table[state] = {
                action: str(Fraction(draw(st.integers(0, 2)), 2)) for action in actions
            }
    mdp = block_mdp(
        name="generated",
        layers=layers,
        actions=actions,
        start=_distribution(draw, layers[0], max_weight),
        transitions=transitions,
        emissions=emissions,
        rewards=reward_table,
    )
    for _ in range(draw(st.integers(0, max_splits))):
        mdp = _split_once(draw, mdp)[1]
    return mdp


def _split_once(draw: st.DrawFn, mdp: BlockMDP) -> tuple[str, BlockMDP]:
    """A random state of ``mdp`` and the MDP with that state split in two."""
    state = draw(st.sampled_from(mdp.states))
    observations = sorted(mdp.observations_of(state))
    if len(observations) > 1 and draw(st.booleans()):
        chosen = draw(
            st.lists(
                st.sampled_from(observations),
                min_size=1,
                max_size=len(observations) - 1,
                unique=True,
            )
        )
        return state, split_state(mdp, state, observations_a=chosen)
    numerator = draw(st.integers(1, 4))
    return state, split_state(mdp, state, weight=Fraction(numerator, 5))


@st.composite
def split_states(
    draw: st.DrawFn, mdps: st.SearchStrategy[BlockMDP] | None = None
) -> tuple[BlockMDP, BlockMDP, str]:
    """``(mdp, split, state)``: a generated MDP and the MDP with ``state`` split in two
    (:func:`kinematic.families.split_state`).

    The two halves are named ``{state}/a`` and ``{state}/b``; they are KI (``def:ki``), so the
    canonical form of ``split`` merges them back into one state named ``{state}/a+{state}/b``
    (with any other state KI to them, its name joined by ``+`` too). The split follows a random
    subset of the state's observations when it has several, and a random weight otherwise or
    by choice (each observation ``x`` of the state then refined into ``x/a`` and ``x/b``).

    >>> from hypothesis import find, settings
    >>> from kinematic.canonical import canonical_form
    >>> quiet = settings(database=None, derandomize=True)
    >>> mdp, split, state = find(split_states(), lambda drawn: True, settings=quiet)
    >>> state, split.layers[0]
    ('s1_0', ('s1_0/a', 's1_0/b'))
    >>> canonical_form(split).state_map
    {'s1_0/a': 's1_0/a+s1_0/b', 's1_0/b': 's1_0/a+s1_0/b'}
    """
    mdp = draw(block_mdps(max_splits=0) if mdps is None else mdps)
    state, split = _split_once(draw, mdp)
    return mdp, split, state


@st.composite
def policies(
    draw: st.DrawFn, mdp: BlockMDP, deterministic: bool = False, max_weight: int = 3
) -> Policy:
    """Random stochastic (or deterministic) non-stationary observation policies for ``mdp``."""
    layers = []
    for observations in mdp.observations:
        table = mdp.mode.zeros((len(observations), mdp.number_of_actions))
        for x in range(len(observations)):
            if deterministic:
                table[x, draw(st.integers(0, mdp.number_of_actions - 1))] = mdp.mode.scalar(1)
                continue
            weights = draw(
                st.lists(
                    st.integers(0, max_weight),
                    min_size=mdp.number_of_actions,
                    max_size=mdp.number_of_actions,
                ).filter(any)
            )
            total = sum(weights)
            for a, w in enumerate(weights):
                table[x, a] = mdp.mode.scalar(Fraction(w, total))
        layers.append(table)
    return Policy(tuple(layers), mdp)


@st.composite
def separable_pairs(
    draw: st.DrawFn, mdps: st.SearchStrategy[BlockMDP] | None = None
) -> tuple[BlockMDP, str, str, Policy, Policy]:
    """``(mdp, s1, s2, pi1, pi2)``: two states that are *not* backward KI, and two deterministic
    policies whose visitation ratios tell them apart (a negative control for
    ``lem:bki-policy-ratio``).

    Built from a generated MDP by a deliberately unequal split of a state ``s`` (layer >= 2):
    for one predecessor pair ``(x, a0)`` the share of ``s1`` is ``p``, for every other incoming
    pair it is ``q != p``. ``pi1`` and ``pi2`` follow a homing policy of ``x`` and then take ``a0``
    and another action ``a1`` with ``T(s | x, a1) > 0`` at ``x``; their ratios are
    ``p``-weighted and ``q / (1 - q)`` respectively, hence different.
    """
    mdp = draw(mdps if mdps is not None else block_mdps(min_horizon=2, max_splits=0))
    spec = to_spec(mdp)
    candidates = [
        (x, a0, a1, s)
        for x, per_action in spec["transitions"].items()
        for a0 in per_action
        for a1 in per_action
        if a0 != a1
        for s in per_action[a0]
        if s in per_action[a1]
    ]
    assume(candidates)
    x, a0, a1, state = draw(st.sampled_from(candidates))
    shares = draw(
        st.sampled_from([(Fraction(1, 4), Fraction(1, 2)), (Fraction(2, 3), Fraction(1, 3))])
    )
    first, second = f"{state}/p", f"{state}/q"
    separable = unequal_split(mdp, state, (x, a0), shares, names=(first, second))
    prefix = homing_policy_choices(separable, x)
    default = separable.actions[0]
    first_policy = state_policy(separable, {**prefix, x: a0}, default_action=default)
    second_policy = state_policy(separable, {**prefix, x: a1}, default_action=default)
    return separable, first, second, first_policy, second_policy


NOISE_KINDS = ("any", "iid", "deterministic")
"""The kinds of exogenous chain :func:`exogenous_chains` draws: ``"iid"``, every step's rows
equal (``T_ex(. | xi)`` the same for all ``xi``); ``"deterministic"``, every row a point mass;
``"any"``, each step one of those or a random step with forward KI twins (a row copied) and
backward KI values (proportional columns)."""


def _random_step(draw: st.DrawFn, values: list[str], following: list[str],
                 max_weight: int) -> dict[str, dict[str, str]]:
    """Rows over ``following`` with backward KI values (proportional columns: each value of
    ``following`` is in a group that shares the rows' mass by fixed weights), forward KI twins (a
    row copied from an earlier value) and rows with the support of an earlier one but their own
    probabilities; every value of ``following`` has an incoming entry."""
    groups: list[list[str]] = []
    weight: dict[str, int] = {}
    for value in following:
        group = draw(st.integers(0, len(groups)))
        if group == len(groups):
            groups.append([])
        groups[group].append(value)
        weight[value] = draw(st.integers(1, max_weight))
    supports: dict[str, list[int]] = {}
    twin_of: dict[str, str] = {}
    for i, value in enumerate(values):
        twin = draw(st.sampled_from([None, *values[:i]]))
        if twin is not None and draw(st.booleans()):
            twin_of[value] = twin_of.get(twin, twin)
            continue
        # a value that copies only the support of an earlier one is not its twin
        supports[value] = (list(supports[twin_of.get(twin, twin)]) if twin is not None else
                           sorted(draw(st.sets(st.integers(0, len(groups) - 1), min_size=1))))
    for g in range(len(groups)):
        if not any(g in support for support in supports.values()):
            owner = draw(st.sampled_from(sorted(supports, key=values.index)))
            supports[owner] = sorted({*supports[owner], g})
    rows: dict[str, dict[str, str]] = {}
    for value in values:
        if value in twin_of:
            rows[value] = dict(rows[twin_of[value]])
            continue
        masses = _distribution(draw, [str(g) for g in supports[value]], max_weight)
        row = {}
        for g in supports[value]:
            total = sum(weight[member] for member in groups[g])
            for member in groups[g]:
                row[member] = str(Fraction(masses[str(g)]) * Fraction(weight[member], total))
        rows[value] = row
    return rows


def _deterministic_step(draw: st.DrawFn, values: list[str],
                        following: list[str]) -> dict[str, dict[str, str]]:
    """Point masses onto ``following`` (no more values than ``values``), every one hit."""
    images = list(range(len(following)))
    images += [draw(st.integers(0, len(following) - 1))
               for _ in range(len(values) - len(following))]
    images = draw(st.permutations(images))
    return {value: {following[image]: "1"} for value, image in zip(values, images, strict=True)}


@st.composite
def exogenous_chains(draw: st.DrawFn, horizon: int, max_values: int = 3, noise: str = "any",
                     max_weight: int = 4) -> ExogenousChain:
    """Random exact exogenous chains (:func:`kinematic.exogenous.exogenous_chain`) of
    ``horizon`` layers of 1 to ``max_values`` values ``x0, x1, ...``, every value reachable; of
    the kind ``noise`` (:data:`NOISE_KINDS`; deterministic chains have no more values in a layer
    than in the one before).

    >>> from hypothesis import find, settings
    >>> quiet = settings(database=None, derandomize=True)
    >>> chain = find(exogenous_chains(2, noise="iid"), lambda c: len(c.layers[0]) > 1,
    ...              settings=quiet)
    >>> chain.transitions[0]["x0"] == chain.transitions[0]["x1"]
    True
    """
    if noise not in NOISE_KINDS:
        raise ValueError(f"noise must be one of {', '.join(NOISE_KINDS)}, got {short_repr(noise)}")
    sizes = [draw(st.integers(1, max_values))]
    for _ in range(horizon - 1):
        sizes.append(draw(st.integers(1, sizes[-1] if noise == "deterministic" else max_values)))
    layers = [[f"x{k}" for k in range(size)] for size in sizes]
    steps = []
    for h in range(horizon - 1):
        kinds = ["iid"] if noise == "iid" else ["deterministic"] if noise == "deterministic" \
            else ["random", "iid"] + (["deterministic"] if sizes[h + 1] <= sizes[h] else [])
        kind = draw(st.sampled_from(kinds))
        if kind == "iid":
            row = _distribution(draw, layers[h + 1], max_weight)
            steps.append({value: dict(row) for value in layers[h]})
        elif kind == "deterministic":
            steps.append(_deterministic_step(draw, layers[h], layers[h + 1]))
        else:
            steps.append(_random_step(draw, layers[h], layers[h + 1], max_weight))
    return exogenous_chain(layers, _distribution(draw, layers[0], max_weight), steps)


@st.composite
def exogenous_block_mdps(draw: st.DrawFn, endogenous: st.SearchStrategy[BlockMDP] | None = None,
                         max_values: int = 3, noise: str = "any",
                         max_weight: int = 4) -> ExogenousBlockMDP:
    """Random exact exogenous Block MDPs (:func:`kinematic.exogenous.exogenous_block_mdp`): an
    endogenous Block MDP drawn from ``endogenous`` (default: small :func:`block_mdps` of
    horizon 1 to 3, widths up to 2, up to 2 actions, one split at most, so that the product's
    exact KI partitions take milliseconds) and a chain from :func:`exogenous_chains` of its
    horizon. States are named ``"s2_0|x1"``.

    >>> from hypothesis import find, settings
    >>> quiet = settings(database=None, derandomize=True)
    >>> model = find(exogenous_block_mdps(), lambda m: m.mdp.horizon > 1, settings=quiet)
    >>> model.mdp.layers[1]
    ('s2_0|x0',)
    """
    mdp = draw(block_mdps(max_horizon=3, max_width=2, max_actions=2, max_splits=1)
               if endogenous is None else endogenous)
    chain = draw(exogenous_chains(mdp.horizon, max_values, noise, max_weight))
    return exogenous_block_mdp(mdp, chain)

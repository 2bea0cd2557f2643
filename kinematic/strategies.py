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
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import assume
from hypothesis import strategies as st

from kinematic.families import split_state, unequal_split
from kinematic.homing import homing_policy_choices
from kinematic.model import BlockMDP, block_mdp
from kinematic.policies import Policy, state_policy
from kinematic.spec import to_spec

__all__ = ["block_mdps", "policies", "separable_pairs", "split_states"]


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

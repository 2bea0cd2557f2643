"""Independent reference computations for the tests: enumeration over latent paths and over
deterministic policies, written against the JSON spec (dicts of Fractions) rather than the
matrix code under test.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction

from kinematic.model import BlockMDP
from kinematic.policies import Policy, state_policy
from kinematic.spec import to_spec


def _tables(mdp: BlockMDP):
    spec = to_spec(mdp)
    start = {s: Fraction(p) for s, p in spec["start"].items()}
    transitions = {
        s: {a: {t: Fraction(p) for t, p in dist.items()} for a, dist in per_action.items()}
        for s, per_action in spec["transitions"].items()
    }
    return spec, start, transitions


def state_action_table(mdp: BlockMDP, policy: Policy) -> dict[str, dict[str, Fraction]]:
    """``P(a | s) = sum_x q(x|s) pi(a|x)`` from names."""
    table = {}
    for h, layer in enumerate(mdp.layers):
        for state in layer:
            row = defaultdict(Fraction)
            for observation, q in mdp.observations_of(state).items():
                x = mdp.observation_location[observation][1]
                for a, action in enumerate(mdp.actions):
                    row[action] += q * policy.action_probabilities[h][x, a]
            table[state] = dict(row)
    return table


def path_visitation(mdp: BlockMDP, policy: Policy) -> dict[str, Fraction]:
    """``P_pi(s)`` by enumerating every latent path with its probability."""
    _, start, transitions = _tables(mdp)
    acting = state_action_table(mdp, policy)
    visitation = defaultdict(Fraction)
    frontier = [((s,), p) for s, p in start.items()]
    while frontier:
        path, probability = frontier.pop()
        visitation[path[-1]] += probability
        for action, p_action in acting[path[-1]].items():
            for target, p_next in transitions.get(path[-1], {}).get(action, {}).items():
                weight = probability * p_action * p_next
                if weight:
                    frontier.append(((*path, target), weight))
    return {s: visitation[s] for s in mdp.states}


def deterministic_policies(mdp: BlockMDP, before_layer: int):
    """Every deterministic state policy on the layers before ``before_layer`` (0-based)."""
    states = [s for layer in mdp.layers[:before_layer] for s in layer]
    for actions in itertools.product(mdp.actions, repeat=len(states)):
        yield state_policy(mdp, dict(zip(states, actions, strict=True)),
                           default_action=mdp.actions[0])


def brute_force_eta(mdp: BlockMDP) -> dict[str, Fraction]:
    """``eta(s)`` as the maximum of ``P_pi(s)`` over all deterministic state policies."""
    best = defaultdict(Fraction)
    for policy in deterministic_policies(mdp, mdp.horizon - 1):
        for state, p in path_visitation(mdp, policy).items():
            best[state] = max(best[state], p)
    return {s: best[s] for s in mdp.states}

"""Section 2 and Appendix ``app:appendix-homing``: homing policies.

- ``lem:homing_deterministic``: deterministic non-stationary policies attain the maximum over
  stochastic ones, for every reward and in particular for ``P_pi(s)``.
- ``prop:comp-homing``: homing policies are not compositional (Figure ``fig:mdp-example-left``).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from kinematic.counterexamples.mdps import figure1_noncompositional
from kinematic.homing import (
    LinearProgramOptimum,
    eta,
    lp_maximum_visitation,
    lp_optimal_value,
)
from kinematic.model import BlockMDP
from kinematic.numbers import Number
from kinematic.planning import optimal_values
from kinematic.policies import Policy, state_policy, uniform_policy
from kinematic.spec import dumps_spec, from_spec, to_spec
from kinematic.strategies import block_mdps, policies
from kinematic.visitation import policy_value, state_visitation
from proofs_checks.definitions import deterministic_policies
from proofs_checks.registry import Claim, Outcome, register
from proofs_checks.witness import number, policy_json, spec

LP_TOLERANCE = 1e-7
"""The LP is solved in floating point; its optimum is compared with the exact one up to this."""


@dataclass(frozen=True)
class Objective:
    """A quantity ``V(pi)`` to maximise over policies. For a reward (linear in the occupancy
    measure: the lemma's hypothesis) ``toolkit_maximum`` is the toolkit's deterministic optimum
    (dynamic programming) and ``linear_program`` the LP over stochastic policies."""

    name: str
    evaluate: Callable[[Policy], Any]
    toolkit_maximum: Callable[[], Any] | None = None
    linear_program: Callable[[], LinearProgramOptimum] | None = None


def _visits(mdp: BlockMDP, policy: Policy, state: str) -> Number:
    h, i = mdp.state_location[state]
    return state_visitation(mdp, policy)[h][i]


def reward_objectives(mdp: BlockMDP) -> list[Objective]:
    """The MDP's reward and every ``P_pi(s)`` (reward ``1{decoder(x) = s}``)."""
    values = dict(eta(mdp).by_state)
    return [
        Objective("V(pi; R)", lambda p: policy_value(mdp, p),
                  lambda: optimal_values(mdp).value, lambda: lp_optimal_value(mdp, mdp.rewards)),
        *(Objective(f"P_pi({s})", functools.partial(_visits, mdp, state=s),
                    functools.partial(values.__getitem__, s),
                    functools.partial(lp_maximum_visitation, mdp, s)) for s in mdp.states),
    ]


_MAXIMA: dict[tuple[str, str], Any] = {}
"""The maximum of an objective over the deterministic policies, by the MDP's spec and the
objective's name: ``proofs_checks --spec`` checks one MDP against a hundred generated stochastic
policies, and enumerating the deterministic ones for each (512 policies x 10 objectives on an
8-state MDP) took 100 s of its 101."""

_MAXIMA_KEPT = 4096
"""Entries of :data:`_MAXIMA` before it is emptied (memory: generated MDPs are all different)."""


def _deterministic_maxima(mdp: BlockMDP, objectives: list[Objective]) -> dict[str, Any]:
    """Each objective's maximum over every deterministic non-stationary policy (enumerated),
    by name (remembered for the next case of the same MDP)."""
    key = dumps_spec(mdp)
    if any((key, objective.name) not in _MAXIMA for objective in objectives):
        if len(_MAXIMA) > _MAXIMA_KEPT:
            _MAXIMA.clear()
        deterministic = list(deterministic_policies(mdp))
        for objective in objectives:
            _MAXIMA[key, objective.name] = max(objective.evaluate(p) for p in deterministic)
    return {objective.name: _MAXIMA[key, objective.name] for objective in objectives}


def check_homing_deterministic(case) -> Outcome:
    """For every objective: its maximum over deterministic non-stationary policies (enumerated)
    is at least its value under every stochastic policy tried (the LP's optimum when the
    objective is a reward, the uniform policy, generated ones); for a reward it also equals the
    toolkit's dynamic programme and the LP's optimum."""
    mdp, objectives, stochastic = case
    maxima = _deterministic_maxima(mdp, objectives)
    for objective in objectives:
        best = maxima[objective.name]
        tried = [(f"policy {k}", p) for k, p in enumerate(stochastic)]
        witness: dict[str, Any] = {"instance": spec(mdp), "objective": objective.name,
                                   "max_deterministic": number(best)}
        toolkit = None if objective.toolkit_maximum is None else objective.toolkit_maximum()
        if toolkit is not None and toolkit != best:
            return Outcome(False, {**witness, "toolkit_maximum": number(toolkit)})
        if objective.linear_program is not None:
            lp = objective.linear_program()
            if abs(lp.value - float(best)) > LP_TOLERANCE:
                return Outcome(False, {**witness, "max_stochastic_lp": lp.value})
            tried.append(("the LP's optimal policy", lp.policy))
        for name, policy in tried:
            value = objective.evaluate(policy)
            if value > best:
                return Outcome(False, {**witness, "stochastic_policy": name,
                                       "policy": policy_json(mdp, policy),
                                       "stochastic_value": number(value)})
    return Outcome(True, {"objectives": len(objectives)})


@st.composite
def _reward_cases(draw: st.DrawFn):
    mdp = draw(block_mdps(max_horizon=3, max_width=2, max_actions=3, max_observations=1))
    return mdp, reward_objectives(mdp), [uniform_policy(mdp), draw(policies(mdp))]


@st.composite
def _fork_with_min_objective(draw: st.DrawFn):
    """The lemma's hypothesis broken: the objective ``min(P_pi(s_a), P_pi(s_b))`` is not a reward
    (not linear in the occupancy). From one start state, action ``k`` leads to state ``k``;
    every deterministic policy scores 0, the uniform policy ``1/|A|``."""
    actions = [f"a{k}" for k in range(draw(st.integers(2, 3)))]
    targets = [f"s2_{k}" for k in range(len(actions))]
    mdp = from_spec({
        "name": "fork", "horizon": 2, "actions": actions, "layers": [["s1"], targets],
        "start": {"s1": "1"},
        "transitions": {"s1": {a: {t: "1"} for a, t in zip(actions, targets, strict=True)}},
    })
    first, second = draw(st.lists(st.sampled_from(targets), min_size=2, max_size=2, unique=True))
    objective = Objective(f"min(P_pi({first}), P_pi({second}))",
                          lambda p: min(_visits(mdp, p, first), _visits(mdp, p, second)))
    return mdp, [objective], [uniform_policy(mdp)]


register(Claim(
    label="lem:homing_deterministic",
    statement="max over deterministic non-stationary policies of V(pi; R) (and of P_pi(s)) "
              "equals the max over stochastic ones",
    instances=_reward_cases,
    check=check_homing_deterministic,
    negative_control="an objective that is not a reward: min of two visitation probabilities "
                     "(a mixture beats every deterministic policy)",
    negative_instances=_fork_with_min_objective,
))


def best_composition(mdp: BlockMDP, target: str) -> tuple[Number, dict]:
    """``sup`` over mixtures of homing policies of the layer before ``target``, composed with any
    last-step policy, of ``P(target)`` (``prop:comp-homing``).

    Every deterministic state policy on the layers before is enumerated; a policy is homing for
    ``s`` when it visits ``s`` with probability ``eta(s)`` (a stochastic homing policy is a
    mixture of deterministic ones, and the objective is linear in the mixture). The best last
    step takes, in each state, the action most likely to reach ``target``.
    """
    h, i = mdp.state_location[target]
    previous = h - 1
    values = eta(mdp)[previous]
    reach = mdp.transition_tensor(previous)[:, :, i].max(axis=1)
    deciding = [s for layer in mdp.layers[:previous] for s in layer]
    best, best_witness = mdp.mode.scalar(0), {}
    for actions in itertools.product(mdp.actions, repeat=len(deciding)):
        choices = dict(zip(deciding, actions, strict=True))
        visits = state_visitation(mdp, state_policy(mdp, choices, mdp.actions[0]))[previous]
        homed = [s for s, p, best in zip(mdp.layers[previous], visits, values, strict=True)
                 if p == best]
        if not homed:
            continue
        value = (visits * reach).sum()
        if value > best:
            best, best_witness = value, {"homing_policy_for": homed, "decisions": choices}
    return best, best_witness


def check_noncompositional(mdp: BlockMDP) -> Outcome:
    """Some state's eta exceeds the best composition of the previous layer's homing policies."""
    gaps = {}
    for layer in mdp.layers[1:]:
        for state in layer:
            composed, how = best_composition(mdp, state)
            value = eta(mdp, state)
            if value > composed:
                gaps[state] = {"eta": number(value), "best_composition": number(composed),
                               "attained_by": how}
    if not gaps:
        return Outcome(False, {"instance": spec(mdp),
                               "message": "every eta(s) is attained by composing homing policies"})
    return Outcome(True, {"instance": spec(mdp), "gaps": gaps})


def compositional_variant() -> BlockMDP:
    """Figure 1 with ``a1`` made deterministic (``s1 -> s2``): now the homing policy of ``s2``
    takes ``a1`` and composes into the homing policy of ``s5``."""
    spec_dict = to_spec(figure1_noncompositional())
    spec_dict["transitions"]["s1"]["a1"] = {"s2": "1"}
    spec_dict["name"] = "figure1-compositional"
    return from_spec(spec_dict)


register(Claim(
    label="prop:comp-homing",
    statement="there is a Block MDP and a state s with eta(s) > sup over mixtures of the "
              "previous layer's homing policies composed with any last step",
    instances=lambda: st.just(figure1_noncompositional()),
    check=check_noncompositional,
    negative_control="Figure 1 with a1 deterministic (s1 -> s2): composition suffices",
    negative_instances=lambda: st.just(compositional_variant()),
))

__all__ = [
    "Objective",
    "best_composition",
    "check_homing_deterministic",
    "check_noncompositional",
    "reward_objectives",
]

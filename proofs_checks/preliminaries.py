"""Section 2 and Appendix ``app:appendix-homing``: homing policies.

- ``lem:homing_deterministic``: deterministic non-stationary policies attain the maximum over
  stochastic ones, for every reward and in particular for ``P_pi(s)``.
- ``prop:comp-homing``: homing policies are not compositional (Figure ``fig:mdp-example-left``).
"""

from __future__ import annotations

import itertools

from hypothesis import assume
from hypothesis import strategies as st

from kinematic.families import figure1_noncompositional
from kinematic.homing import eta, lp_maximum_visitation, lp_optimal_value
from kinematic.model import BlockMDP
from kinematic.planning import optimal_values
from kinematic.policies import state_policy
from kinematic.spec import from_spec, to_spec
from kinematic.strategies import block_mdps
from kinematic.visitation import policy_value, state_visitation
from proofs_checks.registry import Claim, Outcome, register
from proofs_checks.witness import number, policy_json, spec

LP_TOLERANCE = 1e-7
"""The LP is solved in floating point; its optimum is compared with the exact one up to this."""


def check_homing_deterministic(mdp: BlockMDP) -> Outcome:
    """max over deterministic policies (exact DP) = max over stochastic ones (LP), for the MDP's
    reward and for every ``P_pi(s)``; the LP's stochastic policy never does better, exactly."""
    deterministic = optimal_values(mdp)
    stochastic = lp_optimal_value(mdp, mdp.rewards)
    checks = [("V(pi; R)", deterministic.value, stochastic, lambda p: policy_value(mdp, p))]
    values = eta(mdp)
    checks += [
        (f"P_pi({s})", values[s], lp_maximum_visitation(mdp, s),
         lambda p, s=s: _visits(mdp, p, s))
        for s in mdp.states
    ]
    for quantity, exact, lp, evaluate in checks:
        reached = evaluate(lp.policy)
        if abs(lp.value - float(exact)) > LP_TOLERANCE or reached > exact:
            return Outcome(False, {
                "instance": spec(mdp), "quantity": quantity,
                "max_deterministic": number(exact), "max_stochastic_lp": lp.value,
                "lp_policy": policy_json(mdp, lp.policy), "lp_policy_exact": number(reached),
            })
    return Outcome(True, {"quantities": len(checks)})


def _visits(mdp: BlockMDP, policy, state: str):
    h, i = mdp.state_location[state]
    return state_visitation(mdp, policy)[h][i]


def check_open_loop_suffices(mdp: BlockMDP) -> Outcome:
    """Weakened hypothesis: deterministic *open-loop* policies (one action sequence, ignoring the
    observation) attain the optimum. False in general: the negative control."""
    best = optimal_values(mdp).value
    open_loop = max(
        policy_value(mdp, state_policy(mdp, {
            s: sequence[h] for h, layer in enumerate(mdp.layers) for s in layer
        }))
        for sequence in itertools.product(mdp.actions, repeat=mdp.horizon)
    )
    if open_loop != best:
        return Outcome(False, {"instance": spec(mdp), "max_closed_loop": number(best),
                               "max_open_loop": number(open_loop)})
    return Outcome(True)


@st.composite
def _observation_dependent_rewards(draw: st.DrawFn) -> BlockMDP:
    """Generated MDPs (>= 2 start states, >= 2 actions) whose only rewards are at layer 1:
    the k-th start state pays 1 for action k mod 2. A closed-loop policy earns 1, an open-loop
    one (same first action everywhere) strictly less."""
    mdp = draw(block_mdps(min_horizon=2, max_horizon=3, max_width=2, max_actions=2,
                          rewards=False))
    assume(mdp.width(0) >= 2 and mdp.number_of_actions >= 2)
    spec_dict = to_spec(mdp)
    spec_dict["rewards"] = {
        state: {mdp.actions[k % 2]: "1"} for k, state in enumerate(mdp.layers[0])
    }
    return from_spec(spec_dict)


register(Claim(
    label="lem:homing_deterministic",
    statement="max over deterministic non-stationary policies of V(pi; R) (and of P_pi(s)) "
              "equals the max over stochastic ones",
    instances=lambda: block_mdps(max_horizon=3, max_width=3, max_actions=3),
    check=check_homing_deterministic,
    negative_control="restrict the deterministic policies to open-loop action sequences",
    negative_instances=_observation_dependent_rewards,
    negative_check=check_open_loop_suffices,
))


def best_composition(mdp: BlockMDP, target: str) -> tuple[object, dict]:
    """``sup`` over mixtures of homing policies of the layer before ``target``, composed with any
    last-step policy, of ``P(target)`` (``prop:comp-homing``).

    Every deterministic state policy on the layers before is enumerated; a policy is homing for
    ``s`` when it visits ``s`` with probability ``eta(s)`` (a stochastic homing policy is a
    mixture of deterministic ones, and the objective is linear in the mixture). The best last
    step takes, in each state, the action most likely to reach ``target``.
    """
    h, i = mdp.state_location[target]
    previous = h - 1
    values = eta(mdp)
    reach = mdp.transition_tensor(previous)[:, :, i].max(axis=1)
    deciding = [s for layer in mdp.layers[:previous] for s in layer]
    best, best_witness = mdp.mode.scalar(0), {}
    for actions in itertools.product(mdp.actions, repeat=len(deciding)):
        choices = dict(zip(deciding, actions, strict=True))
        visits = state_visitation(mdp, state_policy(mdp, choices, mdp.actions[0]))[previous]
        homed = [s for s, p in zip(mdp.layers[previous], visits, strict=True) if p == values[s]]
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
            if eta(mdp)[state] > composed:
                gaps[state] = {"eta": number(eta(mdp)[state]), "best_composition": number(composed),
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

__all__ = ["best_composition", "check_homing_deterministic", "check_noncompositional"]

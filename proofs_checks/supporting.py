"""Appendix ``app:supporting``: the performance difference lemma (``lem:perf-diff``), as an exact
identity on generated MDPs."""

from __future__ import annotations

from hypothesis import strategies as st

from kinematic.model import BlockMDP
from kinematic.policies import Policy
from kinematic.strategies import block_mdps, policies
from kinematic.visitation import observation_values, observation_visitation, policy_value
from proofs_checks.registry import Claim, Outcome, register
from proofs_checks.witness import number, policy_json, spec


def _switched(mdp: BlockMDP, first: Policy, second: Policy, layer: int) -> Policy:
    """``pi^(1)_h o pi^(2)_{h+1:H}`` (layers before ``h`` are irrelevant to values from ``h``)."""
    tables = list(second.action_probabilities)
    tables[layer] = first.action_probabilities[layer]
    return Policy(tuple(tables))


def check_performance_difference(case) -> Outcome:
    """``V(pi1) - V(pi2) = sum_h E_{x_h ~ Q_h^(1)}[V(x_h; pi1_h o pi2_{h+1:H}) -
    V(x_h; pi2_{h:H})]``, exactly. The case's ``weight_with="second"`` (negative control) takes
    ``x_h ~ Q_h^(2)`` instead."""
    mdp, first, second, weight_with = case
    left = policy_value(mdp, first) - policy_value(mdp, second)
    weights = observation_visitation(mdp, first if weight_with == "first" else second)
    second_values = observation_values(mdp, second)
    right = mdp.mode.scalar(0)
    for h in range(mdp.horizon):
        switched = observation_values(mdp, _switched(mdp, first, second, h))[h]
        right += (weights[h] * (switched - second_values[h])).sum()
    if left != right:
        return Outcome(False, {
            "instance": spec(mdp), "pi1": policy_json(mdp, first), "pi2": policy_json(mdp, second),
            "V(pi1) - V(pi2)": number(left), "sum of advantages": number(right),
        })
    return Outcome(True)


@st.composite
def _two_policies(draw: st.DrawFn, min_horizon: int = 1, weight_with: str = "first"):
    mdp = draw(block_mdps(min_horizon=min_horizon, max_horizon=3))
    return mdp, draw(policies(mdp)), draw(policies(mdp)), weight_with


register(Claim(
    label="lem:perf-diff",
    statement="V(pi1) - V(pi2) = sum_h E_{x_h ~ Q_h^(1)}[V(x_h; pi1_h o pi2_{h+1:H}) - "
              "V(x_h; pi2_{h:H})]",
    instances=_two_policies,
    check=check_performance_difference,
    negative_control="weight the advantages with pi2's distribution Q_h^(2)",
    negative_instances=lambda: _two_policies(min_horizon=2, weight_with="second"),
))

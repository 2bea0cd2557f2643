"""Appendix ``app:supporting``: the performance difference lemma (``lem:perf-diff``), as an exact
identity on generated MDPs, and Bernstein's inequality (``prop:bernstein``) for centred Bernoulli
variables, with the exact binomial tail."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st
from scipy.stats import binom

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


# --- prop:bernstein --------------------------------------------------------------------------


def check_bernstein(case) -> Outcome:
    """For ``U_t = B_t - p`` with ``B_t ~ Bernoulli(p)`` i.i.d. (zero mean, ``|U_t| <= R =
    max(p, 1 - p)``, variance ``sigma^2 = p (1 - p)``): ``P(mean U > sqrt(2 sigma^2 ln(1/delta)
    / n) + 2 R ln(1/delta) / (3 n)) <= delta``, with the exact binomial tail. The case's flag
    ``range_term`` is False in the control (the ``2 R ln(1/delta) / (3 n)`` term dropped)."""
    n, p, delta, range_term = case
    log = math.log(1 / delta)
    bound = math.sqrt(2 * p * (1 - p) * log / n)
    if range_term:
        bound += 2 * max(p, 1 - p) * log / (3 * n)
    # mean U > bound  <=>  successes > n (p + bound)
    threshold = math.floor(n * (p + bound))
    tail = float(binom.sf(threshold, n, p))
    witness = {"n": n, "p": p, "delta": delta, "range_term": range_term, "bound": bound,
               "P(mean U > bound)": tail}
    return Outcome(tail <= delta, witness)


register(Claim(
    label="prop:bernstein",
    statement="for independent zero-mean |U_t| <= R with mean variance <= sigma^2, mean U <= "
              "sqrt(2 sigma^2 ln(1/delta)/n) + 2 R ln(1/delta)/(3n) w.p. >= 1 - delta",
    instances=lambda: st.tuples(st.integers(1, 400), st.floats(0.001, 0.999),
                                st.sampled_from([0.01, 0.05, 0.1, 0.3]), st.just(True)),
    check=check_bernstein,
    negative_control="drop the range term 2 R ln(1/delta)/(3n), on rare events "
                     "(n p between 0.12 and 0.2, delta = 0.1)",
    negative_instances=lambda: st.integers(10, 40).flatmap(lambda n: st.tuples(
        st.just(n), st.floats(0.12 / n, 0.2 / n), st.just(0.1), st.just(False))),
))

# --- prop:sq-loss ------------------------------------------------------------------------------

SQ_LOSS_TRIALS = 20


def grid_cover_bound(contexts: int, grid: int, samples: int, delta: float) -> float:
    """``inf_eps 6 eps + 8 ln(2 N(G, eps) / delta) / n`` for ``G`` = every function from
    ``contexts`` points to ``{0, 1/grid, ..., 1}``: ``N(G, 0) = (grid + 1)^contexts``, and for
    ``eps = 1/(2j)`` the points ``eps, 3 eps, ...`` cover ``[0, 1]`` with ``j`` values."""
    options = [8 * math.log(2 * (grid + 1) ** contexts / delta) / samples]
    options += [6 / (2 * j) + 8 * math.log(2 * j**contexts / delta) / samples
                for j in range(1, grid + 1)]
    return min(options)


def check_sq_loss(case) -> Outcome:
    """The empirical risk minimiser over ``G`` (grid-valued functions of a finite context;
    per context, the grid value nearest the empirical mean of ``y``; unseen contexts take 0) has
    excess risk ``E_x (g - g*)^2`` at most ``prop:sq-loss``'s bound in at least ``1 - delta`` of
    repeated trials. ``y ~ Bernoulli(g*(x))``; realizable when ``g*`` takes values of the class's
    grid (the control breaks that)."""
    probabilities, target, grid, samples, delta, seed = case
    rng = np.random.default_rng(seed)
    contexts = len(probabilities)
    values = np.arange(grid + 1) / grid
    bound = grid_cover_bound(contexts, grid, samples, delta)
    failures, risks = 0, []
    for _ in range(SQ_LOSS_TRIALS):
        x = rng.choice(contexts, size=samples, p=probabilities)
        y = rng.random(samples) < target[x]
        seen = np.bincount(x, minlength=contexts)
        means = np.bincount(x, weights=y, minlength=contexts) / np.maximum(seen, 1)
        fitted = np.where(seen > 0, values[np.abs(means[:, None] - values).argmin(axis=1)], 0.0)
        risk = float(probabilities @ (fitted - target) ** 2)
        risks.append(risk)
        failures += risk > bound
    witness = {"bound": bound, "risks": risks[:5], "failure_rate": failures / SQ_LOSS_TRIALS}
    if failures / SQ_LOSS_TRIALS > delta:
        return Outcome(False, {"probabilities": list(probabilities), "g_star": list(target),
                               "grid": grid, "n": samples, "delta": delta, "seed": seed,
                               **witness})
    return Outcome(True, witness)


@st.composite
def _regressions(draw: st.DrawFn, realizable: bool = True):
    contexts = draw(st.integers(1, 5))
    weights = np.array([draw(st.integers(1, 4)) for _ in range(contexts)], dtype=float)
    grid = draw(st.sampled_from([1, 2, 4]))
    if realizable:
        target = np.array([draw(st.integers(0, grid)) / grid for _ in range(contexts)])
        samples = draw(st.integers(20, 2000))
    else:  # g* = 1/2 everywhere, the class only {0, 1}: the ERM stays 1/4 away
        grid, target, samples = 1, np.full(contexts, 0.5), draw(st.integers(500, 2000))
    return (weights / weights.sum(), target, grid, samples,
            draw(st.sampled_from([0.05, 0.1, 0.2])), draw(st.integers(0, 2**31)))


register(Claim(
    label="prop:sq-loss",
    statement="square-loss ERM over a realizable class has excess risk <= inf_eps 6 eps + "
              "8 ln(2 N(G, eps)/delta)/n with probability >= 1 - delta",
    instances=_regressions,
    check=check_sq_loss,
    negative_control="drop realizability: g* = 1/2, the class takes values in {0, 1}",
    negative_instances=lambda: _regressions(realizable=False),
    cost=0.3,
))

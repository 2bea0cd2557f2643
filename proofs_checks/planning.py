"""Section 3.1 and Appendices ``app:psdp-appendix``, ``app:appendix-oracle-alg``: planning with
policy covers, exactly and from samples.

- ``alg:rl_via_homing_policies``: exact PSDP (infinite data) with 1-covers and the internal
  reward of a backward KI block returns a policy homing every state of the block.
- ``alg:oracle-exp``: ExpOracle with exact PSDP and the backward KI abstraction returns
  1-policy covers.
- ``prop:csc-call``, ``thm:psdp-spread``, ``thm:exp-oracle``: with sampled data and the tabular
  contextual-bandit oracle, the guarantee holds in at least the promised fraction of repeated
  trials (the observed failure rate is reported against delta).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from kinematic.cover import policy_cover_alpha
from kinematic.families import combination_lock
from kinematic.homing import eta, eta_min, homing_policy
from kinematic.inseparability import backward_ki_partition
from kinematic.model import BlockMDP
from kinematic.planning import (
    exp_oracle_exact,
    exp_oracle_sampled,
    inverse_propensity_scores,
    observation_labels,
    optimal_values,
    policy_cover_exact,
    psdp_exact,
    psdp_sampled,
    tabular_cb_oracle,
)
from kinematic.policies import Policy, state_policy, uniform_policy
from kinematic.strategies import block_mdps
from kinematic.visitation import policy_value, state_visitation
from proofs_checks.definitions import (
    ONE_CLASS,
    PARTITIONS,
    Computation,
    backward_partition_violation,
)
from proofs_checks.registry import Claim, Outcome, register
from proofs_checks.sample_sizes import exp_oracle_sample_sizes
from proofs_checks.witness import number, policy_json, spec

DELTA = 0.1
"""Failure probability used by the sampled checks."""


def _homing_covers(mdp: BlockMDP) -> list[list[Policy]]:
    """``Psi_t`` = the homing policies of the states of layer ``t`` (a 1-policy cover)."""
    return [[homing_policy(mdp, s) for s in layer] for layer in mdp.layers]


def _perturbed_homing_covers(mdp: BlockMDP) -> list[list[Policy]]:
    """Homing policies that take a uniformly random action with probability 1/2 in every
    observation (an alpha-policy cover with alpha < 1 in general)."""
    uniform = uniform_policy(mdp).action_probabilities
    half = mdp.mode.scalar(Fraction(1, 2))
    return [[Policy(tuple(half * table + half * noise for table, noise in
                          zip(policy.action_probabilities, uniform, strict=True)))
             for policy in layer] for layer in _homing_covers(mdp)]


def _first_action_covers(mdp: BlockMDP) -> list[list[Policy]]:
    """``Psi_t`` = one policy that always takes the first action (usually not a cover)."""
    return [[state_policy(mdp, {}, default_action=mdp.actions[0])] for _ in mdp.layers]


HOMING_COVERS = Computation("homing policies (1-policy covers)", _homing_covers)
PERTURBED_COVERS = Computation("homing policies mixed half with uniform actions",
                               _perturbed_homing_covers)
FIRST_ACTION = Computation("one first-action policy per layer", _first_action_covers)


def check_psdp_homes_blocks(case) -> Outcome:
    """For every layer h >= 2 and backward KI block i: PSDP(Psi_{1:h-1}, R_{i,h}, h-1) with exact
    data (the policy of block i in ``policy_cover_exact``) visits every state of the block with
    probability eta(s); the blocks are def:bki's."""
    mdp, covers_of = case
    covers = covers_of(mdp)
    partition = backward_ki_partition(mdp)
    wrong = backward_partition_violation(mdp, partition.labels)
    if wrong:
        return wrong
    labels = observation_labels(mdp, partition.labels)
    values = eta(mdp)
    for h in range(1, mdp.horizon):
        learned = policy_cover_exact(mdp, covers, h + 1, labels[h])  # one policy per block
        for states, policy in zip(partition.blocks(h + 1), learned, strict=True):
            visits = state_visitation(mdp, policy)[h]
            for state in states:
                i = mdp.state_location[state][1]
                reached = visits[i]
                if reached != values[h][i]:
                    return Outcome(False, {
                        "instance": spec(mdp), "block": states, "state": state,
                        "psdp_policy": policy_json(mdp, policy),
                        "covers": [[policy_json(mdp, p) for p in c] for c in covers[:h]],
                        "P_pi(s)": number(reached), "eta(s)": number(values[h][i]),
                    })
    return Outcome(True)


register(Claim(
    label="alg:rl_via_homing_policies",
    statement="exact PSDP with 1-policy covers and the internal reward of a backward KI block "
              "returns a homing policy of every state in the block",
    instances=lambda: st.tuples(block_mdps(min_horizon=2, max_horizon=3, max_splits=1),
                                st.just(HOMING_COVERS)),
    check=check_psdp_homes_blocks,
    negative_control="roll in with one first-action policy instead of a policy cover, on "
                     "combination locks",
    negative_instances=lambda: st.tuples(
        st.builds(combination_lock, st.just(3), st.integers(3, 4), st.integers(0, 1000)),
        st.just(FIRST_ACTION)),
))


def check_exp_oracle_exact(case) -> Outcome:
    """ExpOracle (exact PSDP) with the abstraction computed by ``case`` returns Psi_h with
    alpha = 1 and one policy per class for every h; the abstraction is def:bki's."""
    mdp, abstraction = case
    state_labels = abstraction(mdp)
    covers = exp_oracle_exact(mdp, observation_labels(mdp, state_labels))
    for h in range(1, mdp.horizon):
        alpha = policy_cover_alpha(mdp, covers[h]).alpha_per_layer[h]
        classes = len(set(np.asarray(state_labels[h]).tolist()))
        if alpha != 1 or len(covers[h]) != classes:
            return Outcome(False, {
                "instance": spec(mdp), "layer": h + 1, "alpha": number(alpha),
                "abstraction": abstraction.name, "classes": classes,
                "cover": [policy_json(mdp, p) for p in covers[h]],
            })
    return backward_partition_violation(mdp, state_labels, abstraction=abstraction.name) or \
        Outcome(True)


register(Claim(
    label="alg:oracle-exp",
    statement="ExpOracle with exact PSDP and a backward KI abstraction returns 1-policy covers",
    instances=lambda: st.tuples(block_mdps(min_horizon=2, max_horizon=3, max_splits=1),
                                st.just(PARTITIONS["backward"])),
    check=check_exp_oracle_exact,
    negative_control="the trivial one-class abstraction (a reward-free bisimulation)",
    negative_instances=lambda: st.tuples(block_mdps(min_horizon=2, max_horizon=3, max_splits=0),
                                         st.just(ONE_CLASS)),
))

# --- thm:oracle-exp-statement ------------------------------------------------------------------


def check_oracle_exp_statement(case) -> Outcome:
    """Both parts of the statement with infinite data: ExpOracle with the case's abstraction
    returns 1/2-policy covers (part 1) and PSDP for the external reward over those covers an
    optimal policy (part 2, epsilon = 0)."""
    mdp, abstraction = case
    covers = exp_oracle_exact(mdp, observation_labels(mdp, abstraction(mdp)))
    for h in range(1, mdp.horizon):
        alpha = policy_cover_alpha(mdp, covers[h]).alpha_per_layer[h]
        if alpha < Fraction(1, 2):
            return Outcome(False, {"instance": spec(mdp), "abstraction": abstraction.name,
                                   "layer": h + 1, "alpha": number(alpha)})
    policy = psdp_exact(mdp, covers, mdp.rewards, mdp.horizon)
    value, optimum = policy_value(mdp, policy), optimal_values(mdp).value
    if value != optimum:
        return Outcome(False, {"instance": spec(mdp), "abstraction": abstraction.name,
                               "value": number(value), "optimal_value": number(optimum),
                               "policy": policy_json(mdp, policy)})
    return Outcome(True)


register(Claim(
    label="thm:oracle-exp-statement",
    statement="ExpOracle with a backward KI abstraction returns 1/2-policy covers and an "
              "epsilon-optimal policy (checked with infinite data: epsilon = 0)",
    instances=lambda: st.tuples(block_mdps(min_horizon=2, max_horizon=3, max_splits=1),
                                st.just(PARTITIONS["backward"])),
    check=check_oracle_exp_statement,
    negative_control="the one-class abstraction instead of backward KI, on combination locks",
    negative_instances=lambda: st.tuples(
        st.builds(combination_lock, st.integers(2, 4), st.integers(2, 4), st.integers(0, 100)),
        st.just(ONE_CLASS)),
))

# --- prop:csc-call ----------------------------------------------------------------------------


def error_csc(actions: int, samples: int, log_policies: float, delta: float) -> float:
    """``eps_csc = 4 sqrt(|A| / n * ln(2 |Pi| / delta))`` of ``thm:psdp-spread``."""
    return 4 * math.sqrt(actions / samples * (math.log(2 / delta) + log_policies))


@st.composite
def _bandits(draw: st.DrawFn):
    """A contextual bandit: context probabilities, mean rewards in [0, 1], a seed."""
    contexts = draw(st.integers(1, 4))
    actions = draw(st.integers(2, 3))
    weights = [draw(st.integers(1, 4)) for _ in range(contexts)]
    means = [[Fraction(draw(st.integers(0, 4)), 4) for _ in range(actions)]
             for _ in range(contexts)]
    return (np.array(weights) / sum(weights), np.array(means, dtype=float),
            draw(st.integers(0, 2**31)), "uniform")


CB_SAMPLES, CB_TRIALS = 5000, 40


@st.composite
def _bandits_with_a_mediocre_arm(draw: st.DrawFn):
    """Bandits where every context has an arm of mean 1, one of mean 1/2 and the rest 0."""
    contexts = draw(st.integers(1, 3))
    actions = draw(st.integers(2, 3))
    means = []
    for _ in range(contexts):
        order = draw(st.permutations(range(actions)))
        row = [0.0] * actions
        row[order[0]], row[order[1]] = 1.0, 0.5
        means.append(row)
    weights = [draw(st.integers(1, 4)) for _ in range(contexts)]
    return (np.array(weights) / sum(weights), np.array(means), draw(st.integers(0, 2**31)),
            "skewed")


def check_csc_call(bandit) -> Outcome:
    """Over repeated datasets of n samples (uniform logging, Bernoulli rewards), CB's policy is
    within eps_csc of the best in at least 1 - delta of the trials.

    ``logging="skewed"`` (negative control): the logging policy picks the arm of mean 1/2 with
    probability 0.9, but the oracle still divides by p = 1/|A|.
    """
    contexts, means, seed, logging = bandit
    rng = np.random.default_rng(seed)
    actions = means.shape[1]
    best = float(contexts @ means.max(axis=1))
    error = error_csc(actions, CB_SAMPLES, len(contexts) * math.log(actions), DELTA)
    failures, regrets = 0, []
    for _ in range(CB_TRIALS):
        x = rng.choice(len(contexts), size=CB_SAMPLES, p=contexts)
        if logging == "uniform":
            a = rng.integers(actions, size=CB_SAMPLES)
        else:
            mediocre = np.argmin(np.abs(means - 0.5), axis=1)[x]
            a = np.where(rng.random(CB_SAMPLES) < 0.9, mediocre,
                         rng.integers(actions, size=CB_SAMPLES))
        r = (rng.random(CB_SAMPLES) < means[x, a]).astype(float)
        chosen = tabular_cb_oracle(
            inverse_propensity_scores(x, a, r, 1 / actions, means.shape))
        regret = best - float(contexts @ means[np.arange(len(contexts)), chosen])
        regrets.append(regret)
        failures += regret > error
    if failures / CB_TRIALS > DELTA:
        return Outcome(False, {
            "contexts": contexts.tolist(), "mean_rewards": means.tolist(), "seed": seed,
            "logging": logging, "samples": CB_SAMPLES, "eps_csc": error, "delta": DELTA,
            "failure_rate": failures / CB_TRIALS, "regrets": regrets,
        })
    return Outcome(True, {"failure_rate": failures / CB_TRIALS, "eps_csc": error})


register(Claim(
    label="prop:csc-call",
    statement="with n uniform-logging samples, CB(D, Pi) is within eps_csc of the best policy "
              "with probability >= 1 - delta",
    instances=_bandits,
    check=check_csc_call,
    negative_control="logging skewed to a mediocre arm, propensities ignored by the oracle",
    negative_instances=_bandits_with_a_mediocre_arm,
    cost=0.25,
))

# --- thm:psdp-spread --------------------------------------------------------------------------

PSDP_SAMPLES, PSDP_TRIALS = 40_000, 5


@st.composite
def _small_mdps_with_seed(draw: st.DrawFn):
    mdp = draw(block_mdps(min_horizon=2, max_horizon=3, max_width=2, max_actions=2,
                          max_observations=1, max_splits=0))
    assume(any((r != 0).any() for r in mdp.rewards))
    covers = draw(st.sampled_from([HOMING_COVERS, PERTURBED_COVERS]))
    return mdp, draw(st.integers(0, 2**31)), covers, False


def largest_return(mdp: BlockMDP) -> Fraction:
    """The largest sum of rewards along any possible trajectory (the theorem assumes <= 1)."""
    following: list[Fraction] = []  # per state of the next layer (none after the last)
    for h in range(mdp.horizon - 1, -1, -1):
        tensor = mdp.transition_tensor(h) if h + 1 < mdp.horizon else None
        best = []
        for i in range(mdp.width(h)):
            options = []
            for x in np.flatnonzero(mdp.emission_state[h] == i):
                for a in range(mdp.number_of_actions):
                    future = 0 if tensor is None else max(
                        following[j] for j in np.flatnonzero(tensor[i, a] != 0))
                    options.append(mdp.rewards[h][x, a] + future)
            best.append(max(options))
        following = best
    return max(following[i] for i in np.flatnonzero(mdp.start != 0))


def check_psdp_spread(case) -> Outcome:
    """PSDP with n samples per step and alpha-covers of size <= N, rewards scaled so that every
    trajectory earns at most 1, gets V >= max V - N h eps_csc / alpha in at least 1 - h delta of
    the trials. alpha is the covers' exact quality, or 1 when the case claims it (the control)."""
    mdp, seed, covers_of, claim_alpha_one = case
    rng = np.random.default_rng(seed)
    scale = max(Fraction(1), largest_return(mdp))
    rewards = tuple(r / scale for r in mdp.rewards)
    covers = covers_of(mdp)
    size = max(len(c) for c in covers[1:]) if mdp.horizon > 1 else 1
    alpha = min((policy_cover_alpha(mdp, covers[t]).alpha_per_layer[t]
                 for t in range(1, mdp.horizon)), default=1)
    alpha = Fraction(1) if claim_alpha_one else alpha
    log_policies = max(len(x) for x in mdp.observations) * math.log(mdp.number_of_actions)
    error = error_csc(mdp.number_of_actions, PSDP_SAMPLES, log_policies, DELTA)
    bound = size * mdp.horizon * error / float(alpha) if alpha > 0 else math.inf
    best = float(optimal_values(mdp, rewards).value)
    failures, gaps = 0, []
    for _ in range(PSDP_TRIALS):
        policy = psdp_sampled(mdp, covers, rewards, mdp.horizon, PSDP_SAMPLES, rng)
        gap = best - float(policy_value(mdp, policy, rewards))
        gaps.append(gap)
        failures += gap > bound
    if failures / PSDP_TRIALS > mdp.horizon * DELTA:
        return Outcome(False, {
            "instance": spec(mdp), "seed": seed, "covers": covers_of.name,
            "rewards_divided_by": number(scale),
            "alpha_assumed": number(alpha), "N": size, "samples": PSDP_SAMPLES,
            "bound": bound, "gaps": gaps, "failure_rate": failures / PSDP_TRIALS,
            "allowed": mdp.horizon * DELTA,
        })
    return Outcome(True, {"bound": bound, "gaps": gaps, "failure_rate": failures / PSDP_TRIALS})


@st.composite
def _locks_with_seed(draw: st.DrawFn, horizon: int, actions: int):
    """Combination locks (Section 7) with a seed for the sampler."""
    return (combination_lock(horizon, actions, draw(st.integers(0, 1000))),
            draw(st.integers(0, 2**31)))


def _first_action_claimed_cover(case):
    return (*case, FIRST_ACTION, True)


register(Claim(
    label="thm:psdp-spread",
    statement="PSDP with alpha-policy covers is within N h eps_csc / alpha of the best policy "
              "with probability >= 1 - h delta",
    instances=_small_mdps_with_seed,
    check=check_psdp_spread,
    negative_control="roll in with one first-action policy (not a cover) yet claim alpha = 1, "
                     "on combination locks",
    negative_instances=lambda: _locks_with_seed(3, 4).map(_first_action_claimed_cover),
    cost=0.1,
))

# --- thm:exp-oracle -----------------------------------------------------------------------------

ORACLE_TRIALS = 4
EPSILON = 0.5
"""The accuracy asked of the reward-sensitive policy in the sampled ExpOracle check (part 2)."""


@st.composite
def _oracle_instances(draw: st.DrawFn):
    """MDPs with two or three layers, two or three actions and eta_min >= 1/2, where the
    theorem's sample sizes are affordable; rewards in [0, 1/H] so every return is <= 1."""
    mdp = draw(block_mdps(min_horizon=2, max_horizon=3, max_width=2, max_actions=3,
                          max_observations=1, max_splits=0))
    assume(mdp.number_of_actions >= 2 and eta_min(mdp) >= Fraction(1, 2))
    return mdp, draw(st.integers(0, 2**31)), PARTITIONS["backward"]


def check_exp_oracle_sampled(case) -> Outcome:
    """ExpOracle with the theorem's sample sizes (for delta, epsilon = 1/2, N = number of blocks
    per layer of the case's abstraction, eta = eta_min) returns, in at least 1 - delta of the
    trials, 1/2-policy covers (part 1) and a reward-sensitive policy within epsilon of the
    optimum (part 2: PSDP over the covers with n_eval samples, rewards scaled to returns <= 1)."""
    mdp, seed, abstraction = case
    rng = np.random.default_rng(seed)
    state_labels = abstraction(mdp)
    blocks = max(len(set(np.asarray(labels).tolist())) for labels in state_labels)
    log_policies = max(len(x) for x in mdp.observations) * math.log(mdp.number_of_actions)
    sizes = exp_oracle_sample_sizes(blocks, mdp.horizon, mdp.number_of_actions,
                                    float(eta_min(mdp)), EPSILON, DELTA, log_policies)
    labels = observation_labels(mdp, state_labels)
    scale = max(Fraction(1), largest_return(mdp))
    rewards = tuple(r / scale for r in mdp.rewards)
    best = float(optimal_values(mdp, rewards).value)
    failures, alphas, gaps = 0, [], []
    for _ in range(ORACLE_TRIALS):
        covers = exp_oracle_sampled(mdp, labels, sizes.n_psdp, rng)
        alpha = min(policy_cover_alpha(mdp, covers[h]).alpha_per_layer[h]
                    for h in range(1, mdp.horizon))
        policy = psdp_sampled(mdp, covers, rewards, mdp.horizon, sizes.n_eval, rng)
        gap = best - float(policy_value(mdp, policy, rewards))
        alphas.append(number(alpha))
        gaps.append(gap)
        failures += alpha < Fraction(1, 2) or gap > EPSILON
    witness = {"n_psdp": sizes.n_psdp, "n_eval": sizes.n_eval, "alphas": alphas, "gaps": gaps,
               "failure_rate": failures / ORACLE_TRIALS}
    if failures / ORACLE_TRIALS > DELTA:
        return Outcome(False, {"instance": spec(mdp), "seed": seed,
                               "abstraction": abstraction.name, "delta": DELTA, **witness})
    return Outcome(True, witness)


register(Claim(
    label="thm:exp-oracle",
    statement="ExpOracle with n_psdp = 256 N^4 H^2 |A| ln(2|Pi|/delta') / eta^2 returns "
              "1/2-policy covers and an epsilon-optimal policy with probability >= 1 - delta",
    instances=_oracle_instances,
    check=check_exp_oracle_sampled,
    negative_control="the one-class abstraction (not backward KI) with the theorem's sample "
                     "sizes, on combination locks (H = 2, K = 2..3)",
    negative_instances=lambda: st.builds(
        lambda k, lock_seed, seed: (combination_lock(2, k, lock_seed), seed, ONE_CLASS),
        st.integers(2, 3), st.integers(0, 100), st.integers(0, 2**31)),
    cost=0.1,
))

__all__ = ["error_csc"]

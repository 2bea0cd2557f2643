"""Section 4 and Appendix ``app:appendix-sample-complexity``: HOMER's contrastive problem.

- ``lem:bound-rho-prior``: with an alpha-cover ``Psi_{h-1}`` of size N, the prior of ``x'``
  satisfies ``rho(s) >= alpha eta(s) / (N |A|)``.
- ``lem:p-form``: the Bayes-optimal predictor of ``D``, computed from ``D``, is
  ``T / (T + rho)``.
- ``prop:bki-in-class`` and Section 4, "Why does HOMER learn kinematic inseparability?": the
  level sets of ``f_rho`` in ``x'`` are backward KI; with a policy cover they are exactly the
  backward KI classes.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

from kinematic.contrastive import (
    ContrastiveDistribution,
    bayes_optimal_predictor,
    contrastive_distribution,
    f_rho,
    level_sets,
    state_prior,
)
from kinematic.cover import policy_cover_alpha
from kinematic.homing import eta
from kinematic.inseparability import backward_ki_partition
from kinematic.model import BlockMDP
from kinematic.policies import uniform_policy
from kinematic.strategies import block_mdps, policies, separable_pairs
from kinematic.visitation import observation_visitation, state_visitation
from proofs_checks.registry import Claim, Outcome, register
from proofs_checks.witness import number, policy_json, spec


@st.composite
def _rolled_in(draw: st.DrawFn, deterministic: bool = False, mdps=None):
    """``(mdp, cover, layer)``: a roll-in set of 1..3 random policies for ``layer - 1``."""
    mdp = draw(mdps if mdps is not None else block_mdps(min_horizon=2, max_horizon=3,
                                                        max_splits=1))
    layer = draw(st.integers(1, mdp.horizon - 1))
    cover = draw(st.lists(policies(mdp, deterministic=deterministic), min_size=1, max_size=3))
    return mdp, cover, layer


def check_bound_rho_prior(case) -> Outcome:
    """``rho(s) >= alpha eta(s) / (N |A|)`` for every ``s`` of the layer, with alpha the exact
    cover quality of the roll-in set on the previous layer and N its size. The case's flag
    ``uniform_last_action`` is False in the negative control (the roll-in policies also choose
    the last action)."""
    mdp, cover, layer, uniform_last_action = case
    alpha = policy_cover_alpha(mdp, cover).alpha_per_layer[layer - 1]
    eta_layer = eta(mdp)[layer]
    if uniform_last_action:
        prior = state_prior(mdp, contrastive_distribution(mdp, cover, layer + 1))
    else:  # weakened: the roll-in policies also choose the last action
        prior = sum(state_visitation(mdp, p)[layer] for p in cover) / len(cover)
    for state, rho, best in zip(mdp.layers[layer], prior, eta_layer, strict=True):
        bound = alpha * best / (len(cover) * mdp.number_of_actions)
        if rho < bound:
            return Outcome(False, {
                "instance": spec(mdp), "layer": layer + 1, "state": state,
                "cover": [policy_json(mdp, p) for p in cover], "alpha": number(alpha),
                "rho(s)": number(rho), "alpha * eta(s) / (N |A|)": number(bound),
            })
    return Outcome(True)


register(Claim(
    label="lem:bound-rho-prior",
    statement="if Psi_{h-1} is an alpha-policy cover of size N, rho(s) >= alpha eta(s)/(N |A|)",
    instances=lambda: _rolled_in().map(lambda case: (*case, True)),
    check=check_bound_rho_prior,
    negative_control="drop the uniform last action (roll in with the cover's own actions)",
    negative_instances=lambda: _rolled_in(deterministic=True).map(lambda case: (*case, False)),
))


def check_p_form(case) -> Outcome:
    """``E_D[y | x, a, x']`` computed from the joint ``D`` (with the case's label prior
    ``P(y = 1)``, 1/2 in HOMER) equals ``f_rho`` wherever defined."""
    mdp, cover, layer, positive_probability = case
    distribution = contrastive_distribution(mdp, cover, layer + 1, positive_probability)
    bayes, closed_form = bayes_optimal_predictor(distribution), f_rho(mdp, distribution)
    defined = distribution.joint.sum(axis=-1) > 0
    mismatch = np.argwhere(defined & (bayes != closed_form))
    if len(mismatch):
        x, a, y = mismatch[0]
        return Outcome(False, {
            "instance": spec(mdp), "layer": layer + 1,
            "cover": [policy_json(mdp, p) for p in cover],
            "P(y = 1)": number(Fraction(positive_probability)),
            "at": [mdp.observations[layer - 1][x], mdp.actions[a], mdp.observations[layer][y]],
            "bayes_optimal_from_D": number(bayes[x, a, y]),
            "T / (T + rho)": number(closed_form[x, a, y]),
        })
    return Outcome(True, {"points": int(defined.sum())})


register(Claim(
    label="lem:p-form",
    statement="the Bayes-optimal predictor of the contrastive distribution D is "
              "T(s'|s,a) / (T(s'|s,a) + rho(s'))",
    instances=lambda: _rolled_in().map(lambda case: (*case, Fraction(1, 2))),
    check=check_p_form,
    negative_control="label prior 1/3 instead of 1/2",
    negative_instances=lambda: _rolled_in().map(lambda case: (*case, Fraction(1, 3))),
))


def _without_uniform_action(mdp: BlockMDP, cover, layer: int) -> ContrastiveDistribution:
    """The contrastive distribution when the roll-in policy also picks the last action
    (a weakened HOMER: ``Unf(Psi) o pi`` instead of ``Unf(Psi) o Unf(A)``)."""
    share = mdp.mode.scalar(1) / len(cover)
    real = sum(
        observation_visitation(mdp, policy)[layer - 1][:, None, None]
        * policy.action_probabilities[layer - 1][:, :, None]
        * mdp.observation_transition_tensor(layer - 1)
        for policy in cover
    ) * share
    prior = real.sum(axis=(0, 1))
    contexts = real.sum(axis=2, keepdims=True)
    joint = np.stack([contexts * prior[None, None, :] / 2, real / 2], axis=-1)
    return ContrastiveDistribution(layer + 1, real.sum(axis=(1, 2)), prior, joint)


def check_level_sets(case) -> Outcome:
    """Level sets of x' -> f(., ., x') are backward KI; when the roll-in reaches every state of
    the previous layer (a policy cover), they are exactly the backward KI classes. The case's
    flag ``uniform_last_action`` is False in the negative control."""
    mdp, cover, layer, uniform_last_action = case
    distribution = (
        contrastive_distribution(mdp, cover, layer + 1) if uniform_last_action
        else _without_uniform_action(mdp, cover, layer)
    )
    sets = level_sets(mdp, bayes_optimal_predictor(distribution), distribution)
    blocks = backward_ki_partition(mdp).blocks(layer + 1)
    block_of = {x: i for i, block in enumerate(blocks) for s in block
                for x in mdp.observations_of(s)}
    covering = all(mdp.mode.positive(distribution.roll_in))
    expected = sorted(
        sorted(x for s in block for x in mdp.observations_of(s)
               if distribution.prior[mdp.observation_location[x][1]] > 0)
        for block in blocks
    )
    inside = all(len({block_of[x] for x in level}) == 1 for level in sets)
    exact = sorted(sorted(level) for level in sets) == [b for b in expected if b]
    if not inside or (covering and not exact):
        return Outcome(False, {
            "instance": spec(mdp), "layer": layer + 1,
            "roll_in": [policy_json(mdp, p) for p in cover],
            "level_sets": sets, "backward_ki_blocks": blocks,
        })
    return Outcome(True, {"level_sets": sets})


@st.composite
def _covering(draw: st.DrawFn):
    mdp, cover, layer = draw(_rolled_in())
    return mdp, [uniform_policy(mdp), *cover], layer, True


def _separable_with_its_second_policy(case):
    """An unequally split state, rolled in with the policy that takes the action ``a1`` (share
    ``q``) at the predecessor where the split is unequal."""
    mdp, first, _, _, second_policy = case
    return mdp, [second_policy], mdp.state_location[first][0], False


register(Claim(
    label="prop:bki-in-class",
    statement="level sets of f_rho in x' are backward KI (and, with a policy cover, equal the "
              "backward KI classes: the asymptotic argument of Section 4)",
    instances=lambda: st.one_of(
        _covering(), _rolled_in(deterministic=True).map(lambda case: (*case, True))),
    check=check_level_sets,
    negative_control="the roll-in policy also takes the last action (no Unf(A)), on an "
                     "unequally split state",
    negative_instances=lambda: separable_pairs().map(_separable_with_its_second_policy),
))

"""Section 4 and Appendix ``app:appendix-sample-complexity``: HOMER's guarantees, exactly.

- ``prop:ki-equal-fstar`` (unlabelled proposition): KI observations have equal ``f*`` values, in
  the first argument (forward KI suffices) and in the third (backward KI suffices).
- ``lem:coupling``: for any predictor with HOMER's bottleneck in ``x'``,
  ``E_coup[1{phi(x1') = i = phi(x2')} |V|] <= 8 sqrt(b_i err)`` with ``err = E_D[(f - f*)^2]``.
- ``alg:learn_homing_policy`` and ``thm:main-theorem``: HOMER's loop run with exact oracles (the
  Bayes-optimal contrastive predictor of :mod:`kinematic.contrastive` restricted to capacity
  ``N``, exact PSDP) learns the backward KI abstraction of every step, builds 1/2-policy covers
  and an optimal policy. The statistical version (torch HOMER) belongs to ``benchmarks/``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from kinematic.contrastive import (
    bayes_optimal_predictor,
    contrastive_distribution,
    level_sets,
    state_prior,
)
from kinematic.cover import policy_cover_alpha
from kinematic.families import combination_lock
from kinematic.homing import eta, homing_policy
from kinematic.inseparability import backward_ki_partition, ki_partition
from kinematic.model import BlockMDP
from kinematic.planning import homer_exact, optimal_values, policy_cover_exact, psdp_exact
from kinematic.policies import Policy, uniform_policy
from kinematic.strategies import block_mdps, policies, separable_pairs
from kinematic.visitation import policy_value, state_visitation
from proofs_checks.definitions import backward_partition_violation, definition_keys
from proofs_checks.planning import DELTA
from proofs_checks.registry import Claim, Outcome, register
from proofs_checks.witness import number, policy_json, spec

__all__ = ["ExactHomer", "exact_homer"]

# --- prop:ki-equal-fstar ------------------------------------------------------------------------


def check_ki_equal_fstar(case) -> Outcome:
    """``f*(x1, a, x') = f*(x2, a, x')`` for pairs related in layer ``h - 1`` and
    ``f*(x, a, x1') = f*(x, a, x2')`` for pairs related in layer ``h``, wherever both are
    defined; the relations are the case's (``def:ki`` for the proposition)."""
    mdp, cover, layer, first_relation, third_relation = case
    predictor = bayes_optimal_predictor(contrastive_distribution(mdp, cover, layer + 1))
    defined = predictor != None  # noqa: E711 (object array: None marks undefined entries)
    for argument, h, relation in (("first", layer - 1, first_relation),
                                  ("third", layer, third_relation)):
        keys = definition_keys(mdp, relation)[h]
        for x, y in itertools.combinations(range(len(keys)), 2):
            if keys[x] != keys[y]:
                continue
            if argument == "first":
                left, right = predictor[x], predictor[y]
                both = defined[x] & defined[y]
            else:
                left, right = predictor[:, :, x], predictor[:, :, y]
                both = defined[:, :, x] & defined[:, :, y]
            if (left[both] != right[both]).any():
                return Outcome(False, {
                    "instance": spec(mdp), "layer": layer + 1, "argument": argument,
                    "relation": relation,
                    "observations": [mdp.observations[h][x], mdp.observations[h][y]],
                    "cover": [policy_json(mdp, p) for p in cover],
                    "f_star": number([left.tolist(), right.tolist()]),
                })
    return Outcome(True)


@st.composite
def _ki_cases(draw: st.DrawFn):
    mdp = draw(block_mdps(min_horizon=2, max_horizon=3, max_observations=2, max_splits=2))
    layer = draw(st.integers(1, mdp.horizon - 1))
    cover = [uniform_policy(mdp), *draw(st.lists(policies(mdp), max_size=2))]
    return mdp, cover, layer, "ki", "ki"


def _forward_twins_as_related(case):
    """An unequally split state: its halves are forward KI but not backward KI; the third
    argument is compared over forward KI (the wrong relation)."""
    mdp, first, _, _, _ = case
    return mdp, [uniform_policy(mdp)], mdp.state_location[first][0], "ki", "forward"


register(Claim(
    label="prop:ki-equal-fstar",
    statement="KI observations have equal f* in the first argument and in the third",
    instances=_ki_cases,
    check=check_ki_equal_fstar,
    negative_control="compare the third argument over forward KI pairs (an unequal split: "
                     "forward KI, not backward KI)",
    negative_instances=lambda: separable_pairs().map(_forward_twins_as_related),
))

# --- lem:coupling --------------------------------------------------------------------------------


def _bottleneck_error(distribution, phi) -> object:
    """``err = E_D[(f - f*)^2]`` for HOMER's bottlenecked predictor ``f = w(x, a, phi(x'))``
    with the best ``w`` (the D-weighted mean of ``f*`` over each class)."""
    joint = distribution.joint.sum(axis=-1)
    f_star = bayes_optimal_predictor(distribution)
    predictor = f_star.copy()
    for i in sorted(set(phi)):
        members = [y for y in range(len(phi)) if phi[y] == i]
        weight = joint[:, :, members].sum(axis=2)
        mass = sum(joint[:, :, y] * np.where(joint[:, :, y] > 0, f_star[:, :, y], 0)
                   for y in members)
        mean = np.where(weight > 0, mass / np.where(weight > 0, weight, 1), 0)
        for y in members:
            predictor[:, :, y] = mean
    error = sum(joint[index] * (predictor[index] - f_star[index]) ** 2
                for index in zip(*np.nonzero(joint > 0), strict=True))
    return error


def check_coupling(case) -> Outcome:
    """For every class ``i`` of ``phi`` on layer ``h``: ``LHS_i^2 <= 64 b_i err`` exactly, where
    ``LHS_i = E_{D_coup}[1{phi(x1') = i = phi(x2')} |V(x1', x2', x, a)|]``,
    ``b_i = rho(phi = i)`` and ``err = E_D[(f - f*)^2]``. ``f`` is the case's predictor: HOMER's
    bottleneck ``w(x, a, phi(x'))`` with the best ``w`` (the D-weighted mean of ``f*`` over the
    class), or, in the control, ``f*`` itself (no bottleneck)."""
    mdp, cover, layer, phi, bottleneck = case
    distribution = contrastive_distribution(mdp, cover, layer + 1)
    contexts = distribution.joint.sum(axis=(2, 3))  # D(x, a)
    prior = distribution.prior
    classes = sorted(set(phi))
    # Without the bottleneck the predictor is f* itself: err = 0.
    error = _bottleneck_error(distribution, phi) if bottleneck else mdp.mode.scalar(0)
    states = mdp.emission_state[layer]
    rho_states = state_prior(mdp, distribution)
    tensor = mdp.transition_tensor(layer - 1)[mdp.emission_state[layer - 1]]  # (x, a, s')
    ratio = tensor / np.where(rho_states == 0, 1, rho_states)[None, None, :]
    for i in classes:
        members = [y for y in range(len(phi)) if phi[y] == i and prior[y] > 0]
        b_i = sum(prior[y] for y in members)
        if b_i == 0:
            continue
        lhs = sum(
            contexts[x, a] * prior[y1] * prior[y2]
            * abs(ratio[x, a, states[y1]] - ratio[x, a, states[y2]])
            for y1, y2 in itertools.product(members, repeat=2)
            for x, a in zip(*np.nonzero(contexts > 0), strict=True)
        )
        if lhs * lhs > 64 * b_i * error:
            return Outcome(False, {
                "instance": spec(mdp), "layer": layer + 1, "phi": list(phi),
                "bottleneck": bottleneck, "class": i, "E_coup[1{i} |V|]": number(lhs),
                "b_i": number(b_i), "err": number(error),
                "cover": [policy_json(mdp, p) for p in cover],
            })
    return Outcome(True, {"err": number(error)})


@st.composite
def _coupling_cases(draw: st.DrawFn, bottleneck: bool = True):
    mdp = draw(block_mdps(min_horizon=2, max_horizon=3, max_observations=2, max_splits=1))
    layer = draw(st.integers(1, mdp.horizon - 1))
    cover = [uniform_policy(mdp), *draw(st.lists(policies(mdp), max_size=2))]
    size = len(mdp.observations[layer])
    phi = draw(st.lists(st.integers(0, max(0, size - 1)), min_size=size, max_size=size))
    if not bottleneck:
        keys = definition_keys(mdp, "backward")[layer]
        assume(any(phi[x] == phi[y] and keys[x] != keys[y]
                   for x, y in itertools.combinations(range(size), 2)))
    return mdp, cover, layer, tuple(phi), bottleneck


register(Claim(
    label="lem:coupling",
    statement="for a bottlenecked predictor, E_coup[1{phi(x1') = i = phi(x2')} |V|] <= "
              "8 sqrt(b_i E_D[(f - f*)^2])",
    instances=_coupling_cases,
    check=check_coupling,
    negative_control="drop the bottleneck: f = f* (err = 0) with a phi that merges "
                     "observations that are not backward KI",
    negative_instances=lambda: _coupling_cases(bottleneck=False),
))

# --- alg:learn_homing_policy and thm:main-theorem ---------------------------------------------


@dataclass(frozen=True)
class ExactHomer:
    """What :func:`exact_homer` returns: per layer the learned backward abstraction (state
    labels, ``phi_B``; layer 1: one class) and the cover ``Psi_h`` (``Psi_1`` empty); and the
    reward-sensitive policy."""

    abstractions: tuple[np.ndarray, ...]
    covers: tuple[tuple[Policy, ...], ...]
    policy: Policy


def _learned_abstraction(mdp: BlockMDP, cover, layer: int, capacity: int) -> np.ndarray:
    """``phi_B`` on the states of ``layer`` (0-based): the level sets of the Bayes-optimal
    predictor in ``x'`` (realisable in ``F_N`` for ``N >= N_KD``, ``lem:p-form``) for the roll-in
    ``Unf(cover)`` (the uniform policy when ``cover`` is empty: the roll-in to layer 1 is the
    start distribution); with fewer classes allowed, the surplus level sets are merged into the
    last class. Observations the roll-in never reaches get class 0 (none do when ``cover`` is a
    policy cover)."""
    distribution = contrastive_distribution(mdp, list(cover) or [uniform_policy(mdp)], layer + 1)
    sets = level_sets(mdp, bayes_optimal_predictor(distribution), distribution)
    labels = np.zeros(mdp.width(layer), dtype=np.intp)
    for k, members in enumerate(sets):
        for observation in members:
            x = mdp.observation_location[observation][1]
            labels[mdp.emission_state[layer][x]] = min(k, capacity - 1)
    return labels


def exact_homer(mdp: BlockMDP, capacity: int) -> ExactHomer:
    """``alg:learn_homing_policy`` with infinite data: :func:`kinematic.planning.homer_exact`
    with ``phi_B`` learned by :func:`_learned_abstraction` at each step ``h`` (roll-in
    ``Unf(Psi_{h-1}) o Unf(A)``), ``Psi_h`` = PSDP (exact) for the internal reward of each class;
    then PSDP for the external reward over all covers."""
    abstractions = [np.zeros(mdp.width(0), dtype=np.intp)]

    def labelling(cover, layer: int, previous) -> np.ndarray:
        abstractions.append(_learned_abstraction(mdp, cover, layer - 1, capacity))
        return abstractions[-1][mdp.emission_state[layer - 1]]

    covers = homer_exact(mdp, labelling).covers
    policy = psdp_exact(mdp, covers, mdp.rewards, mdp.horizon)
    return ExactHomer(tuple(abstractions), tuple(map(tuple, covers)), policy)


def _capacity_cases(draw: st.DrawFn, mdp: BlockMDP, below: bool) -> tuple[BlockMDP, int]:
    backward = backward_ki_partition(mdp).blocks_per_layer
    if below:
        assume(max(backward) >= 2)
        return mdp, max(backward) - 1
    return mdp, max(ki_partition(mdp).blocks_per_layer) + draw(st.integers(0, 1))


@st.composite
def _homer_instances(draw: st.DrawFn):
    mdp = draw(block_mdps(min_horizon=2, max_horizon=3, max_observations=2, max_splits=1))
    return _capacity_cases(draw, mdp, below=False)


@st.composite
def _locks_below_capacity(draw: st.DrawFn):
    mdp = combination_lock(draw(st.integers(2, 4)), draw(st.integers(2, 3)),
                           draw(st.integers(0, 100)))
    return _capacity_cases(draw, mdp, below=True)


def _covers_and_value(mdp: BlockMDP, result: ExactHomer) -> Outcome:
    for h in range(1, mdp.horizon):
        alpha = policy_cover_alpha(mdp, result.covers[h]).alpha_per_layer[h]
        if alpha < Fraction(1, 2):
            return Outcome(False, {"instance": spec(mdp), "layer": h + 1, "alpha": number(alpha),
                                   "cover": [policy_json(mdp, p) for p in result.covers[h]]})
    value, optimum = policy_value(mdp, result.policy), optimal_values(mdp).value
    if value != optimum:
        return Outcome(False, {"instance": spec(mdp), "value": number(value),
                               "optimal_value": number(optimum),
                               "policy": policy_json(mdp, result.policy)})
    return Outcome(True)


def check_main_theorem(case) -> Outcome:
    """With exact oracles and capacity ``N``: every ``Psi_h`` is a 1/2-policy cover and the
    reward-sensitive policy is optimal (epsilon = 0 with infinite data)."""
    mdp, capacity = case
    return _covers_and_value(mdp, exact_homer(mdp, capacity))


register(Claim(
    label="thm:main-theorem",
    statement="HOMER with N >= N_KD returns 1/2-policy covers and an epsilon-optimal policy "
              "(checked with exact oracles: infinite data)",
    instances=_homer_instances,
    check=check_main_theorem,
    negative_control="capacity N = N_BD - 1 (below the hypothesis N >= N_KD), on combination "
                     "locks",
    negative_instances=_locks_below_capacity,
))


def check_learned_abstractions(case) -> Outcome:
    """Each step of the exact loop learns exactly the backward KI partition of its layer (wrong
    merges and wrong splits both reported) and keeps at most ``N`` policies in ``Psi_h``."""
    mdp, capacity = case
    result = exact_homer(mdp, capacity)
    wrong = backward_partition_violation(mdp, result.abstractions, capacity=capacity)
    if wrong:
        return wrong
    sizes = [len(cover) for cover in result.covers]
    if max(sizes) > capacity:
        return Outcome(False, {"instance": spec(mdp), "capacity": capacity, "cover_sizes": sizes})
    return Outcome(True)


register(Claim(
    label="alg:learn_homing_policy",
    statement="HOMER's loop with exact oracles learns the backward KI abstraction at every "
              "step, with covers of at most N policies",
    instances=_homer_instances,
    check=check_learned_abstractions,
    negative_control="capacity N = N_BD - 1, on combination locks",
    negative_instances=_locks_below_capacity,
))

# --- lem:policy-comparison and lem:policy-cover-guarantee -------------------------------------


def comparison_failure(mdp, cover, layer, phi, policies_pair, every_class: bool):
    """The first violation of ``lem:policy-comparison``'s inequality for the states of
    ``layer``: for the class ``i`` holding the observations of ``s`` (or, ``every_class``, the
    literal 'min over i': every class ``i``)."""
    distribution = contrastive_distribution(mdp, cover, layer + 1)
    error = _bottleneck_error(distribution, phi)
    alpha = policy_cover_alpha(mdp, cover).alpha_per_layer[layer - 1]
    if alpha == 0:  # not a policy cover: the bound is vacuous
        return None
    rho_states = state_prior(mdp, distribution)
    n = max(len(cover), len(set(phi)))
    visits = [state_visitation(mdp, p)[layer] for p in policies_pair]
    observation_visits = [
        [sum(visits[k][mdp.emission_state[layer][y]] * mdp.emission_probability[layer][y]
             for y in range(len(phi)) if phi[y] == i) for i in range(max(phi) + 1)]
        for k in range(2)
    ]
    b = [sum(distribution.prior[y] for y in range(len(phi)) if phi[y] == i)
         for i in range(max(phi) + 1)]
    for s, state in enumerate(mdp.layers[layer]):
        own = {phi[y] for y in range(len(phi)) if mdp.emission_state[layer][y] == s}
        classes = range(len(b)) if every_class else (own if len(own) == 1 else ())
        for i in classes:
            if b[i] == 0:
                continue
            left = visits[0][s] - visits[1][s]
            first = rho_states[s] / b[i] * (observation_visits[0][i] - observation_visits[1][i])
            # 16 N |A| rho(s) / (alpha b_i^{3/2}): squared to stay exact.
            coefficient_squared = (16 * n * mdp.number_of_actions * rho_states[s] / alpha) ** 2 \
                / b[i] ** 3
            excess = left - first
            if excess > 0 and excess * excess > coefficient_squared * error:
                return {"state": state, "class": i, "P[s|pi1] - P[s|pi2]": number(left),
                        "first_term": number(first), "err": number(error),
                        "alpha": number(alpha), "b_i": number(b[i])}
    return None


def check_policy_comparison(case) -> Outcome:
    """``lem:policy-comparison`` with an exact error: for an alpha-cover ``Psi_{h-1}``, a
    bottlenecked predictor (``phi``, best ``w``) and two policies,
    ``P[s|pi1] - P[s|pi2] <= rho(s)/b_i (P[phi = i|pi1] - P[phi = i|pi2]) +
    16 N |A| rho(s) / (alpha b_i^{3/2}) sqrt(err)`` for ``i`` the class of ``s``'s observations.
    The case's ``every_class`` asks it for every class ``i`` (the literal 'min over i')."""
    mdp, cover, layer, phi, pair, every_class = case
    failure = comparison_failure(mdp, cover, layer, phi, pair, every_class)
    if failure:
        return Outcome(False, {"instance": spec(mdp), "layer": layer + 1, "phi": list(phi),
                               "every_class": every_class,
                               "policies": [policy_json(mdp, p) for p in pair], **failure})
    return Outcome(True)


@st.composite
def _comparison_cases(draw: st.DrawFn, every_class: bool = False):
    mdp = draw(block_mdps(min_horizon=2, max_horizon=3, max_observations=2, max_splits=1))
    layer = draw(st.integers(1, mdp.horizon - 1))
    cover = [uniform_policy(mdp), *draw(st.lists(policies(mdp), max_size=2))]
    size = len(mdp.observations[layer])
    labels = backward_ki_partition(mdp).labels[layer][mdp.emission_state[layer]]
    phi = draw(st.one_of(
        st.just(tuple(int(v) for v in labels)),
        st.lists(st.integers(0, max(0, size - 1)), min_size=size, max_size=size).map(tuple)))
    phi = tuple(int(v) for v in np.unique(phi, return_inverse=True)[1])
    return mdp, cover, layer, phi, (draw(policies(mdp)), draw(policies(mdp))), every_class


@st.composite
def _lock_every_class(draw: st.DrawFn):
    """The literal reading on a lock with phi = backward KI (err = 0): pi1 takes the good action,
    pi2 the bad one; the class of s_{2,c} makes the right-hand side negative for s_{2,a}."""
    mdp = combination_lock(2, draw(st.integers(2, 3)), draw(st.integers(0, 100)))
    labels = backward_ki_partition(mdp).labels[1][mdp.emission_state[1]]
    pair = (draw(policies(mdp, deterministic=True)), draw(policies(mdp, deterministic=True)))
    return mdp, [uniform_policy(mdp)], 1, tuple(int(v) for v in labels), pair, True


register(Claim(
    label="lem:policy-comparison",
    statement="P[s|pi1] - P[s|pi2] <= rho(s)/b_i (P[phi=i|pi1] - P[phi=i|pi2]) + "
              "16 N|A| rho(s) sqrt(err) / (alpha b_i^{3/2}), i the class of s",
    instances=_comparison_cases,
    check=check_policy_comparison,
    negative_control="the literal 'min over i': every class i, on combination locks with "
                     "phi = backward KI (err = 0)",
    negative_instances=_lock_every_class,
))


def check_policy_cover_guarantee(case) -> Outcome:
    """``lem:policy-cover-guarantee`` with exact PSDP (``eps_csc = 0``) and an exact error: with
    1-policy covers (homing policies) of the earlier layers, a bottlenecked predictor with
    abstraction ``phi`` on layer ``h`` and ``Psi_h`` = PSDP for the internal reward of each class,
    every ``s`` of layer ``h`` has some ``i`` with ``P[s | pi_i] >= eta(s) -
    16 N^3 |A|^{3/2} / alpha^{3/2} sqrt(err / eta(s))``. The case's ``error_term`` is False in
    the control (the regression term dropped)."""
    mdp, layer, phi, error_term = case
    covers = [[homing_policy(mdp, s) for s in states] for states in mdp.layers[:layer]]
    distribution = contrastive_distribution(mdp, covers[layer - 1], layer + 1)
    error = _bottleneck_error(distribution, phi) if error_term else mdp.mode.scalar(0)
    learned = policy_cover_exact(mdp, covers, layer + 1, np.asarray(phi))
    n = max(max(len(c) for c in covers), len(learned))
    etas = eta(mdp)
    best = policy_cover_alpha(mdp, learned, etas).best_visitation  # max_i P[s | pi_i]
    coefficient_squared = (16 * n**3) ** 2 * mdp.number_of_actions**3  # alpha = 1
    for s, state in enumerate(mdp.layers[layer]):
        shortfall = etas[layer][s] - best[state]
        if shortfall > 0 and shortfall**2 > coefficient_squared * error / etas[layer][s]:
            return Outcome(False, {
                "instance": spec(mdp), "layer": layer + 1, "phi": list(phi), "state": state,
                "eta(s)": number(etas[layer][s]), "max_i P[s | pi_i]": number(best[state]),
                "err": number(error), "error_term": error_term,
                "cover": [policy_json(mdp, p) for p in learned],
            })
    return Outcome(True, {"err": number(error)})


@st.composite
def _cover_guarantee_cases(draw: st.DrawFn):
    case = draw(_comparison_cases())
    mdp, _, layer, phi = case[:4]
    return mdp, layer, phi, True


@st.composite
def _locks_one_class(draw: st.DrawFn):
    mdp = combination_lock(draw(st.integers(2, 4)), draw(st.integers(2, 3)),
                           draw(st.integers(0, 100)))
    layer = draw(st.integers(1, mdp.horizon - 1))
    return mdp, layer, tuple([0] * len(mdp.observations[layer])), False


register(Claim(
    label="lem:policy-cover-guarantee",
    statement="each s has a learned cover policy with P[s|pi_i] >= eta(s) - N^2 h eps_csc / "
              "alpha - 16 N^3 |A|^{3/2} sqrt(err / eta(s)) / alpha^{3/2} (exact PSDP)",
    instances=_cover_guarantee_cases,
    check=check_policy_cover_guarantee,
    negative_control="drop the regression term, with phi = one class on combination locks",
    negative_instances=_locks_one_class,
))

# --- corr:sq-loss --------------------------------------------------------------------------------

SQ_LOSS_TRIALS = 5
MAX_ABSTRACTION_PAIRS = 5000


def erm_over_bottlenecks(counts: np.ndarray, capacity: int) -> np.ndarray:
    """The empirical risk minimiser over ``F_N`` = ``{w(phi(x), a, phi'(x'))}``: every pair of
    abstractions (``phi`` on ``x``, ``phi'`` on ``x'``, ``capacity`` classes each) is enumerated;
    for each, the best ``w`` is the mean label per cell. ``counts[x, a, x', y]`` are sample
    counts; returns the fitted ``f(x, a, x')`` (cells without samples predict 1/2)."""
    contexts, actions, targets, _ = counts.shape
    pairs = capacity ** (contexts + targets)
    if pairs > MAX_ABSTRACTION_PAIRS:
        raise ValueError(f"{pairs} pairs of abstractions: too many to enumerate")
    best, fitted = None, None
    for phi in itertools.product(range(capacity), repeat=contexts):
        by_context = np.zeros((capacity, actions, targets, 2))
        np.add.at(by_context, np.asarray(phi), counts)
        for phi_next in itertools.product(range(capacity), repeat=targets):
            cells = np.zeros((capacity, actions, capacity, 2))
            # numpy's stubs take integer indices only; ufunc.at takes any index, slices too
            np.add.at(cells, (slice(None), slice(None), np.asarray(phi_next)),  # type: ignore[arg-type]
                      by_context)
            ones, total = cells[..., 1], cells.sum(axis=-1)
            w = np.where(total > 0, ones / np.maximum(total, 1), 0.5)
            loss = float((ones - ones * w).sum())  # sum of squared residuals: ones (1 - w)
            if best is None or loss < best - 1e-9:
                best = loss
                fitted = w[np.asarray(phi)][:, :, np.asarray(phi_next)]
    assert fitted is not None, "a capacity of at least 1 has at least one pair to fit"
    return fitted


def check_erm_error(case) -> Outcome:
    """``corr:sq-loss``: the ERM over ``F_N`` on ``n`` i.i.d. samples of ``D`` (HOMER's contrastive
    distribution with a 1-policy cover) has ``E_D[(f - f*)^2] <= 16 (ln |Phi_N| + N^2 |A| ln n +
    ln(2/delta)) / n`` in at least ``1 - delta`` of repeated trials; ``|Phi_N| = N^m`` for the
    larger of the two observation layers."""
    mdp, layer, capacity, samples, seed = case
    rng = np.random.default_rng(seed)
    cover = [homing_policy(mdp, s) for s in mdp.layers[layer - 1]]
    distribution = contrastive_distribution(mdp, cover, layer + 1)
    joint = np.asarray(distribution.joint, dtype=float)
    marginal = joint.sum(axis=-1)
    f_star = np.asarray(np.where(marginal > 0, joint[..., 1] / np.where(marginal > 0, marginal,
                                                                         1), 0), dtype=float)
    observations = max(joint.shape[0], joint.shape[2])
    bound = 16 * (observations * math.log(capacity) + capacity**2 * mdp.number_of_actions
                  * math.log(samples) + math.log(2 / DELTA)) / samples
    failures, errors = 0, []
    for _ in range(SQ_LOSS_TRIALS):
        counts = rng.multinomial(samples, joint.reshape(-1) / joint.sum()).reshape(joint.shape)
        fitted = erm_over_bottlenecks(counts, capacity)
        error = float((marginal * (fitted - f_star) ** 2).sum())
        errors.append(error)
        failures += error > bound
    witness = {"err_reg": bound, "errors": errors, "failure_rate": failures / SQ_LOSS_TRIALS}
    if failures / SQ_LOSS_TRIALS > DELTA:
        return Outcome(False, {"instance": spec(mdp), "layer": layer + 1, "N": capacity,
                               "n": samples, "seed": seed, **witness})
    return Outcome(True, witness)


@st.composite
def _erm_cases(draw: st.DrawFn):
    mdp = draw(block_mdps(min_horizon=2, max_horizon=2, max_width=3, max_actions=2,
                          max_observations=1, max_splits=0))
    capacity = max(2, max(ki_partition(mdp).blocks_per_layer))
    assume(capacity ** (mdp.width(0) + mdp.width(1)) <= MAX_ABSTRACTION_PAIRS)
    return mdp, 1, capacity, draw(st.integers(20_000, 100_000)), draw(st.integers(0, 2**31))


@st.composite
def _erm_below_capacity(draw: st.DrawFn):
    """Realizability broken: N = 1 on two-layer combination locks, many samples."""
    mdp = combination_lock(2, draw(st.integers(2, 3)), draw(st.integers(0, 100)))
    return mdp, 1, 1, 200_000, draw(st.integers(0, 2**31))


register(Claim(
    label="corr:sq-loss",
    statement="the ERM over F_N on n samples of D has E_D[(f - f*)^2] <= 16 (ln|Phi_N| + "
              "N^2 |A| ln n + ln(2/delta)) / n with probability >= 1 - delta",
    instances=_erm_cases,
    check=check_erm_error,
    negative_control="capacity N = 1 < N_BD (f* not in F_N), on combination locks",
    negative_instances=_erm_below_capacity,
    cost=0.2,
))

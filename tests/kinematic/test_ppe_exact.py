"""PPE with exact oracles (``kinematic.counterexamples.ppe``): the exact results on the three
locks, the merge rule derived in the module docstring, and a brute force that reruns the whole
algorithm from enumerated trajectories, written as Intrepid's ``PPE.train`` reads
(microsoft/Intrepid, ``src/learning/core_learner/ppe.py``), against the JSON spec."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from kinematic import (
    block_mdp,
    eta,
    observation_policy,
    policy_cover_alpha,
    state_visitation,
    with_float_numbers,
)
from kinematic.counterexamples.exploration import explore_with_objective
from kinematic.counterexamples.objectives import square_loss
from kinematic.counterexamples.ppe import (
    ELIMINATION_CONSTANT,
    eliminate_paths,
    exact_ppe,
    open_loop_alpha,
    open_loop_policy,
    ppe_objective,
    ppe_solution,
)
from kinematic.families import (
    combination_lock,
    deterministic_combination_lock,
    exogenous_combination_lock,
    random_exact_mdp,
)
from kinematic.spec import to_spec
from kinematic.strategies import block_mdps

F = Fraction


# --- the brute force -------------------------------------------------------------------------

def observation_distribution(mdp, path):
    """``P(x_h)`` after the actions ``path`` from the start, by enumerating state sequences over
    the spec's dicts, then emitting."""
    spec = to_spec(mdp)
    frontier = {s: F(p) for s, p in spec["start"].items()}
    for action in path:
        following: dict[str, Fraction] = {}
        for state, p in frontier.items():
            for target, q in spec["transitions"].get(state, {}).get(action, {}).items():
                following[target] = following.get(target, F(0)) + p * F(q)
        frontier = following
    result: dict[str, Fraction] = {}
    for state, p in frontier.items():
        for x, q in mdp.observations_of(state).items():
            result[x] = result.get(x, F(0)) + p * q
    return result


def brute_force_ppe(mdp, constant=ELIMINATION_CONSTANT):
    """Intrepid's loop with the population classifier: per step the candidates, the statistic
    ``sum_i |prob[:, i] - prob[:, j]|`` as an expectation over the equal mixture of the
    candidates, ``path_common`` (a dict, eliminated ids deleted) and the kept paths."""
    actions = list(mdp.actions)
    homing = [()]
    steps = []
    for _ in range(1, mdp.horizon):
        path_map = {p * len(actions) + a: (*prev, action)
                    for p, prev in enumerate(homing) for a, action in enumerate(actions)}
        n = len(path_map)
        law = {j: observation_distribution(mdp, path) for j, path in path_map.items()}
        xs = sorted({x for d in law.values() for x in d})
        mixture = {x: sum(law[j].get(x, F(0)) for j in path_map) / n for x in xs}
        f = {x: {j: law[j].get(x, F(0)) / (n * mixture[x]) for j in path_map}
             for x in xs if mixture[x]}

        def gap(i, j, f=f, mixture=mixture):
            return sum(mixture[x] * abs(f[x][i] - f[x][j]) for x in f)

        elim_param = constant / (len(actions) * len(homing))
        path_common = {i: {i} for i in range(n)}
        merges = []
        for i in range(n):
            if i not in path_common:
                continue
            for j in range(i + 1, n):
                if j not in path_common:
                    continue
                if gap(i, j) < elim_param:
                    path_common[i] |= path_common[j]
                    del path_common[j]
                    merges.append((i, j))
        gaps = {(i, j): gap(i, j) for i in range(n) for j in range(i + 1, n)}
        steps.append((tuple(path_map.values()), gaps, merges, list(path_common)))
        homing = [path_map[i] for i in path_common]
    return steps


def assert_matches_brute_force(mdp, constant=ELIMINATION_CONSTANT):
    result = exact_ppe(mdp, constant)
    expected = brute_force_ppe(mdp, constant)
    assert len(result.steps) == len(expected)
    for step, (candidates, gaps, merges, kept) in zip(result.steps, expected, strict=True):
        assert step.candidates == candidates
        assert {(i, j): step.gaps[i, j] for i, j in gaps} == gaps
        assert list(step.merges) == merges
        assert list(step.kept) == kept


# --- a witness of the greedy rule's order dependence -----------------------------------------

def three_way_split(order=("even", "left", "right")):
    """One start state, three actions: ``even`` reaches ``L``, ``R`` with 1/2 each, ``left``
    with 4/5, 1/5, ``right`` with 1/5, 4/5. ``||even - left||_1 = ||even - right||_1 = 3/5 <
    5/8`` but ``||left - right||_1 = 6/5``: the rule is not transitive. ``order`` names the
    actions a1, a2, a3 in turn."""
    moves = {"even": {"L": "1/2", "R": "1/2"}, "left": {"L": "4/5", "R": "1/5"},
             "right": {"L": "1/5", "R": "4/5"}}
    return block_mdp("three-way-split", layers=[["s"], ["L", "R"]], actions=["a1", "a2", "a3"],
                     start={"s": 1},
                     transitions={"s": {f"a{k + 1}": moves[kind]
                                        for k, kind in enumerate(order)}})


# --- the merge rule --------------------------------------------------------------------------

@pytest.mark.parametrize("mdp", [combination_lock(4, 3, seed=1), three_way_split(),
                                 random_exact_mdp(4, 3, 2, 2, seed=3, denominator=7)],
                         ids=lambda mdp: mdp.name)
def test_the_gap_is_the_l1_distance_of_the_state_distributions_over_n(mdp):
    """The derivation of the docstring: the statistic computed from the posteriors on
    observations equals ``||P_i - P_j||_1 / N`` computed on latent states, so the threshold
    ``5 / (8 K N_prev)`` is ``||P_i - P_j||_1 < 5/8``. Kills a gap without the mixture weight
    (the plain ``sum_x |f(i|x) - f(j|x)|``) and a threshold on ``N`` in place of ``N_prev``."""
    for step in exact_ppe(mdp).steps:
        n = len(step.candidates)
        previous = 1 if step.layer == 1 else len(exact_ppe(mdp).step(step.layer - 1).kept)
        assert n == mdp.number_of_actions * previous
        assert step.threshold == F(5, 8) / (mdp.number_of_actions * previous)
        for i in range(n):
            for j in range(n):
                l1 = sum(abs(step.distributions[i] - step.distributions[j]))
                assert step.gaps[i, j] == l1 / n
                assert (step.gaps[i, j] < step.threshold) == (l1 < F(5, 8))


# --- the brute force -------------------------------------------------------------------------

@pytest.mark.parametrize("mdp", [combination_lock(4, 2, seed=0), combination_lock(4, 3, seed=1),
                                 combination_lock(4, 3, seed=2), three_way_split(),
                                 three_way_split(("left", "even", "right")),
                                 random_exact_mdp(3, 3, 2, 2, seed=0, denominator=5),
                                 random_exact_mdp(4, 2, 3, 2, seed=1, denominator=8)],
                         ids=lambda mdp: mdp.name)
def test_exact_ppe_is_intrepids_loop_on_enumerated_trajectories(mdp):
    assert_matches_brute_force(mdp)


@settings(max_examples=25, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(block_mdps(min_horizon=2, max_horizon=3, min_actions=2, max_actions=3))
def test_exact_ppe_matches_the_brute_force_on_random_mdps(mdp):
    """Several observations per state and stochastic starts: the statistic is over observations
    in the brute force, over the posteriors of observations in ``exact_ppe``."""
    assert_matches_brute_force(mdp)


def test_another_elimination_constant_is_the_brute_forces_too():
    """``elimination_constant`` replaces the 5/8 everywhere (1: more merges, 0: none)."""
    lock = combination_lock(4, 3, seed=0)
    assert_matches_brute_force(lock, F(1))
    assert all(step.merges == () for step in exact_ppe(lock, F(0)).steps)
    assert [len(s.kept) for s in exact_ppe(lock, F(0)).steps] == [3, 9, 27]


# --- (1) the paper's lock, H = 4 -------------------------------------------------------------

def test_the_papers_lock_keeps_one_path_per_layer_and_alpha_halves():
    """The done-when: on the paper's lock (H = 4, K = 2, seed 0: good actions u = a2 a2 a2,
    v = a1 a1 a1 at layers 1-3) every action is good at exactly one of ``s_h a``, ``s_h b``, so
    both candidates of a step reach ``(1/4, 1/4, 1/2)``-like mixtures at distance 0: PPE keeps
    one path per layer. Its alpha, 1/2, 1/4, 1/8, is the best any open-loop cover reaches
    (``open_loop_alpha``): here the elimination loses nothing, the open loop does."""
    lock = combination_lock(horizon=4, actions=2, seed=0)
    result = exact_ppe(lock)
    assert [step.candidates for step in result.steps] == [
        (("a1",), ("a2",)), (("a1", "a1"), ("a1", "a2")),
        (("a1", "a1", "a1"), ("a1", "a1", "a2"))]
    assert [step.kept_paths for step in result.steps] == [
        (("a1",),), (("a1", "a1"),), (("a1", "a1", "a1"),)]
    assert [step.merges for step in result.steps] == [((0, 1),)] * 3
    assert [list(step.distributions[0]) for step in result.steps] == [
        [F(1, 4), F(1, 4), F(1, 2)], [F(1, 8), F(1, 8), F(3, 4)], [F(1, 16), F(1, 16), F(7, 8)]]
    assert all(step.gaps[0, 1] == 0 for step in result.steps)
    assert result.alpha == (1, F(1, 2), F(1, 4), F(1, 8))
    assert open_loop_alpha(lock) == result.alpha
    # the cover is the kept paths as policies: alpha recomputed from them
    report = policy_cover_alpha(lock, [p for cover in result.covers for p in cover])
    assert report.alpha_per_layer[1:] == result.alpha[1:]


def test_on_the_papers_lock_elimination_can_drop_every_path_to_a_state():
    """A witness that the rule loses what open-loop paths could reach: H = 4, K = 3, seed 1.
    At layer 4 the only candidate reaching ``s4a``, ``s4b`` (mass 1/8 each) is within 1/2 <
    5/8 of the dead paths and is eliminated into path 0: alpha 0, where the best open-loop
    cover has 1/4."""
    lock = combination_lock(horizon=4, actions=3, seed=1)
    result = exact_ppe(lock)
    last = result.step(3)
    assert last.kept_paths == (("a1", "a1", "a1"),)
    assert list(last.distributions[2]) == [F(1, 8), F(1, 8), F(3, 4)]
    assert last.distances[0, 2] == F(1, 2)
    assert last.merges == ((0, 1), (0, 2))
    assert result.alpha == (1, F(1, 2), F(1, 4), 0)
    assert open_loop_alpha(lock) == (1, F(1, 2), F(1, 4), F(1, 4))


def test_the_greedy_rule_depends_on_the_order_of_the_actions():
    """Non-transitivity, with a witness: both extreme moves lie within 3/5 of the even one but
    6/5 of each other. With the even move first, both are eliminated into it and the cover
    reaches ``L`` with 1/2 where ``eta(L) = 4/5`` (alpha 5/8); with the ``left`` move first, the
    even one is eliminated into it, ``right`` survives, and alpha is 1."""
    even_first = exact_ppe(three_way_split())
    assert even_first.step(1).distances[0, 1] == even_first.step(1).distances[0, 2] == F(3, 5)
    assert even_first.step(1).distances[1, 2] == F(6, 5)
    assert even_first.step(1).merges == ((0, 1), (0, 2))
    assert even_first.alpha == (1, F(5, 8))
    left_first = exact_ppe(three_way_split(("left", "even", "right")))
    assert left_first.step(1).merges == ((0, 1),)
    assert left_first.step(1).kept_paths == (("a1",), ("a3",))
    assert left_first.alpha == (1, 1)


def test_a_distance_of_exactly_five_eighths_is_not_merged():
    """The code's comparison is strict (``sim < elim_param``)."""
    def split(far):
        return block_mdp("boundary", layers=[["s"], ["L", "R"]], actions=["a1", "a2"],
                         start={"s": 1}, transitions={"s": {"a1": {"L": "1/2", "R": "1/2"},
                                                            "a2": {"L": far, "R": 1 - far}}})
    assert exact_ppe(split(F(13, 16))).step(1).kept == (0, 1)
    assert exact_ppe(split(F(13, 16) - F(1, 1000))).step(1).kept == (0,)


# --- (2) a deterministic lock ----------------------------------------------------------------

@pytest.mark.parametrize(("horizon", "actions", "seed"), [(4, 2, 0), (5, 3, 1), (3, 4, 2)])
def test_a_deterministic_lock_keeps_one_path_per_reachable_state(horizon, actions, seed):
    """PPE's setting: distances are 0 or 2, so the kept paths reach the layer's states one to
    one (each surely) and alpha = 1. Kills eliminating the lower id, or comparing a kept path
    with the group it absorbed."""
    lock = deterministic_combination_lock(horizon, actions, seed)
    result = exact_ppe(lock)
    for step in result.steps:
        assert len(step.kept) == len(lock.layers[step.layer])
        reached = [lock.layers[step.layer][list(step.distributions[i]).index(1)]
                   for i in step.kept]
        assert sorted(reached) == sorted(lock.layers[step.layer])
        assert set(np.unique(step.distances)) <= {0, 2}
        # the lowest id reaching each state is the one kept
        for i in step.kept:
            same = [j for j in range(len(step.candidates))
                    if list(step.distributions[j]) == list(step.distributions[i])]
            assert i == min(same)
            assert sorted(step.groups[i]) == same
    assert result.alpha == (1,) * horizon


# --- (3) the exogenous lock ------------------------------------------------------------------

def test_exogenous_noise_changes_no_path():
    """The exogenous lock (H = 3, K = 2, seed 0, one bit flipping with 1/10): every gap, merge
    and kept path is the endogenous lock's, since an open-loop path leaves the bit its own
    marginal (module docstring); the distribution of each path is the endogenous one times the
    bit's marginal (1/2, 1/2), and alpha is the endogenous lock's."""
    noisy = exogenous_combination_lock(3, 2, seed=0, bits=1, flip="1/10")
    with_noise, without = exact_ppe(noisy.mdp), exact_ppe(noisy.endogenous)
    for a, b in zip(with_noise.steps, without.steps, strict=True):
        assert a.candidates == b.candidates
        assert (a.gaps == b.gaps).all()
        assert a.merges == b.merges and a.kept == b.kept
        states = noisy.mdp.layers[a.layer]
        for j in range(len(a.candidates)):
            for state, p in zip(states, a.distributions[j], strict=True):
                endogenous, _ = noisy.parts[state]
                k = noisy.endogenous.layers[a.layer].index(endogenous)
                assert p == b.distributions[j][k] / 2
    assert with_noise.alpha == without.alpha == (1, F(1, 2), F(1, 4))


def test_a_closed_loop_roll_in_would_see_the_noise():
    """Control for the claim above: the open-loop argument is needed. A policy that takes the
    good action at ``s1a`` on bit 0 only (u1 = a2) makes the bit and the endogenous state of
    layer 2 dependent, so its distribution is not a product."""
    noisy = exogenous_combination_lock(3, 2, seed=0, bits=1, flip="1/10")
    reader = observation_policy(noisy.mdp, {"s1a|0": "a2"}, default_action="a1")
    visit = state_visitation(noisy.mdp, reader).by_state
    assert visit["s2c|0"] != visit["s2c|1"]


# --- the objective ---------------------------------------------------------------------------

def test_ppe_solution_groups_by_the_posterior_over_all_candidates():
    """Layer 2 of the lock H = 3, K = 3, seed 1: ``s2a``, ``s2b`` share the posterior (0, 1/2,
    1/2), ``s2c`` has (1/2, 1/4, 1/4). The loss is the brute-force Brier loss; merging all
    (one class) costs more. The decoder (argmax over the kept ids 0, 1 of ``f(i|x)``) sends the
    live states to kept path 1 and ``s2c`` to kept path 0."""
    lock = combination_lock(3, 3, seed=1)
    solution = ppe_solution(lock, 1)
    assert solution.objective == "ppe_path_prediction" and solution.layer == 1
    assert list(solution.labels) == [0, 0, 1] and solution.unique
    step = exact_ppe(lock).step(1)
    joint = step.observation_distributions.T / 3
    assert solution.loss == square_loss(joint, [[0], [1], [2]]) == F(7, 12)
    assert square_loss(joint, [[0, 1, 2]]) > solution.loss
    assert step.kept == (0, 1)
    assert list(step.decoder_labels) == [1, 1, 0]
    assert list(np.asarray(step.kept)[step.decoder_labels]) == [1, 1, 0]  # as homer indexes


def test_unreached_observations_stay_alone_as_in_every_objective():
    """``a2`` reaches ``B`` with 1/4 but lies within 1/2 of ``a1`` and is eliminated; ``Y``,
    reached only through ``B``, has no data at the next step: it stays in a class of its own
    (the convention of :mod:`kinematic.counterexamples.predictive`), beside ``Z`` and ``W``,
    and the cover misses ``B`` and ``Y`` (alpha 0 on layers 2 and 3)."""
    mdp = block_mdp("lost-branch", layers=[["s"], ["A", "B"], ["Z", "W", "Y"]],
                    actions=["a1", "a2"], start={"s": 1},
                    transitions={"s": {"a1": {"A": 1}, "a2": {"A": "3/4", "B": "1/4"}},
                                 "A": {"a1": {"Z": 1}, "a2": {"W": 1}},
                                 "B": {"a1": {"Y": 1}, "a2": {"Y": 1}}})
    result = exact_ppe(mdp)
    assert result.step(1).merges == ((0, 1),)
    solution = ppe_solution(mdp, 2)
    assert list(solution.labels) == [0, 1, 2] and solution.unique
    assert solution.loss == 0
    assert result.alpha == (1, 0, 0)
    assert list(result.step(2).decoder_labels) == [0, 1, 0]


def test_the_objective_form_runs_in_homers_loop():
    """``ppe_objective`` ignores the cover: on the deterministic lock HOMER's PSDP with PPE's
    abstraction (one class per reached state) gets alpha 1."""
    lock = deterministic_combination_lock(3, 2, seed=0)
    labels = ppe_objective(lock, [], 2, np.zeros(2, dtype=int))
    assert list(labels) == list(ppe_solution(lock, 2).labels) == [0, 1]
    assert explore_with_objective(lock, ppe_objective).alpha == (1, 1, 1)


# --- the output ------------------------------------------------------------------------------

def test_open_loop_policies_reach_what_the_step_reports():
    lock = combination_lock(4, 3, seed=1)
    result = exact_ppe(lock)
    for step, cover in zip(result.steps, result.covers[1:], strict=True):
        for i, policy in zip(step.kept, cover, strict=True):
            assert list(state_visitation(lock, policy)[step.layer]) == list(
                step.distributions[i])
    assert eta(lock)[3][0] == F(1, 2)
    with pytest.raises(ValueError, match=r"^path\[1\] = 'b7' is not an action of "
                                         r"'combolock-H\d-K3-seed1' \(a1, a2, a3\)$"):
        open_loop_policy(lock, ["a1", "b7"])


LOCK_REPORT = """\
PPE with exact oracles on 'combolock-H4-K3-seed1' (K = 3): path j is eliminated into a kept i < j \
when ||P_i - P_j||_1 < 5/8
layer 2: 3 candidate paths; Intrepid's elim_param = 5/24 on gap = ||P_i - P_j||_1 / 3
  kept   0 (a1)  s2a 1/4, s2b 1/4, s2c 1/2
         1 (a2)  s2a 1/4, s2b 1/4, s2c 1/2
  kept   2 (a3)  s2c 1
  ||P_i - P_j||_1 (* below the threshold):
        1   2
    0  0*   1
    1       1
  eliminated: 1 into 0
  cover alpha on layer 2: 1/2
layer 3: 6 candidate paths; Intrepid's elim_param = 5/48 on gap = ||P_i - P_j||_1 / 6
  kept   0 (a1, a1)  s3a 1/8, s3b 1/8, s3c 3/4
         1 (a1, a2)  s3a 1/8, s3b 1/8, s3c 3/4
         2 (a1, a3)  s3c 1
         3 (a3, a1)  s3c 1
         4 (a3, a2)  s3c 1
         5 (a3, a3)  s3c 1
  ||P_i - P_j||_1 (* below the threshold):
         1    2    3    4    5
    0   0* 1/2* 1/2* 1/2* 1/2*
    1      1/2* 1/2* 1/2* 1/2*
    2             0*   0*   0*
    3                  0*   0*
    4                       0*
  eliminated: 1 into 0, 2 into 0, 3 into 0, 4 into 0, 5 into 0
  cover alpha on layer 3: 1/4
layer 4: 3 candidate paths; Intrepid's elim_param = 5/24 on gap = ||P_i - P_j||_1 / 3
  kept   0 (a1, a1, a1)  s4c 1
         1 (a1, a1, a2)  s4c 1
         2 (a1, a1, a3)  s4a 1/8, s4b 1/8, s4c 3/4
  ||P_i - P_j||_1 (* below the threshold):
         1    2
    0   0* 1/2*
    1      1/2*
  eliminated: 1 into 0, 2 into 0
  cover alpha on layer 4: 0"""


def test_the_report_names_paths_states_merges_and_alpha():
    """The whole report of the H = 4 lock: each step's candidates (kept ones marked) with their
    state distributions, the distances (* below 5/8), the eliminations, the cover's alpha."""
    assert str(exact_ppe(combination_lock(4, 3, seed=1))) == LOCK_REPORT


def spread(actions: int, twins: bool = True):
    """One step, action ``ak`` to state ``tk``, but ``a3`` to ``t1`` 11/16, ``t2`` 5/16
    (``||P_3 - P_1||_1 = 5/8``, the threshold itself: not below it), and with ``twins``
    ``a2``, ``a4`` to ``t1`` as ``a1``."""
    rows = {f"a{k}": {f"t{k}": 1} for k in range(1, actions + 1)}
    rows["a3"] = {"t1": "11/16", "t2": "5/16"}
    if twins:
        rows["a2"] = rows["a4"] = {"t1": 1}
    states = sorted({s for row in rows.values() for s in row}, key=lambda s: int(s[1:]))
    return block_mdp(f"spread{actions}", [["s"], states], list(rows), {"s": 1}, {"s": rows})


def test_the_distances_as_a_matrix_up_to_12_candidates_then_as_the_pairs_below_the_threshold():
    """A distance equal to the threshold is neither starred nor listed (elimination needs
    ``<``); 12 candidates still get the matrix, 13 the list of close pairs, or "none"."""
    assert str(exact_ppe(spread(4))).splitlines()[7:11] == [
        "        1   2   3",
        "    0  0* 5/8  0*",
        "    1     5/8  0*",
        "    2         5/8"]
    twelve = str(exact_ppe(spread(12))).splitlines()
    assert twelve[14:17] == ["  ||P_i - P_j||_1 (* below the threshold):",
                             "        1   2   3   4   5   6   7   8   9  10  11",
                             "    0  0* 5/8  0*   2   2   2   2   2   2   2   2"]
    assert twelve[-3] == "   10                                           2"
    thirteen = str(exact_ppe(spread(13))).splitlines()
    assert thirteen[-3:] == [
        "  pairs with ||P_i - P_j||_1 below the threshold: 0-1: 0, 0-3: 0, 1-3: 0",
        "  eliminated: 1 into 0, 3 into 0",
        "  cover alpha on layer 2: 1"]
    apart = exact_ppe(spread(13, twins=False))
    assert str(apart).splitlines()[-3:-1] == [
        "  pairs with ||P_i - P_j||_1 below the threshold: none", "  eliminated: none"]
    assert repr(apart.step(1)) == ("<PPEStep layer 2: 13 candidates, kept 0, 1, 2, 3, 4, 5, 6, "
                                   "7, 8, 9, 10, 11, 12; eliminated none>")


def test_ipython_shows_the_report():
    class Printer:  # IPython's pretty printer, as _repr_pretty_ uses it
        def text(self, text):
            self.shown = text

    printer = Printer()
    result = exact_ppe(combination_lock(4, 3, seed=1))
    result._repr_pretty_(printer, False)
    assert printer.shown == LOCK_REPORT


def test_the_one_line_forms():
    result = exact_ppe(combination_lock(4, 3, seed=1))
    assert repr(result) == ("<PPEResult on 'combolock-H4-K3-seed1': paths kept on layers 2..4: "
                            "2, 1, 1; alpha per layer: 1, 1/2, 1/4, 0>")
    assert repr(result.step(3)) == ("<PPEStep layer 4: 3 candidates, kept 0; eliminated 1 "
                                    "into 0, 2 into 0>")


def test_float_mode_is_refused():
    with pytest.raises(ValueError, match="exact-mode"):
        exact_ppe(with_float_numbers(combination_lock(3, 2, seed=0)))


def test_open_loop_alpha_refuses_float_mode_in_words():
    with pytest.raises(ValueError, match=r"^open_loop_alpha needs an exact-mode MDP; "
                                         r"'combolock-H3-K2-seed0' is in float mode$"):
        open_loop_alpha(with_float_numbers(combination_lock(3, 2, seed=0)))


def test_a_layer_without_a_step_and_a_path_too_long_are_refused_in_words():
    lock = combination_lock(4, 3, seed=1)
    result = exact_ppe(lock)
    for layer in (0, 4):
        with pytest.raises(ValueError, match=rf"^layer must lie in 1\.\.3, got {layer}$"):
            result.step(layer)
    assert len(open_loop_policy(lock, ["a1"] * 3).action_probabilities) == 4
    with pytest.raises(ValueError, match=r"^path has 4 actions; the MDP 'combolock-H4-K3-seed1' "
                                         r"has 4 layers, so at most 3$"):
        open_loop_policy(lock, ["a1"] * 4)


def test_an_eliminated_path_eliminates_nothing_but_the_later_ones_still_do():
    """0 eliminates 1; 1 is skipped (eliminated paths are never compared again), and 2 still
    eliminates 3."""
    gaps = np.array([[0, 0.1, 1, 1], [0.1, 0, 1, 1], [1, 1, 0, 0.1], [1, 1, 0.1, 0]])
    assert eliminate_paths(gaps, 0.2) == ([(0, 1), (2, 3)], [0, 2])


def test_ppe_solution_uses_the_candidates_of_its_elimination_constant():
    """With c = 0 nothing is eliminated: layer 3 of the H = 3, K = 3 lock has 9 candidates
    (6 with c = 5/8), and the loss is the Bayes-optimal loss of predicting which of the 9."""
    lock = combination_lock(3, 3, seed=1)
    step = exact_ppe(lock, F(0)).step(2)
    assert len(step.candidates) == 9 and len(exact_ppe(lock).step(2).candidates) == 6
    joint = step.observation_distributions.T / 9
    solution = ppe_solution(lock, 2, F(0))
    classes = [np.flatnonzero(solution.labels == label) for label in np.unique(solution.labels)]
    assert solution.loss == square_loss(joint, classes) == F(251, 288)
    assert ppe_solution(lock, 2).loss == F(53, 66)

"""AC-State's and ACDF's objectives solved exactly (kinematic.counterexamples.acdf,
acdf_layered, partition_search) against independent brute force: encoders enumerated by a
recursive generator, population losses summed over every trajectory of the MDP (or every action
sequence of the chain), and ACDF's own code's tables (test_exogenous_examples' transcription)."""

import itertools
import math
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest

from kinematic.counterexamples.acdf import (
    ACDF_GROUND_TRUTH,
    acdf_chain,
    chain_period,
    classify_encoder,
    k_step_joints,
    population_experiment,
    population_losses,
    stationary_distribution,
)
from kinematic.counterexamples.acdf_layered import (
    ac_state_objective,
    ac_state_solution,
    acdf_objective,
    acdf_solution,
    layered_solutions,
    pair_joint,
)
from kinematic.counterexamples.exploration import explore_with_objective, state_groups
from kinematic.counterexamples.mdps import curiosity_counterexample
from kinematic.counterexamples.objectives import (
    inverse_dynamics_posteriors,
    transition_distribution,
)
from kinematic.counterexamples.partition_search import (
    keeps_posteriors,
    partition_name,
    posterior_ids,
    set_partitions,
)
from kinematic.model import block_mdp
from kinematic.policies import uniform_policy
from kinematic.spec import to_spec
from kinematic.visitation import observation_visitation
from tests.kinematic.test_exogenous_examples import CODE_MOVES, expected_row


def partitions(items: list[int]):
    """Every set partition of ``items`` as a list of blocks (recursive; independent of
    set_partitions' restricted growth strings)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for smaller in partitions(rest):
        for i in range(len(smaller)):
            yield [*smaller[:i], [first, *smaller[i]], *smaller[i + 1:]]
        yield [[first], *smaller]


def as_labels(blocks: list[list[int]], size: int) -> tuple[int, ...]:
    """Blocks as canonical labels (numbered by first member)."""
    labels = [0] * size
    for number, block in enumerate(sorted(blocks, key=min)):
        for item in block:
            labels[item] = number
    return tuple(labels)


def canonical(labels) -> tuple[int, ...]:
    numbering: dict[int, int] = {}
    return tuple(numbering.setdefault(int(v), len(numbering)) for v in labels)


def trajectories(mdp):
    """Every ``(observations, actions, probability)`` of the uniform policy, from the spec's
    dicts and each state's emissions (no matrix code)."""
    spec = to_spec(mdp)
    index = {x: i for layer in mdp.observations for i, x in enumerate(layer)}
    share = Fraction(1, mdp.number_of_actions)

    def extend(state, depth, observations, actions, p):
        for x, q in mdp.observations_of(state).items():
            seen = (*observations, index[x])
            if depth == mdp.horizon - 1:
                yield seen, actions, p * Fraction(q)
                continue
            for action_index, action in enumerate(mdp.actions):
                for following, t in spec["transitions"][state][action].items():
                    yield from extend(following, depth + 1, seen, (*actions, action_index),
                                      p * Fraction(q) * share * Fraction(t))

    for state, p in spec["start"].items():
        yield from extend(state, 0, (), (), Fraction(p))


def log_loss(table) -> float:
    """``-sum P(key, target) log P(target | key)`` of ``{key: {target: P}}``."""
    total = 0.0
    for row in table.values():
        mass = sum(row.values())
        total -= sum(float(p) * math.log(p / mass) for p in row.values() if p)
    return total


def brute_joint_loss(paths, product, k_max, objective) -> float:
    """The layered loss of one product of encoders, by a sum over trajectories."""
    total = 0.0
    horizon = len(product)
    for h in range(horizon - 1):
        for k in range(1, min(k_max, horizon - 1 - h) + 1):
            table = defaultdict(lambda: defaultdict(Fraction))
            for xs, acts, p in paths:
                table[product[h][xs[h]], product[h + k][xs[h + k]]][acts[h]] += p
            total += log_loss(table)
        if objective == "acdf":
            table = defaultdict(lambda: defaultdict(Fraction))
            for xs, acts, p in paths:
                table[product[h][xs[h]], acts[h]][product[h + 1][xs[h + 1]]] += p
            total += log_loss(table)
    return total


def brute_coarsest(losses: dict) -> tuple[set, float]:
    """The minimisers (within 1e-9) with the fewest classes, and the minimum."""
    best = min(losses.values())
    minimal = [key for key, value in losses.items() if value <= best + 1e-9]
    fewest = min(sum(max(labels) + 1 for labels in key) for key in minimal)
    return {key for key in minimal if sum(max(labels) + 1 for labels in key) == fewest}, best


def emitting_mdp():
    """Three layers, a start state with two observations, a stochastic move, a state pair
    that only the multi-step posterior separates."""
    return block_mdp(
        "emitting", [["s"], ["l", "r"], ["u", "v"]], ["a", "b"], {"s": 1},
        {"s": {"a": {"l": "2/3", "r": "1/3"}, "b": {"r": 1}},
         "l": {"a": {"u": 1}, "b": {"v": 1}}, "r": {"a": {"u": "1/2", "v": "1/2"},
                                                    "b": {"v": 1}}},
        emissions={"s": {"s1": "1/4", "s2": "3/4"}, "l": {"l1": "1/2", "l2": "1/2"}})


@pytest.mark.parametrize("mdp", [curiosity_counterexample(), emitting_mdp()],
                         ids=["curiosity", "emitting"])
@pytest.mark.parametrize("objective", ["ac_state", "acdf"])
@pytest.mark.parametrize("k_max", [1, 2])
def test_joint_form_agrees_with_a_sum_over_trajectories(mdp, objective, k_max):
    # kills: a pair, a k or the forward term left out or misplaced; a wrong posterior check;
    # coarsest by the wrong count; uniqueness miscounted
    paths = list(trajectories(mdp))
    per_layer = [[as_labels(blocks, len(x)) for blocks in partitions(list(range(len(x))))]
                 for x in mdp.observations]
    losses = {product: brute_joint_loss(paths, product, k_max, objective)
              for product in itertools.product(*per_layer)}
    expected, best = brute_coarsest(losses)
    solutions = layered_solutions(mdp, objective, k_max)
    found = tuple(canonical(s.labels) for s in solutions)
    assert found in expected
    assert all(s.unique == (len(expected) == 1) for s in solutions)
    assert sum(s.loss for s in solutions) == pytest.approx(best, abs=1e-12)


def brute_layer_loss(paths, layer, previous, labels, k_max, objective, horizon,
                     earlier=()) -> float:
    """The per-layer form's terms (acdf_layered's docstring), summed over trajectories: the
    inverse terms weighted 1/K, the earlier layers' backward terms with ``earlier`` (the
    labels of layers ``layer - 2, layer - 3, ...``)."""
    tables = defaultdict(lambda: defaultdict(Fraction))
    weight = Fraction(1, k_max)
    for xs, acts, p in paths:
        tables["backward", previous[xs[layer - 1]], labels[xs[layer]]][acts[layer - 1]] += \
            p * weight
        for k, before in enumerate(earlier[:max(0, min(k_max, layer) - 1)], start=2):
            tables["earlier", k, before[xs[layer - k]], labels[xs[layer]]][acts[layer - k]] += \
                p * weight
        if objective == "acdf":
            tables["target", previous[xs[layer - 1]], acts[layer - 1]][labels[xs[layer]]] += p
        for k in range(1, min(k_max, horizon - 1 - layer) + 1):
            tables["ahead", k, labels[xs[layer]], xs[layer + k]][acts[layer]] += p * weight
            if objective == "acdf" and k == 1:
                tables["model", labels[xs[layer]], acts[layer]][xs[layer + 1]] += p
    return log_loss(tables)


@pytest.mark.parametrize("mdp", [curiosity_counterexample(), emitting_mdp()],
                         ids=["curiosity", "emitting"])
@pytest.mark.parametrize("objective", ["ac_state", "acdf"])
@pytest.mark.parametrize("k_max", [1, 2])
def test_per_layer_form_agrees_with_a_sum_over_trajectories(mdp, objective, k_max):
    paths = list(trajectories(mdp))
    solve = ac_state_solution if objective == "ac_state" else acdf_solution
    for layer in range(1, mdp.horizon):
        for previous_blocks in partitions(list(range(len(mdp.observations[layer - 1])))):
            previous = as_labels(previous_blocks, len(mdp.observations[layer - 1]))
            size = len(mdp.observations[layer])
            losses = {(as_labels(blocks, size),): brute_layer_loss(
                paths, layer, previous, as_labels(blocks, size), k_max, objective,
                mdp.horizon) for blocks in partitions(list(range(size)))}
            expected, best = brute_coarsest(losses)
            solution = solve(mdp, [], layer, np.array(previous), k_max)
            assert (canonical(solution.labels),) in expected
            assert solution.unique == (len(expected) == 1)
            assert solution.loss == pytest.approx(best, abs=1e-12)
            assert (solution.objective, solution.layer) == (objective, layer)


def test_one_step_posterior_is_the_inverse_dynamics_posterior():
    # kills: a k-step joint off by one layer or one step, the visitation of the wrong layer
    for mdp in (curiosity_counterexample(), emitting_mdp()):
        visitation = observation_visitation(mdp, uniform_policy(mdp))
        for layer in range(1, mdp.horizon):
            joint = pair_joint(mdp, np.asarray(visitation[layer - 1]), layer - 1, 1)
            inverse = transition_distribution(mdp, [], layer)
            assert (joint == inverse).all()
            posteriors = inverse_dynamics_posteriors(inverse)
            ids = posterior_ids(joint)
            for (x, y), posterior in posteriors.items():
                column = joint[x, :, y]
                assert tuple(column / column.sum()) == posterior
                same = {key for key, value in posteriors.items() if value == posterior}
                assert same == set(zip(*np.nonzero(ids == ids[x, y]), strict=True))
            assert (ids >= 0).sum() == len(posteriors)


def test_set_partitions_are_every_partition_once():
    for size in range(1, 8):
        found = [tuple(row) for row in set_partitions(size)]
        assert len(found) == len(set(found))
        assert set(found) == {as_labels(blocks, size)
                              for blocks in partitions(list(range(size)))}
    with pytest.raises(ValueError, match="more than 1000 partitions"):
        set_partitions(8, limit=1000)  # Bell(8) = 4140


def test_keeps_posteriors_grid_is_the_row_by_row_answer():
    joint = transition_distribution(emitting_mdp(), [], 2)
    ids = posterior_ids(joint)
    left, right = set_partitions(joint.shape[0]), set_partitions(joint.shape[2])
    grid = keeps_posteriors(ids, left, right, grid=True)
    rows = keeps_posteriors(ids, np.repeat(left, len(right), axis=0),
                            np.tile(right, (len(left), 1)))
    assert (grid.reshape(-1) == rows).all()
    assert grid.any() and not grid.all()


def test_joint_search_refuses_beyond_its_limit():
    from kinematic.exogenous_examples import acdf_periodic_example

    with pytest.raises(ValueError, match="115975 x 115975 products"):
        layered_solutions(acdf_periodic_example(horizon=2).mdp)


def test_curiosity_in_the_loop_and_jointly():
    # the joint form with K = 2 separates s7 from s8 (through the pair of layers 1 and 3); in
    # HOMER's loop the objective gets the previous layer's abstraction only, so at the last
    # layer (no later layer) only k = 1's backward term is left and AC-State merges them; ACDF,
    # its inverse terms weighted 1/K against the forward term, merges s9 with them too
    mdp = curiosity_counterexample()
    joint = layered_solutions(mdp, "ac_state", 2)
    assert state_groups(mdp, 2, joint[2].labels) == [["s7"], ["s8"], ["s9"]]
    assert state_groups(mdp, 0, joint[0].labels) == [["s1"], ["s2"]]
    for objective, last in ((ac_state_objective(2), [["s7", "s8"], ["s9"]]),
                            (acdf_objective(2), [["s7", "s8", "s9"]])):
        found = explore_with_objective(mdp, objective)
        assert state_groups(mdp, 2, found.labels[2]) == last
        assert found.worst_case_alpha[2] == 0
    with pytest.raises(ValueError, match="k_max must be at least 1"):
        ac_state_objective(0)


# --- the stationary experiment (acdf.py) ---


@pytest.mark.parametrize("name", list(CODE_MOVES))
def test_chain_is_the_codes(name):
    chain = acdf_chain(name)
    for o in range(10):
        for action in (0, 1):
            row = {y: chain[o, action, y] for y in range(10) if chain[o, action, y]}
            assert row == expected_row(name, o, action)


@pytest.mark.parametrize("name", list(CODE_MOVES))
def test_stationary_distribution_is_the_cesaro_limit(name):
    # kills: a left/right eigenvector mix-up, a wrong normalisation; the periodic example's
    # distribution at time t does not converge, its running average does
    chain = acdf_chain(name)
    uniform = chain.sum(axis=1) / 2
    pi = stationary_distribution(uniform)
    assert sum(pi) == 1 and (pi.dot(uniform) == pi).all()
    floats = np.asarray(uniform, dtype=float)
    mu, average = np.full(10, 0.1), np.zeros(10)
    steps = 3000
    for _ in range(steps):
        average += mu / steps
        mu = mu @ floats
    assert np.allclose(average, np.asarray(pi, dtype=float), atol=1e-2)
    assert chain_period(uniform) == (3 if name == "periodic_example" else 1)
    if name == "periodic_example":
        assert not np.allclose(mu, mu @ floats, atol=1e-2)


def test_k_step_joints_by_action_sequences():
    chain = acdf_chain("periodic_example")
    pi = stationary_distribution(chain.sum(axis=1) / 2)
    joints = k_step_joints(chain, 3)
    for k, joint in enumerate(joints, start=1):
        expected = np.full(joint.shape, Fraction(0), dtype=object)
        for x in range(10):
            for actions in itertools.product((0, 1), repeat=k):
                reach = {x: pi[x] / 2 ** k}
                for action in actions:
                    following: dict[int, Fraction] = defaultdict(Fraction)
                    for state, p in reach.items():
                        for y in range(10):
                            following[y] += p * chain[state, action, y]
                    reach = following
                for y, p in reach.items():
                    expected[x, actions[0], y] += p
        assert (joint == expected).all()


def test_population_losses_by_direct_sums():
    # a sample of encoders: the vectorised entropies against sums over (x, a, y)
    chain = acdf_chain("control_example")
    joints = k_step_joints(chain, 2)
    encoders = set_partitions(10)[::997]
    inverse, keeps, forward, deterministic = population_losses(joints, encoders)
    for e, labels in enumerate(encoders):
        for k, joint in enumerate(joints):
            table = defaultdict(lambda: defaultdict(Fraction))
            for x, a, y in zip(*np.nonzero(joint), strict=True):
                table[labels[x], labels[y]][a] += joint[x, a, y]
            assert inverse[k, e] == pytest.approx(log_loss(table), abs=1e-12)
            fine = {(x, y): tuple(joint[x, :, y] / joint[x, :, y].sum())
                    for x, y in itertools.product(range(10), repeat=2) if joint[x, :, y].sum()}
            kept = all(
                tuple(np.array([table[labels[x], labels[y]][a] for a in (0, 1)], dtype=object)
                      / sum(table[labels[x], labels[y]].values())) == posterior
                for (x, y), posterior in fine.items())
            assert keeps[k, e] == kept
        table = defaultdict(lambda: defaultdict(Fraction))
        for x, a, y in zip(*np.nonzero(joints[0]), strict=True):
            table[labels[x], a][labels[y]] += joints[0][x, a, y]
        assert forward[e] == pytest.approx(log_loss(table), abs=1e-12)
        assert deterministic[e] == all(len(row) == 1 for row in table.values())


def test_classify_encoder_is_their_classify_output():
    truth = ACDF_GROUND_TRUTH["periodic_example"]
    assert classify_encoder(truth, truth) == "correct"
    assert classify_encoder(np.arange(10), truth) == "too many states"
    assert classify_encoder(np.array([0, 0, 1, 2, 3] * 2), truth) == "incorrect"
    assert classify_encoder(np.array([3, 1, 2, 0, 4] * 2), truth) == "correct"
    assert classify_encoder(np.array([0, 1, 2, 3, 4, 5, 1, 2, 3, 4]), truth) == "too many states"
    assert classify_encoder(truth, ACDF_GROUND_TRUTH["double_prime_loop"]) == "incorrect"


PAIRS = "0,5|1,6|2,7|3,8|4,9"
SINGLETONS = "0|1|2|3|4|5|6|7|8|9"


def summary(result):
    """Per K: (AC-State's coarsest exact minimisers (names if at most 4, else their number),
    ACDF's), the classes and verdicts of each."""
    def names(row):
        return row.names if len(row.names) <= 4 else len(row.names)
    rows = result.exact
    return [(names(ac), ac.classes, ac.verdict, names(acdf), acdf.classes, acdf.verdict)
            for ac, acdf in zip(rows[::2], rows[1::2], strict=True)]


def test_periodic_example_exactly():
    # does periodic_example behave as reported? AC-State's minimiser merges endogenous states at
    # every K <= 4; ACDF's is the endogenous partition from K = 2 on, but at K = 1 it merges 2
    # and 4
    result = population_experiment("periodic_example")
    three = ("0,1,5,6|2,7|3,4,8,9", "0,3,5,8|1,2,6,7|4,9", "0,5|1,2,6,7|3,4,8,9",
             "0,5|1,4,6,9|2,3,7,8")
    assert result.period == 3
    assert summary(result) == [
        (91, 3, "incorrect", ("0,5|1,6|2,4,7,9|3,8",), 4, "incorrect"),
        *[(three, 3, "incorrect", (PAIRS,), 5, "correct")] * 3]
    assert all(row.decided == "exact" for row in result.exact)
    assert [(row.names, row.verdict) for row in result.tolerance_rule] == [
        (row.names, row.verdict) for row in result.exact]
    assert partition_name(result.exact[3].encoders[0]) == result.exact[3].names[0]
    lines = str(result).splitlines()  # what a notebook prints, not the arrays
    assert lines[0] == "periodic_example at its population limit (period 3):"
    assert lines[1].split() == ["K=1", "ac_state", "incorrect", "3", "classes",
                                "0,1,5,6|2,4,7,9|3,8", "(one", "of", "91)"]
    assert lines[4].split()[:5] == ["K=2", "acdf", "correct", "5", "classes"]
    assert len(repr(result)) < 100


@pytest.mark.slow
@pytest.mark.no_mutants  # 30 s per mutant; test_exogenous_examples builds these examples in 1 s
def test_other_examples_exactly():
    # an exact enumeration of 30 s (the double prime loop's K up to 30), not a learning run
    control = population_experiment("control_example")
    assert summary(control)[0][1:] == (4, "incorrect", (PAIRS,), 5, "correct")
    assert summary(control)[1:] == [((PAIRS,), 5, "correct", (PAIRS,), 5, "correct")] * 3
    single = summary(population_experiment("single_prime_loop"))
    assert [row[1:3] for row in single] == [(3, "incorrect")] * 3 + [(4, "incorrect")] * 3 + [
        (5, "correct")]
    assert all(row[3:] == ((PAIRS,), 5, "correct") for row in single)
    double = population_experiment("double_prime_loop")
    rows = summary(double)
    assert [row[1] for row in rows[:16]] == [3, 3, 3, 4, 4, 4] + [5] * 6 + [7, 8, 8, 9]
    assert all(row[2] == "incorrect" for row in rows[:16])
    assert rows[16:] == [((SINGLETONS,), 10, "correct", (SINGLETONS,), 10, "correct")] * 14
    assert all(row[3:] == ((PAIRS,), 5, "incorrect") for row in rows[:12])
    assert all(row[3:] == ((SINGLETONS,), 10, "correct") for row in rows[12:])
    rule = {row.k: row for row in double.tolerance_rule if row.objective == "ac_state"}
    assert [k for k in range(17, 31) if rule[k].verdict == "incorrect"] == [17, 18, 19, 21]
    # where a 9-class encoder comes within their 0.001 of the exact minimum
    margins = {row.k: row.coarser_margin for row in double.exact if row.objective == "ac_state"}
    assert [k for k in range(17, 31) if margins[k] < 0.001] == [17, 18, 19, 21]
    assert control.exact[0].loss == 0 and control.exact[0].coarser_margin == math.inf


def test_per_layer_search_refuses_a_layer_beyond_eleven_observations():
    wide = block_mdp("wide", [["s"], [f"t{i}" for i in range(12)]], ["a"], {"s": 1},
                     {"s": {"a": {f"t{i}": Fraction(1, 12) for i in range(12)}}})
    with pytest.raises(ValueError, match="wide: layer 2 has 12 observations, more than 11"):
        acdf_solution(wide, [], 1, np.array([0]))
    with pytest.raises(ValueError, match=r"1 x 4213597 products"):
        layered_solutions(wide)


@pytest.mark.parametrize("objective", ["ac_state", "acdf"])
def test_per_layer_form_counts_the_earlier_layers_gaps(objective):
    """With the earlier layers' abstractions (as the catalogue passes them) the terms of the
    gaps k >= 2 that end at the layer count: on the curiosity MDP at K = 2, the gap from the
    start layer keeps s7 apart from s8 when layer 1's abstraction keeps s1 apart from s2 (as
    the joint form's does), and the brute force over trajectories agrees."""
    mdp = curiosity_counterexample()
    paths = list(trajectories(mdp))
    solve = ac_state_solution if objective == "ac_state" else acdf_solution
    start = [0, 1]  # {s1} {s2}
    previous = [0, 0, 1, 1]  # {s3, s4} {s5, s6}
    size = len(mdp.observations[2])
    losses = {(as_labels(blocks, size),): brute_layer_loss(
        paths, 2, previous, as_labels(blocks, size), 2, objective, mdp.horizon, [start])
        for blocks in partitions(list(range(size)))}
    expected, best = brute_coarsest(losses)
    solution = solve(mdp, [], 2, np.array(previous), 2, earlier_labels=[np.array(start)])
    assert (canonical(solution.labels),) in expected
    assert solution.loss == pytest.approx(best, abs=1e-12)
    if objective == "ac_state":
        assert len(set(solution.labels.tolist())) == 3  # s7, s8, s9 apart
        without = solve(mdp, [], 2, np.array(previous), 2)
        assert len(set(without.labels.tolist())) == 2  # k = 1's terms alone merge s7 and s8


def test_the_exhaustive_search_refuses_in_words_and_takes_exactly_its_limit():
    """Bell(5) = 52 partitions: a limit of 52 lists them, 51 refuses; no partition of nothing;
    row-by-row encoders in pairs only."""
    assert len(set_partitions(5, limit=52)) == 52
    with pytest.raises(ValueError, match=r"^5 observations have more than 51 partitions \(the "
                                         r"limit of an exhaustive search\)$"):
        set_partitions(5, limit=51)
    with pytest.raises(ValueError, match=r"^size must be at least 1, got 0$"):
        set_partitions(0)
    with pytest.raises(ValueError, match=r"^row by row needs as many left as right encoders, got "
                                         r"1 and 2$"):
        keeps_posteriors(np.array([[0, 1]]), np.array([[0, 0]]), np.array([[0, 0], [0, 1]]))


def test_a_pair_without_mass_has_no_posterior_id():
    """``-1`` where ``J(x, ., y) = 0``, as documented."""
    half, zero = Fraction(1, 2), Fraction(0)
    joint = np.array([[[half, zero], [half, zero]]], dtype=object)  # x, a, y
    assert posterior_ids(joint).tolist() == [[0, -1]]

"""The baselines on an H=3 lock with a few hundred episodes: they run, count their episodes,
report exact values within [0, V*]; RND adds its bonus; PCID merges s_{h,a} and s_{h,b}. And
they succeed where they should: PPO and A2C on the H = 1 lock (a contextual bandit), PCID on a
lock whose states are determined by the previous state and action (its assumption)."""

import copy
import tempfile
import time

import gymnasium as gym
import numpy as np
import pytest
import torch

from homer.baselines import pcid
from homer.baselines.actor_critic import run_actor_critic
from homer.baselines.evaluation import BaselineResult, ValueEvaluator
from homer.baselines.pcid import PcidConfig, _Decoder, _fit_linear, run_pcid
from homer.baselines.rnd import RandomNetworkDistillation
from homer.encoders import HadamardNoise
from homer.envs import RichObservationEnv
from homer.evaluate import compare_classes
from homer.sampler import BatchSampler
from kinematic.families import combination_lock, combination_lock_good_actions
from kinematic.inseparability import ki_partition
from kinematic.spec import from_spec, to_spec


@pytest.mark.parametrize("algorithm", ["a2c", "ppo"])
@pytest.mark.parametrize("rnd", [False, True])
def test_actor_critic_runs_its_budget_and_reports_exact_values(algorithm, rnd, tmp_path,
                                                               monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    mdp = combination_lock(3, 10, 0)
    result = run_actor_critic(mdp, algorithm, 300, rnd=rnd,
                              evaluations=3, samples=50)
    assert result.algorithm == algorithm + ("_rnd" if rnd else "")
    assert result.episodes == 300
    assert [episodes for episodes, _ in result.curve] == [100, 200, 300]
    assert all(0 <= value <= result.optimal_value == 1.0 for _, value in result.curve)
    assert result.value == result.curve[-1][1]
    # After 300 episodes no policy has found the lock's reward: the anti-shaped 0.05 remains.
    assert result.episodes_to_half is None and result.value < 0.5
    assert set(result.visitation) == set(mdp.states)
    for layer in mdp.layers:
        assert sum(result.visitation[s] for s in layer) == pytest.approx(1.0, abs=1e-9)
    # No SB3-<time> folder in the temp directory (torch's own torchinductor_<user> cache, made
    # once per user by its optimisers, is torch's and is reused).
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("SB3")] == []


def test_unknown_algorithm_is_rejected():
    with pytest.raises(ValueError, match="unknown algorithm"):
        run_actor_critic(combination_lock(3, 10, 0), "dqn", 10)


def test_rnd_bonus_is_large_on_new_observations_and_shrinks_with_training():
    mdp = combination_lock(3, 10, 0)
    env = RandomNetworkDistillation(RichObservationEnv(mdp, seed=0), coefficient=100.0,
                                    batch=8, seed=0)
    env.reset(seed=0)
    first = env.step(0)
    assert first[1] > first[4]["extrinsic_reward"]
    x = np.asarray(env.reset(seed=1)[0], dtype=np.float32)
    before = env._bonus(x)
    for _ in range(400):
        env._bonus(x)
    assert env._bonus(x) < before / 2


def test_pcid_merges_the_good_states_of_the_lock():
    mdp = combination_lock(6, 10, 0)
    run = run_pcid(mdp)
    assert run.result.episodes > 0 and run.result.value < 0.5
    encoder, rng, partition = HadamardNoise(), np.random.default_rng(0), ki_partition(mdp)
    merged = 0
    for h in range(1, mdp.horizon - 1):  # s_{h,a}, s_{h,b} separable: u_h != v_h here
        ids = np.repeat(np.arange(3), 100)
        learned = run.decoders[h](encoder.encode(mdp, h, ids, rng))
        comparison = compare_classes(mdp, h + 1, "ki", partition.blocks(h + 1), ids, learned)
        assignment = comparison.assignment
        merged += assignment[f"s{h + 1}a"] == assignment[f"s{h + 1}b"]
    assert merged >= 2
    assert len(run.result.abstraction_errors) >= 2  # the same, as the result reports it
    assert set(run.result.summary()) >= {"visitation", "abstraction_errors", "value"}


@pytest.mark.parametrize("algorithm", ["a2c", "ppo"])
def test_actor_critic_learns_the_one_step_lock(algorithm, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = run_actor_critic(combination_lock(1, 10, 0), algorithm, 1000, evaluations=5,
                              samples=50)
    assert result.optimal_value == 1.0
    assert result.value >= 0.8 and result.episodes_to_half <= 800


def deterministic_lock(horizon: int, seed: int):
    """A lock that meets PCID's assumption: from the start ``s1a``, ``u_1`` leads to ``s2a`` and
    ``v_1`` to ``s2b``; afterwards the good action of ``s_{h,a}`` (``s_{h,b}``) leads to
    ``s_{h+1,a}`` (``s_{h+1,b}``), so each state is known from the previous state and action."""
    u, v = combination_lock_good_actions(horizon, 10, seed)
    assert u[0] != v[0]
    spec = to_spec(combination_lock(horizon, 10, seed))
    spec["start"], spec["layers"][0] = {"s1a": "1"}, ["s1a"]
    del spec["transitions"]["s1b"], spec["rewards"]["s1b"]
    spec["transitions"]["s1a"].update({u[0]: {"s2a": "1"}, v[0]: {"s2b": "1"}})
    del spec["rewards"]["s1a"][v[0]]  # v_1 is a good action here, not an anti-shaped one
    for h in range(2, horizon):
        spec["transitions"][f"s{h}a"][u[h - 1]] = {f"s{h + 1}a": "1"}
        spec["transitions"][f"s{h}b"][v[h - 1]] = {f"s{h + 1}b": "1"}
    return from_spec(spec)


def test_pcid_succeeds_where_its_assumption_holds():
    run = run_pcid(deterministic_lock(5, 1))
    assert run.result.optimal_value == 1.0
    assert run.result.value >= 0.95 and run.result.abstraction_errors == []


def test_a_results_summary_names_every_field_and_rounds_the_seconds_to_hundredths():
    result = BaselineResult("ppo_rnd", 0.5, 1.0, 300, 200, 12.3456, curve=[(100, 0.25)],
                            visitation={"s1a": 1.0}, state_visits={"s1a": 300},
                            training_returns=[(100, 0.1)], abstraction_errors=[2])
    assert result.summary() == {
        "algorithm": "ppo_rnd", "value": 0.5, "optimal_value": 1.0, "episodes": 300,
        "episodes_to_half": 200, "seconds": 12.35, "curve": [(100, 0.25)],
        "visitation": {"s1a": 1.0}, "state_visits": {"s1a": 300},
        "training_returns": [(100, 0.1)], "abstraction_errors": [2]}


class _Noise(gym.Env):
    """Float64 observations of 4 normal draws, reward 0, never terminated."""

    observation_space = gym.spaces.Box(-np.inf, np.inf, (4,), np.float64)
    action_space = gym.spaces.Discrete(2)

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def reset(self, *, seed=None, options=None):
        return self.rng.normal(size=4), {}

    def step(self, action):
        return self.rng.normal(size=4), 0.0, False, False, {}


def test_rnd_adds_100_times_the_error_before_one_adam_step_on_every_32_observations():
    """The defaults (the paper's coefficient 100, 100 units, and an Adam step at 1e-3 on every
    32 observations) on float64 observations (read as float32), against torch: 39 steps make
    one predictor step, after the 32nd (a step after the 33rd would change the 33rd bonus)."""
    env = RandomNetworkDistillation(_Noise())
    for network in (env.target, env.predictor):
        assert [type(m) for m in network] == [torch.nn.Linear, torch.nn.ReLU, torch.nn.Linear]
        assert [tuple(m.weight.shape) for m in network[::2]] == [(100, 4), (100, 100)]
    assert not any(p.requires_grad for p in env.target.parameters())
    target, predictor = copy.deepcopy(env.target), copy.deepcopy(env.predictor)
    optimiser = torch.optim.Adam(predictor.parameters(), lr=1e-3)
    env.reset()
    seen = []
    for _ in range(39):
        observation, reward, _, _, info = env.step(0)
        x = torch.from_numpy(observation.astype(np.float32))[None]
        with torch.no_grad():
            error = float(((predictor(x) - target(x)) ** 2).mean())
        assert info["extrinsic_reward"] == 0.0 and reward == pytest.approx(100 * error, rel=1e-5)
        seen.append(x[0])
        if len(seen) == 32:
            optimiser.zero_grad()
            ((predictor(torch.stack(seen)) - target(torch.stack(seen))) ** 2).mean().backward()
            optimiser.step()
            seen.clear()
    for mine, theirs in zip(env.predictor.parameters(), predictor.parameters(), strict=True):
        torch.testing.assert_close(mine, theirs)


def test_rnds_networks_come_from_its_seed_alone():
    """Seed 0 (the default) gives the target recorded here whatever torch's global generator
    (its networks' seed is drawn from a generator seeded with it: below 2**31, 398764591)."""
    targets = []
    for global_seed in (1, 2):
        torch.manual_seed(global_seed)
        targets.append(RandomNetworkDistillation(_Noise()).target)
    for mine, theirs in zip(targets[0].parameters(), targets[1].parameters(), strict=True):
        assert torch.equal(mine, theirs)
    np.testing.assert_allclose(targets[0][0].weight[0, :4].numpy(),
                               [0.42682523, 0.03937703, -0.42364579, 0.47668242], rtol=1e-5)


def test_rnd_refuses_observations_without_a_fixed_shape():
    class Described(_Noise):
        observation_space = gym.spaces.Dict({"x": gym.spaces.Discrete(2)})

    with pytest.raises(ValueError, match=r"^random network distillation needs observations of a "
                                         r"fixed shape, not the space Dict\("):
        RandomNetworkDistillation(Described())


def _softmax_policy(mdp):
    """Action probabilities that vary with the encodings: a softmax of a fixed linear map."""
    weights = np.random.default_rng(0).normal(size=(HadamardNoise().rotation(mdp).shape[0],
                                                    mdp.number_of_actions))

    def probabilities(step, encodings):
        logits = encodings @ weights
        exp = np.exp(logits - logits.max(axis=1, keepdims=True))
        return exp / exp.sum(axis=1, keepdims=True)

    return probabilities


def test_a_value_evaluator_draws_its_encodings_from_its_encoder_samples_and_seed():
    """200 samples and seed 0 by default; the value of a policy varying with the encodings
    changes with the seed, the number of samples and the encoder; a policy still learning is
    not kept; a policy's rows are checked naming it "the policy"."""
    mdp = combination_lock(2, 2, seed=0)
    encoder, policy = HadamardNoise(noise_variance=0.05), _softmax_policy(mdp)

    def value(*arguments) -> float:
        return ValueEvaluator(mdp, *arguments).value(policy)

    assert value(encoder) == value(encoder, 200, 0)
    assert len({value(encoder, 200, 0), value(encoder, 201, 0), value(encoder, 200, 1),
                value(HadamardNoise(), 200, 0)}) == 4
    evaluator = ValueEvaluator(mdp, encoder, 20, 3)
    assert evaluator.value(policy) != value(encoder, 20, 0)
    assert not evaluator.latent._latent  # nothing kept
    with pytest.raises(ValueError, match=r"^the policy\(observations, 1\)"):
        evaluator.value(lambda step, encodings: np.full((len(encodings), 2), 0.7))


def test_episodes_to_half_is_the_first_evaluation_of_at_least_half_the_optimal_value():
    evaluator = ValueEvaluator(combination_lock(1, 2, seed=0), HadamardNoise(), 5)
    evaluator.curve = [(10, 0.4), (20, 0.5), (30, 0.9)]
    assert evaluator.optimal_value == 1.0 and evaluator.episodes_to_half() == 20


def test_pcids_decoder_is_the_centre_nearest_to_the_softmax_of_the_linear_model():
    """Logits ``x W^T + b`` shifted by their row's maximum (large logits neither overflow nor
    underflow), normalised per row; the nearest of the centres."""
    centres = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [1.0, 1.0]])
    biased = _Decoder(np.zeros((2, 2)), np.array([0.0, 400.0]), centres)
    assert biased(np.zeros((1, 2))).tolist() == [1]  # probabilities (0, 1)
    linear = _Decoder(np.array([[0.0, 0.0], [1.0, 0.0]]), np.zeros(2), centres)
    assert linear(np.array([[0.0, 0.0], [800.0, 0.0]])).tolist() == [2, 1]  # (.5, .5), (0, 1)
    assert _Decoder(None, None, None)(np.zeros((3, 2))).tolist() == [0, 0, 0]


def test_pcids_linear_model_is_softmax_regression_by_minibatch_sgd():
    """Every epoch a permutation from the generator cut into minibatches of 32 (the last one
    smaller), one SGD step at 0.03 on each, from a torch Linear initialised under a seed drawn
    from the same generator: as written out here."""
    rng = np.random.default_rng(0)
    x, labels = rng.normal(size=(70, 5)).astype(np.float32), rng.integers(3, size=70)
    weight, bias = _fit_linear(x, labels, 3, PcidConfig(epochs=2),
                               torch.Generator().manual_seed(4))
    generator = torch.Generator().manual_seed(4)
    with torch.random.fork_rng():
        torch.manual_seed(int(torch.randint(2**31, (1,), generator=generator)))
        model = torch.nn.Linear(5, 3)
    optimiser = torch.optim.SGD(model.parameters(), lr=0.03)
    inputs, targets = torch.from_numpy(x), torch.from_numpy(labels)
    for _ in range(2):
        for batch in torch.randperm(70, generator=generator).split(32):
            optimiser.zero_grad()
            torch.nn.functional.cross_entropy(model(inputs[batch]), targets[batch]).backward()
            optimiser.step()
    np.testing.assert_allclose(weight, model.weight.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(bias, model.bias.detach().numpy(), rtol=1e-6)


def test_pcid_plans_with_the_mean_reward_of_each_action_tried_and_0_for_the_others():
    """H = 1, ten actions, a1 paying 1/2 and the others 2/5: with 6 episodes (seed 3) a1 is
    tried once, a7 twice, a2, a8, a9, a10 never. Sums instead of means would choose a7, an
    untried action's 0 / 0 = nan a2, and means of actions tried twice only a7."""
    actions = [f"a{k}" for k in range(1, 11)]
    bandit = from_spec({
        "name": "bandit", "horizon": 1, "actions": actions, "layers": [["s1"]],
        "start": {"s1": "1"}, "transitions": {},
        "rewards": {"s1": {a: "1/2" if a == "a1" else "2/5" for a in actions}}})
    run = run_pcid(bandit, seed=3, config=PcidConfig(episodes_per_state=6), samples=5)
    assert run.result.value == run.result.optimal_value == 0.5
    assert run.result.episodes == run.result.episodes_to_half == 6


def test_pcids_model_of_an_action_never_tried_leads_nowhere():
    """H = 2, ten actions: a10 leads to g, which pays 1, the others to b, which pays 0. With 6
    episodes (seed 7) a10 is tried once at layer 1 and a2 .. a6 never: their model rows are 0
    (nan rows, or a10's row dropped for one visit, would choose another action than a10)."""
    actions = [f"a{k}" for k in range(1, 11)]
    fork = from_spec({
        "name": "fork", "horizon": 2, "actions": actions, "layers": [["s1"], ["g", "b"]],
        "start": {"s1": "1"},
        "transitions": {"s1": {a: {"g" if a == "a10" else "b": "1"} for a in actions}},
        "rewards": {"g": {a: "1" for a in actions}}})
    run = run_pcid(fork, seed=7, config=PcidConfig(episodes_per_state=6, epochs=5), samples=5)
    assert run.result.value == 1.0


SMALL_PCID = PcidConfig(episodes_per_state=20, epochs=2)


def test_a_pcid_run_reports_what_its_decoders_and_final_policy_give(monkeypatch):
    """Seed 0, sampled rewards and 200 samples per latent observation by default; the result's
    curve, visitation and abstraction errors are those of its final policy and decoders (the
    errors recomputed here on the evaluator's encodings), its seconds within the call's."""
    arguments = {}

    class Sampler(BatchSampler):
        def __init__(self, mdp, encoder, rng, sample_rewards):
            arguments["sample_rewards"] = sample_rewards
            super().__init__(mdp, encoder, rng, sample_rewards)

    class Evaluator(ValueEvaluator):
        def __init__(self, mdp, encoder, samples, seed):
            arguments["evaluator"] = (encoder, samples, seed)
            super().__init__(mdp, encoder, samples, seed)

    monkeypatch.setattr(pcid, "BatchSampler", Sampler)
    monkeypatch.setattr(pcid, "ValueEvaluator", Evaluator)
    mdp = combination_lock(3, 2, seed=0)
    started = time.perf_counter()
    run = run_pcid(mdp, config=SMALL_PCID)
    elapsed = time.perf_counter() - started
    assert arguments == {"sample_rewards": True, "evaluator": (HadamardNoise(), 200, 0)}
    result = run.result
    assert result.algorithm == "pcid" and result.curve == [(result.episodes, result.value)]
    assert result.episodes_to_half == (result.episodes if result.value >= 0.5 else None)
    assert 0 < result.seconds <= elapsed
    assert set(result.visitation) == set(mdp.states)
    for layer in mdp.layers:
        assert sum(result.visitation[s] for s in layer) == pytest.approx(1.0)
    evaluator, partition = ValueEvaluator(mdp, HadamardNoise(), 200, 0), ki_partition(mdp)
    errors = []
    for step in range(1, mdp.horizon + 1):
        ids, encodings = evaluator.encoded.step(step)
        if compare_classes(mdp, step, "ki", partition.blocks(step), ids,
                           run.decoders[step - 1](encodings)).wrong_merges:
            errors.append(step)
    assert errors[0] == 1  # layer 1 is one abstract state, which the result leaves out
    assert result.abstraction_errors == errors[1:] != []


def test_a_pcid_run_depends_on_its_seed_alone():
    mdp, runs = combination_lock(3, 2, seed=0), []
    for global_seed in (1, 2):
        torch.manual_seed(global_seed)
        np.random.seed(global_seed)
        runs.append(run_pcid(mdp, seed=5, config=SMALL_PCID, samples=5))
    first, second = runs
    assert first.result.value == second.result.value
    for mine, theirs in zip(first.decoders[1:], second.decoders[1:], strict=True):
        assert np.array_equal(mine.weight, theirs.weight)
        assert np.array_equal(mine.centres, theirs.centres)

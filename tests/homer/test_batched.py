"""The batched A2C / PPO (+RND): gradients, optimiser, learning, checkpoints."""

from __future__ import annotations

import copy
import functools
import json
import re
import time
from dataclasses import asdict
from typing import Any

import numpy as np
import pytest
import torch

from homer.baselines import batched
from homer.baselines.actor_critic import run_actor_critic
from homer.baselines.batched import (
    BatchedConfig,
    BatchedLearner,
    _BonusNormaliser,
    _Thinned,
    run_batched_baseline,
)
from homer.baselines.batched_checkpoint import (
    CHECKPOINT,
    IDENTITY,
    claim,
)
from homer.baselines.evaluation import ValueEvaluator
from homer.encoders import HadamardNoise
from homer.process_state import process_state
from homer.run_directory import mdp_fingerprint
from homer.run_state import CheckpointError
from homer.safe_files import UnsafePathError
from kinematic.families import combination_lock

SMALL = BatchedConfig(workers=8, ppo_minibatch=10, ppo_epochs=2)


def _autograd_loss(learner: BatchedLearner, network: torch.nn.Module, x, actions, old, returns,
                   advantages) -> torch.Tensor:
    """The loss of DeepRL's agents, written as they write it, for autograd."""
    config = learner.config
    log_probabilities, values = network(x)
    chosen = log_probabilities.gather(1, actions[:, None])[:, 0]
    entropy = -(log_probabilities.exp() * log_probabilities).sum(dim=1).mean()
    if learner.algorithm == "ppo":
        ratio = (chosen - old).exp()
        clipped = ratio.clamp(1 - config.ppo_ratio_clip, 1 + config.ppo_ratio_clip)
        policy = -torch.minimum(ratio * advantages, clipped * advantages).mean()
    else:
        policy = -(chosen * advantages).mean()
    return (policy - config.entropy_bonus * entropy
            + config.value_loss_coefficient * (returns - values).pow(2).mean())


@pytest.mark.parametrize("algorithm", ["a2c", "ppo"])
def test_hand_written_gradients_are_autograds(algorithm):
    learner = BatchedLearner(combination_lock(3, 4, seed=0), algorithm, rnd=True, seed=1,
                             config=SMALL)
    generator = torch.Generator().manual_seed(0)
    n, d = 12, learner.env.dimension
    x = torch.randn(n, d, generator=generator)
    actions = torch.randint(4, (n,), generator=generator)
    old = torch.log(torch.rand(n, generator=generator)) * 0.1 - 1.4  # ratios in and out of clip
    returns, advantages = torch.randn(n, generator=generator), torch.randn(n, generator=generator)
    targets = torch.randn(n, learner.config.rnd_embedding, generator=generator)
    network = copy.deepcopy(learner.network).requires_grad_(True)
    predictor = copy.deepcopy(learner.predictor).requires_grad_(True)
    loss = (_autograd_loss(learner, network, x, actions, old, returns, advantages)
            + (predictor(x) - targets).pow(2).mean())
    loss.backward()
    learner._network_gradient(x.numpy(), actions.numpy(), old.numpy(), returns.numpy(),
                              advantages.numpy())
    learner._predictor_gradient(x.numpy(), targets.numpy())
    for mine, theirs in zip([*learner.network.parameters(), *learner.predictor.parameters()],
                            [*network.parameters(), *predictor.parameters()], strict=True):
        assert theirs.grad is not None and mine.grad is not None
        torch.testing.assert_close(mine.grad, theirs.grad, rtol=1e-4, atol=1e-7)


def test_a_flat_step_is_torchs_rmsprop_after_torchs_gradient_clipping():
    learner = BatchedLearner(combination_lock(3, 2, seed=0), "ppo", seed=0, config=SMALL)
    network = copy.deepcopy(learner.network).requires_grad_(True)
    reference = torch.optim.RMSprop(network.parameters(), lr=learner.config.learning_rate)
    generator = torch.Generator().manual_seed(3)
    for _ in range(3):
        gradients = [torch.randn(p.shape, generator=generator) * 3 for p in network.parameters()]
        for mine, theirs, g in zip(learner.network.parameters(), network.parameters(), gradients,
                                   strict=True):
            assert mine.grad is not None
            mine.grad.copy_(g)
            theirs.grad = g.clone()
        torch.nn.utils.clip_grad_norm_(network.parameters(), 5.0)
        reference.step()
        learner.optimiser.clip(learner.network_part, 5.0)
        learner.optimiser.step(learner.network_part)
    for mine, theirs in zip(learner.network.parameters(), network.parameters(), strict=True):
        torch.testing.assert_close(mine, theirs, rtol=1e-5, atol=1e-7)
    assert learner.optimiser.square_average.dtype == np.float32  # as the parameters
    assert not torch.equal(learner.network.heads.weight, BatchedLearner(
        combination_lock(3, 2, seed=0), "ppo", seed=0, config=SMALL).network.heads.weight)


def _checkpoint(run_dir) -> dict[str, np.ndarray]:
    with np.load(run_dir / CHECKPOINT, allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}


RUN: dict[str, Any] = {"algorithm": "ppo", "episodes": 48, "rnd": True, "seed": 2, "config": SMALL,
       "evaluate_every": 16, "checkpoint_every": 1}


def _interrupt_after(monkeypatch, updates: int) -> dict[str, int]:
    """Make every batched run raise ``KeyboardInterrupt`` at its update ``updates + 1``; the
    returned counter of updates started can be set far below 0 to stop the interruptions and
    count the updates a resumed run makes."""
    update, calls = BatchedLearner.update, {"n": 0}

    def interrupted(self):
        calls["n"] += 1
        if calls["n"] > updates:
            raise KeyboardInterrupt
        update(self)

    monkeypatch.setattr(BatchedLearner, "update", interrupted)
    return calls


def test_a_run_interrupted_and_resumed_ends_as_the_uninterrupted_run(tmp_path, monkeypatch):
    mdp = combination_lock(3, 2, seed=0)
    whole = run_batched_baseline(mdp, run_dir=tmp_path / "whole", **RUN)
    calls = _interrupt_after(monkeypatch, 3)
    with pytest.raises(KeyboardInterrupt):
        run_batched_baseline(mdp, run_dir=tmp_path / "parts", **RUN)
    assert _checkpoint(tmp_path / "parts")["curve"].shape == (1, 2)  # 24 episodes: one value
    calls["n"] = -100  # no more interruptions; count the updates the resumed run makes
    resumed = run_batched_baseline(mdp, run_dir=tmp_path / "parts", **RUN)
    assert calls["n"] == -100 + 3  # it resumed after 3 of its 6 updates
    first, second = _checkpoint(tmp_path / "whole"), _checkpoint(tmp_path / "parts")
    assert first.keys() == second.keys()
    for name in first:
        if name != "metadata":  # it holds the seconds run
            assert np.array_equal(first[name], second[name]), name
    assert resumed.curve == whole.curve and resumed.state_visits == whole.state_visits
    assert resumed.training_returns == whole.training_returns
    assert len(whole.curve) == 3 and whole.episodes == 48


def test_resuming_with_another_seed_or_configuration_is_refused(tmp_path):
    mdp = combination_lock(3, 2, seed=0)
    run_batched_baseline(mdp, run_dir=tmp_path, **{**RUN, "episodes": 8})
    with pytest.raises(ValueError, match="seed differs"):
        run_batched_baseline(mdp, run_dir=tmp_path, **{**RUN, "seed": 3})
    with pytest.raises(ValueError, match="config differs"):
        run_batched_baseline(mdp, run_dir=tmp_path,
                             **{**RUN, "config": BatchedConfig(workers=8, ppo_epochs=3)})
    with pytest.raises(ValueError, match="mdp, mdp_sha256 differ"):
        run_batched_baseline(combination_lock(3, 2, seed=1), run_dir=tmp_path, **RUN)


@pytest.mark.parametrize(("change", "message"), [
    (lambda arrays: arrays.pop("square_average"), "entry 'square_average' is missing"),
    (lambda arrays: arrays.update(parameters=arrays["parameters"][:-1]),
     "entry 'parameters' is float32 of shape"),
    (lambda arrays: arrays.update(extra=np.zeros(1)), "entry 'extra' is not a checkpoint"),
    (lambda arrays: arrays.update(metadata=np.frombuffer(b'{"episodes": 8}', np.uint8)),
     "entry 'metadata' has no field"),
])
def test_a_malformed_checkpoint_is_refused_naming_the_file_and_entry(tmp_path, change, message):
    mdp = combination_lock(3, 2, seed=0)
    run_batched_baseline(mdp, run_dir=tmp_path, **{**RUN, "episodes": 8})
    arrays = _checkpoint(tmp_path)
    change(arrays)
    np.savez(tmp_path / CHECKPOINT, allow_pickle=False, **arrays)
    with pytest.raises(CheckpointError, match=f"{CHECKPOINT}: {message}"):
        run_batched_baseline(mdp, run_dir=tmp_path, **{**RUN, "episodes": 16})


def test_a_checkpoint_that_is_a_symbolic_link_is_refused(tmp_path):
    mdp = combination_lock(3, 2, seed=0)
    run_batched_baseline(mdp, run_dir=tmp_path / "run", **{**RUN, "episodes": 8})
    (tmp_path / "run" / CHECKPOINT).rename(tmp_path / "elsewhere.npz")
    (tmp_path / "run" / CHECKPOINT).symlink_to(tmp_path / "elsewhere.npz")
    with pytest.raises(UnsafePathError, match="symbolic link"):
        run_batched_baseline(mdp, run_dir=tmp_path / "run", **{**RUN, "episodes": 16})


def test_stop_at_half_stops_at_the_first_evaluation_reaching_half_the_optimal_value():
    mdp = combination_lock(3, 2, seed=0)
    result = run_batched_baseline(mdp, "ppo", 5000, seed=0, evaluate_every=100,
                                  stop_at_half=True)
    assert result.episodes_to_half == result.episodes < 1000
    assert result.curve[-1][1] >= result.optimal_value / 2 > max(v for _, v in result.curve[:-1])
    summary = json.loads(json.dumps(result.summary()))
    assert summary["episodes_to_half"] == result.episodes
    assert sum(summary["state_visits"].values()) == result.episodes * mdp.horizon
    assert [e for e, _ in summary["training_returns"]] == list(range(100, result.episodes + 1,
                                                                     100))


def test_the_reference_implementation_solves_the_same_lock_within_the_same_budget():
    """Cross-check: stable-baselines3's PPO (run_actor_critic) also reaches half the optimal
    value of the H = 3 lock within 1000 episodes, as the batched PPO does above."""
    result = run_actor_critic(combination_lock(3, 2, seed=0), "ppo", 1000, seed=0,
                              evaluations=10)
    assert result.episodes_to_half is not None and result.episodes_to_half <= 1000


def test_training_returns_are_thinned_to_at_most_2000_points_keeping_their_mean():
    thinned = _Thinned()
    means = np.random.default_rng(0).random(10_000)
    for update, mean in enumerate(means, start=1):
        thinned.add(100 * update, float(mean))
    curve = thinned.curve()
    assert 1000 <= len(thinned.points) < 2000 and thinned.stride == 8
    assert curve[-1][0] == 100 * len(means) and [e for e, _ in curve] == sorted(
        {e for e, _ in curve})
    whole = len(thinned.points) * thinned.stride  # updates in whole points
    assert np.isclose(np.mean([v for _, v in thinned.points]), means[:whole].mean())


def test_the_last_training_return_is_the_mean_of_the_updates_not_yet_in_a_point():
    thinned = _Thinned(limit=2)
    for update in range(1, 8):
        thinned.add(10 * update, float(update))
    # 1, 2 merged (stride 2); (3, 4) a point, merged with it (stride 4); 5, 6, 7 pending
    assert thinned.points == [(40, 2.5)] and thinned.stride == 4
    assert thinned.curve() == [(40, 2.5), (70, 6.0)]


def test_the_bonus_normaliser_tracks_the_mean_and_variance_of_every_bonus_seen():
    normaliser, rng = _BonusNormaliser(True), np.random.default_rng(1)
    batches = [rng.normal(3.0, 2.0, size=100) for _ in range(20)]
    for batch in batches:
        out = normaliser(batch)
    seen = np.concatenate(batches)
    assert np.isclose(normaliser.mean, seen.mean(), rtol=1e-5)
    assert np.isclose(normaliser.var, seen.var(), rtol=1e-5)
    assert np.allclose(out, (batches[-1] - normaliser.mean) / np.sqrt(normaliser.var + 1e-8))
    assert _BonusNormaliser(False)(batches[0]) is batches[0]


@pytest.mark.parametrize("normalise_bonus", [False, True])
def test_a2c_with_rnd_learns_from_one_gradient_step_per_rollout(normalise_bonus):
    config = BatchedConfig(workers=8, normalise_bonus=normalise_bonus)
    learner = BatchedLearner(combination_lock(3, 2, seed=0), "a2c", rnd=True, seed=0,
                             config=config)
    before = learner.optimiser.data.copy()
    learner.update()
    network, predictor = learner.network_part, learner.predictor_part
    assert not np.array_equal(before[network], learner.optimiser.data[network])
    assert not np.array_equal(before[predictor], learner.optimiser.data[predictor])
    assert learner.episodes == 8 and learner.updates == 1


def test_a_run_directory_holding_a_longer_run_is_refused_for_a_smaller_budget(tmp_path):
    mdp = combination_lock(2, 2, seed=0)
    config = BatchedConfig(workers=4)
    run_batched_baseline(mdp, "a2c", 16, config=config, run_dir=tmp_path, evaluate_every=4)
    with pytest.raises(ValueError, match=r"holds a run of 16 episodes, more than the 8 asked "
                       r"for: use another directory \(or ask for at least as many episodes to "
                       r"continue it\)$"):
        run_batched_baseline(mdp, "a2c", 8, config=config, run_dir=tmp_path, evaluate_every=4)
    again = run_batched_baseline(mdp, "a2c", 16, config=config, run_dir=tmp_path,
                                 evaluate_every=4)
    assert again.episodes == 16  # the same budget reads the finished run back


def test_a_run_reports_its_algorithm_value_curve_and_visitation_and_records_its_identity(
        tmp_path):
    mdp, config = combination_lock(2, 2, seed=0), BatchedConfig(workers=2)
    encoder = HadamardNoise(noise_variance=0.0)
    started = time.perf_counter()
    result = run_batched_baseline(mdp, "a2c", 40, rnd=True, seed=4, run_dir=tmp_path,
                                  encoder=encoder, config=config, sample_rewards=False,
                                  samples=7)
    elapsed = time.perf_counter() - started
    assert result.algorithm == "a2c_rnd" and result.episodes == 40
    assert [e for e, _ in result.curve] == list(range(2, 41, 2))  # every 40 // 20 episodes
    assert result.value == result.curve[-1][1] and result.optimal_value == 1.0
    assert 0 < result.seconds <= elapsed
    for layer in mdp.layers:
        assert sum(result.visitation[s] for s in layer) == pytest.approx(1.0)
    assert sum(result.state_visits.values()) == 40 * mdp.horizon
    identity = json.loads((tmp_path / "identity.json").read_text())
    assert identity == {
        "kind": "batched baseline", "algorithm": "a2c", "rnd": True, "seed": 4,
        "config": json.loads(json.dumps(asdict(config))), "mdp": mdp.name,
        "mdp_sha256": mdp_fingerprint(mdp), "encoder": asdict(encoder), "rewards": "expected",
        "evaluate_every": 2, "samples": 7}
    assert run_batched_baseline(mdp, "ppo", 2, config=config).algorithm == "ppo"
    sampled = run_batched_baseline(mdp, "ppo", 2, config=config, run_dir=tmp_path / "sampled")
    assert sampled.episodes == 2
    assert json.loads((tmp_path / "sampled" / "identity.json").read_text())["rewards"] == (
        "sampled")


@pytest.mark.parametrize("name", ["episodes", "evaluate_every", "checkpoint_every"])
def test_a_run_refuses_a_count_below_one_naming_it_and_accepts_one(name):
    mdp, config = combination_lock(2, 2, seed=0), BatchedConfig(workers=1)
    counts = {"episodes": 1, "evaluate_every": 1, "checkpoint_every": 1}
    assert run_batched_baseline(mdp, "a2c", config=config, **counts).episodes == 1
    with pytest.raises(ValueError, match=f"^{name} must be"):
        run_batched_baseline(mdp, "a2c", config=config, **{**counts, name: 0})


@pytest.mark.parametrize("name", ["ppo_epochs", "ppo_minibatch", "hidden", "workers",
                                  "rnd_hidden", "rnd_embedding", "torch_threads"])
def test_a_configuration_refuses_a_count_below_one_naming_it(name):
    assert getattr(BatchedConfig(**{name: 1}), name) == 1
    with pytest.raises(ValueError, match=name):
        BatchedConfig(**{name: 0})


def test_the_bonus_normaliser_clips_at_ten_standard_deviations_and_survives_a_tiny_variance():
    low, high = _BonusNormaliser(True), _BonusNormaliser(True)
    assert low(np.r_[np.ones(999), 0.0])[-1] == -10.0  # about 31.6 deviations below
    assert high(np.r_[np.zeros(999), 1.0])[-1] == 10.0
    constant = _BonusNormaliser(True)
    assert not constant(np.zeros(100_000)).any() and constant.var < 1e-8


def test_a_checkpoint_of_another_run_than_its_identity_file_is_refused(tmp_path):
    mdp = combination_lock(3, 2, seed=0)
    run_batched_baseline(mdp, run_dir=tmp_path, **{**RUN, "episodes": 8})
    arrays = _checkpoint(tmp_path)
    metadata = json.loads(arrays["metadata"].tobytes())
    metadata["identity"]["seed"] = 99
    arrays["metadata"] = np.frombuffer(json.dumps(metadata).encode(), np.uint8)
    np.savez(tmp_path / CHECKPOINT, allow_pickle=False, **arrays)
    with pytest.raises(CheckpointError, match=re.escape(
            f"{tmp_path / CHECKPOINT}: entry 'metadata', field 'identity' is another run's (seed "
            "differs from the run's identity file): use another directory")):
        run_batched_baseline(mdp, run_dir=tmp_path, **{**RUN, "episodes": 16})


def test_the_policy_is_the_softmax_of_the_networks_action_logits_in_float32():
    learner = BatchedLearner(combination_lock(3, 2, seed=0), "ppo", seed=0, config=SMALL)
    x = np.random.default_rng(0).normal(size=(6, learner.env.dimension))  # float64
    probabilities = learner.probabilities(1, x)
    assert probabilities.dtype == np.float32
    log_probabilities, _ = learner.network(torch.from_numpy(x.astype(np.float32)))
    torch.testing.assert_close(torch.from_numpy(probabilities), log_probabilities.exp())


def test_the_bonus_normaliser_pools_the_bonuses_with_deeprls_prior():
    """The prior is a pseudo-sample of count 1e-4, mean 0 and variance 1: after ``(1, 3)`` the
    mean is ``4 / (2 + 1e-4)`` and the variance the pooled one, ``(1e-4 (1 + mean^2) + (1 -
    mean)^2 + (3 - mean)^2) / (2 + 1e-4)`` (a prior variance of 2 would add 1e-4 / 2)."""
    normaliser, x = _BonusNormaliser(True), np.array([1.0, 3.0])
    out = normaliser(x)
    total = 2 + 1e-4
    mean = 4 / total
    var = (1e-4 * (1 + mean ** 2) + (1 - mean) ** 2 + (3 - mean) ** 2) / total
    assert normaliser.mean == pytest.approx(mean, rel=1e-12)
    assert normaliser.var == pytest.approx(var, rel=1e-12)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-8), rtol=1e-12)


def test_a_learner_with_the_normaliser_on_rewards_normalised_bonuses():
    config = BatchedConfig(workers=4, normalise_bonus=True)
    learner = BatchedLearner(combination_lock(3, 2, seed=0), "a2c", rnd=True, config=config,
                             sample_rewards=False)
    learner._rollout()
    assert learner.normaliser.count == pytest.approx(1e-4 + 3 * 4)


def test_a2c_steps_the_predictor_during_the_rollout_only(monkeypatch):
    """A2C's gradient step changes the network alone: the predictor's gradient still holds the
    rollout's last RND step, which a step of the whole flat array would apply again."""
    learner = BatchedLearner(combination_lock(3, 2, seed=0), "a2c", rnd=True,
                             config=BatchedConfig(workers=4))
    optimiser, predictor, rollout = learner.optimiser, learner.predictor_part, learner._rollout
    after_rollout = {}

    def recorded() -> tuple[np.ndarray, ...]:
        rows = rollout()
        after_rollout.update(data=optimiser.data.copy(), average=optimiser.square_average.copy())
        return rows

    monkeypatch.setattr(learner, "_rollout", recorded)
    learner.update()
    assert optimiser.grad[predictor].any()
    np.testing.assert_array_equal(optimiser.data[predictor], after_rollout["data"][predictor])
    np.testing.assert_array_equal(optimiser.square_average[predictor],
                                  after_rollout["average"][predictor])
    assert not np.array_equal(optimiser.data[learner.network_part],
                              after_rollout["data"][learner.network_part])


@pytest.mark.parametrize("sample_rewards", [True, False])
def test_a_run_is_its_learner_evaluated_with_its_encoder_and_seed(tmp_path, sample_rewards):
    """The run's parameters are those of a learner of the same arguments after as many updates
    (RND, encoder, sampled or expected rewards: the paper lock's anti-shaped reward is 0 or
    0.1), and its value is that learner's policy evaluated with the run's encoder, samples and
    seed."""
    mdp, config = combination_lock(2, 2, seed=0), BatchedConfig(workers=4)
    encoder, seed = HadamardNoise(noise_variance=0.05), 3
    result = run_batched_baseline(mdp, "a2c", 8, rnd=True, seed=seed, run_dir=tmp_path,
                                  encoder=encoder, config=config, evaluate_every=8,
                                  sample_rewards=sample_rewards, samples=5)
    with process_state(config.torch_threads):  # the run's threads: float sums in its order
        learner = BatchedLearner(mdp, "a2c", True, seed, encoder, config, sample_rewards)
        learner.update()
        learner.update()
    np.testing.assert_array_equal(_checkpoint(tmp_path)["parameters"], learner.optimiser.data)
    value = ValueEvaluator(mdp, encoder, 5, seed).record(8, learner.probabilities)
    assert result.curve == [(8, value)]


def test_a_runs_defaults_are_seed_zero_200_samples_sampled_rewards_and_a_checkpoint_every_100(
        tmp_path, monkeypatch):
    mdp, config = combination_lock(2, 2, seed=0), BatchedConfig(workers=1)
    _interrupt_after(monkeypatch, 100)
    with pytest.raises(KeyboardInterrupt):
        run_batched_baseline(mdp, "a2c", 200, config=config, run_dir=tmp_path, evaluate_every=200)
    identity = json.loads((tmp_path / "identity.json").read_text())
    assert (identity["seed"], identity["samples"], identity["rewards"]) == (0, 200, "sampled")
    assert json.loads(_checkpoint(tmp_path)["metadata"].tobytes())["updates"] == 100


def test_a_run_of_fewer_than_20_episodes_evaluates_after_every_episode():
    result = run_batched_baseline(combination_lock(2, 2, seed=0), "a2c", 3,
                                  config=BatchedConfig(workers=1), samples=5)
    assert [e for e, _ in result.curve] == [1, 2, 3]


def test_stop_at_half_stops_at_a_value_of_exactly_half(monkeypatch):
    def half(self, episodes, probabilities):
        self.curve.append((episodes, self.optimal_value / 2))
        return self.optimal_value / 2

    monkeypatch.setattr(ValueEvaluator, "record", half)
    result = run_batched_baseline(combination_lock(2, 2, seed=0), "a2c", 8,
                                  config=BatchedConfig(workers=1), evaluate_every=2,
                                  stop_at_half=True, samples=5)
    assert result.episodes == 2 and result.episodes_to_half == 2


def test_a_finished_run_read_back_reports_its_curves_and_seconds(tmp_path, monkeypatch):
    """Read back with the same budget, a finished run reports its value curve and its training
    returns (here thinned to at most 2 points: the last one pending, at the last episode), and
    its seconds continue those of its checkpoint."""
    monkeypatch.setattr(batched, "_Thinned", functools.partial(_Thinned, limit=2))
    mdp, config = combination_lock(2, 2, seed=0), BatchedConfig(workers=1)
    arguments: dict[str, Any] = {"config": config, "run_dir": tmp_path, "evaluate_every": 1,
                                 "samples": 5}
    first = run_batched_baseline(mdp, "a2c", 3, **arguments)
    assert [e for e, _ in first.training_returns] == [2, 3]
    stored = json.loads(_checkpoint(tmp_path)["metadata"].tobytes())["seconds"]
    assert 0 < stored <= first.seconds
    started = time.perf_counter()
    again = run_batched_baseline(mdp, "a2c", 3, **arguments)
    assert stored <= again.seconds <= stored + time.perf_counter() - started
    assert again.training_returns == first.training_returns and again.curve == first.curve


def test_a_run_resumed_at_its_budget_before_any_evaluation_evaluates_its_policy_once(
        tmp_path, monkeypatch):
    """A run interrupted after its first update (checkpointed, not yet evaluated: every 100
    episodes), asked again for that update's episodes only, evaluates the policy it holds."""
    mdp, config = combination_lock(2, 2, seed=0), BatchedConfig(workers=4)
    arguments: dict[str, Any] = {"config": config, "run_dir": tmp_path, "evaluate_every": 100,
                                 "checkpoint_every": 1, "samples": 5}
    calls = _interrupt_after(monkeypatch, 1)
    with pytest.raises(KeyboardInterrupt):
        run_batched_baseline(mdp, "a2c", 8, **arguments)
    calls["n"] = -100  # no more interruptions; count the updates the resumed run makes
    result = run_batched_baseline(mdp, "a2c", 4, **arguments)
    assert calls["n"] == -100 and result.episodes == 4
    [(episodes, value)] = result.curve
    assert episodes == 4 and 0.0 <= value <= result.optimal_value


def test_a_run_directory_is_claimed_by_one_identity_naming_the_fields_that_differ(tmp_path):
    run_dir = tmp_path / "new" / "run"  # made with its parents
    assert not claim(run_dir, {"seed": 0, "algorithm": "ppo"})
    path = run_dir / IDENTITY
    assert not claim(run_dir, {"algorithm": "ppo", "seed": 0})
    with pytest.raises(ValueError, match=rf"^{run_dir} holds another run \(seed differs in "
                                         rf"{path}\): use another directory$"):
        claim(run_dir, {"seed": 1, "algorithm": "ppo"})
    with pytest.raises(ValueError, match=r"\(algorithm, extra, seed differ in "):
        claim(run_dir, {"seed": 1, "algorithm": "a2c", "extra": 0})
    path.write_text('{"seed": 0, "algorithm": "ppo", "stored": 1}')  # a key only stored
    with pytest.raises(ValueError, match=r"\(stored differs in "):
        claim(run_dir, {"seed": 0, "algorithm": "ppo"})
    path.write_text("[0]")
    with pytest.raises(ValueError, match=rf"^{path}: not a run's identity \(a JSON object "
                                         r"expected\)$"):
        claim(run_dir, {"seed": 0})
    path.write_text("{")
    with pytest.raises(ValueError, match=rf"^{path}: malformed JSON"):
        claim(run_dir, {"seed": 0})
    path.unlink()
    (run_dir / CHECKPOINT).write_bytes(b"")
    with pytest.raises(ValueError, match=rf"^{run_dir / CHECKPOINT} has no {IDENTITY} beside "
                                         r"it: whose run it is cannot be checked; use another "
                                         r"directory$"):
        claim(run_dir, {"seed": 0})

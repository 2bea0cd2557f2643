"""One torch intra-op thread per HOMER or baseline run by default (homer/process_state.py), set
for the run, recorded in the run's identity and restored after it - with the global random
generators the run seeds - also when the run raises."""

import doctest
import json
import random
from dataclasses import replace

import numpy as np
import pytest
import torch
from threadpoolctl import threadpool_info, threadpool_limits

import homer.compare
import homer.process_state
from homer import algorithm, cli, commands, counterexamples
from homer.algorithm import run_homer
from homer.baselines import pcid
from homer.baselines.actor_critic import ActorCriticConfig, run_actor_critic
from homer.baselines.pcid import PcidConfig, run_pcid
from homer.config import HomerConfig
from homer.process_state import process_state
from kinematic.families import combination_lock
from kinematic.spec import dumps_spec

TINY = HomerConfig(transitions=200, max_transitions=200, max_epochs=5, min_epochs=5,
                   evaluation_episodes=10, eval_samples=100)
"""An H = 2 lock run of about a second."""


def blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info()
            if pool["user_api"] == "blas"]


def process() -> dict:
    """What a run may change in the process: thread counts and global generator states."""
    return {"torch": torch.get_num_threads(), "blas": blas_threads(),
            "torch_rng": torch.random.get_rng_state(), "numpy_rng": np.random.get_state(),
            "python_rng": random.getstate()}


def assert_unchanged(before: dict) -> None:
    after = process()
    assert after["torch"] == before["torch"] and after["blas"] == before["blas"]
    assert torch.equal(after["torch_rng"], before["torch_rng"])
    assert after["python_rng"] == before["python_rng"]
    numpy_after, numpy_before = after["numpy_rng"], before["numpy_rng"]
    assert np.array_equal(numpy_after[1], numpy_before[1])
    assert numpy_after[:1] + numpy_after[2:] == numpy_before[:1] + numpy_before[2:]


@pytest.fixture
def two_threads():
    """Two torch and BLAS threads, and global generators in a state no run would leave."""
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    with threadpool_limits(limits=2, user_api="blas"), torch.random.fork_rng(devices=[]):
        torch.manual_seed(12345)
        random.seed(6789)
        np.random.seed(101112)
        assert blas_threads() and set(blas_threads()) == {2}
        yield process()
    torch.set_num_threads(before)


def spy(monkeypatch, module, name: str, seen: list, fail: bool = False) -> None:
    """Wrap ``module.name`` to record the thread counts it runs with (and raise after it if
    ``fail``)."""
    original = getattr(module, name)

    def recording(*args, **kwargs):
        seen.append((torch.get_num_threads(), set(blas_threads())))
        result = original(*args, **kwargs)
        if fail:
            raise RuntimeError("failed inside the run")
        return result

    monkeypatch.setattr(module, name, recording)


@pytest.mark.parametrize("threads", [0, -1, 1.5, True, "1"])
def test_a_thread_count_that_is_not_a_positive_integer_is_refused(threads):
    before = torch.get_num_threads()
    with pytest.raises(ValueError, match="torch_threads"), process_state(threads):
        pass
    assert torch.get_num_threads() == before


def test_the_configurations_default_to_one_thread():
    assert HomerConfig().torch_threads == 1
    assert ActorCriticConfig().torch_threads == 1
    assert PcidConfig().torch_threads == 1


def test_the_state_is_set_inside_and_restored_after_also_after_an_exception(two_threads):
    with pytest.raises(KeyError), process_state(1):
        assert torch.get_num_threads() == 1 and set(blas_threads()) == {1}
        torch.manual_seed(0)
        np.random.seed(0)
        random.seed(0)
        raise KeyError("inside")
    assert_unchanged(two_threads)


def test_a_homer_run_sets_its_thread_count_records_it_and_restores_it(tmp_path, two_threads,
                                                                       monkeypatch):
    mdp = combination_lock(2, actions=2, seed=0)
    seen: list = []
    spy(monkeypatch, algorithm, "_learn_step", seen)
    run_homer(mdp, tmp_path / "one", TINY, seed=0, progress=False)
    # numpy's BLAS too: the encoder is a numpy product
    assert seen == [(1, {1})]
    assert_unchanged(two_threads)  # torch's global generator too, which the run seeds
    identity = json.loads((tmp_path / "one" / "config.json").read_text())
    assert identity["config"]["torch_threads"] == 1
    with pytest.raises(ValueError, match="another run"):  # another thread count: another run
        run_homer(mdp, tmp_path / "one", replace(TINY, torch_threads=2), seed=0, resume=True,
                  progress=False)
    assert_unchanged(two_threads)


def test_a_homer_run_that_raises_restores_the_process_state(tmp_path, two_threads, monkeypatch):
    seen: list = []
    spy(monkeypatch, algorithm, "_learn_step", seen, fail=True)
    with pytest.raises(RuntimeError, match="failed inside the run"):
        run_homer(combination_lock(2, actions=2, seed=0), tmp_path, TINY, seed=0,
                  progress=False)
    assert seen == [(1, {1})]
    assert_unchanged(two_threads)


def test_a_counterexample_run_compares_with_its_thread_count_too(tmp_path, two_threads,
                                                                  monkeypatch):
    seen: list = []
    spy(monkeypatch, algorithm, "_learn_step", seen)
    spy(monkeypatch, counterexamples, "compare_run", seen)
    counterexamples._run(combination_lock(2, actions=2, seed=0), TINY, tmp_path, seed=0)
    assert seen == [(1, {1}), (1, {1})]  # the run's step, then its comparison
    assert_unchanged(two_threads)


def test_homer_compare_compares_with_one_thread_and_restores_the_count(tmp_path, two_threads,
                                                                       monkeypatch):
    run_homer(combination_lock(2, actions=2, seed=0), tmp_path / "run", TINY, seed=0,
              progress=False)
    seen: list = []
    spy(monkeypatch, homer.compare, "compare_run", seen)
    assert cli.main(["compare", str(tmp_path / "run"), "--samples", "20", "--transitions",
                     "50", "--json"]) == 0
    assert seen == [(1, {1})]
    assert_unchanged(two_threads)


def test_homer_evaluate_computes_with_one_blas_thread_and_restores_the_count(tmp_path,
                                                                             two_threads,
                                                                             monkeypatch):
    (tmp_path / "lock.json").write_text(dumps_spec(combination_lock(2, actions=2, seed=0)))
    seen: list = []
    original = commands.evaluate_abstraction

    def recording(*args, **kwargs):
        seen.append(set(blas_threads()))
        return original(*args, **kwargs)

    monkeypatch.setattr(commands, "evaluate_abstraction", recording)
    assert cli.main(["evaluate", "--spec", str(tmp_path / "lock.json"), "--abstraction",
                     "oracle", "--samples", "5", "--json"]) == 0
    assert seen == [{1}]
    assert set(blas_threads()) == {2}


def test_a_pcid_run_sets_its_thread_count_and_restores_it(two_threads, monkeypatch):
    seen: list = []
    spy(monkeypatch, pcid, "_fit_linear", seen)
    run_pcid(combination_lock(2, actions=2, seed=0), seed=0, config=PcidConfig(
        episodes_per_state=20, epochs=1), samples=10)
    assert seen == [(1, {1})]
    assert_unchanged(two_threads)


def test_an_actor_critic_run_restores_the_generators_stable_baselines_seeds(two_threads):
    # stable-baselines3 seeds Python's, numpy's and torch's global generators
    run_actor_critic(combination_lock(1, 2, 0), "a2c", 4, seed=3, evaluations=1, samples=5)
    assert_unchanged(two_threads)


def test_the_examples_in_the_docstrings_run():
    result = doctest.testmod(homer.process_state)
    assert result.attempted > 0 and result.failed == 0

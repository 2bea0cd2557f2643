"""One torch intra-op thread per HOMER or baseline run by default (homer/threads.py), set at
the start of the run and recorded in the run's identity."""

import json
from dataclasses import replace

import pytest
import torch
from threadpoolctl import threadpool_info, threadpool_limits

from homer.algorithm import run_homer
from homer.baselines.actor_critic import ActorCriticConfig
from homer.baselines.pcid import PcidConfig, run_pcid
from homer.config import HomerConfig
from homer.threads import use_torch_threads
from kinematic.families import combination_lock


def blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info()
            if pool["user_api"] == "blas"]


@pytest.fixture
def two_threads():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    with threadpool_limits(limits=2, user_api="blas"):
        yield
    torch.set_num_threads(before)


@pytest.mark.parametrize("threads", [0, -1, 1.5, True, "1"])
def test_a_thread_count_that_is_not_a_positive_integer_is_refused(threads):
    with pytest.raises(ValueError, match="torch_threads"):
        use_torch_threads(threads)


def test_the_configurations_default_to_one_thread():
    assert HomerConfig().torch_threads == 1
    assert ActorCriticConfig().torch_threads == 1
    assert PcidConfig().torch_threads == 1


def test_a_homer_run_sets_its_thread_count_and_records_it(tmp_path, two_threads):
    mdp = combination_lock(2, actions=2, seed=0)
    config = HomerConfig(transitions=200, max_transitions=200, max_epochs=5, min_epochs=5)
    assert blas_threads() and set(blas_threads()) == {2}
    run_homer(mdp, tmp_path / "one", config, seed=0, progress=False)
    assert torch.get_num_threads() == 1
    assert set(blas_threads()) == {1}  # numpy's BLAS too: the encoder is a numpy product
    identity = json.loads((tmp_path / "one" / "config.json").read_text())
    assert identity["config"]["torch_threads"] == 1
    with pytest.raises(ValueError, match="another run"):  # another thread count: another run
        run_homer(mdp, tmp_path / "one", replace(config, torch_threads=2), seed=0, resume=True,
                  progress=False)


def test_a_pcid_run_sets_its_thread_count(two_threads):
    run_pcid(combination_lock(2, actions=2, seed=0), seed=0, config=PcidConfig(
        episodes_per_state=20, epochs=1), samples=10)
    assert torch.get_num_threads() == 1

"""The multi-step inverse objective learned (homer/multistep_inverse.py), the bottleneck's
context columns (homer/objectives.py) and the rule that judges a learned row against an exact
prediction (homer/learned_objectives.py's as_predicted)."""

import numpy as np
import pytest
import torch

from homer.config import HomerConfig
from homer.encoders import HadamardNoise
from homer.learned_objectives import as_predicted
from homer.multistep_inverse import learn_multistep_inverse, multistep_examples, random_episodes
from homer.objectives import BottleneckPredictor
from homer.process_state import process_state
from kinematic import Partition, exogenous_combination_lock


def test_examples_pair_each_gap_with_the_observation_and_the_action_k_steps_back():
    """Kills an off-by-one in the gap (x_{t-k+1}, a_{t-k-1}) and a one-hot of the wrong k."""
    episodes, horizon, layer = 5, 4, 3
    vectors = [np.full((episodes, 2), 10 * h, np.float32) + np.arange(episodes)[:, None]
               for h in range(horizon)]
    actions = np.arange(episodes * (horizon - 1)).reshape(episodes, horizon - 1)
    x, y, a = multistep_examples(vectors, actions, layer, horizon)
    assert x.shape == (episodes * layer, 2 + horizon - 1) and y.shape == (episodes * layer, 2)
    for k in range(1, layer + 1):
        rows = slice((k - 1) * episodes, k * episodes)
        np.testing.assert_array_equal(x[rows, :2], vectors[layer - k])
        np.testing.assert_array_equal(x[rows, 2:], np.eye(horizon - 1)[[k - 1] * episodes])
        np.testing.assert_array_equal(y[rows], vectors[layer])
        np.testing.assert_array_equal(a[rows], actions[:, layer - k])


def test_random_episodes_take_every_action_and_encode_every_layer():
    lock = exogenous_combination_lock(3, 3, seed=0, bits=1).mdp
    encoder = HadamardNoise(layout="exogenous-bits")
    vectors, actions = random_episodes(lock, encoder, 300, np.random.default_rng(0))
    assert [v.shape for v in vectors] == [(300, encoder.dimension(lock))] * 3
    assert actions.shape == (300, 2)
    assert set(np.unique(actions)) == {0, 1, 2}


def test_the_context_reaches_the_hidden_layer_unembedded():
    """Kills a context that is dropped or embedded with x (the embedding's input width)."""
    config = HomerConfig(backward_capacity=2)
    model = BottleneckPredictor(6, 2, True, 1, config, torch.Generator().manual_seed(0),
                                context=3)
    assert model.x_weight.shape == (1, 6, config.pretraining_width)
    assert model.hidden_weight.shape[1] == 2 * config.pretraining_width + 3
    x, x_next = torch.zeros(1, 6 + 3), torch.ones(1, 6)
    with torch.no_grad():
        plain = model(x, x_next, "continuous")
        x[0, 6 + 1] = 1.0
        assert not torch.equal(model(x, x_next, "continuous"), plain)
    with pytest.raises(ValueError, match="uses_x"):
        BottleneckPredictor(6, 2, False, 1, config, torch.Generator(), context=3)


def _alive(lock):
    """The lock's live states (a, b) against its dead ones (c) at every layer: the multi-step
    inverse objective's coarsest optimum on this lock (layer 1 in one class)."""
    return Partition.from_labels(lock, {s: s[2] == "c" for s in lock.states})


def test_a_small_lock_is_learned_to_its_live_and_dead_states():
    """With two classes the objective must keep the dead states apart from the live ones at
    layers 2 and 3 (the action a_{t-k} is the good one exactly when x_t is live), merging the
    exogenous bit: kills a bottleneck on x_{t-k} instead of x_t, or actions misaligned."""
    noisy = exogenous_combination_lock(3, 2, seed=1, bits=1)
    encoder = HadamardNoise(layout="exogenous-bits")
    config = HomerConfig(backward_capacity=2, max_epochs=15, min_epochs=10, restarts=2,
                         batch_size=64)
    with process_state(1):
        learned = learn_multistep_inverse(noisy.mdp, encoder, 300, config, seed=0)
    row = {"merge_threshold": 0.05, "capacity": list(learned.capacity), "counts": []}
    rng = np.random.default_rng(1)
    for h, names in enumerate(noisy.mdp.observations):
        ids = np.repeat(np.arange(len(names)), 20)
        classes = learned.phi(encoder.encode(noisy.mdp, h, ids, rng), h + 1)
        row["counts"].append({name: {str(c): int(n) for c, n in zip(
            *np.unique(classes[ids == x], return_counts=True), strict=True)}
            for x, name in enumerate(names)})
    assert learned.capacity == (1, 2, 2)
    assert as_predicted(noisy.mdp, row, _alive(noisy.mdp))
    # the one-class first layer, and a partition the learner does not match
    assert set(row["counts"][0]["s1a|0"]) == {"0"}
    by_bit = Partition.from_labels(noisy.mdp, {s: s[-1] for s in noisy.mdp.states})
    assert not as_predicted(noisy.mdp, row, by_bit)


def test_a_split_counts_against_the_prediction_only_without_spare_capacity():
    """The no-split clause: a predicted class spread over two learned classes is not as
    predicted when the learner had no more classes than the prediction, and is when it had
    more (the prediction is the coarsest of several optima then)."""
    lock = exogenous_combination_lock(2, 2, seed=0, bits=1).mdp
    split = {"s2a|0": {"0": 10}, "s2a|1": {"1": 10}, "s2b|0": {"0": 10}, "s2b|1": {"1": 10},
             "s2c|0": {"2": 10}, "s2c|1": {"2": 10}}
    first = {x: {"0": 10} for x in lock.observations[0]}
    alive = _alive(lock)
    assert not as_predicted(lock, {"merge_threshold": 0.05, "capacity": [1, 2],
                                   "counts": [first, split]}, alive)
    assert as_predicted(lock, {"merge_threshold": 0.05, "capacity": [1, 3],
                               "counts": [first, split]}, alive)
    # a leak of 2 encodings in 10 from a dead state into a live class is a wrong merge
    leaky = {**split, "s2c|0": {"2": 8, "0": 2}}
    assert not as_predicted(lock, {"merge_threshold": 0.05, "capacity": [1, 3],
                                   "counts": [first, leaky]}, alive)

"""The pluggable abstraction step: each learned objective of Section 5 finds, on rich
observations, the abstraction the exact analysis says is Bayes-optimal for it."""

from fractions import Fraction

import numpy as np
import pytest
import torch

from homer.config import HomerConfig
from homer.encoders import HadamardNoise
from homer.objectives import one_class_abstraction, train_objective
from kinematic.counterexamples.autoencoder import one_hot_reconstruction_optimum
from kinematic.counterexamples.exploration import state_groups
from kinematic.counterexamples.mdps import (
    autoencoder_exploration_counterexample,
    curiosity_counterexample,
)
from kinematic.sampling import categorical

CONFIG = HomerConfig(backward_capacity=2, torch_threads=1)


def curiosity_layer_three(n: int, rng: np.random.Generator):
    """Transitions from layer 2 of the curiosity MDP (s3..s6 equally likely, as the cover of
    {s3, s4} and {s5, s6} rolls in), a uniform action, the next state: the states, actions and
    the encodings of both observations."""
    mdp = curiosity_counterexample()
    states = rng.integers(4, size=n)
    actions = rng.integers(2, size=n)
    rows = np.asarray(mdp.transitions[1], dtype=float)
    following = categorical(rows[states * 2 + actions], rng)
    encoder = HadamardNoise()
    return (mdp, states, actions, encoder.encode(mdp, 1, states, rng),
            encoder.encode(mdp, 2, following, rng))


def learned_labels(mdp, layer, abstraction, rng) -> np.ndarray:
    """The learned class of each observation of ``layer`` (majority of 200 encodings)."""
    ids = np.repeat(np.arange(len(mdp.observations[layer])), 200)
    classes = abstraction.classes(HadamardNoise().encode(mdp, layer, ids, rng))
    return np.array([np.bincount(classes[ids == x]).argmax()
                     for x in range(len(mdp.observations[layer]))])


def learned_groups(mdp, layer, abstraction, rng) -> list[list[str]]:
    """The learned classes of ``layer`` as sorted groups of states."""
    labels = learned_labels(mdp, layer, abstraction, rng)
    return sorted(sorted(g) for g in state_groups(mdp, layer, labels))


@pytest.mark.parametrize("objective", ["inverse_dynamics", "pcid"])
def test_two_classes_of_inverse_dynamics_and_pcid_merge_s7_and_s8(objective):
    """The exact analysis (kinematic counterexamples): with two classes, {s7, s8} | {s9} is
    the only Bayes-optimal abstraction of layer 3 for both objectives."""
    rng = np.random.default_rng(0)
    mdp, states, actions, x, x_next = curiosity_layer_three(3000, rng)
    previous = (states >= 2).astype(np.intp)  # PCID's classes {s3, s4} and {s5, s6}
    trained = train_objective(objective, x, actions, x_next, previous, 2, CONFIG,
                              torch.Generator().manual_seed(0))
    best = min(trained, key=lambda model: model.validation_loss)
    assert learned_groups(mdp, 2, best.abstraction, rng) == [["s7", "s8"], ["s9"]]


def test_learned_autoencoder_finds_the_exact_reconstruction_optimum():
    """HOMER's one-hot encoding: the best two-class code keeps one observation of the likelier
    state apart and merges the rest, mixing the states; the learned one is such an optimum."""
    mdp = autoencoder_exploration_counterexample()
    rng = np.random.default_rng(0)
    masses = [Fraction(1, 8), Fraction(1, 8), Fraction(3, 8), Fraction(3, 8)]
    _, optimal = one_hot_reconstruction_optimum(masses, 2)
    expected = [sorted(sorted(g) for g in state_groups(mdp, 1, labels)) for labels in optimal]
    observations = categorical(np.tile(np.array(masses, float), (3000, 1)), rng)
    x_next = HadamardNoise().encode(mdp, 1, observations, rng)
    x = HadamardNoise().encode(mdp, 0, np.zeros(3000, np.intp), rng)
    trained = train_objective("autoencoder", x, np.zeros(3000, np.intp), x_next,
                              np.zeros(3000, np.intp), 4, CONFIG,
                              torch.Generator().manual_seed(0))
    best = min(trained, key=lambda model: model.validation_loss)
    learned = learned_labels(mdp, 1, best.abstraction, rng)
    assert any((learned == labels).all() or (learned == 1 - labels).all()
               for labels in optimal), (learned, expected)
    assert len(set(mdp.emission_state[1][learned == learned[0]])) == 2  # the states mixed


def test_one_class_puts_every_observation_in_class_zero():
    abstraction = one_class_abstraction(8).abstraction
    assert (abstraction.classes(np.random.default_rng(0).normal(size=(50, 8))) == 0).all()


def test_unknown_objectives_are_refused_by_name():
    with pytest.raises(ValueError, match="objective"):
        HomerConfig(objective="curiosity")
    with pytest.raises(ValueError, match="contrastive"):
        train_objective("contrastive", np.zeros((4, 2), np.float32), np.zeros(4, int),
                        np.zeros((4, 2), np.float32), np.zeros(4, int), 2, CONFIG,
                        torch.Generator())

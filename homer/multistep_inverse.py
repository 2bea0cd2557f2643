"""The multi-step inverse objective learned in torch on rich observations: MusIK's form
(Mhammedi, Foster, Rakhlin, "Representation Learning with Multi-Step Inverse Kinematics", ICML
2023, its multi-step inverse kinematics objective) of AC-State's multi-step inverse model (Lamb et
al. 2022, "Guaranteed Discovery of Control-Endogenous Latent States with Multi-Step Inverse
Models").

For a layer ``t >= 2`` (1-based) the abstraction ``phi_t`` is trained by predicting the action
``a_{t-k}`` from the observation ``x_{t-k}`` in full and ``phi_t(x_t)``, for every gap ``k = 1
.. t-1`` (``k`` is part of the context, as a one-hot), through a bottleneck of ``capacity``
classes: the model is :class:`homer.objectives.BottleneckPredictor` on ``([B x_{t-k},
onehot(k)], phi_B(x_t))`` trained by :func:`homer.models.fit_ensemble` (continuous
pre-training, k-means quantisation, the straight-through Gumbel phase; ``restarts`` models, the
lowest validation loss kept), as HOMER's and Section 5's objectives are. Layer 1 has no earlier
observation: one class.

The data are episodes of the **uniformly random policy** on the rich-observation environment
(:func:`random_episodes`): every episode gives, at layer ``t``, one example per gap ``k``, so the
gaps are equally frequent. That is AC-State's data and the distribution the exact solution
(``kinematic.counterexamples``' multi-step inverse objective with an empty cover) is computed
for. This learner therefore runs standalone, not inside HOMER's cover loop: inside the loop the
roll-in would be the learned cover's, a different distribution whose optimum the exact
prediction does not describe.

>>> from kinematic import exogenous_combination_lock
>>> from homer.encoders import HadamardNoise
>>> noisy = exogenous_combination_lock(3, 2, seed=0, bits=1)
>>> config = HomerConfig(backward_capacity=2, max_epochs=2, min_epochs=0, restarts=1)
>>> learned = learn_multistep_inverse(noisy.mdp, HadamardNoise(layout="exogenous-bits"),
...                                   episodes=50, config=config, seed=0)
>>> [layer.examples for layer in learned.layers]
[0, 50, 100]
>>> x = HadamardNoise(layout="exogenous-bits").encode(noisy.mdp, 1, np.arange(6),
...                                                   np.random.default_rng(0))
>>> learned.phi(x, 2).shape
(6,)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import torch

from homer.config import HomerConfig
from homer.encoded import Encoder
from homer.models import LinearAbstraction, class_losses, fit_ensemble, split_indices
from homer.objectives import BottleneckPredictor
from kinematic.model import BlockMDP
from kinematic.sampling import LatentSampler

__all__ = ["LearnedLayer", "MultistepInverse", "learn_multistep_inverse", "multistep_examples",
           "random_episodes", "rollouts"]


def rollouts(mdp: BlockMDP, encoder: Encoder, actions: np.ndarray,
             rng: np.random.Generator) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Episodes taking the given ``actions`` (an ``(n, T)`` integer array, ``T < H``: column
    ``h`` is the action at layer ``h + 1``) on ``mdp`` with rich observations: per layer ``1 ..
    T + 1``, the encoded observations ``(n, d)`` and the latent observations' indices (for
    evaluation only; a learner reads the encodings)."""
    latent = LatentSampler(mdp)
    n, steps = actions.shape
    states = latent.start(n, rng)
    vectors, observations = [], []
    for h in range(steps + 1):
        emitted = latent.emit(h, states, rng)
        observations.append(emitted)
        vectors.append(np.asarray(encoder.encode(mdp, h, emitted, rng), dtype=np.float32))
        if h < steps:
            states = latent.step(h, states, actions[:, h], rng)
    return vectors, observations


def random_episodes(mdp: BlockMDP, encoder: Encoder, episodes: int,
                    rng: np.random.Generator) -> tuple[list[np.ndarray], np.ndarray]:
    """``episodes`` episodes of the uniformly random policy over all ``H`` layers: the encoded
    observations of each layer and the ``(episodes, H - 1)`` actions taken between them."""
    actions = rng.integers(mdp.number_of_actions, size=(episodes, mdp.horizon - 1))
    vectors, _ = rollouts(mdp, encoder, actions, rng)
    return vectors, actions


def multistep_examples(vectors: Sequence[np.ndarray], actions: np.ndarray, layer: int,
                       horizon: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The examples of 0-based ``layer`` (``>= 1``) from episodes' encodings ``vectors`` (per
    layer) and ``actions``: one per episode and gap ``k = 1 .. layer``, as ``(x, y, a)`` with
    ``x = [x_{t-k}, onehot(k)]`` (the one-hot has ``horizon - 1`` entries, ``k - 1`` set),
    ``y = x_t`` and ``a = a_{t-k}``.

    >>> vectors = [np.full((2, 1), h, np.float32) for h in range(3)]
    >>> x, y, a = multistep_examples(vectors, np.array([[0, 1], [1, 0]]), layer=2, horizon=3)
    >>> x.tolist()
    [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]
    >>> y[:, 0].tolist(), a.tolist()
    ([2.0, 2.0, 2.0, 2.0], [1, 0, 0, 1])
    """
    xs, ys, acts = [], [], []
    episodes = len(actions)
    for k in range(1, layer + 1):
        gap = np.zeros((episodes, horizon - 1), np.float32)
        gap[:, k - 1] = 1.0
        xs.append(np.concatenate([vectors[layer - k], gap], axis=1))
        ys.append(vectors[layer])
        acts.append(actions[:, layer - k])
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(acts).astype(np.int64)


@dataclass(frozen=True)
class LearnedLayer:
    """One layer's learned ``phi_t`` (None on layer 1: one class), its validation loss (mean
    cross-entropy of the action, nats) and the examples it was trained on."""

    abstraction: LinearAbstraction | None
    validation_loss: float | None
    examples: int


@dataclass(frozen=True)
class MultistepInverse:
    """The learned abstractions of every layer; :meth:`phi` is ``homer.evaluate``'s
    ``phi(observations, step)``."""

    layers: tuple[LearnedLayer, ...]
    capacity: tuple[int, ...]
    """The bottleneck's classes per layer (1 on layer 1)."""
    episodes: int

    def phi(self, observations: np.ndarray, step: int) -> np.ndarray:
        """The learned class of each encoded observation of time step ``step`` (1-based)."""
        learned = self.layers[step - 1].abstraction
        if learned is None:
            return np.zeros(len(observations), dtype=np.int64)
        return learned.classes(np.asarray(observations, dtype=np.float32))


def learn_multistep_inverse(mdp: BlockMDP, encoder: Encoder, episodes: int,
                            config: HomerConfig, seed: int,
                            capacity: Sequence[int] | None = None) -> MultistepInverse:
    """Learn ``phi_t`` of every layer ``t >= 2`` (module docstring) from ``episodes`` episodes
    of the uniformly random policy, drawn from ``seed`` (numpy) while torch draws from
    ``seed`` too; ``capacity[t - 1]`` is layer ``t``'s number of classes (default
    ``config.backward_capacity`` everywhere), ``config`` gives the model and its training.
    The Gumbel-softmax noise draws from torch's global generator, which is seeded with
    ``seed`` here (as HOMER's runs seed it): call this within
    :func:`homer.process_state.process_state`, which sets torch's threads and restores the
    global generator afterwards."""
    rng = np.random.default_rng(seed)
    generator = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    vectors, actions = random_episodes(mdp, encoder, episodes, rng)
    classes = [1] + [config.backward_capacity] * (mdp.horizon - 1) if capacity is None else [
        1, *capacity[1:]]
    layers = [LearnedLayer(None, None, 0)]
    for layer in range(1, mdp.horizon):
        x, y, a = multistep_examples(vectors, actions, layer, mdp.horizon)
        layer_config = replace(config, backward_capacity=classes[layer])
        model = BottleneckPredictor(y.shape[1], mdp.number_of_actions, True,
                                    config.restarts, layer_config, generator,
                                    context=mdp.horizon - 1)
        split = split_indices(len(a), config.validation_fraction, generator)
        losses, _ = fit_ensemble(model, (torch.from_numpy(x), torch.from_numpy(y)),
                                 torch.from_numpy(a), split, class_losses, layer_config,
                                 generator)
        best = int(torch.argmin(losses))
        layers.append(LearnedLayer(model.abstraction(best), float(losses[best]), len(a)))
    return MultistepInverse(tuple(layers), tuple(classes), episodes)

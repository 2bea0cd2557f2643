"""The contrastive models of HOMER (Section 7, "HOMER implementation") and their training.

A model scores ``(x, a, x')`` as real or imposter. The *backward* model passes ``x'`` through a
bottleneck ``z = GumbelSoftmax(A x')`` with ``N`` classes and ``x`` through a linear embedding
``B x``; the *forward* model puts the bottleneck on ``x`` (``M`` classes) and embeds ``x'``.
``[B x, one-hot(a), z]`` goes through a 2-layer network with leaky ReLUs to two logits; the
loss is cross-entropy. Training first runs without the discretisation (``z = A x'``), then with
the straight-through Gumbel-softmax (one-hot codes forward, soft gradients backward, so that
training sees the codes the abstraction will output), keeping the best epoch on a validation
split; the abstraction is ``phi(x) = argmax_i (A x + b)_i``.

Several models (the backward restarts and the forward model) are trained at once as one
:class:`ContrastiveEnsemble` whose parameters carry a leading member axis: the members share
the mini-batches, their losses are summed (so each member's gradient is its own) and Adam acts
element-wise, so every member follows exactly the updates it would get alone, at the cost of
one small model per optimiser step. Each member keeps its own best epoch and early stopping.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from homer.config import HomerConfig

__all__ = ["ContrastiveEnsemble", "LinearAbstraction", "TrainingResult", "train_contrastive"]


@dataclass(frozen=True)
class LinearAbstraction:
    """``phi(x) = argmax_i (W x + b)_i``: a learned abstraction (phi_B or phi_F)."""

    weight: np.ndarray
    """Shape ``(classes, dimension)``."""
    bias: np.ndarray
    """Shape ``(classes,)``."""

    def classes(self, observations: np.ndarray) -> np.ndarray:
        """The abstract state of each encoded observation (rows of ``observations``)."""
        return np.argmax(observations @ self.weight.T + self.bias, axis=1)


def _uniform(shape: tuple[int, ...], fan_in: int, generator: torch.Generator) -> nn.Parameter:
    """``nn.Linear``'s default initialisation, U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    bound = 1 / math.sqrt(fan_in)
    return nn.Parameter((torch.rand(shape, generator=generator) * 2 - 1) * bound)


def _discretise(logits: torch.Tensor, mode: str, temperature: float) -> torch.Tensor:
    if mode == "gumbel":
        return F.gumbel_softmax(logits, tau=temperature, hard=True)
    return F.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(logits.dtype)


class ContrastiveEnsemble(nn.Module):
    """``p(real | x, a, x')`` for several members at once, each with a bottleneck on ``x'``
    (backward member, ``N`` classes) or on ``x`` (forward member, ``M`` classes).

    Every member maps ``x`` to ``M`` and ``x'`` to ``N`` values, followed by the classifier on
    ``[x-part, one-hot(a), x'-part]``; which part is discretised depends on the member. (A
    forward model's input order ``[B x', a, z(x)]`` is a permutation of this one, which changes
    nothing for a fully connected layer.)
    """

    def __init__(self, dimension: int, actions: int, backward: Sequence[bool],
                 config: HomerConfig, generator: torch.Generator):
        super().__init__()
        members = len(backward)
        m, n, hidden = config.forward_capacity, config.backward_capacity, config.hidden
        width = m + actions + n
        self.register_buffer("backward", torch.tensor(list(backward)).view(members, 1, 1))
        self.x_weight = _uniform((members, dimension, m), dimension, generator)
        self.x_bias = _uniform((members, 1, m), dimension, generator)
        self.next_weight = _uniform((members, dimension, n), dimension, generator)
        self.next_bias = _uniform((members, 1, n), dimension, generator)
        self.hidden_weight = _uniform((members, width, hidden), width, generator)
        self.hidden_bias = _uniform((members, 1, hidden), width, generator)
        self.output_weight = _uniform((members, hidden, 2), hidden, generator)
        self.output_bias = _uniform((members, 1, 2), hidden, generator)

    def forward(self, x: torch.Tensor, action: torch.Tensor, x_next: torch.Tensor, mode: str,
                temperature: float = 1.0) -> torch.Tensor:
        """Logits of shape ``(members, batch, 2)`` from observations ``x``, ``x_next`` and
        one-hot actions; ``mode`` is ``continuous`` (no discretisation), ``gumbel``
        (straight-through Gumbel-softmax) or ``hard`` (argmax)."""
        members = self.x_weight.shape[0]
        u = torch.baddbmm(self.x_bias, x.expand(members, -1, -1), self.x_weight)
        v = torch.baddbmm(self.next_bias, x_next.expand(members, -1, -1), self.next_weight)
        if mode != "continuous":
            v = torch.where(self.backward, _discretise(v, mode, temperature), v)
            u = torch.where(self.backward, u, _discretise(u, mode, temperature))
        inputs = torch.cat([u, action.expand(members, -1, -1), v], dim=2)
        hidden = F.leaky_relu(torch.baddbmm(self.hidden_bias, inputs, self.hidden_weight))
        return torch.baddbmm(self.output_bias, hidden, self.output_weight)

    def abstraction(self, member: int) -> LinearAbstraction:
        """The member's bottleneck as ``phi``: on ``x'`` for a backward member, else on ``x``."""
        weight, bias = ((self.next_weight, self.next_bias) if self.backward[member].item()
                        else (self.x_weight, self.x_bias))
        return LinearAbstraction(weight[member].detach().numpy().T.copy(),
                                 bias[member, 0].detach().numpy().copy())


@dataclass
class TrainingResult:
    abstraction: LinearAbstraction
    validation_loss: float
    epochs: int


def _split(n: int, fraction: float, generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    order = torch.randperm(n, generator=generator)
    held = max(1, int(n * fraction))
    return order[held:], order[:held]


def _member_losses(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of each member; ``labels`` are repeated once per member."""
    members, batch, _ = logits.shape
    return F.cross_entropy(logits.reshape(members * batch, 2), labels,
                           reduction="none").view(members, batch).mean(dim=1)


def train_contrastive(
    x: np.ndarray, a: np.ndarray, x_next: np.ndarray, actions: int, backward: Sequence[bool],
    config: HomerConfig, generator: torch.Generator,
) -> list[TrainingResult]:
    """Train one model per entry of ``backward`` (True: backward model, False: forward model)
    on the real transitions and as many imposters (``x'`` resampled within the set)."""
    n, dimension = x.shape
    members = len(backward)
    imposters = torch.randint(n, (n,), generator=generator)
    xs = torch.from_numpy(np.concatenate([x, x]))
    acts = F.one_hot(torch.from_numpy(np.concatenate([a, a]).astype(np.int64)),
                     actions).float()
    nexts = torch.from_numpy(np.concatenate([x_next, x_next[imposters.numpy()]]))
    labels = torch.cat([torch.ones(n, dtype=torch.long), torch.zeros(n, dtype=torch.long)])
    train, valid = _split(2 * n, config.validation_fraction, generator)
    valid_data = (xs[valid], acts[valid], nexts[valid])
    valid_labels = labels[valid].repeat(members)
    ensemble = ContrastiveEnsemble(dimension, actions, backward, config, generator)
    parameters = list(ensemble.parameters())
    optimiser = torch.optim.Adam(parameters, lr=config.learning_rate, foreach=True)
    epochs = torch.zeros(members, dtype=torch.long)
    for mode in ("continuous", "gumbel"):
        best_loss = torch.full((members,), float("inf"))
        best = [p.detach().clone() for p in parameters]
        waited = torch.zeros(members, dtype=torch.long)
        active = torch.ones(members, dtype=torch.bool)
        floor = config.min_epochs if mode == "continuous" else 0
        evaluated = "continuous" if mode == "continuous" else "hard"
        for epoch in range(config.max_epochs):
            epochs += active
            order = train[torch.randperm(len(train), generator=generator)]
            shuffled = (xs[order], acts[order], nexts[order])
            shuffled_labels = labels[order]
            for start in range(0, len(order), config.batch_size):
                end = start + config.batch_size
                logits = ensemble(*(tensor[start:end] for tensor in shuffled), mode,
                                  config.gumbel_temperature)
                loss = _member_losses(logits, shuffled_labels[start:end].repeat(members)).sum()
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
            with torch.no_grad():
                losses = _member_losses(ensemble(*valid_data, evaluated), valid_labels)
                improved = active & (losses < best_loss - 1e-4)
                best_loss = torch.where(improved, losses, best_loss)
                for parameter, kept in zip(parameters, best, strict=True):
                    kept[improved] = parameter[improved]
                waited = torch.where(improved, 0, waited + 1)
                if epoch >= floor:
                    active &= waited < config.patience
            if not active.any():
                break
        with torch.no_grad():
            for parameter, kept in zip(parameters, best, strict=True):
                parameter.copy_(kept)
    return [TrainingResult(ensemble.abstraction(member), float(best_loss[member]),
                           int(epochs[member])) for member in range(members)]

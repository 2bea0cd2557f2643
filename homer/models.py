"""The contrastive models of HOMER (Section 7, "HOMER implementation") and their training.

A model scores ``(x, a, x')`` as real or imposter. The *backward* model passes ``x'`` through a
bottleneck ``z = GumbelSoftmax(A x')`` with ``N`` classes and ``x`` through a linear embedding
``B x``; the *forward* model puts the bottleneck on ``x`` (``M`` classes) and embeds ``x'``.
``[B x, one-hot(a), z]`` goes through a 2-layer network with leaky ReLUs to two logits; the
loss is cross-entropy. Training first runs without the discretisation (``z = A x'``), then with
the straight-through Gumbel-softmax (one-hot codes forward, soft gradients backward, so that
training sees the codes the abstraction will output), keeping the best epoch on a validation
split; the abstraction is ``phi(x) = argmax_i (A x)_i``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from homer.config import HomerConfig

__all__ = ["ContrastiveModel", "TrainingResult", "train_contrastive"]


class ContrastiveModel(nn.Module):
    """``p(real | x, a, x')`` with a bottleneck on ``x'`` (backward) or on ``x`` (forward)."""

    def __init__(self, dimension: int, actions: int, capacity: int, embedding: int,
                 hidden: int, backward: bool):
        super().__init__()
        self.backward, self.actions = backward, actions
        self.abstraction = nn.Linear(dimension, capacity)
        self.embedding = nn.Linear(dimension, embedding)
        self.network = nn.Sequential(
            nn.Linear(embedding + actions + capacity, hidden), nn.LeakyReLU(),
            nn.Linear(hidden, 2),
        )

    def forward(self, x: torch.Tensor, a: torch.Tensor, x_next: torch.Tensor, mode: str,
                temperature: float = 1.0) -> torch.Tensor:
        bottlenecked, embedded = (x_next, x) if self.backward else (x, x_next)
        logits = self.abstraction(bottlenecked)
        if mode == "continuous":
            z = logits
        elif mode == "gumbel":
            z = F.gumbel_softmax(logits, tau=temperature, hard=True)
        else:
            z = F.one_hot(logits.argmax(dim=1), logits.shape[1]).float()
        inputs = torch.cat([self.embedding(embedded), F.one_hot(a, self.actions).float(), z],
                           dim=1)
        return self.network(inputs)

    def classes(self, observations: np.ndarray) -> np.ndarray:
        """``phi(x) = argmax (A x)`` for a batch of encoded observations."""
        with torch.no_grad():
            return self.abstraction(torch.from_numpy(observations)).argmax(dim=1).numpy()


@dataclass
class TrainingResult:
    model: ContrastiveModel
    validation_loss: float
    epochs: int


def _split(n: int, fraction: float, generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    order = torch.randperm(n, generator=generator)
    held = max(1, int(n * fraction))
    return order[held:], order[:held]


def train_contrastive(
    x: np.ndarray, a: np.ndarray, x_next: np.ndarray, actions: int, backward: bool,
    config: HomerConfig, generator: torch.Generator,
) -> TrainingResult:
    """Train on the real transitions and as many imposters (``x'`` resampled within the set)."""
    n, dimension = x.shape
    imposters = torch.randint(n, (n,), generator=generator)
    xs = torch.from_numpy(np.concatenate([x, x]))
    acts = torch.from_numpy(np.concatenate([a, a]).astype(np.int64))
    nexts = torch.from_numpy(np.concatenate([x_next, x_next[imposters.numpy()]]))
    labels = torch.cat([torch.ones(n, dtype=torch.long), torch.zeros(n, dtype=torch.long)])
    train, valid = _split(2 * n, config.validation_fraction, generator)
    capacity = config.backward_capacity if backward else config.forward_capacity
    embedding = config.forward_capacity if backward else config.backward_capacity
    model = ContrastiveModel(dimension, actions, capacity, embedding, config.hidden, backward)
    optimiser = torch.optim.Adam(model.parameters(), lr=config.learning_rate)
    epochs = 0
    best_loss = float("inf")
    for mode in ("continuous", "gumbel"):
        best_loss, best_state, waited = float("inf"), None, 0
        floor = config.min_epochs if mode == "continuous" else 0
        for epoch in range(config.max_epochs):
            epochs += 1
            model.train()
            order = train[torch.randperm(len(train), generator=generator)]
            for start in range(0, len(order), config.batch_size):
                batch = order[start:start + config.batch_size]
                logits = model(xs[batch], acts[batch], nexts[batch], mode,
                               config.gumbel_temperature)
                loss = F.cross_entropy(logits, labels[batch])
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
            model.eval()
            with torch.no_grad():
                evaluated = "continuous" if mode == "continuous" else "hard"
                loss = F.cross_entropy(model(xs[valid], acts[valid], nexts[valid], evaluated),
                                       labels[valid]).item()
            if loss < best_loss - 1e-4:
                best_loss, waited = loss, 0
                best_state = {k: v.clone() for k, v in model.state_dict().items()}
            else:
                waited += 1
                if waited >= config.patience and epoch >= floor:
                    break
        model.load_state_dict(best_state)
    return TrainingResult(model, best_loss, epochs)

"""The abstraction step of HOMER's cover loop, pluggable: HOMER's contrastive objective or one
of the objectives of prior work that Section 5 ("Can We Use Existing State Abstraction
Oracles?") argues fail inside that loop.

Every objective learns ``phi_B``, an ``N``-class abstraction of ``x'`` (``argmax`` of a linear
map, as HOMER's), from the transitions ``(x, a, x')`` a step collects; the cover loop then builds
one policy per class exactly as for HOMER. Only the prediction made through the bottleneck
``z = phi_B(x')`` differs:

- ``contrastive`` (HOMER, :func:`homer.models.train_contrastive`): real vs imposter from
  ``(x, a, z)``; also trains the forward abstraction phi_F.
- ``inverse_dynamics`` (curiosity, Pathak et al. 2017): the action ``a`` from ``(B x, z)``.
- ``pcid`` (Du et al. 2019): the previous abstract state and action ``(phi_{h-1}(x), a)`` from
  ``z``; ``phi_{h-1}`` is the run's own abstraction of the previous layer (one class on the
  first layer, which no step abstracts: a stochastic start gives PCID nothing to predict).
- ``autoencoder`` (Tang et al. 2017): ``x'`` itself from ``z`` (square loss).
- ``one_class``: every observation in one class, the coarsest reward-free bisimulation
  (Section 5, "Bisimulation"); nothing is trained (:func:`one_class_abstraction`).

All are trained by :func:`homer.models.fit_ensemble`: continuous pre-training of a
``pretraining_width`` embedding, k-means quantisation into ``N`` classes, then the
straight-through Gumbel phase, keeping each phase's best validation epoch; ``config.restarts``
models are trained at once and the lowest validation loss is kept.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from homer.config import HomerConfig
from homer.models import (
    LinearAbstraction,
    MemberLosses,
    TrainingResult,
    class_losses,
    discretise,
    fit_ensemble,
    quantise_bottleneck,
    split_indices,
    uniform_parameter,
)

__all__ = ["BottleneckPredictor", "one_class_abstraction", "train_objective"]


class BottleneckPredictor(nn.Module):
    """``members`` models predicting a target from ``z = phi_B(x')`` (``N`` classes) and, with
    ``uses_x``, a linear embedding of ``x``: ``[B x, z]`` (or ``z``) through a hidden layer with
    leaky ReLUs to ``outputs`` values (logits, or the reconstruction of ``x'``).

    With ``context = c > 0`` (and ``uses_x``) the last ``c`` columns of the ``x`` given to
    :meth:`forward` are a context passed to the hidden layer as they are, not embedded:
    ``[B x, context, z]`` (the gap ``k`` as a one-hot in :mod:`homer.multistep_inverse`);
    ``dimension`` counts the observation's columns only.

    >>> config = HomerConfig(backward_capacity=3)
    >>> model = BottleneckPredictor(8, 2, True, 4, config, torch.Generator(), context=3)
    >>> model(torch.zeros(5, 8 + 3), torch.zeros(5, 8), "continuous").shape
    torch.Size([4, 5, 2])
    """

    next_allowed: torch.Tensor  # a buffer (register_buffer): the bottleneck's usable columns

    def __init__(self, dimension: int, outputs: int, uses_x: bool, members: int,
                 config: HomerConfig, generator: torch.Generator, context: int = 0):
        super().__init__()
        if context and not uses_x:
            raise ValueError("a context goes with x: context > 0 needs uses_x")
        embedding, hidden = config.pretraining_width, config.hidden
        width = 2 * embedding + context if uses_x else embedding
        self.uses_x = uses_x
        self.context = context
        self.classes = [config.backward_capacity] * members
        self.register_buffer("next_allowed", torch.ones(members, 1, embedding, dtype=torch.bool))
        self.next_weight = uniform_parameter((members, dimension, embedding), dimension, generator)
        self.next_bias = uniform_parameter((members, 1, embedding), dimension, generator)
        if uses_x:
            self.x_weight = uniform_parameter((members, dimension, embedding), dimension, generator)
            self.x_bias = uniform_parameter((members, 1, embedding), dimension, generator)
        self.hidden_weight = uniform_parameter((members, width, hidden), width, generator)
        self.hidden_bias = uniform_parameter((members, 1, hidden), width, generator)
        self.output_weight = uniform_parameter((members, hidden, outputs), hidden, generator)
        self.output_bias = uniform_parameter((members, 1, outputs), hidden, generator)

    def forward(self, x: torch.Tensor, x_next: torch.Tensor, mode: str,
                temperature: float = 1.0) -> torch.Tensor:
        """Outputs of shape ``(members, batch, outputs)``; ``mode`` as for
        :class:`homer.models.ContrastiveEnsemble`."""
        members = self.next_weight.shape[0]
        z = torch.baddbmm(self.next_bias, x_next.expand(members, -1, -1), self.next_weight)
        if mode != "continuous":
            z = discretise(z, self.next_allowed, mode, temperature)
        inputs = z
        if self.uses_x:
            observed = x[:, :x.shape[1] - self.context]
            u = torch.baddbmm(self.x_bias, observed.expand(members, -1, -1), self.x_weight)
            context = x[:, x.shape[1] - self.context:].expand(members, -1, -1)
            inputs = torch.cat([u, context, z], dim=2)
        hidden = F.leaky_relu(torch.baddbmm(self.hidden_bias, inputs, self.hidden_weight))
        return torch.baddbmm(self.output_bias, hidden, self.output_weight)

    @torch.no_grad()
    def quantise(self, x: torch.Tensor, x_next: torch.Tensor,
                 generator: torch.Generator) -> None:
        """k-means quantisation of each member's bottleneck on the training ``x_next``."""
        embedding = self.next_weight.shape[2]
        rows = slice(self.hidden_weight.shape[1] - embedding, None)
        for member, classes in enumerate(self.classes):
            quantise_bottleneck(self.next_weight, self.next_bias, self.next_allowed,
                                self.hidden_weight, rows, member, classes, x_next, generator)

    def abstraction(self, member: int) -> LinearAbstraction:
        """The member's bottleneck as ``phi_B``."""
        classes = self.classes[member]
        return LinearAbstraction(
            self.next_weight[member, :, :classes].detach().numpy().T.copy(),
            self.next_bias[member, 0, :classes].detach().numpy().copy())


def _square_losses(outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean squared reconstruction error of each member (summed over the dimensions)."""
    return ((outputs - targets) ** 2).sum(dim=2).mean(dim=1)


def one_class_abstraction(dimension: int) -> TrainingResult:
    """The abstraction putting every observation of ``dimension`` into class 0."""
    return TrainingResult(LinearAbstraction(np.zeros((1, dimension), np.float32),
                                            np.zeros(1, np.float32)), 0.0, 0)


def train_objective(
    objective: str, x: np.ndarray, a: np.ndarray, x_next: np.ndarray,
    previous_classes: np.ndarray, actions: int, config: HomerConfig,
    generator: torch.Generator,
) -> list[TrainingResult]:
    """Train ``config.restarts`` models of ``objective`` (a learned one other than
    ``contrastive``) on the transitions ``(x, a, x')``; ``previous_classes`` are
    ``phi_{h-1}(x)`` (used by ``pcid``, values below ``config.backward_capacity``)."""
    if objective not in ("inverse_dynamics", "pcid", "autoencoder"):
        raise ValueError(f"train_objective trains inverse_dynamics, pcid or autoencoder, not "
                         f"{objective!r}")
    n, dimension = x.shape
    actions_taken = torch.from_numpy(np.asarray(a, dtype=np.int64))
    losses: MemberLosses
    if objective == "inverse_dynamics":
        targets, outputs, losses = actions_taken, actions, class_losses
    elif objective == "pcid":
        previous = torch.from_numpy(np.asarray(previous_classes, dtype=np.int64))
        targets = previous * actions + actions_taken
        outputs, losses = config.backward_capacity * actions, class_losses
    else:
        targets, outputs, losses = torch.from_numpy(x_next), dimension, _square_losses
    split = split_indices(n, config.validation_fraction, generator)
    model = BottleneckPredictor(dimension, outputs, objective == "inverse_dynamics",
                                config.restarts, config, generator)
    best, epochs = fit_ensemble(model, (torch.from_numpy(x), torch.from_numpy(x_next)),
                                targets, split, losses, config, generator)
    return [TrainingResult(model.abstraction(member), float(best[member]),
                           int(epochs[member])) for member in range(config.restarts)]

"""The contrastive models of HOMER (Section 7, "HOMER implementation") and their training.

A model scores ``(x, a, x')`` as real or imposter. The *backward* model passes ``x'`` through a
bottleneck ``z = GumbelSoftmax(A x')`` with ``N`` classes and ``x`` through a linear embedding
``B x``; the *forward* model puts the bottleneck on ``x`` (``M`` classes) and embeds ``x'``.
``[B x, one-hot(a), z]`` goes through a 2-layer network with leaky ReLUs to two logits; the
loss is cross-entropy. Training first runs without the discretisation (``z = A x'``), then with
the straight-through Gumbel-softmax (one-hot codes forward, soft gradients backward, so that
training sees the codes the abstraction will output), keeping the best epoch of each phase on a
validation split; the abstraction is ``phi(x) = argmax_i (A x + b)_i``.

Between the phases the continuous embedding is *quantised* (a departure from the paper, measured
in ARCHITECTURE.md): pre-training embeds the bottleneck side in ``pretraining_width`` dimensions,
k-means splits the training embeddings into ``N`` (or ``M``) clusters, and the bottleneck becomes
the nearest-centre rule, which is linear in the observation (``argmin_i |u - c_i|^2 = argmax_i
(2 c_i . u - |c_i|^2)`` with ``u = A x + b``); the classifier's rows for the code become the
centres' rows, so the discretised model starts as the pre-trained one evaluated at the centres.
Taking ``argmax`` of an ``M``-wide pre-trained embedding instead merged forward-separable
states of the lock at most steps (the pre-training barely used ``x`` through 3 dimensions, and
the Gumbel phase, starting from near-random codes, kept its first epochs).

Several models (the backward restarts and the forward model) are trained at once as one
:class:`ContrastiveEnsemble` whose parameters carry a leading member axis: the members share
the mini-batches, their losses are summed (so each member's gradient is its own) and Adam acts
element-wise, so every member follows exactly the updates it would get alone, at the cost of
one small model per optimiser step. Each member keeps its own best epoch and early stopping.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import torch
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from torch import nn
from torch.nn import functional as F

from homer.config import HomerConfig

__all__ = [
    "ContrastiveEnsemble",
    "Ensemble",
    "LinearAbstraction",
    "TrainingResult",
    "class_losses",
    "discretise",
    "fit_ensemble",
    "quantise_bottleneck",
    "split_indices",
    "train_contrastive",
    "uniform_parameter",
]


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


def uniform_parameter(shape: tuple[int, ...], fan_in: int,
                      generator: torch.Generator) -> nn.Parameter:
    """``nn.Linear``'s default initialisation, U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    bound = 1 / math.sqrt(fan_in)
    return nn.Parameter((torch.rand(shape, generator=generator) * 2 - 1) * bound)


CODE_MARGIN = 5.0
"""Median gap between the best and the second-best class score of the training observations
right after quantisation: Gumbel noise (standard deviation about 1.3 at temperature 1) rarely
flips such a code, so the Gumbel phase starts from the codes of the quantised abstraction."""


def discretise(logits: torch.Tensor, allowed: torch.Tensor, mode: str,
                temperature: float) -> torch.Tensor:
    """One-hot codes of ``logits`` over the ``allowed`` columns (the classes)."""
    logits = logits.masked_fill(~allowed, -math.inf)
    if mode == "gumbel":
        return F.gumbel_softmax(logits, tau=temperature, hard=True)
    return F.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(logits.dtype)


@torch.no_grad()
def quantise_bottleneck(weight: nn.Parameter, bias: nn.Parameter, allowed: torch.Tensor,
                        hidden_weight: nn.Parameter, rows: slice, member: int, classes: int,
                        inputs: torch.Tensor, generator: torch.Generator) -> None:
    """Quantise one member's bottleneck ``u = inputs @ weight[member] + bias[member]`` into
    ``classes`` k-means clusters (module docstring): the nearest-centre rule as a linear map in
    the first ``classes`` columns, the other columns masked out of ``allowed``, and the
    classifier rows ``hidden_weight[member, rows]`` for the code replaced by the centres'."""
    embedding = inputs @ weight[member] + bias[member]
    seed = int(torch.randint(2**31 - 1, (1,), generator=generator))
    with warnings.catch_warnings():
        # Fewer distinct embeddings than classes (a noiseless encoder, a layer with fewer
        # observations than classes) leave duplicate centres: their columns tie, argmax keeps
        # the first, and the abstraction simply uses fewer classes.
        warnings.simplefilter("ignore", ConvergenceWarning)
        centres = torch.from_numpy(
            KMeans(classes, n_init=4, random_state=seed).fit(embedding.double().numpy())
            .cluster_centers_).to(weight.dtype)
    norms = (centres**2).sum(dim=1)
    top = (2 * embedding @ centres.T - norms).topk(2, dim=1).values
    gap = float((top[:, 0] - top[:, 1]).median())
    scale = CODE_MARGIN / gap if gap > 0 else 1.0
    bias[member, :, :classes] = (2 * bias[member] @ centres.T - norms) * scale
    weight[member, :, :classes] = weight[member] @ centres.T * (2 * scale)
    weight[member, :, classes:] = 0
    bias[member, :, classes:] = 0
    allowed[member, :, classes:] = False
    hidden_rows = hidden_weight[member, rows]
    hidden_rows[:classes] = centres @ hidden_rows
    hidden_rows[classes:] = 0


class ContrastiveEnsemble(nn.Module):
    """``p(real | x, a, x')`` for several members at once, each with a bottleneck on ``x'``
    (backward member, ``N`` classes) or on ``x`` (forward member, ``M`` classes).

    Every member maps ``x`` and ``x'`` to ``pretraining_width`` values each, followed by the
    classifier on ``[x-part, one-hot(a), x'-part]``; which part is discretised depends on the
    member. After :meth:`quantise` a bottleneck uses only its first ``N`` (or ``M``) columns
    (``x_allowed`` / ``next_allowed``). (A forward model's input order ``[B x', a, z(x)]`` is a
    permutation of this one, which changes nothing for a fully connected layer.)
    """

    # buffers (register_buffer): which members are backward, each bottleneck's usable columns
    backward: torch.Tensor
    x_allowed: torch.Tensor
    next_allowed: torch.Tensor

    def __init__(self, dimension: int, actions: int, backward: Sequence[bool],
                 config: HomerConfig, generator: torch.Generator):
        super().__init__()
        members, embedding, hidden = len(backward), config.pretraining_width, config.hidden
        width = 2 * embedding + actions
        self.classes = [config.backward_capacity if member else config.forward_capacity
                        for member in backward]
        self.register_buffer("backward", torch.tensor(list(backward)).view(members, 1, 1))
        self.register_buffer("x_allowed", torch.ones(members, 1, embedding, dtype=torch.bool))
        self.register_buffer("next_allowed", torch.ones(members, 1, embedding, dtype=torch.bool))
        self.x_weight = uniform_parameter((members, dimension, embedding), dimension, generator)
        self.x_bias = uniform_parameter((members, 1, embedding), dimension, generator)
        self.next_weight = uniform_parameter((members, dimension, embedding), dimension, generator)
        self.next_bias = uniform_parameter((members, 1, embedding), dimension, generator)
        self.hidden_weight = uniform_parameter((members, width, hidden), width, generator)
        self.hidden_bias = uniform_parameter((members, 1, hidden), width, generator)
        self.output_weight = uniform_parameter((members, hidden, 2), hidden, generator)
        self.output_bias = uniform_parameter((members, 1, 2), hidden, generator)

    @staticmethod
    def parameter_count(dimension: int, actions: int, members: int, config: HomerConfig) -> int:
        """Number of parameters of an ensemble of ``members`` (what ``__init__`` allocates)."""
        embedding, hidden = config.pretraining_width, config.hidden
        width = 2 * embedding + actions
        per_member = (2 * (dimension + 1) * embedding + (width + 1) * hidden + (hidden + 1) * 2)
        return members * per_member

    def forward(self, x: torch.Tensor, action: torch.Tensor, x_next: torch.Tensor, mode: str,
                temperature: float = 1.0) -> torch.Tensor:
        """Logits of shape ``(members, batch, 2)`` from observations ``x``, ``x_next`` and
        one-hot actions; ``mode`` is ``continuous`` (no discretisation), ``gumbel``
        (straight-through Gumbel-softmax) or ``hard`` (argmax)."""
        members = self.x_weight.shape[0]
        u = torch.baddbmm(self.x_bias, x.expand(members, -1, -1), self.x_weight)
        v = torch.baddbmm(self.next_bias, x_next.expand(members, -1, -1), self.next_weight)
        if mode != "continuous":
            v = torch.where(self.backward, discretise(v, self.next_allowed, mode, temperature), v)
            u = torch.where(self.backward, u, discretise(u, self.x_allowed, mode, temperature))
        inputs = torch.cat([u, action.expand(members, -1, -1), v], dim=2)
        hidden = F.leaky_relu(torch.baddbmm(self.hidden_bias, inputs, self.hidden_weight))
        return torch.baddbmm(self.output_bias, hidden, self.output_weight)

    def _bottleneck(self, member: int) -> tuple[nn.Parameter, nn.Parameter, torch.Tensor, slice]:
        """The member's bottleneck: weight, bias, allowed columns and its classifier rows."""
        embedding = self.x_weight.shape[2]
        if self.backward[member].item():
            rows = slice(self.hidden_weight.shape[1] - embedding, None)
            return self.next_weight, self.next_bias, self.next_allowed, rows
        return self.x_weight, self.x_bias, self.x_allowed, slice(0, embedding)

    @torch.no_grad()
    def quantise(self, x: torch.Tensor, action: torch.Tensor, x_next: torch.Tensor,
                 generator: torch.Generator) -> None:
        """Turn each member's continuous bottleneck into its k-means quantisation (module
        docstring): ``x`` and ``x_next`` are the training observations of each side (the
        inputs of :meth:`forward`; ``action`` is not used)."""
        for member, classes in enumerate(self.classes):
            weight, bias, allowed, rows = self._bottleneck(member)
            inputs = x_next if self.backward[member].item() else x
            quantise_bottleneck(weight, bias, allowed, self.hidden_weight, rows, member,
                                classes, inputs, generator)

    def abstraction(self, member: int) -> LinearAbstraction:
        """The member's bottleneck as ``phi``: on ``x'`` for a backward member, else on ``x``."""
        weight, bias, _, _ = self._bottleneck(member)
        classes = self.classes[member]
        return LinearAbstraction(weight[member, :, :classes].detach().numpy().T.copy(),
                                 bias[member, 0, :classes].detach().numpy().copy())


@dataclass
class TrainingResult:
    abstraction: LinearAbstraction
    validation_loss: float
    epochs: int


def split_indices(n: int, fraction: float,
                  generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """A random split of ``range(n)``: training and validation indices (``fraction`` held
    out, at least one)."""
    order = torch.randperm(n, generator=generator)
    held = max(1, int(n * fraction))
    return order[held:], order[:held]


def class_losses(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of each member's logits ``(members, batch, classes)`` against the
    same ``labels`` ``(batch,)``."""
    members, batch, classes = logits.shape
    return F.cross_entropy(logits.reshape(members * batch, classes), labels.repeat(members),
                           reduction="none").view(members, batch).mean(dim=1)


MemberLosses = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
"""``losses(outputs, targets)``: the mean loss of each member, shape ``(members,)``."""


class Ensemble(Protocol):
    """An ensemble :func:`fit_ensemble` trains (an ``nn.Module``): called as ``ensemble(*inputs,
    mode, temperature)``, quantised as ``ensemble.quantise(*inputs, generator)``."""

    def __call__(self, *args: Any, **kwargs: Any) -> torch.Tensor: ...

    def parameters(self, recurse: bool = True) -> Iterator[nn.Parameter]: ...

    def quantise(self, *args: Any, **kwargs: Any) -> None: ...


def fit_ensemble(ensemble: Ensemble, inputs: tuple[torch.Tensor, ...], targets: torch.Tensor,
                 split: tuple[torch.Tensor, torch.Tensor], member_losses: MemberLosses,
                 config: HomerConfig, generator: torch.Generator
                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """The two training phases of the module docstring for any ensemble with a bottleneck:
    ``ensemble(*inputs, mode, temperature)`` gives outputs with a leading member axis and
    ``ensemble.quantise(*training inputs, generator)`` discretises it; ``split`` holds the
    training and validation indices (:func:`split_indices`). Each member keeps the parameters
    of its best validation epoch; returns its validation loss and its epochs."""
    train, valid = split
    valid_data = tuple(tensor[valid] for tensor in inputs)
    valid_targets = targets[valid]
    parameters = list(ensemble.parameters())
    members = parameters[0].shape[0]
    epochs = torch.zeros(members, dtype=torch.long)
    for mode in ("continuous", "gumbel"):
        if mode == "gumbel":
            ensemble.quantise(*(tensor[train] for tensor in inputs), generator)
        # A fresh optimiser per phase: quantisation re-parametrises the bottleneck, so the
        # moment estimates of pre-training no longer apply. The fused kernel updates all
        # parameters in one call: a mini-batch step costs 0.56 ms instead of 0.78 ms with the
        # multi-tensor one (one thread, batch 64, the lock at H = 100).
        optimiser = torch.optim.Adam(parameters, lr=config.learning_rate, fused=True)
        evaluated = "continuous" if mode == "continuous" else "hard"
        with torch.no_grad():  # the phase's starting point is a candidate too
            best_loss = member_losses(ensemble(*valid_data, evaluated), valid_targets)
        best = [p.detach().clone() for p in parameters]
        waited = torch.zeros(members, dtype=torch.long)
        active = torch.ones(members, dtype=torch.bool)
        floor = config.min_epochs if mode == "continuous" else 0
        for epoch in range(config.max_epochs):
            epochs += active
            order = train[torch.randperm(len(train), generator=generator)]
            shuffled = tuple(tensor[order] for tensor in inputs)
            shuffled_targets = targets[order]
            for start in range(0, len(order), config.batch_size):
                end = start + config.batch_size
                outputs = ensemble(*(tensor[start:end] for tensor in shuffled), mode,
                                   config.gumbel_temperature)
                loss = member_losses(outputs, shuffled_targets[start:end]).sum()
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
            with torch.no_grad():
                losses = member_losses(ensemble(*valid_data, evaluated), valid_targets)
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
    return best_loss, epochs


def train_contrastive(
    x: np.ndarray, a: np.ndarray, x_next: np.ndarray, actions: int, backward: Sequence[bool],
    config: HomerConfig, generator: torch.Generator,
) -> list[TrainingResult]:
    """Train one model per entry of ``backward`` (True: backward model, False: forward model)
    on the real transitions and as many imposters (``x'`` resampled within the set)."""
    n, dimension = x.shape
    imposters = torch.randint(n, (n,), generator=generator)
    xs = torch.from_numpy(np.concatenate([x, x]))
    acts = F.one_hot(torch.from_numpy(np.concatenate([a, a]).astype(np.int64)),
                     actions).float()
    nexts = torch.from_numpy(np.concatenate([x_next, x_next[imposters.numpy()]]))
    labels = torch.cat([torch.ones(n, dtype=torch.long), torch.zeros(n, dtype=torch.long)])
    split = split_indices(2 * n, config.validation_fraction, generator)
    ensemble = ContrastiveEnsemble(dimension, actions, backward, config, generator)
    losses, epochs = fit_ensemble(ensemble, (xs, acts, nexts), labels, split,
                                  class_losses, config, generator)
    return [TrainingResult(ensemble.abstraction(member), float(losses[member]),
                           int(epochs[member])) for member in range(len(backward))]

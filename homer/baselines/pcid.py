"""PCID (Du et al. 2019) as Sections 5 and 7 describe it, with Table ``tab:du-hyperparam``.

Layer by layer: for every abstract state ``j`` of layer ``h - 1``, ``n`` episodes follow the
abstract policy that reaches ``j`` in the learned abstract model, act uniformly at ``h - 1`` and
observe ``x_h``. A linear model (softmax regression, SGD with learning rate 0.03) predicts the
pair (previous abstract state, previous action) from ``x_h``; k-means with 3 clusters on the
predicted probabilities gives the decoder ``phi_h`` (nearest centre). The abstract transition
model is estimated by counts, and the policies reaching each abstract state of layer ``h`` are
planned in it by dynamic programming. Policies act on abstract states only: in particular every
state of layer 1 shares one abstract state (a stochastic start cannot be separated), which is
why PCID fails on the combination lock. The reward-sensitive policy is planned in the same
abstract model with the mean rewards observed. The result lists the time steps whose learned
abstraction merges kinematically separable states (majority assignment, as in
:func:`homer.evaluate.compare_classes`, against the KI partition)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from sklearn.cluster import KMeans

from homer.baselines.evaluation import BaselineResult, ValueEvaluator
from homer.config import DEFAULT_TORCH_THREADS
from homer.encoders import HadamardNoise
from homer.evaluate import compare_classes
from homer.process_state import process_state
from homer.sampler import BatchSampler
from kinematic.inseparability import ki_partition
from kinematic.model import BlockMDP

__all__ = ["PcidConfig", "PcidResult", "run_pcid"]


@dataclass(frozen=True)
class PcidConfig:
    """Table ``tab:du-hyperparam``: learning rate 0.03, ``n = 200``, 3 clusters."""

    learning_rate: float = 0.03
    episodes_per_state: int = 200
    clusters: int = 3
    epochs: int = 30
    batch_size: int = 32
    torch_threads: int = DEFAULT_TORCH_THREADS  # homer/process_state.py


@dataclass
class PcidResult:
    result: BaselineResult
    decoders: list[Callable[[np.ndarray], np.ndarray]]
    """``decoders[h](encodings)``: PCID's abstract state of each encoding of layer ``h``."""


class _Decoder:
    """``phi(x)`` = the k-means centre nearest to the linear model's predicted probabilities."""

    def __init__(self, weight: np.ndarray | None, bias: np.ndarray | None,
                 centres: np.ndarray | None):
        self.weight, self.bias, self.centres = weight, bias, centres

    def __call__(self, encodings: np.ndarray) -> np.ndarray:
        if self.weight is None or self.bias is None or self.centres is None:  # one class
            return np.zeros(len(encodings), dtype=np.intp)
        logits = encodings @ self.weight.T + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        probabilities = np.exp(logits)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        distances = ((probabilities[:, None, :] - self.centres[None]) ** 2).sum(axis=2)
        return distances.argmin(axis=1)


def _fit_linear(x: np.ndarray, labels: np.ndarray, classes: int, config: PcidConfig,
                generator: torch.Generator) -> tuple[np.ndarray, np.ndarray]:
    with torch.random.fork_rng():
        torch.manual_seed(int(torch.randint(2**31, (1,), generator=generator)))
        model = torch.nn.Linear(x.shape[1], classes)
    optimiser = torch.optim.SGD(model.parameters(), lr=config.learning_rate)
    inputs, targets = torch.from_numpy(x), torch.from_numpy(labels)
    for _ in range(config.epochs):
        order = torch.randperm(len(x), generator=generator)
        for start in range(0, len(x), config.batch_size):
            batch = order[start:start + config.batch_size]
            loss = torch.nn.functional.cross_entropy(model(inputs[batch]), targets[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    return model.weight.detach().numpy().copy(), model.bias.detach().numpy().copy()


class _AbstractPolicy:
    """Acts by ``actions[t][phi_t(x)]`` (deterministic, on abstract states)."""

    def __init__(self, decoders: list[_Decoder], actions: list[np.ndarray], total: int):
        self.decoders, self.actions, self.total = decoders, actions, total

    @property
    def length(self) -> int:
        return len(self.actions)

    def act(self, step: int, encodings: np.ndarray) -> np.ndarray:
        return self.actions[step][self.decoders[step](encodings)]

    def probabilities(self, step: int, encodings: np.ndarray) -> np.ndarray:
        chosen = (self.act(step, encodings) if step < self.length
                  else np.zeros(len(encodings), dtype=np.intp))
        return np.eye(self.total)[chosen]


def _plan(models: list[np.ndarray], terminal: np.ndarray,
          rewards: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """Greedy actions per layer maximising ``terminal`` (+ rewards) in the abstract model;
    ``models[t]`` has shape (states_t, |A|, states_{t+1})."""
    values, actions = terminal, []
    for t in reversed(range(len(models))):
        q = models[t] @ values
        if rewards is not None:
            q = q + rewards[t]
        actions.append(q.argmax(axis=1))
        values = q.max(axis=1)
    return actions[::-1]


def run_pcid(mdp: BlockMDP, seed: int = 0, encoder: HadamardNoise | None = None,
             sample_rewards: bool = True,
             config: PcidConfig | None = None, samples: int = 200) -> PcidResult:
    """Run PCID on ``mdp`` dressed by ``encoder``; the value is exact (see
    :mod:`homer.baselines.evaluation`). The thread counts are set for the run and restored
    after it (:func:`homer.process_state.process_state`)."""
    config = config or PcidConfig()
    with process_state(config.torch_threads):
        return _learn(mdp, seed, encoder or HadamardNoise(), sample_rewards, config, samples)


def _learn(mdp: BlockMDP, seed: int, encoder: HadamardNoise, sample_rewards: bool,
           config: PcidConfig, samples: int) -> PcidResult:
    """:func:`run_pcid` once its process state is set."""
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    generator = torch.Generator().manual_seed(seed)
    sampler = BatchSampler(mdp, encoder, rng, sample_rewards)
    actions = mdp.number_of_actions
    decoders = [_Decoder(None, None, None)]
    models: list[np.ndarray] = []
    reward_sums, reward_counts = [], []
    covers: list[list[_AbstractPolicy]] = [[_AbstractPolicy(decoders, [], actions)]]
    for h in range(1, mdp.horizon + 1):
        batches = [sampler.run(config.episodes_per_state, [policy], h - 1,
                               last_step=min(h, mdp.horizon - 1)) for policy in covers[h - 1]]
        previous = np.concatenate([decoders[h - 1](b.observations[:, h - 1]) for b in batches])
        acted = np.concatenate([b.actions[:, h - 1] for b in batches])
        rewards = np.concatenate([b.rewards[:, h - 1] for b in batches])
        width = len(covers[h - 1])
        sums, counts = np.zeros((width, actions)), np.zeros((width, actions))
        np.add.at(sums, (previous, acted), rewards)
        np.add.at(counts, (previous, acted), 1)
        reward_sums.append(sums)
        reward_counts.append(counts)
        if h == mdp.horizon:
            break
        x = np.concatenate([b.observations[:, h] for b in batches])
        labels = (previous * actions + acted).astype(np.int64)
        weight, bias = _fit_linear(x, labels, width * actions, config, generator)
        logits = x @ weight.T + bias
        logits -= logits.max(axis=1, keepdims=True)
        predicted = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        clusters = min(config.clusters, len(np.unique(predicted.round(6), axis=0)))
        kmeans = KMeans(n_clusters=clusters, n_init=10, random_state=seed).fit(predicted)
        decoders.append(_Decoder(weight, bias, kmeans.cluster_centers_))
        following = decoders[h](x)
        transitions = np.zeros((width, actions, clusters))
        np.add.at(transitions, (previous, acted, following), 1)
        totals = transitions.sum(axis=2, keepdims=True)
        models.append(np.divide(transitions, totals, out=np.zeros_like(transitions),
                                where=totals > 0))
        covers.append([_AbstractPolicy(decoders, _plan(models, np.eye(clusters)[:, j]),
                                       actions) for j in range(clusters)])
    means = [np.divide(s, c, out=np.zeros_like(s), where=c > 0)
             for s, c in zip(reward_sums, reward_counts, strict=True)]
    last = np.zeros((len(covers[-1]), actions, 1))  # no layer after H
    final = _AbstractPolicy(decoders, _plan([*models, last], np.zeros(1), means), actions)
    learning_episodes = sampler.episodes
    evaluator = ValueEvaluator(mdp, encoder, samples, seed)
    value = evaluator.record(learning_episodes, final.probabilities)
    partition = ki_partition(mdp)
    errors = []
    for h in range(1, mdp.horizon):
        ids, encodings = evaluator.encoded.step(h + 1)
        comparison = compare_classes(mdp, h + 1, "ki", partition.blocks(h + 1), ids,
                                     decoders[h](encodings))
        if comparison.wrong_merges:
            errors.append(h + 1)
    result = BaselineResult(
        algorithm="pcid", value=value, optimal_value=evaluator.optimal_value,
        episodes=learning_episodes, episodes_to_half=evaluator.episodes_to_half(),
        seconds=time.perf_counter() - started, curve=evaluator.curve,
        visitation=evaluator.visitation(final.probabilities), abstraction_errors=errors)
    return PcidResult(result, list(decoders))

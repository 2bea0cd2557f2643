"""A2C, PPO and their RND variants on many episodes at once (:class:`.vector_env.VectorEnv`),
as DeepRL's agents ran them for the paper (Section 7, Appendix ``app:appendix-experiment``,
Tables ``tab:aac-hyperparam`` and ``tab:ppo-hyperparam``): torch modules hold and
initialise the networks, numpy computes on their memory (forward, hand-written gradients,
RMSprop).

The learner (DeepRL's ``run.py`` and ``PPO_agent.py``, as the authors' cereb-rl copy sets
them): ``workers`` (100) episodes per update, each update one episode per worker (the rollout
is ``H`` steps and every episode lasts ``H`` steps); ONE network, a shared body of two hidden
layers of 64 ReLU units with an action head and a value head (orthogonal weights, zero biases,
the heads scaled by 1e-3); RMSprop (lr 1e-3, torch's defaults otherwise, as DeepRL); the value
target is the discounted return ``r_t + gamma m_t R_{t+1}`` and the advantage GAE(0.99, 0.95),
both computed backwards with masks ``m_t = 1 - terminal``; loss = policy loss - 0.01 mean
entropy + 0.5 mean ``(R - v)^2``.

- PPO: advantages normalised over the rollout (mean, unbiased std); 10 epochs, each a random
  permutation cut into minibatches of 160 (the remainder is a last, smaller minibatch); ratio
  clip 0.2; gradient norm clipped to 5.
- A2C (DeepRL's ``A2C_agent.py``): one gradient step per rollout on all of it, gradient norm
  clipped to 0.5, no advantage normalisation, the policy loss ``-mean(log pi(a|x) A)``;
  A2C+RND steps the RND predictor once per environment step only (there are no minibatches).
  Its workers and rollout are not in the authors' code: 100 and ``H`` as PPO (the table's
  rollout; ``docs/guide/baselines-fidelity.md`` says why not DeepRL's example's 5 and 5).
- RND (both): a fixed random target and a trained predictor, each
  Linear(d, 100)-ReLU-Linear(100, 100)-ReLU-Linear(100, 100) with torch's default
  initialisation (as DeepRL's); RMSprop with the learner's learning rate. At
  every rollout step, on the CURRENT observations: ``loss_i`` = mean over the 100 outputs of
  the squared error; the reward gets ``coefficient (100) x loss_i`` (the loss before the step),
  also at the last step, through the bonus normaliser (off by default, as ``run.py``; on:
  DeepRL's running mean/std normaliser, clipped to +-10); then one predictor step on
  ``mean(loss_i)``. During PPO one more predictor step per minibatch, on its observations.
  The PPO and RND losses of a minibatch share one backward pass (their parameters are
  disjoint, so the gradients are those of two passes), the PPO gradient is clipped alone, and
  each network's RMSprop steps as it would alone; the target's outputs are computed once per
  observation, at the rollout step.

Deviations from :func:`homer.baselines.actor_critic.run_actor_critic` (stable-baselines3, kept
as the reference implementation): that one has separate actor and critic networks, one
environment (no workers; PPO's rollout rounded up to whole episodes holding a minibatch), RND
as a wrapper with Adam and a bonus on the NEXT observation, and value targets from GAE. The
hyperparameters with the same name mean the same (:class:`BatchedConfig`).

Which route, by measurement (``benchmarks/baseline_throughput.py``, results in
``benchmarks/results/baseline_throughput.md``; 2-core AMD EPYC, one thread, the paper's lock at
``H = 25``, ``K = 10``, 100 workers):

- one PPO minibatch step (160 rows: loss, gradient, clipping, RMSprop; actor-critic only):
  TorchRL 0.14.1's ``ClipPPOLoss`` 2.68 ms; a plain-torch autograd loss with
  ``torch.optim.RMSprop`` 0.91 ms; the hand-written gradient and flat RMSprop here, in numpy,
  0.19 ms (the same in torch, measured earlier: 0.32 ms). TorchRL's
  ``generalized_advantage_estimate`` on one rollout 0.25 ms, the recursion here in numpy
  0.08 ms. (TorchRL would install beside torch 2.13.0 without changing it - pip's dry run adds
  tensordict 0.14.3 and five small packages - but it loses, so it is not a dependency.)
- whole PPO updates without RND: stable-baselines3's PPO on an SB3 ``VecEnv`` over the same
  batched environment (``n_envs`` 100, ``n_steps`` H, ``batch_size`` 160, ``n_epochs`` 10)
  8,500 steps/s; the batched PPO here with torch passes 36,300 steps/s, with numpy passes
  58,300.
- PPO+RND, alone: torch passes 16,600 steps/s and numpy passes 21,100 one after the other (numpy
  21,100 - 22,500 over four runs; the current stable-baselines3 version: 1,000-1,500). Why
  numpy: at these sizes (160 rows, 64 and 100 units) a torch operation costs about 3
  microseconds before it computes anything and a numpy one under 1, and numpy's OpenBLAS
  multiplies these small float32 matrices as fast as or faster than torch's MKL (a ``160 x 32``
  by ``32 x 100`` product: 12 against 21 microseconds). The RND predictor's three 100-unit
  layers, forward and backward, are now half of a minibatch step and run near the core's peak
  (~80 GFLOP/s). The log-softmax is scipy's (about 1.5% of an update more than a hand-written
  one, the same values). ``torch.compile`` of the torch passes was no faster; two threads gain
  at most 4% by wall-clock, at twice the CPU (the products are too small to split).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from scipy.special import log_softmax, softmax
from torch import nn

from homer.baselines.batched_checkpoint import claim, read_checkpoint, write_checkpoint
from homer.baselines.batched_state import BatchedState, Layout
from homer.baselines.evaluation import BaselineResult, ValueEvaluator
from homer.baselines.vector_env import VectorEnv
from homer.config import DEFAULT_TORCH_THREADS
from homer.encoders import HadamardNoise
from homer.process_state import process_state
from homer.run_directory import mdp_fingerprint
from kinematic.arguments import at_least
from kinematic.model import BlockMDP
from kinematic.sampling import categorical

__all__ = ["ALGORITHMS", "BatchedConfig", "BatchedLearner", "run_batched_baseline"]

ALGORITHMS = ("a2c", "ppo")
"""The algorithms :func:`run_batched_baseline` runs (each with or without RND)."""


@dataclass(frozen=True)
class BatchedConfig:
    """Hyperparameters of the batched A2C / PPO (+RND): Tables ``tab:aac-hyperparam`` and
    ``tab:ppo-hyperparam`` (their labels in the comments) and DeepRL's ``run.py``."""

    learning_rate: float = 1e-3  # "learning rate"
    gamma: float = 0.99  # discount
    gae_lambda: float = 0.95  # "GAE tau"
    entropy_bonus: float = 0.01  # "entropy coefficient"
    value_loss_coefficient: float = 0.5
    a2c_gradient_clipping: float = 0.5  # "gradient clipping" (A2C)
    ppo_gradient_clipping: float = 5.0  # "gradient clipping" (PPO)
    ppo_epochs: int = 10  # "optimisation epochs"
    ppo_minibatch: int = 160  # "minibatch size"
    ppo_ratio_clip: float = 0.2  # "ratio clip"
    hidden: int = 64  # "hidden layers: 2 x 64"
    workers: int = 100  # "number of workers"
    rnd_hidden: int = 100
    rnd_embedding: int = 100
    intrinsic_coefficient: float = 100.0  # "intrinsic reward coefficient" (bonus_coeff)
    normalise_bonus: bool = False  # run.py's normalize_bonus_rewards (default 0)
    torch_threads: int = DEFAULT_TORCH_THREADS  # homer/process_state.py

    def __post_init__(self) -> None:
        for name in ("ppo_epochs", "ppo_minibatch", "hidden", "workers", "rnd_hidden",
                     "rnd_embedding", "torch_threads"):
            at_least(1).check(getattr(self, name), name)


def _orthogonal(layer: nn.Linear, scale: float, generator: torch.Generator) -> nn.Linear:
    """DeepRL's ``layer_init``: orthogonal weights times ``scale``, zero biases."""
    with torch.no_grad():
        nn.init.orthogonal_(layer.weight, generator=generator)
        layer.weight.mul_(scale)
        layer.bias.zero_()
    return layer


class _ActorCritic(nn.Module):
    """The shared body and the two heads; the heads are one ``Linear(64, |A| + 1)`` whose rows
    are the action head's and the value head's (initialised separately, as two layers)."""

    def __init__(self, dimension: int, actions: int, hidden: int,
                 generator: torch.Generator) -> None:
        super().__init__()
        self.body = nn.Sequential(_orthogonal(nn.Linear(dimension, hidden), 1.0, generator),
                                  nn.ReLU(),
                                  _orthogonal(nn.Linear(hidden, hidden), 1.0, generator),
                                  nn.ReLU())
        action = _orthogonal(nn.Linear(hidden, actions), 1e-3, generator)
        value = _orthogonal(nn.Linear(hidden, 1), 1e-3, generator)
        self.heads = nn.Linear(hidden, actions + 1)
        with torch.no_grad():
            self.heads.weight.copy_(torch.cat([action.weight, value.weight]))
            self.heads.bias.zero_()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Action log-probabilities ``(n, |A|)`` and values ``(n,)``."""
        out = self.heads(self.body(x))
        return torch.log_softmax(out[:, :-1], dim=1), out[:, -1]


def _rnd_network(dimension: int, hidden: int, embedding: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(dimension, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                         nn.ReLU(), nn.Linear(hidden, embedding))


class _BonusNormaliser:
    """DeepRL's ``MeanStdNormalizer``: running mean and variance of the bonuses (count starts
    at 1e-4), ``(x - mean) / sqrt(var + 1e-8)`` clipped to +-10; the identity when off."""

    def __init__(self, on: bool) -> None:
        self.on, self.mean, self.var, self.count = on, 0.0, 1.0, 1e-4

    def __call__(self, x: np.ndarray) -> np.ndarray:
        if not self.on:
            return x
        batch_mean, batch_var, n = float(x.mean()), float(x.var()), len(x)
        delta, total = batch_mean - self.mean, self.count + n
        self.mean += delta * n / total
        self.var = (self.var * self.count + batch_var * n
                    + delta ** 2 * self.count * n / total) / total
        self.count = total
        return np.clip((x - self.mean) / math.sqrt(self.var + 1e-8), -10.0, 10.0)


@dataclass
class _Thinned:
    """Per-update means kept as at most ``limit`` points: when full, neighbouring points are
    merged (mean of equally many updates) and each later point averages twice as many."""

    limit: int = 2000
    stride: int = 1
    points: list[tuple[int, float]] = field(default_factory=list)
    pending: float = 0.0
    pending_count: int = 0
    last_episodes: int = 0

    def add(self, episodes: int, mean: float) -> None:
        self.last_episodes = episodes
        self.pending += mean
        self.pending_count += 1
        if self.pending_count == self.stride:
            self.points.append((episodes, self.pending / self.stride))
            self.pending, self.pending_count = 0.0, 0
            if len(self.points) >= self.limit:
                self.points = [(b[0], (a[1] + b[1]) / 2)
                               for a, b in zip(self.points[::2], self.points[1::2],
                                               strict=False)]
                self.stride *= 2

    def curve(self) -> list[tuple[int, float]]:
        """The points, and the mean of the updates not yet making a whole point."""
        if not self.pending_count:
            return list(self.points)
        return [*self.points, (self.last_episodes, self.pending / self.pending_count)]


@dataclass(frozen=True)
class _Layers:
    """The linear layers of a ReLU MLP as the hand-written passes use them: numpy views of each
    weight ``(out, in)`` and bias, and the views of the flat gradient that receive their
    gradients (the memory of the torch parameters: the module and the passes see one state)."""

    weights: list[np.ndarray]
    biases: list[np.ndarray]
    weight_gradients: list[np.ndarray]
    bias_gradients: list[np.ndarray]

    @classmethod
    def of(cls, module: nn.Module) -> _Layers:
        layers = [layer for layer in module.modules() if isinstance(layer, nn.Linear)]
        weights = [layer.weight for layer in layers]
        biases = [layer.bias for layer in layers]
        empty = np.empty(0, dtype=np.float32)
        return cls([w.detach().numpy() for w in weights], [b.detach().numpy() for b in biases],
                   [empty if w.grad is None else w.grad.numpy() for w in weights],
                   [empty if b.grad is None else b.grad.numpy() for b in biases])

    def forward(self, x: np.ndarray) -> list[np.ndarray]:
        """The inputs of every layer and the output."""
        activations = [x]
        last = len(self.weights) - 1
        for k, (weight, bias) in enumerate(zip(self.weights, self.biases, strict=True)):
            out = activations[-1] @ weight.T
            out += bias
            activations.append(out if k == last else np.maximum(out, 0.0, out=out))
        return activations

    def backward(self, activations: list[np.ndarray], gradient: np.ndarray) -> None:
        """Write the gradient of the loss w.r.t. every weight and bias into the flat gradient,
        given its gradient w.r.t. the output."""
        ones = np.ones(len(gradient), dtype=np.float32)  # bias gradients as products: faster
        for k in reversed(range(len(self.weights))):
            inputs = activations[k]
            np.matmul(gradient.T, inputs, out=self.weight_gradients[k])
            np.matmul(ones, gradient, out=self.bias_gradients[k])
            if k:  # through the ReLU: 0 where its output (this layer's input) is 0
                gradient = gradient @ self.weights[k]
                gradient *= inputs > 0.0


class _FlatRMSprop:
    """The parameters of ``modules`` as views of one flat float32 array and their gradients as
    views of another (the torch parameters and gradients share this memory), with torch's
    RMSprop (``alpha`` 0.99, ``eps`` 1e-8, no momentum, not centred) written on the flat
    arrays: ``v <- alpha v + (1 - alpha) g^2``, ``p <- p - lr g / (sqrt(v) + eps)``, as
    :class:`torch.optim.RMSprop` computes it. On a CPU torch's ``foreach`` optimisers loop
    over the tensors; here a step is a few operations on a slice (:meth:`step`)."""

    def __init__(self, modules: list[nn.Module], learning_rate: float) -> None:
        parameters = [p for module in modules for p in module.parameters()]
        total = sum(p.numel() for p in parameters)
        self.data = np.zeros(total, dtype=np.float32)
        self.grad = np.zeros(total, dtype=np.float32)
        self.square_average = np.zeros(total, dtype=np.float32)
        self.learning_rate, self.alpha, self.eps = learning_rate, 0.99, 1e-8
        self.bounds: list[int] = [0]
        offset = 0
        for module in modules:
            for p in module.parameters():
                n = p.numel()
                self.data[offset:offset + n] = p.detach().reshape(-1).numpy()
                p.data = torch.from_numpy(self.data[offset:offset + n]).view_as(p)
                p.grad = torch.from_numpy(self.grad[offset:offset + n]).view_as(p)
                offset += n
            self.bounds.append(offset)

    def part(self, index: int) -> slice:
        """The slice of the flat arrays holding ``modules[index]``."""
        return slice(self.bounds[index], self.bounds[index + 1])

    def clip(self, part: slice, max_norm: float) -> None:
        """Scale the gradient of ``part`` to norm at most ``max_norm`` (torch's
        ``clip_grad_norm_``: by ``min(1, max_norm / (norm + 1e-6))``)."""
        grad = self.grad[part]
        norm = float(np.sqrt(np.dot(grad, grad)))
        if norm + 1e-6 > max_norm:  # torch multiplies by 1.0 otherwise
            grad *= np.float32(max_norm / (norm + 1e-6))

    def step(self, part: slice) -> None:
        grad, average = self.grad[part], self.square_average[part]
        average *= np.float32(self.alpha)
        average += np.float32(1 - self.alpha) * grad * grad
        denominator = np.sqrt(average)
        denominator += np.float32(self.eps)
        self.data[part] -= np.float32(self.learning_rate) * grad / denominator


class BatchedLearner:
    """One A2C or PPO learner (+RND when ``rnd``) and its :class:`.vector_env.VectorEnv`.
    :meth:`update` runs one rollout (one episode per worker) and learns from it.

    >>> from kinematic.families import combination_lock
    >>> learner = BatchedLearner(combination_lock(3, 2, seed=0), "ppo", rnd=True, seed=0,
    ...                          config=BatchedConfig(workers=4))
    >>> learner.update(); learner.episodes
    4
    >>> learner.probabilities(0, learner.env.reset()).shape
    (4, 2)
    """

    def __init__(self, mdp: BlockMDP, algorithm: str, rnd: bool = False, seed: int = 0,
                 encoder: HadamardNoise | None = None, config: BatchedConfig | None = None,
                 sample_rewards: bool = True) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}: expected 'a2c' or 'ppo'")
        self.config = config = config or BatchedConfig()
        self.algorithm, self.rnd = algorithm, rnd
        self.env = VectorEnv(mdp, config.workers, encoder, sample_rewards, seed)
        self.rng = np.random.default_rng([seed, 1])
        """The learner's draws: actions and minibatch permutations."""
        d, actions = self.env.dimension, mdp.number_of_actions
        generator = torch.Generator().manual_seed(seed)
        self.network = _ActorCritic(d, actions, config.hidden, generator)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(int(torch.randint(2**31, (1,), generator=generator)))
            self.target = _rnd_network(d, config.rnd_hidden, config.rnd_embedding)
            self.predictor = _rnd_network(d, config.rnd_hidden, config.rnd_embedding)
        self.optimiser = _FlatRMSprop([self.network, self.predictor], config.learning_rate)
        for module in (self.network, self.predictor, self.target):
            module.requires_grad_(False)  # gradients by hand: no autograd graph
        self.network_layers, self.predictor_layers, self.target_layers = (
            _Layers.of(self.network), _Layers.of(self.predictor), _Layers.of(self.target))
        self.network_part, self.predictor_part = self.optimiser.part(0), self.optimiser.part(1)
        self.normaliser = _BonusNormaliser(config.normalise_bonus)
        self.episodes = self.updates = 0

    def probabilities(self, step: int, encodings: np.ndarray) -> np.ndarray:
        """The policy's action probabilities at ``encodings`` (any ``step``: it is stationary,
        the step is in the observation)."""
        out = self.network_layers.forward(encodings.astype(np.float32, copy=False))[-1]
        return softmax(out[:, :-1], axis=1)

    def _rnd_step(self, observations: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """One predictor step on ``observations``; the per-sample losses before it."""
        error = self._predictor_gradient(observations, targets)
        self.optimiser.step(self.predictor_part)
        return np.mean(error * error, axis=1)

    def _rollout(self) -> tuple[np.ndarray, ...]:
        """One episode per worker: observations ``(H * W, d)``, actions, old log-probabilities,
        value targets, advantages and RND targets, rows ordered step by step."""
        env, config, horizon = self.env, self.config, self.env.mdp.horizon
        workers = config.workers
        observations = np.empty((horizon, workers, env.dimension), dtype=np.float32)
        targets = np.empty((horizon, workers, config.rnd_embedding), dtype=np.float32)
        actions = np.empty((horizon, workers), dtype=np.intp)
        rewards = np.empty((horizon, workers), dtype=np.float32)
        values = np.empty((horizon + 1, workers), dtype=np.float32)
        old = np.empty((horizon, workers), dtype=np.float32)
        rows = np.arange(workers)
        current: np.ndarray | None = env.reset()
        for t in range(horizon):
            assert current is not None, "every episode lasts H steps"
            x = observations[t]
            x[...] = current
            out = self.network_layers.forward(x)[-1]
            log_probabilities = log_softmax(out[:, :-1], axis=1)
            actions[t] = categorical(np.exp(log_probabilities), self.rng)
            old[t] = log_probabilities[rows, actions[t]]
            values[t] = out[:, -1]
            reward, current = env.step(actions[t])
            rewards[t] = reward
            if self.rnd:
                targets[t] = self.target_layers.forward(x)[-1]
                bonus = config.intrinsic_coefficient * self._rnd_step(x, targets[t])
                rewards[t] += self.normaliser(bonus.astype(np.float64)).astype(np.float32)
        values[horizon] = 0.0  # the episodes end with the rollout: masks 0 at the last step
        returns = np.empty((horizon, workers), dtype=np.float32)
        advantages = np.empty((horizon, workers), dtype=np.float32)
        following_return = np.zeros(workers, dtype=np.float32)
        following_advantage = np.zeros(workers, dtype=np.float32)
        for t in reversed(range(horizon)):
            mask = 0.0 if t == horizon - 1 else 1.0
            following_return = rewards[t] + config.gamma * mask * following_return
            delta = rewards[t] + config.gamma * mask * values[t + 1] - values[t]
            following_advantage = (delta + config.gamma * config.gae_lambda * mask
                                   * following_advantage)
            returns[t], advantages[t] = following_return, following_advantage
        self.episodes += workers
        return (observations.reshape(-1, env.dimension), actions.reshape(-1), old.reshape(-1),
                returns.reshape(-1), advantages.reshape(-1),
                targets.reshape(-1, config.rnd_embedding))

    def _network_gradient(self, x: np.ndarray, actions: np.ndarray, old: np.ndarray,
                          returns: np.ndarray, advantages: np.ndarray) -> None:
        """The gradient of the actor-critic loss on these rows, written into the network's
        part of the flat gradient. The loss is ``policy - c_H mean entropy + c_V mean (R -
        v)^2`` with ``policy = -mean(min(r A, clip(r, 1 - eps, 1 + eps) A))`` (PPO, ``r`` the
        ratio of the new to the old probability of the action) or ``-mean(log pi(a|x) A)``
        (A2C); its gradient w.r.t. the logits ``z`` and value ``v`` is written out (what
        autograd computes: ``tests/homer/test_batched.py`` compares them), then
        back-propagated through the layers by hand."""
        config, n = self.config, len(x)
        activations = self.network_layers.forward(x)
        out = activations[-1]
        log_probabilities = log_softmax(out[:, :-1], axis=1)
        probabilities = np.exp(log_probabilities)
        # d loss / d log pi, taking log pi as free: entropy term, then the chosen action's
        d_log = log_probabilities + 1.0
        d_log *= probabilities
        d_log *= np.float32(config.entropy_bonus / n)
        rows = np.arange(n)
        chosen = log_probabilities[rows, actions]
        if self.algorithm == "ppo":
            ratio = np.exp(chosen - old)
            clipped = np.clip(ratio, 1.0 - config.ppo_ratio_clip, 1.0 + config.ppo_ratio_clip)
            unclipped = ratio * advantages <= clipped * advantages
            d_chosen = advantages * unclipped
            d_chosen *= ratio
            d_chosen *= np.float32(-1.0 / n)
        else:
            d_chosen = advantages * np.float32(-1.0 / n)
        d_log[rows, actions] += d_chosen
        gradient = np.empty_like(out)
        # through log_softmax: dz = g - softmax * sum(g)
        np.subtract(d_log, probabilities * d_log.sum(axis=1, keepdims=True),
                    out=gradient[:, :-1])
        np.multiply(out[:, -1] - returns, np.float32(2.0 * config.value_loss_coefficient / n),
                    out=gradient[:, -1])
        self.network_layers.backward(activations, gradient)

    def _predictor_gradient(self, x: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """The gradient of the RND loss ``mean((f_hat(x) - f(x))^2)`` on these rows, written
        into the predictor's part of the flat gradient; the errors ``f_hat(x) - f(x)``."""
        activations = self.predictor_layers.forward(x)
        error = activations[-1] - targets
        self.predictor_layers.backward(activations, error * np.float32(2.0 / error.size))
        return error

    def update(self) -> None:
        """One rollout and what the algorithm learns from it."""
        x, actions, old, returns, advantages, targets = self._rollout()
        config, optimiser, network = self.config, self.optimiser, self.network_part
        if self.algorithm == "a2c":
            self._network_gradient(x, actions, old, returns, advantages)
            optimiser.clip(network, config.a2c_gradient_clipping)
            optimiser.step(network)
        else:
            advantages = (advantages - advantages.mean()) / advantages.std(ddof=1)
            rows, size = len(x), config.ppo_minibatch
            both = slice(network.start, self.predictor_part.stop)
            for _ in range(config.ppo_epochs):
                order = self.rng.permutation(rows)
                shuffled = [array[order] for array in
                            (x, actions, old, returns, advantages,
                             *((targets,) if self.rnd else ()))]
                for start in range(0, rows, size):
                    xb, ab, ob, rb, vb, *tb = (a[start:start + size] for a in shuffled)
                    self._network_gradient(xb, ab, ob, rb, vb)
                    if self.rnd:
                        self._predictor_gradient(xb, tb[0])
                    optimiser.clip(network, config.ppo_gradient_clipping)
                    optimiser.step(both if self.rnd else network)
        self.updates += 1

    # -- checkpoint: every array and the rest of the state, as data --------------------------

    def arrays(self) -> dict[str, np.ndarray]:
        """The state as checkpoint entries: the trained parameters (network, then predictor)
        as one flat array and RMSprop's running averages of their squared gradients beside
        it, the RND target's weights, and the visit counts of each layer (1-based)."""
        arrays: dict[str, np.ndarray] = {
            "parameters": self.optimiser.data.copy(),
            "square_average": self.optimiser.square_average.copy()}
        arrays.update({f"target/{key}": value.numpy().copy()
                       for key, value in self.target.state_dict().items()})
        arrays.update({f"visits/{h + 1}": counts.copy()
                       for h, counts in enumerate(self.env.visits)})
        return arrays

    def load(self, state: BatchedState) -> None:
        """Set the state :meth:`arrays` and :meth:`metadata` gave (read back and checked by
        :func:`.batched_checkpoint.read_checkpoint`)."""
        arrays = state.arrays
        self.optimiser.data[:] = arrays["parameters"]
        self.optimiser.square_average[:] = arrays["square_average"]
        self.target.load_state_dict({key: torch.from_numpy(arrays[f"target/{key}"])
                                     for key in self.target.state_dict()})
        for h, counts in enumerate(self.env.visits):
            counts[:] = arrays[f"visits/{h + 1}"]
        self.episodes, self.updates = state.episodes, state.updates
        self.env.rng.bit_generator.state = state.environment_rng
        self.rng.bit_generator.state = state.learner_rng
        self.normaliser.mean, self.normaliser.var, self.normaliser.count = state.normaliser

    def metadata(self) -> dict[str, Any]:
        """Counters, generator states and the bonus normaliser (JSON)."""
        n = self.normaliser
        return {"episodes": self.episodes, "updates": self.updates,
                "environment_rng": self.env.rng.bit_generator.state,
                "learner_rng": self.rng.bit_generator.state,
                "normaliser": [n.mean, n.var, n.count]}


def _identity(mdp: BlockMDP, algorithm: str, rnd: bool, seed: int, encoder: HadamardNoise,
              config: BatchedConfig, sample_rewards: bool, evaluate_every: int,
              samples: int) -> dict[str, Any]:
    return {"kind": "batched baseline", "algorithm": algorithm, "rnd": rnd, "seed": seed,
            "config": asdict(config), "mdp": mdp.name, "mdp_sha256": mdp_fingerprint(mdp),
            "encoder": asdict(encoder), "rewards": "sampled" if sample_rewards else "expected",
            "evaluate_every": evaluate_every, "samples": samples}


def _save(run_dir: Path, learner: BatchedLearner, evaluator: ValueEvaluator,
          returns: _Thinned, identity: dict[str, Any], seconds: float, evaluated: int,
          stopped: bool) -> None:
    arrays = {**learner.arrays(),
              "curve": np.array(evaluator.curve, dtype=np.float64).reshape(-1, 2),
              "training_returns": np.array(returns.points, dtype=np.float64).reshape(-1, 2)}
    write_checkpoint(run_dir, arrays, {
        **learner.metadata(), "identity": identity, "seconds": seconds,
        "stride": returns.stride, "pending": returns.pending,
        "pending_count": returns.pending_count, "evaluated": evaluated, "stopped": stopped})


def _load(run_dir: Path, learner: BatchedLearner, evaluator: ValueEvaluator,
          returns: _Thinned, identity: dict[str, Any], every: int) -> tuple[float, int, bool]:
    """Restore a checkpoint (every entry and field checked first: :mod:`.batched_state`); the
    seconds run so far, the evaluations made and whether the run had stopped at half the
    optimal value."""
    layout = Layout({name: (array.shape, array.dtype) for name, array in learner.arrays().items()},
                    learner.config.workers, every, identity)
    state = read_checkpoint(run_dir, layout)
    learner.load(state)
    evaluator.curve = state.curve
    returns.points = state.training_returns
    returns.stride, returns.pending = state.stride, state.pending
    returns.pending_count, returns.last_episodes = state.pending_count, state.episodes
    return state.seconds, state.evaluated, state.stopped


def run_batched_baseline(
    mdp: BlockMDP, algorithm: str, episodes: int, rnd: bool = False, seed: int = 0,
    run_dir: Path | str | None = None, encoder: HadamardNoise | None = None,
    config: BatchedConfig | None = None, evaluate_every: int | None = None,
    stop_at_half: bool = False, sample_rewards: bool = True, samples: int = 200,
    checkpoint_every: int = 100,
) -> BaselineResult:
    """Train ``algorithm`` (``'a2c'`` or ``'ppo'``, with RND if ``rnd``) for ``episodes``
    episodes, rounded up to whole updates of ``config.workers`` episodes; evaluate the exact
    value of its stochastic policy (:class:`.evaluation.ValueEvaluator`, ``samples`` encodings
    per latent observation) each time another ``evaluate_every`` episodes are done (default:
    a twentieth of the budget) and at the end. With ``stop_at_half`` the run stops at the first
    evaluation whose value is at least half the optimal value (the metric of
    ``fig:horizon-plot``).

    With ``run_dir``, the run writes its identity and, every ``checkpoint_every`` updates and
    at the end, a checkpoint (:mod:`.batched_checkpoint`); a directory holding a checkpoint of
    the same run resumes from it (and ends as the uninterrupted run would), another run's is
    refused (its identity holds ``evaluate_every``: to extend a run's budget, pass the same
    ``evaluate_every`` rather than its default). The run's thread counts and global
    generators are set by :func:`homer.process_state.process_state` and restored after it.

    >>> from kinematic.families import combination_lock
    >>> result = run_batched_baseline(combination_lock(2, 2, seed=0), "ppo", 8, rnd=True,
    ...                               config=BatchedConfig(workers=4), evaluate_every=4)
    >>> result.algorithm, result.episodes, [e for e, _ in result.curve]
    ('ppo_rnd', 8, [4, 8])
    """
    at_least(1).check(episodes, "episodes")
    config = config or BatchedConfig()
    encoder = encoder or HadamardNoise()
    every = max(1, episodes // 20) if evaluate_every is None else evaluate_every
    at_least(1).check(every, "evaluate_every")
    at_least(1).check(checkpoint_every, "checkpoint_every")
    with process_state(config.torch_threads):
        started = time.perf_counter()
        learner = BatchedLearner(mdp, algorithm, rnd, seed, encoder, config, sample_rewards)
        evaluator = ValueEvaluator(mdp, encoder, samples, seed)
        returns = _Thinned()
        identity = _identity(mdp, algorithm, rnd, seed, encoder, config, sample_rewards,
                             every, samples)
        directory = None if run_dir is None else Path(run_dir)
        before, evaluated, stopped = 0.0, 0, False
        if directory is not None and claim(directory, identity):
            before, evaluated, stopped = _load(directory, learner, evaluator, returns, identity,
                                               every)
        updates = math.ceil(episodes / config.workers)
        if learner.updates > updates:
            raise ValueError(f"{directory} holds a run of {learner.episodes:,} episodes, more "
                             f"than the {episodes:,} asked for: use another directory (or ask "
                             "for at least as many episodes to continue it)")
        probabilities: Callable[[int, np.ndarray], np.ndarray] = learner.probabilities
        while learner.updates < updates and not stopped:
            learner.update()
            returns.add(learner.episodes, float(learner.env.returns.mean()))
            due = learner.episodes // every > evaluated or learner.updates == updates
            if due:
                evaluated = learner.episodes // every
                value = evaluator.record(learner.episodes, probabilities)
                stopped = stop_at_half and value >= evaluator.optimal_value / 2
            if directory is not None and (learner.updates % checkpoint_every == 0
                                          or learner.updates == updates or stopped):
                _save(directory, learner, evaluator, returns, identity,
                      before + time.perf_counter() - started, evaluated, stopped)
        if not evaluator.curve:  # resumed from a finished run with a smaller budget
            evaluator.record(learner.episodes, probabilities)
        visits = {state: int(count) for layer, counts in zip(mdp.layers, learner.env.visits,
                                                              strict=True)
                  for state, count in zip(layer, counts, strict=True)}
        return BaselineResult(
            algorithm=algorithm + ("_rnd" if rnd else ""), value=evaluator.curve[-1][1],
            optimal_value=evaluator.optimal_value, episodes=learner.episodes,
            episodes_to_half=evaluator.episodes_to_half(),
            seconds=before + time.perf_counter() - started, curve=evaluator.curve,
            visitation=evaluator.visitation(probabilities), state_visits=visits,
            training_returns=returns.curve())

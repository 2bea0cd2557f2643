"""A2C and PPO (stable-baselines3) on rich-observation Block MDPs, optionally with the RND bonus,
with the hyperparameters of Tables ``tab:aac-hyperparam`` and ``tab:ppo-hyperparam``: 2-layer
MLPs with 64 ReLU units, RMSProp, learning rate 1e-3, gamma 0.99, GAE 0.95, entropy bonus 0.01,
gradient clipping 0.5 (A2C) / 5 (PPO), PPO with 10 epochs, minibatches of 160 and ratio clip
0.2, intrinsic coefficient 100 for the RND variants.

Rollouts: A2C collects ``H`` steps (one episode) per update, as in the table. PPO's rollout is
rounded up to whole episodes holding at least one minibatch of 160, and the minibatch to a
divisor of the rollout near 160 (stable-baselines3 draws its minibatches from one rollout; the
paper's implementation ran several workers)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3 import A2C, PPO
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.distributions import CategoricalDistribution
from stable_baselines3.common.logger import Logger
from stable_baselines3.common.policies import ActorCriticPolicy
from torch import nn

from homer.baselines.evaluation import BaselineResult, ValueEvaluator
from homer.baselines.rnd import RandomNetworkDistillation
from homer.config import DEFAULT_TORCH_THREADS
from homer.encoders import HadamardNoise
from homer.envs import RichObservationEnv
from homer.process_state import process_state
from kinematic.model import BlockMDP

__all__ = ["ActorCriticConfig", "run_actor_critic"]


@dataclass(frozen=True)
class ActorCriticConfig:
    """Hyperparameters of A2C / PPO (+RND), Tables ``tab:aac-hyperparam``,
    ``tab:ppo-hyperparam`` and Appendix ``app:appendix-experiment``."""

    learning_rate: float = 1e-3
    gamma: float = 0.99
    gae_lambda: float = 0.95
    entropy_bonus: float = 0.01
    a2c_gradient_clipping: float = 0.5
    ppo_gradient_clipping: float = 5.0
    ppo_epochs: int = 10
    ppo_minibatch: int = 160
    ppo_ratio_clip: float = 0.2
    hidden: int = 64
    intrinsic_coefficient: float = 100.0
    torch_threads: int = DEFAULT_TORCH_THREADS  # homer/process_state.py


def _model(algorithm: str, env, horizon: int, config: ActorCriticConfig,
           seed: int) -> BaseAlgorithm:
    policy_kwargs = {"net_arch": [config.hidden, config.hidden], "activation_fn": nn.ReLU}
    common: dict[str, Any] = {"learning_rate": config.learning_rate, "gamma": config.gamma,
              "gae_lambda": config.gae_lambda, "ent_coef": config.entropy_bonus, "seed": seed,
              "device": "cpu", "verbose": 0}
    if algorithm == "a2c":
        return A2C("MlpPolicy", env, n_steps=horizon, max_grad_norm=config.a2c_gradient_clipping,
                   policy_kwargs=policy_kwargs, **common)
    if algorithm == "ppo":
        rollout = horizon * math.ceil(config.ppo_minibatch / horizon)
        minibatch = rollout // round(rollout / config.ppo_minibatch)
        return PPO("MlpPolicy", env, n_steps=rollout, batch_size=minibatch,
                   n_epochs=config.ppo_epochs, clip_range=config.ppo_ratio_clip,
                   max_grad_norm=config.ppo_gradient_clipping,
                   policy_kwargs={**policy_kwargs, "optimizer_class": torch.optim.RMSprop},
                   **common)
    raise ValueError(f"unknown algorithm {algorithm!r}: expected 'a2c' or 'ppo'")


class _Evaluate(BaseCallback):
    """Evaluates the exact value of the current policy every ``every`` episodes."""

    def __init__(self, evaluator: ValueEvaluator, horizon: int, every: int):
        super().__init__()
        self.evaluator, self.horizon, self.every = evaluator, horizon, every

    def probabilities(self, step: int, encodings: np.ndarray) -> np.ndarray:
        policy = self.model.policy
        assert isinstance(policy, ActorCriticPolicy), "A2C and PPO act by an actor-critic policy"
        with torch.no_grad():
            distribution = policy.get_distribution(torch.from_numpy(encodings))
            assert isinstance(distribution, CategoricalDistribution), "the actions are discrete"
            return distribution.distribution.probs.numpy()

    def _on_step(self) -> bool:
        if self.num_timesteps % (self.every * self.horizon) == 0:
            self.evaluator.record(self.num_timesteps // self.horizon, self.probabilities)
        return True


def run_actor_critic(
    mdp: BlockMDP, algorithm: str, episodes: int, rnd: bool = False, seed: int = 0,
    encoder: HadamardNoise | None = None, sample_rewards: bool = True,
    config: ActorCriticConfig | None = None, evaluations: int = 20, samples: int = 200,
) -> BaselineResult:
    """Train ``algorithm`` (``a2c`` or ``ppo``) for ``episodes`` episodes; evaluate the exact
    value of its stochastic policy ``evaluations`` times along the way. stable-baselines3 seeds
    the global random generators: they and the thread counts are restored after the run
    (:func:`homer.process_state.process_state`)."""
    if episodes < 1 or evaluations < 1:
        raise ValueError(f"episodes and evaluations must be positive, got {episodes}, "
                         f"{evaluations}")
    config = config or ActorCriticConfig()
    with process_state(config.torch_threads):
        return _learn(mdp, algorithm, episodes, rnd, seed, encoder or HadamardNoise(),
                      sample_rewards, config, evaluations, samples)


def _learn(mdp: BlockMDP, algorithm: str, episodes: int, rnd: bool, seed: int,
           encoder: HadamardNoise, sample_rewards: bool, config: ActorCriticConfig,
           evaluations: int, samples: int) -> BaselineResult:
    """:func:`run_actor_critic` once its process state is set."""
    started = time.perf_counter()
    env: gym.Env = RichObservationEnv(mdp, encoder, sample_rewards, seed=seed)
    if rnd:
        env = RandomNetworkDistillation(env, config.intrinsic_coefficient, seed=seed)
    model = _model(algorithm, env, mdp.horizon, config, seed)
    # A logger with no outputs: SB3's default creates an empty SB3-<time> folder in the temp
    # directory on every learn().
    model.set_logger(Logger(folder=None, output_formats=[]))
    evaluator = ValueEvaluator(mdp, encoder, samples, seed)
    callback = _Evaluate(evaluator, mdp.horizon, max(1, episodes // evaluations))
    model.learn(total_timesteps=episodes * mdp.horizon, callback=callback)
    if not evaluator.curve or evaluator.curve[-1][0] != episodes:
        evaluator.record(episodes, callback.probabilities)
    return BaselineResult(
        algorithm=algorithm + ("_rnd" if rnd else ""), value=evaluator.curve[-1][1],
        optimal_value=evaluator.optimal_value, episodes=episodes,
        episodes_to_half=evaluator.episodes_to_half(), seconds=time.perf_counter() - started,
        curve=evaluator.curve, visitation=evaluator.visitation(callback.probabilities),
    )

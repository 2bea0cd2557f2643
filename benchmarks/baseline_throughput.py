"""Throughput of the batched baselines (``homer.baselines.batched``) against the current one.

Environment steps per second, by wall-clock and by CPU time (``time.process_time``: other
processes on the machine change the first more than the second), all with one thread (torch
and BLAS), on the paper's lock ``combination_lock(H, 10, seed)`` with ``HadamardNoise()`` and
the paper's hyperparameters (100 workers x H steps per update, PPO's 10 epochs of minibatches
of 160):

1. the batched PPO+RND (target: >= 20,000 steps/s at H = 25 and >= 10x the current one), and
   the batched PPO, A2C and A2C+RND;
2. the current implementation, ``run_actor_critic(mdp, 'ppo', episodes, rnd=True)``
   (stable-baselines3 on one gymnasium environment), and the ratio;
3. the other routes measured before choosing numpy passes: stable-baselines3's PPO on an SB3
   ``VecEnv`` over the same batched environment (``n_envs`` 100, ``n_steps`` H,
   ``batch_size`` 160, ``n_epochs`` 10, no RND); with ``--torchrl`` (TorchRL importable) one
   PPO minibatch step by TorchRL's ``ClipPPOLoss`` and one rollout's GAE by TorchRL's
   ``generalized_advantage_estimate``, next to the same step by a plain-torch autograd loss
   and by the batched learner's hand-written gradient (numpy).

Written, dated, into this script's section of ``benchmarks/results/baseline_throughput.md``
(``results_page.py``). Usage: ``python benchmarks/baseline_throughput.py [--horizon 25]
[--updates 20] [--current-episodes 200] [--torchrl] [--note TEXT] [--results FILE]``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import torch
from machine import machine  # beside this script (run as a script)
from results_page import ResultsPage  # beside this script
from stable_baselines3 import PPO
from stable_baselines3.common.logger import Logger
from stable_baselines3.common.vec_env import VecEnv
from torch import nn

from homer.baselines.actor_critic import run_actor_critic
from homer.baselines.batched import BatchedConfig, BatchedLearner
from homer.baselines.vector_env import VectorEnv
from homer.encoders import HadamardNoise
from homer.envs import RichObservationEnv
from homer.process_state import process_state
from kinematic.families import combination_lock
from kinematic.model import BlockMDP

RESULTS = Path(__file__).parent / "results" / "baseline_throughput.md"


def timed(work: Callable[[], object]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of ``work()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


def batched(mdp: BlockMDP, algorithm: str, rnd: bool, updates: int) -> tuple[float, float]:
    """Seconds of ``updates`` updates of the batched learner (after one not timed)."""
    learner = BatchedLearner(mdp, algorithm, rnd, seed=0, encoder=HadamardNoise())
    learner.update()

    def work() -> None:
        for _ in range(updates):
            learner.update()

    return timed(work)


def breakdown(mdp: BlockMDP, updates: int) -> list[tuple[str, float]]:
    """CPU milliseconds per update of the batched PPO+RND, by part: the environment alone
    (uniform actions), the rollout (environment, policy, RND bonus and predictor steps) and
    the PPO epochs (an update less its rollout)."""
    learner = BatchedLearner(mdp, "ppo", True, seed=0, encoder=HadamardNoise())
    learner.update()
    env, rng = learner.env, np.random.default_rng(0)

    def environment() -> None:
        for _ in range(updates):
            env.reset()
            while env.step(rng.integers(mdp.number_of_actions, size=env.workers))[1] is not None:
                pass

    def rollouts() -> None:
        for _ in range(updates):
            learner._rollout()

    def whole() -> None:
        for _ in range(updates):
            learner.update()

    alone, rollout, update = (1000 * timed(work)[1] / updates
                              for work in (environment, rollouts, whole))
    return [("environment alone (VectorEnv, uniform actions)", alone),
            ("rollout: environment, policy, RND bonus and 25 predictor steps", rollout),
            ("PPO epochs: 160 minibatch steps of PPO and RND (update less rollout)",
             update - rollout), ("whole update", update)]


class Sb3VectorEnv(VecEnv):
    """stable-baselines3's ``VecEnv`` interface over :class:`VectorEnv`: every episode ends
    at the same step, where the next batch starts (SB3 resets finished environments itself)."""

    def __init__(self, mdp: BlockMDP, workers: int, seed: int) -> None:
        self.env = VectorEnv(mdp, workers, HadamardNoise(), seed=seed)
        single = RichObservationEnv(mdp, HadamardNoise())
        super().__init__(workers, single.observation_space, single.action_space)
        self._actions = np.zeros(workers, dtype=np.intp)

    def reset(self) -> np.ndarray:
        return self.env.reset()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.intp)

    def step_wait(self) -> Any:
        rewards, following = self.env.step(self._actions)
        done = following is None
        observations = self.env.reset() if following is None else following
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        return (observations, rewards.astype(np.float32), np.full(self.num_envs, done), infos)

    def close(self) -> None:
        return None

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [None] * self.num_envs

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        return None

    def env_method(self, method_name: str, *args: Any, indices: Any = None,
                   **kwargs: Any) -> list[Any]:
        return [None] * self.num_envs

    def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
        return [False] * self.num_envs


def sb3_vector(mdp: BlockMDP, updates: int) -> tuple[float, float]:
    """Seconds of stable-baselines3's PPO over ``updates`` rollouts of 100 x H steps."""
    config = BatchedConfig()
    model = PPO("MlpPolicy", Sb3VectorEnv(mdp, config.workers, 0), n_steps=mdp.horizon,
                batch_size=config.ppo_minibatch, n_epochs=config.ppo_epochs,
                learning_rate=config.learning_rate, gamma=config.gamma,
                gae_lambda=config.gae_lambda, ent_coef=config.entropy_bonus,
                clip_range=config.ppo_ratio_clip, max_grad_norm=config.ppo_gradient_clipping,
                policy_kwargs={"net_arch": [64, 64], "activation_fn": nn.ReLU,
                               "optimizer_class": torch.optim.RMSprop},
                seed=0, device="cpu", verbose=0)
    model.set_logger(Logger(folder=None, output_formats=[]))
    steps = config.workers * mdp.horizon
    model.learn(total_timesteps=steps)  # not timed: the first rollout and update
    return timed(lambda: model.learn(total_timesteps=updates * steps,
                                     reset_num_timesteps=False))


def current(mdp: BlockMDP, episodes: int) -> tuple[float, float]:
    """Seconds of the current PPO+RND for ``episodes`` episodes (one evaluation)."""
    return timed(lambda: run_actor_critic(mdp, "ppo", episodes, rnd=True, seed=0,
                                          evaluations=1))


def torchrl_minibatch(mdp: BlockMDP, repeats: int) -> list[tuple[str, float]]:
    """Milliseconds (CPU) of one PPO minibatch step (160 rows, loss, gradient, RMSprop) by
    TorchRL's ``ClipPPOLoss``, by a plain-torch autograd loss and by the batched learner's
    hand-written gradient; and of one rollout's GAE by TorchRL and by the learner."""
    from tensordict import TensorDict
    from tensordict.nn import TensorDictModule
    from torchrl.modules import ProbabilisticActor, ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value.functional import generalized_advantage_estimate

    learner = BatchedLearner(mdp, "ppo", rnd=False, seed=0)
    d, actions, n = learner.env.dimension, mdp.number_of_actions, 160
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(n, d, generator=generator)
    action = torch.randint(actions, (n,), generator=generator)
    old = torch.full((n,), -float(np.log(actions)))
    returns, advantages = torch.randn(n, generator=generator), torch.randn(n, generator=generator)

    def body() -> nn.Sequential:
        return nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())

    actor = ProbabilisticActor(
        TensorDictModule(nn.Sequential(body(), nn.Linear(64, actions)), ["observation"],
                         ["logits"]),
        in_keys=["logits"], distribution_class=torch.distributions.Categorical,
        return_log_prob=True)
    critic = ValueOperator(nn.Sequential(body(), nn.Linear(64, 1)), in_keys=["observation"])
    loss = ClipPPOLoss(actor, critic, clip_epsilon=0.2, entropy_coeff=0.01, critic_coeff=0.5,
                       loss_critic_type="l2", normalize_advantage=False)
    torchrl_optimiser = torch.optim.RMSprop(loss.parameters(), lr=1e-3)
    batch = TensorDict({"observation": x, "action": action,
                        loss.tensor_keys.sample_log_prob: old, "advantage": advantages[:, None],
                        "value_target": returns[:, None]}, batch_size=[n])

    def torchrl_step() -> None:
        losses = loss(batch)
        total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
        torchrl_optimiser.zero_grad()
        total.backward()
        nn.utils.clip_grad_norm_(loss.parameters(), 5.0)
        torchrl_optimiser.step()

    network = learner.network
    network.requires_grad_(True)
    autograd_optimiser = torch.optim.RMSprop(network.parameters(), lr=1e-3)

    def autograd_step() -> None:
        log_probabilities, values = network(x)
        chosen = log_probabilities.gather(1, action[:, None])[:, 0]
        entropy = -(log_probabilities.exp() * log_probabilities).sum(dim=1).mean()
        ratio = (chosen - old).exp()
        policy = -torch.minimum(ratio * advantages, ratio.clamp(0.8, 1.2) * advantages).mean()
        total = policy - 0.01 * entropy + 0.5 * (returns - values).pow(2).mean()
        autograd_optimiser.zero_grad()
        total.backward()
        nn.utils.clip_grad_norm_(network.parameters(), 5.0)
        autograd_optimiser.step()

    mine = BatchedLearner(mdp, "ppo", rnd=False, seed=0)

    arrays = [tensor.numpy() for tensor in (x, action, old, returns, advantages)]

    def hand_written_step() -> None:
        mine._network_gradient(*arrays)
        mine.optimiser.clip(mine.network_part, 5.0)
        mine.optimiser.step(mine.network_part)

    horizon, workers = mdp.horizon, 100
    value = torch.randn(workers, horizon, 1, generator=generator)
    following = torch.cat([value[:, 1:], torch.zeros(workers, 1, 1)], dim=1)
    reward = torch.randn(workers, horizon, 1, generator=generator)
    done = torch.zeros(workers, horizon, 1, dtype=torch.bool)
    done[:, -1] = True

    def torchrl_gae() -> None:
        generalized_advantage_estimate(0.99, 0.95, value, following, reward, done, done)

    def learner_gae() -> None:  # the learner's recursion, as in BatchedLearner._rollout
        values = np.concatenate([value[..., 0].numpy().T, np.zeros((1, workers))])
        rewards = reward[..., 0].numpy().T
        advantage = np.zeros(workers, dtype=np.float32)
        for t in reversed(range(horizon)):
            mask = 0.0 if t == horizon - 1 else 1.0
            delta = rewards[t] + 0.99 * mask * values[t + 1] - values[t]
            advantage = delta + 0.99 * 0.95 * mask * advantage

    rows = []
    for name, step in (("TorchRL ClipPPOLoss, autograd, torch RMSprop", torchrl_step),
                       ("plain torch: autograd loss, torch RMSprop", autograd_step),
                       ("numpy: hand-written gradient, flat RMSprop (chosen)",
                        hand_written_step),
                       ("TorchRL generalized_advantage_estimate, one rollout", torchrl_gae),
                       ("the learner's GAE recursion in numpy, one rollout", learner_gae)):
        step()

        def work(step: Callable[[], None] = step) -> None:
            for _ in range(repeats):
                step()

        rows.append((name, 1000 * min(timed(work)[1] for _ in range(3)) / repeats))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=int, default=25)
    parser.add_argument("--updates", type=int, default=20,
                        help="timed updates of each batched learner (100 x H steps each)")
    parser.add_argument("--current-episodes", type=int, default=200,
                        help="episodes of the current run_actor_critic PPO+RND")
    parser.add_argument("--threads", default="1",
                        help="thread counts (torch and BLAS) for the batched PPO+RND, e.g. 1,2")
    parser.add_argument("--torchrl", action="store_true",
                        help="also time TorchRL's ClipPPOLoss and GAE (needs torchrl)")
    parser.add_argument("--note", default="not recorded", help="what else ran meanwhile")
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="the Markdown page whose section is written")
    args = parser.parse_args()
    page = ResultsPage.read(args.results, "benchmarks/baseline_throughput.py",
                            "Throughput of the baselines")
    started, load = datetime.now(UTC), os.getloadavg()
    mdp = combination_lock(args.horizon, 10, 0)
    steps = 100 * args.horizon * args.updates
    print(f"machine: {machine(('numpy', 'torch'))}; load {load[0]:.2f}")
    rows: list[tuple[str, float, float, float]] = []  # name, steps, wall, cpu

    def report(name: str, count: float, seconds: tuple[float, float]) -> None:
        rows.append((name, count, *seconds))
        print(f"{name:<62} {count / seconds[0]:>9.0f} steps/s wall {count / seconds[1]:>9.0f} "
              "steps/s CPU", flush=True)

    with process_state(1):
        for algorithm, rnd in (("ppo", True), ("ppo", False), ("a2c", True), ("a2c", False)):
            report(f"batched {algorithm.upper()}{'+RND' if rnd else ''}", steps,
                   batched(mdp, algorithm, rnd, args.updates))
        parts = breakdown(mdp, max(1, args.updates // 2))
    for threads in (int(n) for n in args.threads.split(",") if int(n) != 1):
        with process_state(threads):
            report(f"batched PPO+RND with {threads} threads (torch and BLAS)", steps,
                   batched(mdp, "ppo", True, args.updates))
    for name, milliseconds in parts:
        print(f"{name:<72} {milliseconds:>7.1f} ms CPU per update")
    with process_state(1):
        report("stable-baselines3 PPO on an SB3 VecEnv of 100 (no RND)", steps,
               sb3_vector(mdp, args.updates))
    # run_actor_critic sets its own process state (one thread, the project's default)
    report("current: run_actor_critic(..., 'ppo', rnd=True), one env",
           args.current_episodes * args.horizon, current(mdp, args.current_episodes))
    target = rows[0]
    reference = rows[-1]
    wall_ratio = (target[1] / target[2]) / (reference[1] / reference[2])
    cpu_ratio = (target[1] / target[3]) / (reference[1] / reference[3])
    print(f"batched PPO+RND / current: {wall_ratio:.1f}x wall, {cpu_ratio:.1f}x CPU")
    torchrl_rows: list[tuple[str, float]] = []
    if args.torchrl:
        with process_state(1):
            torchrl_rows = torchrl_minibatch(mdp, 200)
        for name, milliseconds in torchrl_rows:
            print(f"{name:<62} {milliseconds:>7.3f} ms CPU")
    after = os.getloadavg()
    lines = [
        f"`python benchmarks/baseline_throughput.py {shlex.join(sys.argv[1:])}`, "
        f"{started:%Y-%m-%d %H:%M} UTC, {machine(('numpy', 'torch'))}; one thread "
        "(torch and BLAS) unless a row says otherwise; "
        f"load average {load[0]:.2f} before, {after[0]:.2f} after. Also running: {args.note}.",
        "",
        f"`combination_lock({args.horizon}, 10, 0)` with `HadamardNoise()`, the paper's "
        f"hyperparameters; batched rows: {args.updates} updates of 100 x {args.horizon} steps "
        f"after one untimed; the current one: {args.current_episodes} episodes.",
        "",
        "| implementation | steps/s (wall-clock) | steps/s (CPU time) |",
        "|---|---|---|",
        *(f"| {name} | {count / wall:,.0f} | {count / cpu:,.0f} |"
          for name, count, wall, cpu in rows),
        "",
        f"Batched PPO+RND / current: **{wall_ratio:.1f}x** by wall-clock, **{cpu_ratio:.1f}x** "
        "by CPU time.",
        "",
        "The batched PPO+RND by part, CPU milliseconds per update (2,500 steps):",
        "",
        "| part | ms |",
        "|---|---|",
        *(f"| {name} | {ms:.1f} |" for name, ms in parts),
    ]
    if torchrl_rows:
        lines += ["", "One PPO minibatch step (160 rows: loss, gradient, clipping, RMSprop) and "
                  "one rollout's GAE, CPU milliseconds (best of 3 x 200):", "",
                  "| route | ms |", "|---|---|",
                  *(f"| {name} | {ms:.3f} |" for name, ms in torchrl_rows)]
    page.write(lines)
    print(f"written: {args.results}")


if __name__ == "__main__":
    main()

"""HOMER (``alg:learn_homing_policy``) with the implementation choices of Section 7.

For ``h = 2 .. H`` (``step = h - 1`` below, 0-based):

1. collect real transitions ``(x, a, x')`` with ``Unf(Psi_{h-1}) o Unf(A)``;
2. train the backward model (bottleneck on ``x'``: ``phi_B``) and the forward model
   (bottleneck on ``x``: ``phi_F`` of the previous step) on real vs imposter transitions - or,
   with ``HomerConfig.objective``, one of Section 5's objectives learns ``phi_B`` instead
   (homer/objectives.py; no ``phi_F`` then);
3. for each backward class ``i``, find a policy maximising ``1{phi_B(x_h) = i}`` by GPS from the
   transitions already collected; while GPS rejects a class, or the backward abstraction
   collapsed to a single class (which cannot tell a real ``x'`` from an imposter; GPS would
   accept it trivially), collect another round and retrain (up to ``max_transitions``), then
   fall back to full PSDP for the classes still rejected; the policies form ``Psi_h``;
4. save everything (a :class:`~homer.run_directory.RunCheckpoint`, ``checkpoint.pt`` in the run
   directory) so that an interrupted run resumes with identical results.

Then the reward-sensitive PSDP with the external reward, and an estimate of its value by
rollouts. Seeding happens once, in :func:`run_homer`, through one numpy ``Generator``, one
``torch.Generator`` and torch's global generator (restored when the run ends), whose states are
saved with each checkpoint.
"""

from __future__ import annotations

import json
import math
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from homer.capacity import check_capacities
from homer.config import HomerConfig
from homer.encoders import HadamardNoise
from homer.models import (
    ContrastiveEnsemble,
    LinearAbstraction,
    TrainingResult,
    train_contrastive,
)
from homer.objectives import one_class_abstraction, train_objective
from homer.process_state import process_state
from homer.psdp import PsdpFallbackWarning, greedy_policy_search, psdp
from homer.run_directory import (
    CHECKPOINT,
    RESULT,
    RunCheckpoint,
    RunIdentity,
    check_run_directory,
    claim_run_directory,
    read_run_checkpoint,
    write_checkpoint,
    write_identity,
    write_policy,
)
from homer.run_state import check_reward_scale
from homer.safe_files import write_atomically
from homer.sampler import Batch, BatchSampler, LinearPolicy, batch_bytes
from homer.wording import setting
from kinematic.arguments import format_duration
from kinematic.display import name_text
from kinematic.errors import TooLarge
from kinematic.homing import eta
from kinematic.model import BlockMDP
from kinematic.numbers import number_text
from kinematic.planning import optimal_values
from kinematic.resources import check_memory
from kinematic.spec import dumps_spec

__all__ = ["HomerResult", "check_run_fits", "check_run_time", "episodes_postfix",
           "fallback_message", "run_homer"]


@dataclass
class HomerResult:
    """What a run produced (the summary is also written to ``result.json``)."""

    value: float
    optimal_value: float
    episodes: int
    seconds: float
    run_dir: str
    covers: list[list[LinearPolicy]] = field(repr=False)
    policy: LinearPolicy = field(repr=False)
    backward_abstractions: dict[int, tuple[np.ndarray, np.ndarray]] = field(repr=False)
    forward_abstractions: dict[int, tuple[np.ndarray, np.ndarray]] = field(repr=False)
    log: list[dict[str, Any]] = field(repr=False)
    training_returns: list[tuple[int, float]] = field(repr=False)
    """``(episodes so far, mean extrinsic return of the episodes since the previous point)``
    after each learned step (its data collection, GPS rounds and PSDP fallbacks), then after
    the reward-sensitive PSDP: the phases of ``fig:value-function-plot`` before the learned
    policy's ``value``."""
    state_visits: dict[str, int] = field(repr=False)
    """Visits of each latent state by name over every learning episode (``fig:traces``)."""

    def summary(self) -> dict[str, Any]:
        return {"value": self.value, "optimal_value": self.optimal_value,
                "episodes": self.episodes, "seconds": round(self.seconds, 2),
                "run_dir": self.run_dir,
                "training_returns": [list(point) for point in self.training_returns],
                "state_visits": self.state_visits}


def check_run_fits(mdp: BlockMDP, config: HomerConfig, encoder: HadamardNoise) -> None:
    """Raise :class:`~kinematic.errors.TooLarge` before any work when the run exceeds this
    machine's memory, naming the setting that asks for it. Two estimates: the largest batch of
    episodes - a time step's rounds (``max_transitions`` episodes, held twice once merged, and
    once more as training inputs), a PSDP batch (``psdp_samples``, ``eval_samples``) or the
    evaluation (``evaluation_episodes``), each of ``H`` steps at most - and the contrastive
    models of a round: their parameters five times over (values, gradients, Adam's two moments
    and the best epoch's copy) and the activations of the validation pass, which takes the
    held-out share of every real and imposter transition at once, and of three mini-batches.
    Section 5's objectives train models of the same shape; ``one_class`` trains none.
    """
    largest, name = max((3 * config.max_transitions, "max_transitions"),
                        (config.psdp_samples, "psdp_samples"),
                        (config.eval_samples, "eval_samples"),
                        (config.evaluation_episodes, "evaluation_episodes"))
    dimension = encoder.dimension(mdp)
    where = f"on {mdp.name!r} (H = {mdp.horizon}, observations of dimension {dimension})"
    check_memory(batch_bytes(largest, mdp.horizon, dimension),
                 f"HOMER with {setting(name, getattr(config, name))} {where}")
    if config.objective == "one_class":  # nothing is trained
        return
    members = config.restarts + config.forward_restarts
    parameters = ContrastiveEnsemble.parameter_count(dimension, mdp.number_of_actions, members,
                                                     config)
    validation = math.ceil(config.validation_fraction * 2 * config.max_transitions)
    width = 2 * config.pretraining_width + mdp.number_of_actions + config.hidden + 2
    activations = members * (validation + 3 * config.batch_size) * width
    check_memory(4 * (5 * parameters + activations),  # float32
                 f"HOMER's contrastive models with {setting('hidden', config.hidden)}, "
                 f"{setting('pretraining_width', config.pretraining_width)} and {members} "
                 f"models per round ({setting('restarts', config.restarts)} + "
                 f"{setting('forward_restarts', config.forward_restarts)}) {where}")


SECONDS_PER_STEP = 5e-4
"""Least time of one mini-batch step of the contrastive models (three of them, one torch
thread, fused Adam): 1,000 steps of the default settings (batch 64) took 0.56 s, of batch 128
0.70 s on the 2-core development machine; wider models take longer."""
MAX_TRAINING_SECONDS = 30 * 86400
"""Longest worst case of training accepted (:func:`check_run_time`)."""


def check_run_time(mdp: BlockMDP, config: HomerConfig) -> None:
    """Raise :class:`~kinematic.errors.TooLarge` before any work when HOMER's training could run
    over 30 days: in the worst case each of the ``H - 1`` time steps collects every round
    (``transitions`` more real transitions each, while they stay within ``max_transitions``) and
    trains both phases for all of ``max_epochs`` on the training share of the real and imposter
    transitions, in mini-batches of ``batch_size``, each step taking at least
    :data:`SECONDS_PER_STEP`. Early stopping usually ends far sooner: this refuses a typo of a
    few zeros, not a long experiment."""
    if config.objective == "one_class":  # nothing is trained
        return
    steps = 0
    for collected in range(config.transitions, config.max_transitions + 1, config.transitions):
        samples = 2 * collected  # real and imposter transitions; split as split_indices does
        training = samples - max(1, int(samples * config.validation_fraction))
        steps += 2 * config.max_epochs * math.ceil(training / config.batch_size)
    steps *= mdp.horizon - 1
    if steps * SECONDS_PER_STEP > MAX_TRAINING_SECONDS:
        raise TooLarge(
            f"HOMER with {setting('max_epochs', config.max_epochs)}, "
            f"{setting('batch_size', config.batch_size)} and "
            f"{setting('max_transitions', config.max_transitions)} on {mdp.name!r} "
            f"(H = {mdp.horizon}) could train for {steps:,} mini-batch steps, at least "
            f"{format_duration(steps * SECONDS_PER_STEP)} (at least "
            f"{SECONDS_PER_STEP * 1e3:g} ms a step on a 2-core machine); at most "
            f"{format_duration(MAX_TRAINING_SECONDS)} is accepted")


def _class_indicator(abstraction: LinearAbstraction, step: int, block: int):
    """The internal reward ``1{phi_B(x_step) = block}`` as a PSDP return."""
    def reward_of(batch: Batch, t: int) -> np.ndarray:
        return (abstraction.classes(batch.observations[:, step]) == block).astype(np.float64)
    return reward_of


def _train(batches: list[Batch], step: int, actions: int, config: HomerConfig,
           generator: torch.Generator, previous: LinearAbstraction | None
           ) -> tuple[TrainingResult, TrainingResult | None]:
    """The best backward and the best forward model (of ``config.restarts`` and
    ``config.forward_restarts``), trained together on the transitions collected into ``step``;
    with another ``config.objective`` its best model and no forward model (``previous``: the
    run's abstraction of the previous layer, None on the first)."""
    x = np.concatenate([b.observations[:, step - 1] for b in batches])
    a = np.concatenate([b.actions[:, step - 1] for b in batches])
    x_next = np.concatenate([b.observations[:, step] for b in batches])
    if config.objective == "one_class":
        return one_class_abstraction(x.shape[1]), None
    if config.objective != "contrastive":
        previous_classes = np.zeros(len(x), np.intp) if previous is None \
            else previous.classes(x)
        trained = train_objective(config.objective, x, a, x_next, previous_classes, actions,
                                  config, generator)
        return min(trained, key=lambda model: model.validation_loss), None
    trained = train_contrastive(x, a, x_next, actions,
                                [True] * config.restarts + [False] * config.forward_restarts,
                                config, generator)
    best = min(trained[:config.restarts], key=lambda model: model.validation_loss)
    return best, min(trained[config.restarts:], key=lambda model: model.validation_loss)


def _previous_abstraction(checkpoint: RunCheckpoint, step: int) -> LinearAbstraction | None:
    """The run's ``phi_B`` of layer ``step - 1`` (None for the first layer)."""
    if step - 1 not in checkpoint.backward:
        return None
    return LinearAbstraction(*checkpoint.backward[step - 1])


def _merge(batches: list[Batch]) -> Batch:
    return Batch(*(np.concatenate([getattr(b, f.name) for b in batches])
                   for f in fields(Batch)))


def _greedy_cover(batch: Batch, classes: np.ndarray, cover: list[LinearPolicy], step: int,
                  actions: int, config: HomerConfig) -> tuple[dict, list[float]]:
    """GPS for every backward class: ``{class: policy or None}`` and the estimated values."""
    found, values = {}, []
    for i in np.unique(classes):
        policy, value = greedy_policy_search(batch, batch.roll_in_index, cover, step - 1,
                                             (classes == i).astype(np.float64), actions,
                                             config.ridge, config.gps_epsilon)
        found[int(i)] = policy
        values.append(value)
    return found, values


def fallback_message(mdp: BlockMDP, step: int, rejected: dict[int, float], classes: np.ndarray,
                     states: np.ndarray, config: HomerConfig) -> str:
    """The warning of a time step whose backward classes ``rejected`` (class -> GPS's last
    estimate of reaching it) got their policies from full PSDP, naming for each the latent
    state most of its transitions into layer ``step + 1`` (``step`` 0-based) came from and that
    state's ``eta`` (``classes``, ``states``: each transition's backward class and latent state
    index there). Greedy policy search accepts a policy whose estimated probability of reaching
    its class is at least ``1 - gps_epsilon``; no policy reaches a state more often than its
    ``eta`` (``def:homing``), so a class of states whose ``eta`` is below that threshold is
    rejected whatever the data. The lock's backward classes are reached with probability 1:
    it never falls back.

    >>> from kinematic.spec import from_spec
    >>> half = from_spec({"name": "half", "horizon": 2, "actions": ["a", "b"],
    ...     "layers": [["s"], ["u", "v"]], "start": {"s": "1"},
    ...     "transitions": {"s": {"a": {"u": "1"}, "b": {"u": "1/2", "v": "1/2"}}}})
    >>> print(fallback_message(half, 1, {1: 0.48}, np.array([0, 0, 1, 1]),
    ...                        np.array([0, 0, 1, 1]), HomerConfig()))
    ... # doctest: +NORMALIZE_WHITESPACE
    layer 2: greedy policy search rejected backward class 1 (estimated reach 0.48; state v, whose
    eta is 1/2): it accepts a class when the estimated probability of reaching it is at least
    0.9 (1 minus gps_epsilon=0.1), and no policy reaches a state more often than its eta; full
    PSDP found the policy instead (psdp_samples=2000 episodes per contextual-bandit problem)
    """
    threshold = 1 - config.gps_epsilon
    described, reachable = [], False
    for block, estimate in rejected.items():
        members = states[classes == block]
        counts = np.bincount(members, minlength=len(mdp.layers[step]))
        index = int(np.argmax(counts))
        name = mdp.layers[step][index]
        reach = eta(mdp, name)
        reachable = reachable or reach >= threshold
        share = "" if counts[index] == len(members) else f"{counts[index] / len(members):.0%} "
        described.append(f"{block} (estimated reach {estimate:.2f}; {share}state "
                         f"{name_text(name)}, whose eta is {number_text(reach, 3)})")
    why = ("; a state with eta at least that can pass, so the abstraction or the estimate fell "
           "short there" if reachable
           else ", and no policy reaches a state more often than its eta")
    several = len(described) > 1
    return (f"layer {step + 1}: greedy policy search rejected backward class"
            f"{'es' if several else ''} {', '.join(described)}: it accepts a class when the "
            f"estimated probability of reaching it is at least {threshold:g} (1 minus "
            f"{setting('gps_epsilon', config.gps_epsilon)}){why}; full PSDP found the "
            f"{'policies' if several else 'policy'} instead "
            f"({setting('psdp_samples', config.psdp_samples)} episodes per contextual-bandit "
            "problem)")


def episodes_postfix(episodes: int) -> str:
    """The progress bar's count of episodes, an integer with thousands separators (tqdm's own
    formatting of a number shows 10000 as ``1e+4``).

    >>> episodes_postfix(10_000)
    'episodes=10,000'
    """
    return f"episodes={episodes:,}"


@dataclass
class _OpenRun:
    """A run between :func:`_open_run` and :func:`_finish`: what every phase reads or updates."""

    mdp: BlockMDP
    config: HomerConfig
    run_dir: Path
    sampler: BatchSampler
    rng: np.random.Generator
    generator: torch.Generator
    checkpoint: RunCheckpoint
    """What the run has learned so far (saved after every step)."""
    started: float
    """``time.perf_counter()`` at the start, moved back by the seconds of earlier sessions."""


def _open_run(mdp: BlockMDP, run_dir: Path, config: HomerConfig, seed: int,
              encoder: HadamardNoise, sample_rewards: bool, resume: bool,
              force: bool) -> _OpenRun:
    """Check and create ``run_dir``, seed, claim it (resuming its checkpoint if asked) and write
    the run's identity."""
    encoder.check_fits(max(len(x) for x in mdp.observations), mdp.horizon)
    check_run_fits(mdp, config, encoder)
    check_run_time(mdp, config)
    check_reward_scale(mdp, config)
    check_capacities(mdp, config)
    check_run_directory(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    generator = torch.Generator().manual_seed(seed)
    # The Gumbel-softmax noise of the contrastive models comes from torch's global generator
    # (F.gumbel_softmax takes none), so it is seeded here and saved with every checkpoint:
    # without it a resumed run would draw other noise and differ from an uninterrupted one.
    torch.manual_seed(seed)
    sampler = BatchSampler(mdp, encoder, rng, sample_rewards)
    spec = dumps_spec(mdp)
    identity = RunIdentity.of(mdp, config, seed, encoder, sample_rewards, spec)
    claim_run_directory(run_dir, identity, resume, force)
    path = run_dir / CHECKPOINT
    if resume and path.exists():  # not a link: check_run_directory refused it
        checkpoint = read_run_checkpoint(path, mdp, identity.to_json())
        rng.bit_generator.state = checkpoint.numpy_rng
        generator.set_state(checkpoint.torch_rng)
        torch.set_rng_state(checkpoint.torch_global_rng)
        sampler.episodes = checkpoint.episodes
    else:
        checkpoint = RunCheckpoint(
            identity, completed_step=0, episodes=0, seconds=0.0,
            numpy_rng=dict(rng.bit_generator.state), torch_rng=generator.get_state(),
            torch_global_rng=torch.get_rng_state(), covers=[[LinearPolicy([], [])]],
            backward={}, forward={}, log=[])
    write_identity(run_dir, identity, spec)
    return _OpenRun(mdp, config, run_dir, sampler, rng, generator, checkpoint,
                    time.perf_counter() - checkpoint.seconds)


def _learn_step(run: _OpenRun, step: int) -> None:
    """Learn ``Psi_step`` (the cover of layer ``step``, 0-based) and checkpoint it: rounds of
    transitions while GPS rejects a class, then full PSDP for the classes still rejected."""
    config, sampler, checkpoint = run.config, run.sampler, run.checkpoint
    covers = checkpoint.covers
    actions = run.mdp.number_of_actions
    episodes_before = sampler.episodes
    batches: list[Batch] = []
    rounds: list[dict[str, Any]] = []
    while True:
        batches.append(sampler.run(config.transitions, covers[step - 1], step - 1,
                                   last_step=step))
        backward, forward = _train(batches, step, actions, config, run.generator,
                                   _previous_abstraction(checkpoint, step))
        batch = _merge(batches)
        classes = backward.abstraction.classes(batch.observations[:, step])
        found, gps_values = _greedy_cover(batch, classes, covers[step - 1], step, actions,
                                          config)
        more = len(batch.actions) + config.transitions <= config.max_transitions
        # A single class cannot tell real from imposter (unless asked for: one_class).
        collapsed = len(found) < 2 and config.objective != "one_class"
        rounds.append({"backward_loss": backward.validation_loss, "gps_values": gps_values})
        if (not collapsed and all(p is not None for p in found.values())) or not more:
            break
    fallbacks = [i for i, p in found.items() if p is None]
    if fallbacks:
        estimates = dict(zip(found, gps_values, strict=True))
        warnings.warn(fallback_message(run.mdp, step, {i: estimates[i] for i in fallbacks},
                                       classes, batch.states[:, step], config),
                      PsdpFallbackWarning, stacklevel=2)
    for i in fallbacks:
        reward_of = _class_indicator(backward.abstraction, step, i)
        found[i] = psdp(sampler, covers, step - 1, reward_of, config.psdp_samples,
                        config.ridge, episode_end=step)
    covers.append(list(found.values()))
    checkpoint.backward[step] = (backward.abstraction.weight, backward.abstraction.bias)
    if forward is not None:
        checkpoint.forward[step - 1] = (forward.abstraction.weight, forward.abstraction.bias)
    collected = sampler.collected()  # every episode of this step (learners never read it)
    checkpoint.log.append({
        "step": step + 1, "episodes": sampler.episodes - episodes_before,
        "return_sum": collected.return_sum, "visits": collected.visits,
        "transitions": len(batch.actions),
        "backward_loss": backward.validation_loss,
        "forward_loss": None if forward is None else forward.validation_loss,
        "classes": len(found), "gps_values": gps_values, "psdp_fallbacks": len(fallbacks),
        "rounds": rounds,
    })
    checkpoint.completed_step = step
    checkpoint.episodes = sampler.episodes
    checkpoint.seconds = time.perf_counter() - run.started
    checkpoint.numpy_rng = dict(run.rng.bit_generator.state)
    checkpoint.torch_rng = run.generator.get_state()
    checkpoint.torch_global_rng = torch.get_rng_state()
    write_checkpoint(run.run_dir, checkpoint)


def _finish(run: _OpenRun) -> HomerResult:
    """The reward-sensitive PSDP on the covers, its value by rollouts (not counted as
    learning episodes), and the artefacts ``policy.npz`` and ``result.json``."""
    mdp, config, sampler = run.mdp, run.config, run.sampler
    policy = psdp(sampler, run.checkpoint.covers, mdp.horizon - 1,
                  lambda batch, t: batch.rewards[:, t:].sum(axis=1),
                  config.eval_samples, config.ridge)
    learning_episodes = sampler.episodes
    final = sampler.collected()  # the reward-sensitive PSDP's episodes
    evaluation = sampler.run(config.evaluation_episodes, [], None, policy)
    sampler.episodes = learning_episodes
    sampler.collected()  # the evaluation's episodes are not learning episodes
    training_returns, visits, episodes = [], Counter[str](), 0
    if all("visits" in entry for entry in run.checkpoint.log):  # else begun before recording
        phases = [(entry["episodes"], entry["return_sum"], entry["visits"])
                  for entry in run.checkpoint.log]
        phases.append((final.episodes, final.return_sum, final.visits))
        for count, return_sum, visited in phases:
            episodes += count
            visits.update(visited)
            if count:
                training_returns.append((episodes, return_sum / count))
    result = HomerResult(
        value=float(evaluation.rewards.sum(axis=1).mean()),
        optimal_value=float(optimal_values(mdp).value),
        episodes=learning_episodes,
        seconds=time.perf_counter() - run.started,
        run_dir=str(run.run_dir),
        covers=run.checkpoint.covers, policy=policy,
        backward_abstractions=dict(run.checkpoint.backward),
        forward_abstractions=dict(run.checkpoint.forward),
        log=run.checkpoint.log, training_returns=training_returns, state_visits=dict(visits),
    )
    write_policy(run.run_dir, policy)
    write_atomically(run.run_dir / RESULT,
                     json.dumps({**result.summary(), "log": result.log}, indent=1))
    return result


def run_homer(
    mdp: BlockMDP,
    run_dir: str | Path,
    config: HomerConfig | None = None,
    seed: int = 0,
    encoder: HadamardNoise | None = None,
    sample_rewards: bool = True,
    resume: bool = False,
    progress: bool = True,
    force: bool = False,
) -> HomerResult:
    """Run HOMER on ``mdp`` with rich observations; artefacts go to ``run_dir``.

    The agent receives rewards drawn from the MDP's reward distributions (stochastic rewards,
    ``BlockMDP.reward_distributions``), or their expected values with ``sample_rewards=False``.
    With ``resume``, a run stopped after some time step continues from its checkpoint and
    yields the same result as an uninterrupted run with the same seed. A ``run_dir`` that
    holds another run is refused (``FileExistsError``) unless ``resume`` (same run only) or
    ``force`` (its artefacts and its ``compare`` report are deleted first, nothing else; a
    directory holding files named like artefacts but no run is refused). A ``run_dir`` with a
    symbolic link (or a directory) where an artefact or a ``compare`` output belongs is
    refused, naming it (:class:`~homer.safe_files.UnsafePathError`); files are written
    through fresh temporary files, so nothing is ever written outside ``run_dir`` (the files
    and their layout: :mod:`homer.run_directory`).

    The run sets torch's threads and the BLAS / OpenMP thread pools to
    ``config.torch_threads`` and seeds torch's global generator; both are restored when it
    returns or raises (:func:`homer.process_state.process_state`).
    """
    if resume and force:
        raise ValueError("resume and force exclude each other")
    config = config or HomerConfig()
    with process_state(config.torch_threads):
        run = _open_run(mdp, Path(run_dir), config, seed, encoder or HadamardNoise(),
                        sample_rewards, resume, force)
        steps = range(run.checkpoint.completed_step + 1, mdp.horizon)
        # Closed on Ctrl-C too, so the bar's line ends before the command's last line.
        # Named by the layer each step learns, as the fallback warnings name it.
        with tqdm(steps, disable=not progress, desc="HOMER", unit="step") as bar:
            for step in bar:
                bar.set_description(f"HOMER, layer {step + 1} of {mdp.horizon}")
                _learn_step(run, step)
                bar.set_postfix_str(episodes_postfix(run.sampler.episodes))
        return _finish(run)

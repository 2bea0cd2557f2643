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
4. save everything (``checkpoint.pt`` in the run directory) so that an interrupted run resumes
   with identical results.

Then the reward-sensitive PSDP with the external reward, and an estimate of its value by
rollouts. Seeding happens once, in :func:`run_homer`, through one numpy ``Generator`` and one
``torch.Generator`` whose states are saved with each checkpoint.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from homer.capacity import check_capacities
from homer.checkpoint import (
    UnsafePathError,
    check_own_path,
    save_checkpoint,
    write_atomically,
)
from homer.config import HomerConfig
from homer.encoders import HadamardNoise
from homer.models import (
    ContrastiveEnsemble,
    LinearAbstraction,
    TrainingResult,
    train_contrastive,
)
from homer.objectives import one_class_abstraction, train_objective
from homer.psdp import greedy_policy_search, psdp
from homer.run_state import check_reward_scale, read_run_checkpoint
from homer.sampler import Batch, BatchSampler, LinearPolicy, batch_bytes
from homer.threads import use_torch_threads
from homer.wording import setting
from kinematic.arguments import format_duration
from kinematic.errors import TooLarge
from kinematic.json_input import read_json_file
from kinematic.model import BlockMDP
from kinematic.planning import optimal_values
from kinematic.resources import check_memory
from kinematic.spec import dumps_spec

__all__ = ["ARTEFACTS", "CHECKPOINT", "COMPARE_DIRECTORY", "COMPARE_OUTPUTS", "COMPARE_PLOTS",
           "CONFIG", "MDP_SPEC", "HomerResult", "check_compare_outputs", "check_run_directory",
           "check_run_fits", "check_run_time", "covers_from_state", "mdp_fingerprint", "run_homer"]

CHECKPOINT = "checkpoint.pt"
MDP_SPEC = "mdp.json"
"""The latent Block MDP of the run as a kinematic JSON spec (read by ``homer compare``)."""
CONFIG = "config.json"
"""The run's identity: config, seed, MDP name and hash, encoder (compared on resume)."""
ARTEFACTS = (CONFIG, MDP_SPEC, CHECKPOINT, "policy.npz", "result.json")
"""The files a run writes to its directory."""
COMPARE_DIRECTORY = "compare"
"""The directory of a run where ``homer compare`` writes by default."""
COMPARE_PLOTS = ("visitation", "dynamics", "alpha", "confusion")
"""The figures of ``homer compare``, each saved as PNG and SVG."""
COMPARE_OUTPUTS = ("report.json", "summary.txt",
                   *(f"{plot}.{kind}" for plot in COMPARE_PLOTS for kind in ("png", "svg")))
"""The files ``homer compare`` writes (all ``--force`` deletes in ``COMPARE_DIRECTORY``)."""


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

    def summary(self) -> dict[str, Any]:
        return {"value": self.value, "optimal_value": self.optimal_value,
                "episodes": self.episodes, "seconds": round(self.seconds, 2),
                "run_dir": self.run_dir}


def _covers_state(covers: list[list[LinearPolicy]]) -> dict:
    """The covers for a checkpoint. Policies found by GPS share their prefix with a policy of
    the previous cover, so arrays are stored once and policies as lists of array indices."""
    arrays: list[np.ndarray] = []
    index: dict[int, int] = {}

    def ref(array: np.ndarray) -> int:
        if id(array) not in index:
            index[id(array)] = len(arrays)
            arrays.append(array)
        return index[id(array)]

    policies = [[([ref(w) for w in p.weights], [ref(b) for b in p.biases]) for p in cover]
                for cover in covers]
    return {"arrays": arrays, "policies": policies}


def covers_from_state(state: dict) -> list[list[LinearPolicy]]:
    """The covers of a checkpoint (``checkpoint["covers"]``); ``covers[h]`` reaches layer ``h``
    (0-based), ``covers[0]`` is the empty policy."""
    arrays = state["arrays"]
    return [[LinearPolicy([arrays[i] for i in weights], [arrays[i] for i in biases])
             for weights, biases in cover] for cover in state["policies"]]


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


SECONDS_PER_STEP = 1e-3
"""Least time of one mini-batch step of the contrastive models (three of them, one torch
thread): 1,000 steps of the default settings took 0.99 s, 4,000 took 3.9 s on the 2-core
development machine; wider models take longer."""
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
            f"{format_duration(steps * SECONDS_PER_STEP)} (about 1 ms a step on a 2-core "
            f"machine); at most {format_duration(MAX_TRAINING_SECONDS)} is accepted")


def _class_indicator(abstraction: LinearAbstraction, step: int, block: int):
    """The internal reward ``1{phi_B(x_step) = block}`` as a PSDP return."""
    def reward_of(batch: Batch, t: int) -> np.ndarray:
        return (abstraction.classes(batch.observations[:, step]) == block).astype(np.float64)
    return reward_of


def _save(run_dir: Path, state: dict) -> None:
    """Write the checkpoint atomically (a stopped run never leaves a broken file)."""
    save_checkpoint(run_dir / CHECKPOINT, state)


def check_compare_outputs(directory: Path) -> None:
    """Refuse (:class:`~homer.checkpoint.UnsafePathError` naming the path) a ``homer compare``
    output ``directory`` that exists but is not a directory, or where a file of
    ``COMPARE_OUTPUTS`` is a symbolic link or not a regular file. Absent paths pass."""
    if directory.exists() and not directory.is_dir():
        raise UnsafePathError(f"{directory} is a file, not a directory")
    for name in COMPARE_OUTPUTS:
        check_own_path(directory / name)


def check_run_directory(run_dir: Path) -> None:
    """Refuse (:class:`~homer.checkpoint.UnsafePathError` naming the path) a run directory
    where a file of ``ARTEFACTS``, the ``compare`` directory or one of its ``COMPARE_OUTPUTS``
    is a symbolic link or not of its kind (regular file, directory): run directories are handed
    over, and a planted link would make a run or ``homer compare`` write (or ``--force``
    delete) outside. ``run_dir`` itself may be a link (the user chose it)."""
    if run_dir.exists() and not run_dir.is_dir():
        raise UnsafePathError(f"{run_dir} is a file, not a run directory")
    for name in ARTEFACTS:
        check_own_path(run_dir / name)
    check_own_path(run_dir / COMPARE_DIRECTORY, directory=True)
    check_compare_outputs(run_dir / COMPARE_DIRECTORY)


def _holds_run(run_dir: Path, identity: dict) -> bool:
    """Whether ``run_dir`` holds a HOMER run: its ``config.json`` is a JSON object with every
    key of a run's identity (a ``checkpoint.pt`` alone is a common name for other files)."""
    try:
        stored = read_json_file(run_dir / CONFIG)
    except ValueError:
        return False
    return (isinstance(stored, dict) and stored.keys() >= identity.keys()
            and isinstance(stored["config"], dict))


def _delete_run(run_dir: Path, present: list[str]) -> None:
    """Delete the run's ``present`` artefacts and the files ``homer compare`` wrote in its
    ``compare`` directory, then that directory if nothing else is left in it; nothing else
    (other files there are not ours). Every path was checked by :func:`check_run_directory`;
    ``unlink`` never follows a link."""
    for name in present:
        (run_dir / name).unlink()
    compare = run_dir / COMPARE_DIRECTORY
    for name in COMPARE_OUTPUTS:
        (compare / name).unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # absent, or holding files that are not ours
        compare.rmdir()


def _claim_run_directory(run_dir: Path, identity: dict, resume: bool, force: bool) -> None:
    """Make ``run_dir`` this run's: refuse a directory holding another run's artefacts unless
    ``force`` (which deletes them) or ``resume`` (which needs the same identity).

    ``run_dir`` has passed :func:`check_run_directory` (no links where files are expected).
    ``force`` deletes only the files a run and ``homer compare`` write, and only when the
    directory holds a run (:func:`_holds_run`): files named like artefacts without a run are
    refused, naming them; with none, the run starts afresh.
    """
    present = [name for name in ARTEFACTS if (run_dir / name).exists()]
    if not present:
        return
    if force:
        if not _holds_run(run_dir, identity):
            raise FileExistsError(
                f"{run_dir} holds {', '.join(present)} but no HOMER run ({run_dir / CONFIG} "
                f"is not a run's identity): {setting('force')} replaces only a run; move them "
                "or use another directory")
        _delete_run(run_dir, present)
    elif resume:
        config = run_dir / CONFIG
        if config.exists():
            stored = read_json_file(config)
            expected = json.loads(json.dumps(identity))
            differ = [key for key, value in expected.items()
                      if not isinstance(stored, dict) or stored.get(key) != value]
            if differ:
                raise ValueError(f"{run_dir} holds another run ({', '.join(differ)} differ "
                                 f"in {config}): use another directory, or {setting('force')} to "
                                 "replace it")
    else:
        raise FileExistsError(
            f"{run_dir} holds a run ({', '.join(present)}): pass {setting('resume')} to "
            f"continue it, {setting('force')} to replace it, or use another directory")


def mdp_fingerprint(mdp: BlockMDP, spec: str | None = None) -> str:
    """SHA-256 of the MDP's spec (``spec``: ``dumps_spec(mdp)`` if already written): a resumed
    or compared run must have this very MDP, not only its name."""
    return hashlib.sha256((dumps_spec(mdp) if spec is None else spec).encode()).hexdigest()


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


def _previous_abstraction(state: dict[str, Any], step: int) -> LinearAbstraction | None:
    """The run's ``phi_B`` of layer ``step - 1`` (None for the first layer)."""
    if step - 1 not in state["backward"]:
        return None
    return LinearAbstraction(*state["backward"][step - 1])


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


@dataclass
class _OpenRun:
    """A run between :func:`_open_run` and :func:`_finish`: what every phase reads or updates."""

    mdp: BlockMDP
    config: HomerConfig
    run_dir: Path
    sampler: BatchSampler
    rng: np.random.Generator
    generator: torch.Generator
    state: dict[str, Any]
    """What the checkpoint holds (identity, covers, abstractions, log, counters, RNG states)."""
    covers: list[list[LinearPolicy]]
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
    use_torch_threads(config.torch_threads)
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
    identity = {"config": asdict(config), "seed": seed, "mdp": mdp.name,
                "mdp_sha256": mdp_fingerprint(mdp, spec), "encoder": asdict(encoder),
                "rewards": "sampled" if sample_rewards else "expected"}
    state: dict[str, Any] = {
        "completed_step": 0, "covers": _covers_state([[LinearPolicy([], [])]]),
        "backward": {}, "forward": {}, "log": [], "seconds": 0.0, "episodes": 0, **identity,
    }
    _claim_run_directory(run_dir, identity, resume, force)
    checkpoint = run_dir / CHECKPOINT
    if resume and checkpoint.exists():  # not a link: check_run_directory refused it
        stored = read_run_checkpoint(checkpoint, mdp, identity)
        state = stored.state()
        rng.bit_generator.state = stored.numpy_rng
        generator.set_state(stored.torch_rng)
        torch.set_rng_state(stored.torch_global_rng)
        sampler.episodes = stored.episodes
    write_atomically(run_dir / CONFIG, json.dumps(identity, indent=1))
    write_atomically(run_dir / MDP_SPEC, spec)
    return _OpenRun(mdp, config, run_dir, sampler, rng, generator, state,
                    covers_from_state(state["covers"]),
                    time.perf_counter() - state["seconds"])


def _learn_step(run: _OpenRun, step: int) -> None:
    """Learn ``Psi_step`` (the cover of layer ``step``, 0-based) and checkpoint it: rounds of
    transitions while GPS rejects a class, then full PSDP for the classes still rejected."""
    config, sampler, covers = run.config, run.sampler, run.covers
    actions = run.mdp.number_of_actions
    episodes_before = sampler.episodes
    batches: list[Batch] = []
    rounds: list[dict[str, Any]] = []
    while True:
        batches.append(sampler.run(config.transitions, covers[step - 1], step - 1,
                                   last_step=step))
        backward, forward = _train(batches, step, actions, config, run.generator,
                                   _previous_abstraction(run.state, step))
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
    for i in fallbacks:
        reward_of = _class_indicator(backward.abstraction, step, i)
        found[i] = psdp(sampler, covers, step - 1, reward_of, config.psdp_samples,
                        config.ridge, episode_end=step)
    covers.append(list(found.values()))
    state = run.state
    state["backward"][step] = (backward.abstraction.weight, backward.abstraction.bias)
    if forward is not None:
        state["forward"][step - 1] = (forward.abstraction.weight, forward.abstraction.bias)
    state["log"].append({
        "step": step + 1, "episodes": sampler.episodes - episodes_before,
        "transitions": len(batch.actions),
        "backward_loss": backward.validation_loss,
        "forward_loss": None if forward is None else forward.validation_loss,
        "classes": len(found), "gps_values": gps_values, "psdp_fallbacks": len(fallbacks),
        "rounds": rounds,
    })
    state.update({
        "completed_step": step,
        "covers": _covers_state(covers),
        "episodes": sampler.episodes, "seconds": time.perf_counter() - run.started,
        "numpy_rng": run.rng.bit_generator.state, "torch_rng": run.generator.get_state(),
        "torch_global_rng": torch.get_rng_state(),
    })
    _save(run.run_dir, state)


def _finish(run: _OpenRun) -> HomerResult:
    """The reward-sensitive PSDP on the covers, its value by rollouts (not counted as
    learning episodes), and the artefacts ``policy.npz`` and ``result.json``."""
    mdp, config, sampler = run.mdp, run.config, run.sampler
    policy = psdp(sampler, run.covers, mdp.horizon - 1,
                  lambda batch, t: batch.rewards[:, t:].sum(axis=1),
                  config.eval_samples, config.ridge)
    learning_episodes = sampler.episodes
    evaluation = sampler.run(config.evaluation_episodes, [], None, policy)
    sampler.episodes = learning_episodes
    result = HomerResult(
        value=float(evaluation.rewards.sum(axis=1).mean()),
        optimal_value=float(optimal_values(mdp).value),
        episodes=learning_episodes,
        seconds=time.perf_counter() - run.started,
        run_dir=str(run.run_dir),
        covers=run.covers, policy=policy,
        backward_abstractions=dict(run.state["backward"]),
        forward_abstractions=dict(run.state["forward"]),
        log=run.state["log"],
    )
    arrays = io.BytesIO()
    np.savez(arrays, *policy.weights, *policy.biases)
    write_atomically(run.run_dir / "policy.npz", arrays.getvalue())
    write_atomically(run.run_dir / "result.json",
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
    refused, naming it (:class:`~homer.checkpoint.UnsafePathError`); files are written
    through fresh temporary files, so nothing is ever written outside ``run_dir``.
    """
    if resume and force:
        raise ValueError("resume and force exclude each other")
    run = _open_run(mdp, Path(run_dir), config or HomerConfig(), seed,
                    encoder or HadamardNoise(), sample_rewards, resume, force)
    steps = range(run.state["completed_step"] + 1, mdp.horizon)
    # Closed on Ctrl-C too, so the bar's line ends before the command's last line.
    with tqdm(steps, disable=not progress, desc="HOMER time steps", unit="step") as bar:
        for step in bar:
            _learn_step(run, step)
            bar.set_postfix(episodes=run.sampler.episodes)
    return _finish(run)

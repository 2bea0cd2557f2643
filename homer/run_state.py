"""What a checkpoint's fields may hold: the checks that turn a checkpoint someone handed over
into one a run can trust, and the scale of the MDP's rewards, checked before training.

:mod:`homer.run_directory` reads a checkpoint without executing anything and hands its fields
here: :func:`check_identity` type-checks the run's identity (MDP name and spec hash, config,
seed, encoder, rewards), :func:`check_progress` the rest - the random generator states, the
step and episode counts, the covers, the abstractions and the log - against each other and
against the MDP, so that neither ``homer compare`` nor ``homer run --resume`` meets a
``KeyError`` or an ``IndexError`` later. Each refusal is a :class:`CheckpointError` naming
the field; :mod:`homer.run_directory` raises it again naming the file. These checks know the
layout of the fields (the run directory's :class:`~homer.run_directory.RunCheckpoint` as
stored), nothing of files.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from homer.config import OBJECTIVES, HomerConfig
from homer.encoders import HadamardNoise
from homer.wording import setting
from kinematic.arguments import NumberRange, at_least, nonnegative, random_seed
from kinematic.errors import short_repr
from kinematic.model import BlockMDP

__all__ = ["MAX_POLICY_WEIGHT", "CheckpointError", "Linear", "check_identity",
           "check_policy_step", "check_progress", "check_reward_scale"]

Linear = tuple[np.ndarray, np.ndarray]
"""A weight ``(rows, dimension)`` and a bias ``(rows,)``."""


class CheckpointError(ValueError):
    """A checkpoint (or a step of a stored policy) that is not what a HOMER run writes: a field
    of the wrong type or shape, or fields that disagree with each other or with the MDP. The
    checks here name the field; :mod:`homer.run_directory` raises it again naming the file as
    well, and for a file that is not a checkpoint at all."""


def _field(state: Mapping[str, Any], name: str, wanted: str, valid: bool) -> Any:
    """``state[name]``, refused naming the field unless ``valid``."""
    if not valid:
        shown = short_repr(state[name])
        raise CheckpointError(f"field {name!r} must be {wanted}, got {shown}")
    return state[name]


def _number(state: Mapping[str, Any], name: str, allowed: NumberRange) -> Any:
    return _field(state, name, allowed.describe(), allowed.contains(state[name]))


def check_identity(state: Mapping[str, Any]) -> None:
    """Type-check the identity fields of ``state`` (a checkpoint's fields, all present), the
    encoder's included. Raises :class:`CheckpointError` naming the field."""
    _field(state, "mdp", "a string", isinstance(state["mdp"], str))
    sha = state["mdp_sha256"]
    _field(state, "mdp_sha256", "a SHA-256 in hex (64 digits 0-9a-f)",
           isinstance(sha, str) and len(sha) == 64 and set(sha) <= set("0123456789abcdef"))
    _field(state, "config", "a mapping of setting names to numbers or strings",
           isinstance(state["config"], dict)
           and all(isinstance(key, str) and isinstance(value, str | int | float | None)
                   for key, value in state["config"].items()))
    _number(state, "seed", random_seed())
    _field(state, "rewards", "'sampled' or 'expected'",
           isinstance(state["rewards"], str) and state["rewards"] in ("sampled", "expected"))
    stored = _field(state, "encoder", "a mapping", isinstance(state["encoder"], dict))
    try:
        HadamardNoise.from_record(stored)
    except (TypeError, ValueError) as error:
        raise CheckpointError(f"field 'encoder': {error}") from None


def _random_states(state: Mapping[str, Any]) -> None:
    """A generator state is valid when a fresh generator takes it and gives it back."""
    generator = np.random.Generator(np.random.PCG64())
    try:
        generator.bit_generator.state = state["numpy_rng"]
        valid = generator.bit_generator.state == state["numpy_rng"]
    except (TypeError, ValueError, KeyError, OverflowError):
        valid = False
    _field(state, "numpy_rng", "the state of a numpy PCG64 generator", valid)
    for name in ("torch_rng", "torch_global_rng"):
        value, torch_generator = state[name], torch.Generator()
        try:
            torch_generator.set_state(value)
            valid = torch.equal(torch_generator.get_state(), value)
        except (TypeError, ValueError, RuntimeError):
            valid = False
        _field(state, name, f"the state of a torch CPU generator (a ByteTensor of "
                            f"{torch_generator.get_state().numel()} bytes)", valid)


def _linear(pair: object, dimension: int, what: str, rows: int | None = None) -> Linear:
    """``pair`` as a weight ``(rows, dimension)`` and a bias ``(rows,)`` of finite floats."""
    if not isinstance(pair, tuple | list) or len(pair) != 2:
        raise CheckpointError(f"{what}: not a (weight, bias) pair")
    weight, bias = pair
    if not (isinstance(weight, np.ndarray) and isinstance(bias, np.ndarray)):
        raise CheckpointError(f"{what}: weight and bias must be arrays")
    if (weight.ndim != 2 or weight.shape[1] != dimension or weight.shape[0] < 1
            or bias.shape != (weight.shape[0],)):
        raise CheckpointError(f"{what}: weight {weight.shape} and bias {bias.shape} do not fit "
                              f"observations of dimension {dimension}")
    if not (np.issubdtype(weight.dtype, np.floating) and np.issubdtype(bias.dtype, np.floating)
            and np.isfinite(weight).all() and np.isfinite(bias).all()):
        raise CheckpointError(f"{what}: weights must be finite floats")
    if rows is not None and weight.shape[0] != rows:
        raise CheckpointError(f"{what}: {weight.shape[0]} actions, not {rows}")
    return weight, bias


def check_policy_step(weight: object, bias: object, dimension: int, actions: int,
                      what: str) -> None:
    """Raise :class:`CheckpointError` naming ``what`` unless ``weight`` and ``bias`` are one
    step of a linear policy: ``(actions, dimension)`` and ``(actions,)`` finite floats."""
    _linear((weight, bias), dimension, what, actions)


def _abstractions(stored: object, layers: range, dimension: int, name: str
                  ) -> dict[int, Linear]:
    """``phi_B`` or ``phi_F`` of the layers in ``layers`` (0-based), as ``{layer: pair}``."""
    if not isinstance(stored, dict):
        raise CheckpointError(f"field {name!r} must be a mapping of layers")
    label = "phi_B" if name == "backward" else "phi_F"
    for layer in stored:
        if not isinstance(layer, int) or isinstance(layer, bool) or layer not in layers:
            raise CheckpointError(f"field {name!r}: {label} of layer {layer!r}: the completed "
                                  f"steps give layers {layers.start} .. {layers.stop - 1}")
    return {layer: _linear(pair, dimension, f"{label} of layer {layer + 1}")
            for layer, pair in sorted(stored.items())}


def _indices(value: object, length: int, count: int, cover: int) -> None:
    """``value``: the indices of a policy's ``length`` weights (or biases) among ``count``
    stored arrays."""
    if not isinstance(value, list):
        raise CheckpointError(f"a policy of cover {cover} is not a list of array indices")
    if len(value) != length:
        raise CheckpointError(f"a policy of cover {cover} has {len(value)} steps, not {length}")
    for i in value:
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < count:
            raise CheckpointError(f"a cover refers to array {i!r} of {count}")


def _covers(stored: object, completed_step: int, mdp: BlockMDP, dimension: int) -> list[int]:
    """The covers: ``completed_step + 1`` of them, ``covers[h]`` a non-empty list of policies
    of ``h`` steps over the MDP's actions, each step an index into the stored arrays. Returns
    the number of policies of each cover."""
    if not (isinstance(stored, dict) and isinstance(stored.get("arrays"), list)
            and isinstance(stored.get("policies"), list)):
        raise CheckpointError("field 'covers' must be a mapping of 'arrays' and 'policies' (lists)")
    arrays, covers = stored["arrays"], stored["policies"]
    if len(covers) > mdp.horizon:
        raise CheckpointError(f"field 'covers': {len(covers)} covers for horizon {mdp.horizon}")
    if len(covers) != completed_step + 1:
        raise CheckpointError(f"field 'completed_step' is {completed_step}, but the covers reach "
                              f"layer {len(covers) - 1}")
    for h, cover in enumerate(covers):
        if not isinstance(cover, list) or not cover:
            raise CheckpointError(f"cover {h} must be a non-empty list of policies")
        for policy in cover:
            if not isinstance(policy, tuple | list) or len(policy) != 2:
                raise CheckpointError(f"a policy of cover {h} is not a (weights, biases) pair")
            weights, biases = policy
            _indices(weights, h, len(arrays), h)
            _indices(biases, h, len(arrays), h)
            for w, b in zip(weights, biases, strict=True):
                _linear((arrays[w], arrays[b]), dimension, f"a policy of cover {h}",
                        mdp.number_of_actions)
    return [len(cover) for cover in covers]


@dataclass(frozen=True)
class _Settings:
    """The settings of the run's ``config`` that fix what each learned step holds."""

    transitions: int
    max_transitions: int
    psdp_samples: int
    objective: str


def _settings(config: Mapping[str, Any]) -> _Settings:
    """The :class:`_Settings` of a checkpoint's ``config`` (type-checked by
    :func:`check_identity`); a run written before objectives were pluggable has no
    ``objective``: it is contrastive."""
    counts = {}
    for name in ("transitions", "max_transitions", "psdp_samples"):
        if not at_least(1).contains(config.get(name)):
            raise CheckpointError(f"field 'config': {name!r} must be an int >= 1, got "
                                  f"{short_repr(config.get(name))}")
        counts[name] = config[name]
    objective = config.get("objective", "contrastive")
    if objective not in OBJECTIVES:
        raise CheckpointError(f"field 'config': 'objective' must be one of "
                              f"{', '.join(OBJECTIVES)}, got {short_repr(objective)}")
    return _Settings(**counts, objective=objective)


def _forward(stored: object, completed: int, dimension: int, objective: str) -> None:
    """phi_F of layers ``1 .. completed`` (1-based), one learned with each phi_B by the
    contrastive objective; none with another objective."""
    forward = _abstractions(stored, range(completed), dimension, "forward")
    held = [layer + 1 for layer in forward]
    if objective == "contrastive" and set(forward) != set(range(completed)):
        raise CheckpointError(f"field 'forward' must hold phi_F of layers 1 .. {completed} (one "
                              f"learned with each phi_B), holds {held}")
    if objective != "contrastive" and forward:
        raise CheckpointError(f"field 'forward' must be empty (objective {objective!r} learns "
                              f"no phi_F), holds phi_F of layers {held}")


_RECORD_FIELDS = ("step", "episodes", "transitions", "backward_loss", "forward_loss",
                  "classes", "gps_values", "psdp_fallbacks", "rounds")
"""The fields of a learned step's log record (:func:`homer.algorithm.run_homer`)."""
_RECORDED_FIELDS = ("return_sum", "visits")
"""The log record's fields of runs written since returns and visits are recorded: both or
neither."""


def _real(value: object) -> bool:
    """An int or a float (not a bool): a loss or a GPS value (an estimate may be infinite)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _reals(value: object) -> bool:
    return isinstance(value, list) and all(_real(item) for item in value)


def _is(value: object, count: int) -> bool:
    """Whether ``value`` is the int ``count`` (not a bool, not an array)."""
    return isinstance(value, int) and not isinstance(value, bool) and value == count


def _record(entry: dict[Any, Any], number: int, mdp: BlockMDP, settings: _Settings,
            cover: int, phi_b: int) -> None:
    """The log record of learned step ``number`` (1-based; its cover holds ``cover`` policies,
    its phi_B ``phi_b`` classes): every field present and nothing else, and each count what
    the step's rounds, classes and PSDP fallbacks make it."""
    where = f"log record of step {number}"
    fields = set(_RECORD_FIELDS) | (set(_RECORDED_FIELDS) if set(entry) & set(_RECORDED_FIELDS)
                                   else set())
    if set(entry) != fields:
        missing = [name for name in sorted(fields) if name not in entry]
        unknown = sorted(map(repr, set(entry) - fields))
        raise CheckpointError(f"{where}: " + "; ".join(
            ([f"no field {', '.join(map(repr, missing))}"] if missing else [])
            + ([f"unknown field {', '.join(unknown)}"] if unknown else [])))

    def refuse(name: str, wanted: str) -> CheckpointError:
        return CheckpointError(f"{where}: field {name!r} {wanted}, got "
                               f"{short_repr(entry[name])}")

    if not _is(entry["step"], number):
        raise refuse("step", f"must be {number}")
    rounds = entry["rounds"]
    if not (isinstance(rounds, list) and rounds
            and all(isinstance(r, dict) and set(r) == {"backward_loss", "gps_values"}
                    and _real(r["backward_loss"]) and _reals(r["gps_values"]) for r in rounds)):
        raise refuse("rounds", "must be a non-empty list of rounds, each a 'backward_loss' and "
                               "'gps_values'")
    collected = len(rounds) * settings.transitions
    if not _is(entry["transitions"], collected):
        raise refuse("transitions", f"must be {collected}: field 'rounds' holds {len(rounds)} "
                                    f"rounds of the config's {settings.transitions}")
    if collected > settings.max_transitions:
        raise refuse("rounds", f"must be at most {settings.max_transitions // settings.transitions}"
                               f" rounds (the config's max_transitions)")
    if not _is(entry["classes"], cover):
        raise refuse("classes", f"must be {cover}, the policies of the cover of step {number}")
    if cover > phi_b:
        raise refuse("classes", f"must be at most {phi_b}, the classes of phi_B of layer "
                                f"{number}")
    for name in ("gps_values", "rounds"):
        values = entry[name] if name == "gps_values" else rounds[-1]["gps_values"]
        if not _reals(values) or len(values) != cover:
            raise refuse(name, f"must end with one GPS value per class ({cover})")
    if not NumberRange(int, low=0, high=cover).contains(entry["psdp_fallbacks"]):
        raise refuse("psdp_fallbacks", f"must be an int in [0, {cover}] (its classes)")
    episodes = (entry["transitions"]
                + entry["psdp_fallbacks"] * settings.psdp_samples * (number - 1))
    if not _is(entry["episodes"], episodes):
        raise refuse("episodes", f"must be {episodes}: field 'transitions' plus field "
                                 f"'psdp_fallbacks' ({entry['psdp_fallbacks']}) x {number - 1} "
                                 f"PSDP steps x {settings.psdp_samples} episodes (psdp_samples)")
    if not _real(entry["backward_loss"]):
        raise refuse("backward_loss", "must be a number")
    contrastive = settings.objective == "contrastive"
    if contrastive != _real(entry["forward_loss"]) or (
            not contrastive and entry["forward_loss"] is not None):
        raise refuse("forward_loss", "must be a number (the contrastive objective)"
                                     if contrastive else "must be None (no phi_F)")
    if "visits" in entry:
        _visits(entry, where, number, mdp)


def _visits(entry: Mapping[str, Any], where: str, number: int, mdp: BlockMDP) -> None:
    """A record's ``return_sum`` (a finite number) and ``visits``: each episode of step
    ``number`` visits one state of each layer ``1 .. number``."""
    if not NumberRange(float).contains(entry["return_sum"]):
        raise CheckpointError(f"{where}: field 'return_sum' must be a finite number, got "
                              f"{short_repr(entry['return_sum'])}")
    visits = entry["visits"]
    if not (isinstance(visits, dict)
            and all(isinstance(name, str) and at_least(0).contains(count)
                    for name, count in visits.items())):
        raise CheckpointError(f"{where}: field 'visits' must map state names to counts >= 0, "
                              f"got {short_repr(visits)}")
    per_layer = [0] * number
    for name, count in visits.items():
        layer = mdp.state_location.get(name, (mdp.horizon, 0))[0]
        if layer >= number:
            raise CheckpointError(f"{where}: field 'visits' counts {name!r}, not a state of "
                                  f"layers 1 .. {number}")
        per_layer[layer] += count
    for layer, count in enumerate(per_layer):
        if count != entry["episodes"]:
            raise CheckpointError(f"{where}: field 'visits' counts {count} visits of layer "
                                  f"{layer + 1}, not one per episode ({entry['episodes']})")


def _log(state: Mapping[str, Any], completed_step: int, mdp: BlockMDP, settings: _Settings,
         covers: list[int], backward: Mapping[int, Linear]) -> None:
    """One record per learned step, in order (steps 2 .. completed_step + 1, 1-based), each
    consistent with its cover and phi_B and the run's settings (:func:`_record`); their
    episodes add up to the checkpoint's ``episodes``. Records of runs written since they are
    recorded also hold the sum of their returns and their visits of the latent states (name ->
    count), which a run's ``training_returns`` and ``state_visits`` add up: both or
    neither."""
    log = state["log"]
    if not isinstance(log, list) or not all(isinstance(e, dict) for e in log):
        raise CheckpointError("log is not a list of records")
    if len(log) != completed_step:
        raise CheckpointError(f"field 'completed_step' is {completed_step}, but the log has "
                              f"{len(log)} records")
    for number, entry in enumerate(log, start=2):
        _record(entry, number, mdp, settings, covers[number - 1],
                len(backward[number - 1][1]))
    total = sum(entry["episodes"] for entry in log)
    if state["episodes"] != total:
        raise CheckpointError(f"field 'episodes' is {state['episodes']}, but the log's records "
                              f"add up to {total}")


def check_progress(state: Mapping[str, Any], mdp: BlockMDP, encoder: HadamardNoise) -> None:
    """Check the fields of ``state`` after the identity (whose ``encoder`` dresses ``mdp``):
    the counts, the generator states, the covers, the abstractions and the log, against each
    other and against ``mdp``. Raises :class:`CheckpointError` naming the field: a mistyped one
    (``field 'completed_step' must be an int in [1, 2], got '3'``), and fields that disagree
    with each other or with ``mdp`` (a step count beyond the covers, an abstraction of the
    wrong shape).

    The progress a checkpoint claims must be what it holds, nothing more and nothing less:
    ``completed_step`` learned steps have ``completed_step + 1`` covers, phi_B of layers
    ``2 .. completed_step + 1``, phi_F of layers ``1 .. completed_step`` (contrastive objective;
    none with another), and one log record each (:func:`_record`: rounds, transitions, classes,
    GPS values, PSDP fallbacks, episodes and visits agreeing with each other, with the cover
    and with the run's config), whose episodes add up to ``episodes``. Any counter moved
    forward or back is refused naming it: a checkpoint claiming a step it did not learn would
    have a resumed run skip that step's learning. What the checks cannot see is whether the
    weights were learned at all: a checkpoint forged consistently (every count made up to
    match) is indistinguishable from a real one, like any other data. ``seconds`` counts
    nothing else holds (any finite number >= 0 is taken).
    """
    horizon, dimension = mdp.horizon, encoder.dimension(mdp)
    completed = _number(state, "completed_step", NumberRange(int, low=1, high=horizon - 1))
    _number(state, "episodes", at_least(0))
    _number(state, "seconds", nonnegative())
    _random_states(state)
    settings = _settings(state["config"])
    covers = _covers(state["covers"], completed, mdp, dimension)
    backward = _abstractions(state["backward"], range(1, completed + 1), dimension, "backward")
    if set(backward) != set(range(1, completed + 1)):
        raise CheckpointError(f"field 'backward' must hold phi_B of layers 2 .. {completed + 1}, "
                              f"holds {sorted(layer + 1 for layer in backward)}")
    _forward(state["forward"], completed, dimension, settings.objective)
    _log(state, completed, mdp, settings, covers, backward)


MAX_POLICY_WEIGHT = 2.0**100
"""The largest policy weight (2-norm of one action's weights and bias) a run may produce.
Policies are stored as float32 (largest finite value about 2^128); the margin of 2^28 keeps
their Q-values ``W x + b`` finite for observations of norm up to 2^28 (the encoder gives
norms near 2)."""


def check_reward_scale(mdp: BlockMDP, config: HomerConfig) -> None:
    """Refuse (``ValueError`` naming the reward entry) an MDP whose rewards could make the
    reward-sensitive policy's weights overflow, before any training.

    The policy's last step regresses returns (at most ``H * max |r|`` in size) on the
    observations by ridge regression with at most ``config.eval_samples`` rows per action
    (:func:`homer.psdp.fit_q`: centred, with an unpenalised intercept, penalty ``lambda`` at
    least ``config.ridge``: :func:`homer.psdp.ridge_penalty`). The weights
    ``(X_c^T X_c + lambda I)^-1 X_c^T y_c`` have norm at most ``||y_c|| / (2 sqrt(lambda))
    <= sqrt(n) H max|r| / (2 sqrt(lambda))`` (the operator's singular values are ``s / (s^2 +
    lambda) <= 1 / (2 sqrt(lambda))``, and centring does not lengthen ``y``), whatever the
    data; the intercept ``mean(y) - mean(x) . w`` adds at most ``H max|r|`` and the mean
    observation's norm times that bound, inside the margin :data:`MAX_POLICY_WEIGHT` keeps.
    Rewards are refused when the bound exceeds :data:`MAX_POLICY_WEIGHT`; below it no policy
    weight can be non-finite, which a bound on the reward alone could not promise (a tiny
    ``--ridge`` or many samples scale the weights up). Rewards of an exact spec are compared as
    fractions, so one too large for a float is named too, not an overflow.
    """
    gain = math.sqrt(config.eval_samples) / (2 * math.sqrt(config.ridge)) * mdp.horizon
    limit = MAX_POLICY_WEIGHT / gain
    entries = [(abs(value), h, x, a) for h, layer in enumerate(mdp.rewards)
               for (x, a), value in _largest(layer)]
    entries += [(abs(value), h, x, a) for (h, x, a), (values, _) in
                mdp.reward_distributions.items() for value in values]
    for size, h, x, a in entries:
        if not size <= limit:
            raise ValueError(
                f"the reward of ({mdp.observations[h][x]!r}, {mdp.actions[a]!r}) at step "
                f"{h + 1} has magnitude {_short(size)}: beyond {limit:.3g}, the largest that "
                f"keeps the policy's weights below 2^100 (float32 policies) with H = "
                f"{mdp.horizon}, {setting('eval_samples', config.eval_samples)} and "
                f"{setting('ridge', config.ridge)}")


def _largest(layer: np.ndarray) -> list[tuple[tuple[int, int], Any]]:
    """The entry of largest magnitude of a reward matrix (exact or float), as ``[(index,
    value)]`` (empty for an empty layer)."""
    if layer.size == 0:
        return []
    magnitudes = np.abs(layer)
    if magnitudes.dtype != object and not np.isfinite(magnitudes).all():
        index = np.unravel_index(int(np.argmin(np.isfinite(magnitudes))), layer.shape)
    else:
        index = np.unravel_index(int(np.argmax(magnitudes)), layer.shape)
    return [((int(index[0]), int(index[1])), layer[index])]


def _short(size: Any) -> str:
    """A magnitude for a message: ``1e+300``, ``1e400`` for a fraction beyond floats."""
    try:
        return f"{float(size):.3g}"
    except OverflowError:
        return f"about 1e{len(str(int(size))) - 1}"

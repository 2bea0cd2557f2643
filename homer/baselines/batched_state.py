"""What a batched baseline's checkpoint may hold (:func:`.batched.run_batched_baseline` writes
it, :mod:`.batched_checkpoint` reads the file): every entry's type, shape and range, and the
counters against each other, checked before anything is loaded - as :mod:`homer.run_state`
does for HOMER's checkpoints. A checkpoint someone handed over either resumes the run it holds
or is refused with a :class:`~homer.run_state.CheckpointError` naming the entry (and, in the
``metadata`` entry, the field), never a numpy error later, never a run resumed from NaN weights,
a negative count or another kind of random generator; :mod:`.batched_checkpoint` adds the
file's name.

The entries (:meth:`.batched.BatchedLearner.arrays` and the run's curves):

- ``parameters``: the network's and the RND predictor's, one flat float32 array;
  ``square_average``: RMSprop's running averages beside it (>= 0); ``target/<name>``: the RND
  target's weights. All finite, of the shapes a fresh learner of the run has.
- ``visits/<h>``: the visits of layer ``h``'s latent states, int64 >= 0 summing to the episodes.
- ``curve``: ``(episodes, value)`` of each evaluation, at most one per update, after whole
  updates (episodes a multiple of the workers, strictly increasing, at most the episodes).
- ``training_returns``: the points of :class:`.batched._Thinned`, point ``i`` (1-based) at
  ``workers x stride x i`` episodes: ``(updates - pending_count) / stride`` of them.
- ``metadata``: UTF-8 JSON (at most :data:`MAX_METADATA_BYTES`) of :data:`METADATA_FIELDS`:
  the run's identity (the run's own, else another run's), the counters (ints in ``[0, 2^63 -
  1]``, ``episodes = workers x updates``), both numpy generators' PCG64 states, the bonus
  normaliser's ``[mean, variance >= 0, count > 0]``, the seconds run (>= 0), the thinned
  returns' ``stride`` (a power of two), ``pending`` sum and ``pending_count`` (``<
  stride``), the evaluations made (at most ``episodes // evaluate_every``) and ``stopped``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from homer.baselines.npz_entries import Dimension, NpzEntries
from homer.encoders import with_named_encoding
from homer.run_state import CheckpointError
from kinematic.arguments import NumberRange
from kinematic.errors import short_repr
from kinematic.json_input import read_json

__all__ = ["MAX_METADATA_BYTES", "METADATA", "METADATA_FIELDS", "BatchedState", "Layout",
           "differing", "read_state"]

METADATA = "metadata"
"""The entry holding the state that is not an array, as JSON."""
METADATA_FIELDS = ("identity", "episodes", "updates", "environment_rng", "learner_rng",
                   "normaliser", "seconds", "stride", "pending", "pending_count", "evaluated",
                   "stopped")
MAX_METADATA_BYTES = 2**20
"""The largest ``metadata`` entry read (a run writes about 2 kB)."""
COUNT = NumberRange(int, low=0, high=2**63 - 1)
"""A counter: what an int64 visit count holds."""
_WORD = NumberRange(int, low=0, high=2**128 - 1)
PCG64_STATE = ("a numpy PCG64 generator's state (bit_generator 'PCG64', state and an odd inc "
               "< 2^128, has_uint32 0 or 1, uinteger < 2^32)")


@dataclass(frozen=True)
class Layout:
    """What the run resuming a checkpoint expects of it."""

    arrays: Mapping[str, tuple[tuple[int, ...], np.dtype]]
    """The shape and type of every entry but ``curve``, ``training_returns`` and ``metadata``
    (a fresh learner's)."""
    workers: int
    evaluate_every: int
    identity: Mapping[str, Any]
    """The run's identity (as :mod:`.batched_checkpoint` writes it beside the checkpoint)."""


@dataclass(frozen=True)
class BatchedState:
    """A checked checkpoint: its entries (:class:`Layout`'s ``arrays``), its curves and the
    fields of its metadata but the identity (the run's own)."""

    arrays: dict[str, np.ndarray]
    curve: list[tuple[int, float]]
    training_returns: list[tuple[int, float]]
    episodes: int
    updates: int
    environment_rng: dict[str, Any]
    learner_rng: dict[str, Any]
    normaliser: tuple[float, float, float]
    seconds: float
    stride: int
    pending: float
    pending_count: int
    evaluated: int
    stopped: bool


def differing(expected: Mapping[str, Any], stored: Mapping[str, Any]) -> list[str]:
    """The fields two identities do not share or give different values, sorted.

    >>> differing({"seed": 0, "rnd": True}, {"seed": 1, "rnd": True, "extra": 0})
    ['extra', 'seed']
    """
    return sorted(set(expected) ^ set(stored)
                  | {key for key in expected.keys() & stored.keys()
                     if expected[key] != stored[key]})


def _field(metadata: Mapping[str, Any], name: str, wanted: str, valid: bool) -> Any:
    """``metadata[name]``, refused naming the field unless ``valid``."""
    if not valid:
        raise CheckpointError(f"entry {METADATA!r}, field {name!r} must be {wanted}, got "
                              f"{short_repr(metadata[name])}")
    return metadata[name]


def _number(metadata: Mapping[str, Any], name: str, allowed: NumberRange) -> Any:
    return _field(metadata, name, allowed.describe(), allowed.contains(metadata[name]))


def _is_pcg64(state: object) -> bool:
    """Whether ``state`` is :data:`PCG64_STATE` (what ``bit_generator.state`` gives)."""
    if not (isinstance(state, dict) and set(state) == {"bit_generator", "state", "has_uint32",
                                                       "uinteger"}
            and state["bit_generator"] == "PCG64" and isinstance(state["state"], dict)
            and set(state["state"]) == {"state", "inc"}):
        return False
    words = state["state"]
    return (_WORD.contains(words["state"]) and _WORD.contains(words["inc"])
            and words["inc"] % 2 == 1
            and NumberRange(int, low=0, high=1).contains(state["has_uint32"])
            and NumberRange(int, low=0, high=2**32 - 1).contains(state["uinteger"]))


class _Float(NumberRange[float]):
    """A :class:`~kinematic.arguments.NumberRange` of floats that also refuses an int too large
    for a float (JSON's ``1e400`` written as digits)."""

    def contains(self, value: object) -> bool:
        return super().contains(value) and abs(value) <= sys.float_info.max  # type: ignore[arg-type]


FINITE, NONNEGATIVE, POSITIVE = (_Float(float), _Float(float, low=0),
                                 _Float(float, low=0, open_low=True))


def _is_normaliser(value: object) -> bool:
    return (isinstance(value, list) and len(value) == 3 and FINITE.contains(value[0])
            and NONNEGATIVE.contains(value[1]) and POSITIVE.contains(value[2]))


def _metadata(entries: NpzEntries) -> dict[str, Any]:
    """The ``metadata`` entry: a JSON object of :data:`METADATA_FIELDS`, not yet checked."""
    raw = entries.array(METADATA, (range(1, MAX_METADATA_BYTES + 1),), np.dtype(np.uint8))
    try:
        metadata = read_json(raw.tobytes().decode(), f"entry {METADATA!r}")
    except UnicodeDecodeError as error:
        raise CheckpointError(f"entry {METADATA!r} is not UTF-8 ({error})") from None
    except ValueError as error:
        raise CheckpointError(str(error)) from None
    if not isinstance(metadata, dict):
        raise CheckpointError(f"entry {METADATA!r} is not a JSON object")
    for name in METADATA_FIELDS:
        if name not in metadata:
            raise CheckpointError(f"entry {METADATA!r} has no field {name!r}")
    extra = sorted(set(metadata) - set(METADATA_FIELDS))
    if extra:
        raise CheckpointError(f"entry {METADATA!r} has unknown fields {extra}")
    return metadata


def _counters(metadata: Mapping[str, Any], layout: Layout) -> dict[str, Any]:
    """The metadata's fields but the identity, each checked, then against each other."""
    episodes, updates = _number(metadata, "episodes", COUNT), _number(metadata, "updates", COUNT)
    for name in ("environment_rng", "learner_rng"):
        _field(metadata, name, PCG64_STATE, _is_pcg64(metadata[name]))
    _field(metadata, "normaliser", "[mean, variance >= 0, count > 0], finite numbers",
           _is_normaliser(metadata["normaliser"]))
    _number(metadata, "seconds", NONNEGATIVE)
    stride = _field(metadata, "stride", "a power of two (an int >= 1)",
                    COUNT.contains(metadata["stride"]) and metadata["stride"] >= 1
                    and metadata["stride"] & (metadata["stride"] - 1) == 0)
    pending = _number(metadata, "pending", FINITE)
    pending_count = _number(metadata, "pending_count", NumberRange(int, low=0, high=stride - 1))
    _number(metadata, "evaluated", NumberRange(int, low=0,
                                               high=episodes // layout.evaluate_every))
    _field(metadata, "stopped", "true or false", isinstance(metadata["stopped"], bool))
    if episodes != updates * layout.workers:
        raise CheckpointError(f"entry {METADATA!r}, field 'episodes' must be {layout.workers} "
                              f"per update ({updates} updates), got {episodes}")
    if updates < pending_count or (updates - pending_count) % stride:
        raise CheckpointError(f"entry {METADATA!r}, field 'updates' ({updates}) must be whole "
                              f"training-return points of 'stride' {stride} updates and "
                              f"'pending_count' {pending_count} more")
    if pending_count == 0 and pending != 0:
        raise CheckpointError(f"entry {METADATA!r}, field 'pending' must be 0 with no update "
                              f"pending, got {short_repr(pending)}")
    return {name: metadata[name] for name in METADATA_FIELDS if name != "identity"}


def _finite(name: str, array: np.ndarray) -> None:
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        raise CheckpointError(f"entry {name!r} holds {array.ravel()[bad[0]]} at flat index "
                              f"{bad[0]}: finite numbers expected")


def _checked_arrays(entries: NpzEntries, layout: Layout, episodes: int) -> dict[str, np.ndarray]:
    """The entries of fixed shape: finite floats, RMSprop's averages >= 0, visit counts >= 0
    summing to ``episodes`` in every layer."""
    arrays = {}
    for name, (shape, dtype) in layout.arrays.items():
        array = arrays[name] = entries.array(name, shape, dtype)
        if name.startswith("visits/"):
            total = sum(int(count) for count in array)
            if (array < 0).any() or total != episodes:
                raise CheckpointError(f"entry {name!r} must count the visits of the "
                                      f"{episodes} episodes (ints >= 0 summing to {episodes}), "
                                      f"got {short_repr(array.tolist())}")
        else:
            _finite(name, array)
        if name == "square_average" and (array < 0).any():
            raise CheckpointError(f"entry {name!r} holds {array.min()}: RMSprop's averages of "
                                  "squared gradients are >= 0")
    return arrays


def _points(entries: NpzEntries, name: str, rows: Dimension, episodes: int,
            workers: int) -> np.ndarray:
    """Entry ``name``: ``rows`` finite ``(episodes, value)`` rows, the episodes multiples of
    ``workers``, strictly increasing, at most ``episodes``."""
    points = entries.array(name, (rows, 2), np.dtype(np.float64))
    _finite(name, points)
    counts = points[:, 0]
    if not ((counts % workers == 0).all() and (counts >= workers).all()
            and (np.diff(counts) > 0).all() and (counts <= episodes).all()):
        raise CheckpointError(f"entry {name!r}: its episode counts must be multiples of "
                              f"{workers} (whole updates), increasing, at most {episodes}; got "
                              f"{short_repr(counts.tolist())}")
    return points


def read_state(entries: NpzEntries, layout: Layout) -> BatchedState:
    """The checked state of a checkpoint's ``entries``: exactly the entries :class:`Layout`
    and the module's docstring give, every one as they say (``CheckpointError`` naming the
    entry and field otherwise). The metadata is checked first, its counters bound the curves'
    lengths, and every entry's header is checked before its data is read."""
    wanted = {*layout.arrays, "curve", "training_returns", METADATA}
    for name in sorted(wanted ^ set(entries.names)):
        raise CheckpointError(f"entry {short_repr(name)} is "
                              f"{'missing' if name in wanted else 'not a checkpoint entry'}")
    metadata = _metadata(entries)
    identity = with_named_encoding(_field(metadata, "identity", "a JSON object",
                                          isinstance(metadata["identity"], dict)))
    differ = differing(json.loads(json.dumps(layout.identity)), identity)
    if differ:
        raise CheckpointError(f"entry {METADATA!r}, field 'identity' is another run's "
                              f"({', '.join(differ)} differ{'s' if len(differ) == 1 else ''} "
                              "from the run's identity file): use another directory")
    fields = _counters(metadata, layout)
    episodes, workers = fields["episodes"], layout.workers
    arrays = _checked_arrays(entries, layout, episodes)
    curve = _points(entries, "curve", range(0, fields["updates"] + 1), episodes, workers)
    returns = _points(entries, "training_returns",
                      (fields["updates"] - fields["pending_count"]) // fields["stride"],
                      episodes, workers)
    expected = workers * fields["stride"] * np.arange(1, len(returns) + 1, dtype=np.float64)
    if not np.array_equal(returns[:, 0], expected):
        raise CheckpointError(f"entry 'training_returns': point i must be at {workers} x "
                              f"{fields['stride']} x i episodes (its stride), got "
                              f"{short_repr(returns[:, 0].tolist())}")
    return BatchedState(
        arrays=arrays, curve=[(int(e), float(v)) for e, v in curve],
        training_returns=[(int(e), float(v)) for e, v in returns],
        **{**fields, "normaliser": tuple(float(x) for x in fields["normaliser"]),
           "seconds": float(fields["seconds"]), "pending": float(fields["pending"])})

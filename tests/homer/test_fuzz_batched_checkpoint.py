"""Fuzzing a batched baseline's run directory as people hand it over: a real checkpoint of a
small PPO+RND run (bonus normaliser on), mutated entry by entry and field by field (wrong type,
wrong shape, a header declaring 10^11 elements, NaN, infinity, negative, an object entry, an
entry missing, present twice or extra, another random generator's state), cut short or with a
byte flipped, and its ``identity.json`` retyped, cut or not UTF-8; then the run resumed.

Every mutation is refused with one line naming the file and the entry or field mutated (a
:class:`~homer.run_state.CheckpointError`, or a ``ValueError`` for ``identity.json``), never a
numpy or zip exception, and the refused file is left as it was - or, for the mutations listed
as harmless (none at all; the archive deflated or its members reordered; a 2-D entry stored in
Fortran order; the seconds run changed; ``uinteger`` of a generator holding no pending 32-bit
draw; byte flips in zip fields Python's reader does not use: timestamps, the local headers'
copies of the CRC and sizes, the zip64 extra field), the run resumes exactly as from the
original.
"""

from __future__ import annotations

import io
import json
import shutil
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from numpy.lib import format as npy_format

from homer.baselines.batched import BatchedConfig, run_batched_baseline
from homer.baselines.batched_checkpoint import CHECKPOINT, IDENTITY
from homer.encoders import HadamardNoise
from homer.run_state import CheckpointError
from kinematic.families import combination_lock

MDP = combination_lock(3, 2, seed=0)
RUN: dict[str, Any] = {
    "algorithm": "ppo", "rnd": True, "seed": 1, "evaluate_every": 4, "checkpoint_every": 1,
    "samples": 5, "config": BatchedConfig(workers=4, ppo_minibatch=6, ppo_epochs=1,
                                          normalise_bonus=True)}


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _zip(members: list[tuple[str, bytes]], compression: int = zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a member twice, on purpose
        for name, data in members:
            archive.writestr(name, data)
    return buffer.getvalue()


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _header(shape: tuple[int, ...], descr: str) -> bytes:
    buffer = io.BytesIO()
    npy_format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False,
                                               "shape": shape})
    return buffer.getvalue()


def _array(member: bytes) -> np.ndarray:
    return np.load(io.BytesIO(member), allow_pickle=False)


@dataclass(frozen=True)
class Mutation:
    """``apply`` turns the original checkpoint's members and ``identity.json``'s object into the
    files' new bytes (``(checkpoint, identity)``, None: unchanged); a refusal must name
    ``names`` (an entry or field; None: the file only); a ``harmless`` one must resume as the
    original does; ``either``: harmless or refused (a byte flip)."""

    id: str
    apply: Callable[[dict[str, bytes], dict[str, Any]], tuple[bytes | None, bytes | None]]
    names: str | None
    harmless: bool = False
    either: bool = False


def _with(name: str, member: bytes | None, *extra: tuple[str, bytes]
          ) -> Callable[[dict[str, bytes], dict[str, Any]], tuple[bytes | None, bytes | None]]:
    """The archive with member ``name`` replaced (removed if ``member`` is None), then
    ``extra`` members."""
    def apply(members, _identity):
        kept = [(n, member if n == name else data) for n, data in members.items()
                if n != name or member is not None]
        return _zip([*kept, *extra]), None
    return apply


def _entry_mutations(members: dict[str, bytes]) -> list[Mutation]:
    """Every array entry: another type, another shape, a huge header, an object header, NaN,
    infinity and a negative number where they are wrong, missing, present twice; 2-D ones in
    Fortran order (harmless)."""
    mutations = []
    for member, data in members.items():
        if member == "metadata.npy":
            continue
        name, array = member.removesuffix(".npy"), _array(data)
        other = np.float32 if array.dtype == np.float64 else np.float64
        flat = array.ravel()
        shorter = flat[:-1] if flat.size > 1 else np.r_[flat, flat]
        mutations += [
            Mutation(f"{name}-dtype", _with(member, _npy(array.astype(other))), name),
            Mutation(f"{name}-big-endian",
                     _with(member, _npy(array.astype(array.dtype.newbyteorder(">")))), name),
            Mutation(f"{name}-shape", _with(member, _npy(shorter)), name),
            Mutation(f"{name}-huge", _with(member, _header((10**11, *array.shape[1:]),
                                                           array.dtype.str) + data[-64:]), name),
            Mutation(f"{name}-object", _with(member, _header(array.shape, "|O") + b"\x80\x04N."),
                     name),
            Mutation(f"{name}-missing", _with(member, None), name),
            Mutation(f"{name}-twice", _with(member, data, (member, data)), name),
        ]
        if np.issubdtype(array.dtype, np.floating) and array.size:
            for label, value in (("nan", np.nan), ("inf", -np.inf)):
                changed = array.copy()
                changed.ravel()[-1] = value
                mutations.append(Mutation(f"{name}-{label}", _with(member, _npy(changed)), name))
        if name.startswith("visits/") or name in ("square_average", "curve",
                                                  "training_returns"):
            changed = array.copy()
            changed.ravel()[0] = -1 if name != "square_average" else -1e-3
            if changed.size:
                mutations.append(Mutation(f"{name}-negative", _with(member, _npy(changed)),
                                          name))
        if array.ndim == 2:
            mutations.append(Mutation(f"{name}-fortran",
                                      _with(member, _npy(np.asfortranarray(array))), None,
                                      harmless=True))
    return mutations


def _generator_states() -> dict[str, Any]:
    states = {}
    for kind in (np.random.MT19937, np.random.Philox, np.random.SFC64):
        state = kind(0).state
        states[kind.__name__] = json.loads(json.dumps(state, default=lambda v: v.tolist()))
    return states


RETYPED: dict[str, Callable[[Any], Any]] = {
    "str": lambda v: str(v)[:20], "none": lambda v: None, "list": lambda v: [v],
    "float": lambda v: 1.5, "bool": lambda v: True, "huge": lambda v: 10**40,
    "vast": lambda v: 10**400,
    "negative": lambda v: -1, "nan": lambda v: float("nan")}
HARMLESS_FIELDS = {("seconds", "float"), ("seconds", "huge")}
"""Another valid number of seconds run: the run reports it, its results are the same."""


def _metadata_mutations(metadata: dict[str, Any]) -> list[Mutation]:
    """Every metadata field deleted and retyped (``stopped`` only to non-booleans: true is
    another valid state), the generators' states swapped for other bit generators' or given a
    bad field, an unknown field added."""
    def field(change: Callable[[dict[str, Any]], None]):
        def apply(members, identity):
            changed = json.loads(json.dumps(metadata))
            change(changed)
            text = json.dumps(changed).encode()
            return _with("metadata.npy", _npy(np.frombuffer(text, np.uint8)))(members, identity)
        return apply

    mutations = [Mutation("metadata-extra-field", field(lambda m: m.update(extra=0)), "extra")]
    for name in metadata:
        mutations.append(Mutation(f"{name}-deleted", field(lambda m, n=name: m.pop(n)), name))
        for kind, retype in RETYPED.items():
            if name == "stopped" and kind == "bool":
                continue
            mutations.append(Mutation(
                f"{name}-{kind}", field(lambda m, n=name, r=retype: m.update({n: r(m[n])})),
                name, harmless=(name, kind) in HARMLESS_FIELDS))
    for name in ("environment_rng", "learner_rng"):
        for kind, state in _generator_states().items():
            mutations.append(Mutation(f"{name}-{kind}",
                                      field(lambda m, n=name, s=state: m.update({n: s})), name))
        for label, change in (
                ("even-inc", lambda s: s["state"].update(inc=s["state"]["inc"] + 1)),
                ("no-has-uint32", lambda s: s.pop("has_uint32")),
                ("has-uint32-2", lambda s: s.update(has_uint32=2)),
                ("state-too-large", lambda s: s["state"].update(state=2**128))):
            mutations.append(Mutation(f"{name}-{label}",
                                      field(lambda m, n=name, c=change: c(m[n])), name))
        assert metadata[name]["has_uint32"] == 0  # so uinteger is never read
        mutations.append(Mutation(f"{name}-uinteger",
                                  field(lambda m, n=name: m[n].update(uinteger=12345)), None,
                                  harmless=True))
    return mutations


def _flip_positions(data: bytes) -> list[int]:
    """Where a flipped byte is tried: spread over the data, and over the zip's own fields - the
    local header and the ``.npy`` header of the first and of the metadata member (signature,
    method, CRC, sizes, name, the header's dict) and the central directory."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = archive.infolist()
        directory = archive.start_dir
    positions = set(np.linspace(0, len(data) - 1, 6).astype(int).tolist())
    for member in (members[0], next(m for m in members if m.filename == "metadata.npy")):
        start = member.header_offset
        positions |= {start + k for k in (0, 8, 14, 18, 22, 26, 30, 30 + len(member.filename),
                                          40 + len(member.filename), 70 + len(member.filename))}
    positions |= set(np.linspace(directory, len(data) - 1, 20).astype(int).tolist())
    return sorted(positions)


def _file_mutations(data: bytes) -> list[Mutation]:
    """The archive cut short, a byte flipped (:func:`_flip_positions`), deflated, its members
    reordered, an entry added."""
    def raw(content: bytes):
        return lambda members, identity: (content, None)

    mutations = [Mutation(f"truncated-{n}", raw(data[:n]), None)
                 for n in (0, 1, 30, 200, len(data) // 2, len(data) - 22, len(data) - 1)]
    for at in _flip_positions(data):
        flipped = bytearray(data)
        flipped[at] ^= 0x55
        mutations.append(Mutation(f"flip-{at}", raw(bytes(flipped)), None, either=True))
    return [*mutations,
            Mutation("deflated", lambda m, i: (_zip(list(m.items()), zipfile.ZIP_DEFLATED), None),
                     None, harmless=True),
            Mutation("reordered", lambda m, i: (_zip(list(m.items())[::-1]), None), None,
                     harmless=True),
            Mutation("noop", lambda m, i: (None, None), None, harmless=True),
            Mutation("not-npy-member", _with("notes.txt", None, ("notes.txt", b"hi")),
                     "notes.txt"),
            Mutation("extra-entry", _with("extra.npy", None, ("extra.npy", _npy(np.zeros(1)))),
                     "extra")]


def _identity_mutations(identity: dict[str, Any]) -> list[Mutation]:
    """``identity.json``: a field deleted, changed or retyped, an unknown field, cut short, not
    UTF-8, not an object."""
    def text(content: bytes):
        return lambda members, _identity: (None, content)

    def changed(change: Callable[[dict[str, Any]], None]):
        def apply(members, original):
            copy = json.loads(json.dumps(original))
            change(copy)
            return None, json.dumps(copy).encode()
        return apply

    whole = json.dumps(identity).encode()
    mutations = [Mutation("identity.json-truncated", text(whole[:len(whole) // 2]), None),
                 Mutation("identity.json-not-utf8", text(b"\xff" + whole), None),
                 Mutation("identity.json-list", text(b"[]"), None),
                 Mutation("identity.json-extra", changed(lambda i: i.update(extra=0)), "extra")]
    for name in identity:
        mutations.append(Mutation(f"identity.json-{name}-deleted",
                                  changed(lambda i, n=name: i.pop(n)), name))
        mutations.append(Mutation(f"identity.json-{name}-list",
                                  changed(lambda i, n=name: i.update({n: [i[n]]})), name))
    mutations.append(Mutation("identity.json-deep", text(b"[" * 100 + b"]" * 100), None))
    return mutations


@pytest.fixture(scope="module")
def original(tmp_path_factory) -> dict[str, Any]:
    """A checkpoint after 2 of 3 updates, its identity, and the run resumed from it."""
    run_dir = tmp_path_factory.mktemp("batched") / "run"
    run_batched_baseline(MDP, run_dir=run_dir, episodes=8, **RUN)
    checkpoint, identity = (run_dir / CHECKPOINT).read_bytes(), (run_dir / IDENTITY).read_bytes()
    resumed = run_batched_baseline(MDP, run_dir=run_dir, episodes=12, **RUN)
    return {"checkpoint": checkpoint, "identity": identity, "resumed": _results(resumed)}


def _results(result) -> dict[str, Any]:
    summary = result.summary()
    return {key: value for key, value in summary.items() if key != "seconds"}


def _all_mutations(original: dict[str, Any]) -> list[Mutation]:
    members = _members(original["checkpoint"])
    metadata = json.loads(_array(members["metadata.npy"]).tobytes())
    identity = json.loads(original["identity"])
    return [*_entry_mutations(members), *_metadata_mutations(metadata),
            *_file_mutations(original["checkpoint"]), *_identity_mutations(identity)]


def test_every_mutation_is_refused_naming_the_file_and_field_or_is_harmless(original, tmp_path):
    members = _members(original["checkpoint"])
    identity = json.loads(original["identity"])
    mutations = _all_mutations(original)
    assert len(mutations) > 300 and len({m.id for m in mutations}) == len(mutations)
    outcomes: dict[str, list[str]] = {"refused": [], "harmless": []}
    for number, mutation in enumerate(mutations):
        run_dir = tmp_path / str(number)
        run_dir.mkdir()
        checkpoint, identity_text = mutation.apply(members, identity)
        (run_dir / CHECKPOINT).write_bytes(original["checkpoint"] if checkpoint is None
                                           else checkpoint)
        (run_dir / IDENTITY).write_bytes(original["identity"] if identity_text is None
                                         else identity_text)
        path = run_dir / (CHECKPOINT if identity_text is None else IDENTITY)
        before = path.read_bytes()
        try:
            result = run_batched_baseline(MDP, run_dir=run_dir, episodes=12, **RUN)
        except ValueError as error:  # CheckpointError is one
            message = str(error)
            assert not mutation.harmless, f"{mutation.id}: refused ({message})"
            assert "\n" not in message and str(path) in message, (mutation.id, message)
            assert len(message) < len(str(path)) + 300, (mutation.id, message)
            assert identity_text is not None or message.startswith(f"{path}: "), (
                mutation.id, message)
            assert identity_text is not None or isinstance(error, CheckpointError), mutation.id
            if mutation.names is not None:
                assert repr(mutation.names) in message or f"{mutation.names} differ" in message, (
                    mutation.id, message)
            assert path.read_bytes() == before, f"{mutation.id}: the refused file was rewritten"
            outcomes["refused"].append(mutation.id)
        else:
            assert mutation.harmless or mutation.either, f"{mutation.id}: silently accepted"
            assert _results(result) == original["resumed"], f"{mutation.id}: another result"
            outcomes["harmless"].append(mutation.id)
        shutil.rmtree(run_dir)
    declared = {m.id for m in mutations if m.harmless}
    assert declared <= set(outcomes["harmless"])
    assert len(outcomes["refused"]) > 260  # most flips too


@pytest.mark.parametrize(("mutation", "message"), [
    ("curve-huge", r"entry 'curve' is float64 of shape \(100000000000, 2\), expected float64 of "
                   r"shape \(0\.\.2, 2\)$"),
    ("normaliser-str", r"entry 'metadata', field 'normaliser' must be \[mean, variance >= 0, "
                       r"count > 0\], finite numbers, got '\["),
    ("learner_rng-MT19937", r"entry 'metadata', field 'learner_rng' must be a numpy PCG64 "
                            r"generator's state"),
    ("episodes-negative", r"entry 'metadata', field 'episodes' must be an int in \[0, "),
    ("parameters-nan", r"entry 'parameters' holds nan at flat index \d+: finite numbers "
                       r"expected$"),
])
def test_the_reported_checkpoints_are_refused_naming_the_file_and_field(original, tmp_path,
                                                                        mutation, message):
    """The cases reported: a header declaring 10^11 float64 (numpy's loader tried to allocate
    745 GiB), a string in the normaliser, an MT19937 state where PCG64 is expected, negative
    episodes (resumed silently), NaN weights (each a numpy message without the file)."""
    [chosen] = [m for m in _all_mutations(original) if m.id == mutation]
    checkpoint, _ = chosen.apply(_members(original["checkpoint"]), {})
    assert checkpoint is not None
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / CHECKPOINT).write_bytes(checkpoint)
    (run_dir / IDENTITY).write_bytes(original["identity"])
    with pytest.raises(CheckpointError, match=f"^{run_dir / CHECKPOINT}: {message}"):
        run_batched_baseline(MDP, run_dir=run_dir, episodes=12, **RUN)


def test_a_run_written_before_encodings_were_named_resumes_as_orthonormal(tmp_path):
    """A run directory from before encoders named their encoding (no ``encoding`` in either
    identity) is an orthonormal run: it resumes as one, and is refused by any other."""
    orthonormal = {**RUN, "encoder": HadamardNoise(encoding="orthonormal")}
    untouched, old = tmp_path / "untouched", tmp_path / "old"
    for run_dir in (untouched, old):
        run_batched_baseline(MDP, run_dir=run_dir, episodes=8, **orthonormal)
    members = _members((old / CHECKPOINT).read_bytes())
    metadata = json.loads(_array(members["metadata.npy"]).tobytes())
    identity = json.loads((old / IDENTITY).read_bytes())
    for stored in (metadata["identity"], identity):
        del stored["encoder"]["encoding"]
    members["metadata.npy"] = _npy(np.frombuffer(json.dumps(metadata).encode(), np.uint8))
    (old / CHECKPOINT).write_bytes(_zip(list(members.items())))
    (old / IDENTITY).write_text(json.dumps(identity))
    with pytest.raises(ValueError, match="encoder differs"):
        run_batched_baseline(MDP, run_dir=old, episodes=12, **RUN)
    resumed = run_batched_baseline(MDP, run_dir=old, episodes=12, **orthonormal)
    expected = run_batched_baseline(MDP, run_dir=untouched, episodes=12, **orthonormal)
    assert _results(resumed) == _results(expected)

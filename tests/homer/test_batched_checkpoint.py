"""The batched baselines' checkpoint as data: npz entries read header first (no allocation a
header asks for, no pickle), every metadata field and array checked, errors naming the entry and
field. Hand-built archives and states, no learning run."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.lib import format as npy_format

from homer.baselines.batched_checkpoint import CHECKPOINT, claim, read_checkpoint, write_checkpoint
from homer.baselines.batched_state import Layout, read_state
from homer.baselines.npz_entries import NpzEntries
from homer.run_state import CheckpointError

FLOAT = np.dtype(np.float64)


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _header(shape: tuple[int, ...], descr: str = "<f8", fortran: bool = False,
            version: tuple[int, int] = (1, 0)) -> bytes:
    buffer = io.BytesIO()
    header = {"descr": descr, "fortran_order": fortran, "shape": shape}
    write = (npy_format.write_array_header_1_0 if version == (1, 0)
             else npy_format.write_array_header_2_0)
    write(buffer, header)
    return buffer.getvalue()


def _zip(members: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _refused(data: bytes, message: str, name: str = "x", shape: tuple = (3,),
             dtype: np.dtype = FLOAT) -> None:
    with pytest.raises(CheckpointError, match=f"^{message}"):
        NpzEntries(data).array(name, shape, dtype)


def test_an_entry_is_read_back_with_its_shape_type_and_order():
    rows = np.arange(6.0).reshape(3, 2)
    data = _zip({"x.npy": _npy(np.arange(3.0)), "rows.npy": _npy(np.asfortranarray(rows)),
                 "v2.npy": _header((2,), version=(2, 0)) + np.arange(2.0).tobytes()})
    entries = NpzEntries(data)
    assert sorted(entries.names) == ["rows", "v2", "x"]
    got = entries.array("x", (3,), FLOAT)
    np.testing.assert_array_equal(got, np.arange(3.0))
    got[0] = 7.0  # a copy of its own, writable
    stored = entries.array("rows", (range(0, 4), 2), FLOAT)
    np.testing.assert_array_equal(stored, rows)  # Fortran order read as such
    assert stored.flags.c_contiguous
    np.testing.assert_array_equal(entries.array("v2", (2,), FLOAT), [0.0, 1.0])
    deflated = NpzEntries(_zip({"x.npy": _npy(np.arange(3.0))}, zipfile.ZIP_DEFLATED))
    np.testing.assert_array_equal(deflated.array("x", (3,), FLOAT), np.arange(3.0))


def test_a_header_declaring_a_huge_array_is_refused_before_any_allocation():
    # 10^11 float64 (745 GiB): numpy's loader would try to allocate it
    huge = _zip({"x.npy": _header((10**11,)) + b"\0" * 64})
    _refused(huge, r"entry 'x' is float64 of shape \(100000000000,\), expected float64 of "
                   r"shape \(3,\)$")
    _refused(huge, r"entry 'x' is float64 of shape \(100000000000,\), expected float64 of "
                   r"shape \(0\.\.9,\)$", shape=(range(0, 10),))
    _refused(huge, r"entry 'x' holds less data than its header declares \(800000000000 bytes\)$",
             shape=(range(0, 10**12),))


@pytest.mark.parametrize(("member", "message"), [
    (_header((3,), "<f4") + bytes(12), r"entry 'x' is float32 of shape \(3,\), expected float64"),
    (_header((3,), ">f8") + bytes(24), r"entry 'x' is >f8 of shape \(3,\), expected float64"),
    (_header((3, 1)) + bytes(24), r"entry 'x' is float64 of shape \(3, 1\), expected"),
    (_header((3,), "|O") + b"\x80\x04.", r"entry 'x' holds Python objects \(dtype object\): "
                                         r"never unpickled, refused$"),
    (_header((3,)) + bytes(16), r"entry 'x' holds less data than its header declares \(24 "),
    (_header((3,)) + bytes(32), r"entry 'x' holds more data than its header declares \(24 "),
    (b"\x93NUMPY\x03\x00" + _header((3,))[8:] + bytes(24),
     r"entry 'x' is a \.npy file of version 3\.0 \(1\.0 or 2\.0 expected\)$"),
    (b"not a npy file at all", r"entry 'x' is unreadable \("),
    (_header((3,))[:20], r"entry 'x' is unreadable \("),
])
def test_a_malformed_entry_is_refused_naming_it(member, message):
    _refused(_zip({"x.npy": member}), message)


def test_an_archive_that_is_not_npz_or_damaged_is_refused_naming_the_entry():
    good = _zip({"x.npy": _npy(np.arange(3.0))})
    _refused(b"not a zip", r"not an npz archive \(")
    _refused(good[:len(good) // 2], r"not an npz archive \(")
    _refused(_zip({"x.npy": _npy(np.arange(3.0)), "notes.txt": b"hi"}),
             r"member 'notes.txt' is not an array entry \(a \.npy file\)$")
    with pytest.warns(UserWarning, match="Duplicate name"):
        twice = _twice()
    _refused(twice, r"entry 'x' is present twice$")
    flipped = bytearray(good)
    at = good.index(np.arange(3.0).tobytes()) + 9
    flipped[at] ^= 0xFF  # a byte of the data: the CRC no longer matches
    _refused(bytes(flipped), r"entry 'x' is unreadable \(Bad CRC-32")
    lzma = _zip({"x.npy": _npy(np.arange(3.0))}, zipfile.ZIP_LZMA)
    _refused(lzma, r"entry 'x' is encrypted or compressed by method 14 \(npz entries are stored "
                   r"or deflated\)$")
    encrypted = _zip({"x.npy": _npy(np.arange(3.0))})
    header = encrypted.index(b"PK\x01\x02")  # the central directory's record of x.npy
    flags = bytearray(encrypted)
    flags[header + 8] |= 0x1  # general purpose bit 0: encrypted
    _refused(bytes(flags), r"entry 'x' is encrypted or compressed by method 0 ")
    with pytest.raises(CheckpointError, match=r"^not an npz archive \(File is not a zip file\)$"):
        NpzEntries(b"PK\x05\x06" + b"\x00" * 10)


def test_a_reader_error_is_shown_on_one_line_of_at_most_160_characters():
    from homer.baselines.npz_entries import _shown_error

    assert _shown_error(ValueError("a\n b")) == "a b"
    exactly = "x" * 160
    assert _shown_error(ValueError(exactly)) == exactly
    assert _shown_error(ValueError(exactly + "y")) == "x" * 157 + "..."


def _twice() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("x.npy", _npy(np.arange(3.0)))
        archive.writestr("x.npy", _npy(np.arange(3.0)))
    return buffer.getvalue()


# -- the state: a hand-built checkpoint of 2 workers, 3 updates, stride 2 ------------------------

LAYOUT = Layout({"parameters": ((4,), np.dtype(np.float32)),
                 "square_average": ((4,), np.dtype(np.float32)),
                 "target/0.weight": ((2, 2), np.dtype(np.float32)),
                 "visits/1": ((1,), np.dtype(np.int64)), "visits/2": ((3,), np.dtype(np.int64))},
                workers=2, evaluate_every=4, identity={"seed": 0})


def _state(**changes: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    arrays = {"parameters": np.ones(4, np.float32), "square_average": np.zeros(4, np.float32),
              "target/0.weight": np.eye(2, dtype=np.float32),
              "visits/1": np.array([6]), "visits/2": np.array([1, 0, 5]),
              "curve": np.array([[4.0, 0.5], [6.0, 0.25]]),
              "training_returns": np.array([[4.0, 0.1]])}
    rng = np.random.default_rng(0).bit_generator.state
    metadata = {"identity": {"seed": 0}, "episodes": 6, "updates": 3, "environment_rng": rng,
                "learner_rng": rng, "normaliser": [0.5, 2.0, 12.0001], "seconds": 1.5,
                "stride": 2, "pending": 0.2, "pending_count": 1, "evaluated": 1,
                "stopped": False}
    for name, value in changes.items():
        (metadata if name in metadata else arrays)[name] = value
    return arrays, metadata


def _read(arrays: dict[str, np.ndarray], metadata: dict[str, Any]):
    buffer = io.BytesIO()
    np.savez(buffer, metadata=np.frombuffer(json.dumps(metadata).encode(), np.uint8), **arrays)
    return read_state(NpzEntries(buffer.getvalue()), LAYOUT)


def test_a_checked_state_reads_back_every_field():
    arrays, metadata = _state()
    state = _read(arrays, metadata)
    assert state.curve == [(4, 0.5), (6, 0.25)] and state.training_returns == [(4, 0.1)]
    assert (state.episodes, state.updates, state.stride, state.pending_count) == (6, 3, 2, 1)
    assert state.normaliser == (0.5, 2.0, 12.0001) and state.seconds == 1.5
    assert state.pending == 0.2 and state.evaluated == 1 and state.stopped is False
    assert state.learner_rng == metadata["learner_rng"]
    assert sorted(state.arrays) == sorted(LAYOUT.arrays)
    np.testing.assert_array_equal(state.arrays["visits/2"], [1, 0, 5])


RNG = np.random.default_rng(0).bit_generator.state


def _rng(**changes: Any) -> dict[str, Any]:
    return {**RNG, **changes}


@pytest.mark.parametrize(("changes", "message"), [
    ({"episodes": -2}, r"field 'episodes' must be an int in \[0, 9223372036854775807\], got -2$"),
    ({"episodes": 6.0}, r"field 'episodes' must be an int in .*, got 6\.0$"),
    ({"episodes": True}, r"field 'episodes' must be an int in .*, got True$"),
    ({"updates": 2**63}, r"field 'updates' must be an int in \[0, "),
    ({"episodes": 8}, r"field 'episodes' must be 2 per update \(3 updates\), got 8$"),
    ({"learner_rng": np.random.MT19937(0).state | {"state": {"key": [1], "pos": 0}}},
     r"field 'learner_rng' must be a numpy PCG64 generator's state \(bit_generator 'PCG64', "
     r"state and an odd inc < 2\^128, has_uint32 0 or 1, uinteger < 2\^32\), got "
     r"\{'bit_generator': 'MT19937'"),
    ({"environment_rng": _rng(state={"state": 1, "inc": 2})}, "field 'environment_rng' must be"),
    ({"environment_rng": _rng(state={"state": -1, "inc": 1})}, "field 'environment_rng' must"),
    ({"environment_rng": _rng(state={"state": 2**128, "inc": 1})}, "field 'environment_rng' m"),
    ({"environment_rng": _rng(state={"state": 1, "inc": 2**128 + 1})}, "field 'environment_rn"),
    ({"environment_rng": _rng(state={"state": 1})}, "field 'environment_rng' must"),
    ({"environment_rng": _rng(state=[1, 1])}, "field 'environment_rng' must"),
    ({"environment_rng": _rng(has_uint32=2)}, "field 'environment_rng' must"),
    ({"environment_rng": _rng(uinteger=2**32)}, "field 'environment_rng' must"),
    ({"environment_rng": _rng(extra=0)}, "field 'environment_rng' must"),
    ({"environment_rng": "PCG64"}, "field 'environment_rng' must"),
    ({"normaliser": ["a", 1.0, 1.0]}, r"field 'normaliser' must be \[mean, variance >= 0, "
                                      r"count > 0\], finite numbers, got \['a', 1\.0, 1\.0\]$"),
    ({"normaliser": [float("nan"), 1.0, 1.0]}, "field 'normaliser' must"),
    ({"normaliser": [0.0, -1.0, 1.0]}, "field 'normaliser' must"),
    ({"normaliser": [0.0, 1.0, 0.0]}, "field 'normaliser' must"),
    ({"normaliser": [0.0, 1.0]}, "field 'normaliser' must"),
    ({"normaliser": [10**400, 1.0, 1.0]}, "field 'normaliser' must"),
    ({"seconds": 10**400}, r"field 'seconds' must be a finite number >= 0, got 1000"),
    ({"pending": -(10**309)}, r"field 'pending' must be a finite number, got -1000"),
    ({"seconds": float("inf")}, "field 'seconds' must be a finite number >= 0, got inf$"),
    ({"seconds": -1}, "field 'seconds' must be a finite number >= 0"),
    ({"stride": 3}, r"field 'stride' must be a power of two \(an int >= 1\), got 3$"),
    ({"stride": 0}, r"field 'stride' must be a power of two"),
    ({"pending": "0"}, "field 'pending' must be a finite number, got '0'$"),
    ({"pending_count": 2}, r"field 'pending_count' must be an int in \[0, 1\], got 2$"),
    ({"evaluated": 4}, r"field 'evaluated' must be an int in \[0, 1\], got 4$"),
    ({"stopped": 0}, "field 'stopped' must be true or false, got 0$"),
    ({"identity": [0]}, r"field 'identity' must be a JSON object, got \[0\]$"),
    ({"identity": {"seed": 1}}, r"field 'identity' is another run's \(seed differs from the "
                                "run's identity file\\): use another directory$"),
    ({"pending_count": 0}, r"field 'updates' \(3\) must be whole training-return points of "
                           r"'stride' 2 updates and 'pending_count' 0 more$"),
    ({"pending_count": 0, "pending": 0.0, "updates": 2, "episodes": 4,
      "training_returns": np.array([[4.0, 0.1]])},
     r"entry 'visits/1' must count the visits of the 4 episodes"),
])
def test_a_metadata_field_out_of_range_is_refused_naming_it(changes, message):
    arrays, metadata = _state(**changes)
    with pytest.raises(CheckpointError, match=f"^entry 'metadata', {message}"
                       if message.startswith("field") else f"^{message}"):
        _read(arrays, metadata)


def test_pending_returns_without_a_pending_update_are_refused():
    arrays, metadata = _state(updates=2, episodes=4, pending_count=0, evaluated=1,
                              **{"visits/1": np.array([4]), "visits/2": np.array([0, 0, 4]),
                                 "curve": np.array([[4.0, 0.5]])})
    with pytest.raises(CheckpointError, match=r"^entry 'metadata', field 'pending' must be 0 "
                                              r"with no update pending, got 0\.2$"):
        _read(arrays, metadata)
    _read(arrays, {**metadata, "pending": 0.0})  # the same with nothing pending is accepted


@pytest.mark.parametrize(("changes", "message"), [
    ({"parameters": np.array([1, np.nan, 1, 1], np.float32)},
     r"entry 'parameters' holds nan at flat index 1: finite numbers expected$"),
    ({"target/0.weight": np.array([[1, 0], [0, np.inf]], np.float32)},
     r"entry 'target/0\.weight' holds inf at flat index 3"),
    ({"square_average": np.array([0, -1, 0, 0], np.float32)},
     r"entry 'square_average' holds -1\.0: RMSprop's averages of squared gradients are >= 0$"),
    ({"visits/2": np.array([7, -1, 0])}, r"entry 'visits/2' must count the visits of the 6 "
                                         r"episodes \(ints >= 0 summing to 6\), got \[7, -1, 0\]$"),
    ({"visits/2": np.array([1, 0, 4])}, r"entry 'visits/2' must count the visits of the 6 "),
    ({"visits/2": np.array([1.0, 0, 5])}, r"entry 'visits/2' is float64 of shape \(3,\), "
                                          r"expected int64"),
    ({"curve": np.array([[4.0, np.nan]])}, r"entry 'curve' holds nan at flat index 1"),
    ({"curve": np.array([[4.0, 0.5], [4.0, 0.5]])}, r"entry 'curve': its episode counts must "
                                                    r"be multiples of 2 \(whole updates\), "
                                                    r"increasing, at most 6; got \[4\.0, 4\.0\]$"),
    ({"curve": np.array([[3.0, 0.5]])}, r"entry 'curve': its episode counts must be"),
    ({"curve": np.array([[0.0, 0.5]])}, r"entry 'curve': its episode counts must be"),
    ({"curve": np.array([[8.0, 0.5]])}, r"entry 'curve': its episode counts must be"),
    ({"curve": np.zeros((4, 2))}, r"entry 'curve' is float64 of shape \(4, 2\), expected "
                                  r"float64 of shape \(0\.\.3, 2\)$"),
    ({"training_returns": np.array([[2.0, 0.1]])},
     r"entry 'training_returns': point i must be at 2 x 2 x i episodes \(its stride\), got "
     r"\[2\.0\]$"),
    ({"training_returns": np.zeros((2, 2))}, r"entry 'training_returns' is float64 of shape "
                                             r"\(2, 2\), expected float64 of shape \(1, 2\)$"),
])
def test_an_array_out_of_range_is_refused_naming_it(changes, message):
    with pytest.raises(CheckpointError, match=f"^{message}"):
        _read(*_state(**changes))


@pytest.mark.parametrize(("metadata", "message"), [
    (b"\xff", r"entry 'metadata' is not UTF-8 \("),
    (b"{", "entry 'metadata': malformed JSON at line 1, column 2"),
    (b"[1]", "entry 'metadata' is not a JSON object$"),
    (b'{"episodes": 1, "episodes": 2}', "entry 'metadata': duplicate key 'episodes'$"),
    (None, r"entry 'metadata' has unknown fields \['extra'\]$"),
])
def test_metadata_that_is_not_a_json_object_of_the_fields_is_refused(metadata, message):
    arrays, fields = _state()
    text = json.dumps({**fields, "extra": 0}).encode() if metadata is None else metadata
    buffer = io.BytesIO()
    np.savez(buffer, metadata=np.frombuffer(text, np.uint8), **arrays)
    with pytest.raises(CheckpointError, match=f"^{message}"):
        read_state(NpzEntries(buffer.getvalue()), LAYOUT)
    del fields["stopped"]
    with pytest.raises(CheckpointError, match=r"^entry 'metadata' has no field 'stopped'$"):
        _read(arrays, fields)


def test_entries_missing_or_extra_are_named():
    arrays, metadata = _state()
    del arrays["square_average"]
    with pytest.raises(CheckpointError, match=r"^entry 'square_average' is missing$"):
        _read(arrays, metadata)
    with pytest.raises(CheckpointError, match=r"^entry 'visits/3' is not a checkpoint entry$"):
        _read(*_state(**{"visits/3": np.zeros(1, np.int64)}))


def test_the_file_reader_names_the_file_and_writes_plain_arrays_and_json_only(tmp_path):
    claim(tmp_path, {"seed": 0})
    arrays, metadata = _state()
    write_checkpoint(tmp_path, arrays, metadata)
    assert read_checkpoint(tmp_path, LAYOUT).updates == 3
    write_checkpoint(tmp_path, arrays, {**metadata, "updates": -1})
    with pytest.raises(CheckpointError, match=re.escape(
            f"{tmp_path / CHECKPOINT}: entry 'metadata', field 'updates' must be an int in [0, ")):
        read_checkpoint(tmp_path, LAYOUT)
    (tmp_path / CHECKPOINT).write_bytes(b"")
    with pytest.raises(CheckpointError, match=re.escape(
            f"{tmp_path / CHECKPOINT}: not an npz archive (")):
        read_checkpoint(tmp_path, LAYOUT)
    _refuses_all_but_json_metadata_and_plain_arrays(tmp_path)
    assert (tmp_path / CHECKPOINT).read_bytes() == b""  # nothing written over it


def test_a_refused_first_checkpoint_leaves_no_file(tmp_path):
    _refuses_all_but_json_metadata_and_plain_arrays(tmp_path)
    assert not (tmp_path / CHECKPOINT).exists()


def _refuses_all_but_json_metadata_and_plain_arrays(run_dir: Path) -> None:
    with pytest.raises(ValueError, match=r"^'metadata' is the checkpoint's own entry, not an "
                                         r"array's name$"):
        write_checkpoint(run_dir, {"metadata": np.zeros(1)}, {})
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        write_checkpoint(run_dir, {}, {"seconds": float("nan")})
    with pytest.raises(ValueError, match="allow_pickle=False"):
        write_checkpoint(run_dir, {"objects": np.array([{}], dtype=object)}, {})


def test_an_identity_file_that_is_not_utf8_is_refused_naming_it(tmp_path):
    claim(tmp_path, {"seed": 0})
    (tmp_path / "identity.json").write_bytes(b"\xff{}")
    with pytest.raises(ValueError, match=re.escape(f"{tmp_path / 'identity.json'}: not UTF-8 (")):
        claim(tmp_path, {"seed": 0})

"""The encoder's ``exogenous-bits`` layout (``homer.encoders``): an exogenous lock's bits as
coordinates of their own beside the endogenous one-hot and the time one-hot, as the authors'
later library lays out its observation before the rotation (microsoft/Intrepid,
``temporal_diabcombolock.py``, noise type ``hadamhardg``: ``v[x[0]] = 1``, ``v[3 + x[1]] = 1``,
``v[H + 4:] = x[2]``, noise on all of ``v``, then the first ``H + 4 + k`` columns of the
Sylvester matrix), written out here; HOMER and ``homer run --exogenous-bits`` on it."""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.linalg import hadamard

from homer.cli import main
from homer.encoders import LAYOUTS, HadamardNoise
from homer.envs import RichObservationEnv
from kinematic.exogenous import SEPARATOR
from kinematic.families import combination_lock, exogenous_combination_lock

BITS = HadamardNoise(0.0, layout="exogenous-bits")
NOISY = exogenous_combination_lock(4, 2, 0, 3).mdp  # m = 3, H = 4, k = 3: 3 + 5 + 3 -> d = 16
TINY = ["--transitions", "300", "--max-transitions", "300", "--max-epochs", "5",
        "--min-epochs", "5", "--psdp-samples", "200", "--eval-samples", "100",
        "--evaluation-episodes", "100"]


def unrotated(encoder: HadamardNoise, mdp, layer: int, ids: np.ndarray, seed: int = 0
              ) -> np.ndarray:
    """The vectors before the matrix (padded), the matrix undone."""
    matrix = encoder.rotation(mdp).astype(np.float64)
    vectors = encoder.encode(mdp, layer, ids, np.random.default_rng(seed))
    return np.linalg.solve(matrix, np.asarray(vectors, dtype=np.float64).T).T


def intrepid(horizon: int, kind: int, time: int, bits: str) -> np.ndarray:
    """Intrepid's vector before the matrix: ``H + 4 + k`` entries, the state type (of 3), the
    time step counted from 0, then the bits; padded with zeros to the matrix's size."""
    k = len(bits)
    v = np.zeros(2 ** math.ceil(math.log2(horizon + 4 + k)))
    v[kind], v[3 + time] = 1.0, 1.0
    v[horizon + 4:horizon + 4 + k] = [float(b) for b in bits]
    return v


@pytest.mark.parametrize("layer", range(4))
def test_two_observations_of_one_endogenous_observation_differ_in_their_bits_alone(layer):
    """Kills the one-hot layout (two one-hot coordinates differ), bits written elsewhere, or
    bits written to the wrong coordinate."""
    observations = NOISY.observations[layer]
    padded = unrotated(BITS, NOISY, layer, np.arange(len(observations)))
    first_bit = 3 + 4 + 1
    for i, x in enumerate(observations):
        for j, y in enumerate(observations):
            (x_endogenous, _, x_bits), (y_endogenous, _, y_bits) = (
                x.rpartition(SEPARATOR), y.rpartition(SEPARATOR))
            if x_endogenous != y_endogenous:
                continue
            differ = set(np.flatnonzero(np.abs(padded[i] - padded[j]) > 1e-6).tolist())
            assert differ == {first_bit + b for b in range(3) if x_bits[b] != y_bits[b]}, (x, y)


@pytest.mark.parametrize("horizon", [2, 3, 6])
def test_the_vector_before_the_matrix_is_intrepid_s(horizon):
    """Position by position (Intrepid's time ``t`` at the slot of this encoder's layer ``t +
    1``); and the dimension, ``2^ceil(log2(H + 4 + k))``."""
    mdp = exogenous_combination_lock(horizon, 2, 0, 2).mdp
    assert BITS.dimension(mdp) == 2 ** math.ceil(math.log2(horizon + 4 + 2))
    for layer, observations in enumerate(mdp.observations):
        padded = unrotated(BITS, mdp, layer, np.arange(len(observations)))
        for i, name in enumerate(observations):
            state, _, bits = name.rpartition(SEPARATOR)
            expected = intrepid(horizon, "abc".index(state[-1]), layer, bits)
            np.testing.assert_allclose(padded[i], expected, atol=1e-5, err_msg=name)


@pytest.mark.parametrize(("encoding", "spared"), [("authors", set()), ("orthonormal", {7})])
def test_the_noise_falls_on_every_coordinate_but_the_orthonormal_last_time_slot(encoding,
                                                                                spared):
    """Intrepid's ``hadamhardg`` noises all ``H + 4 + k`` entries (the authors' encoding); the
    orthonormal one spares the unused last time slot, ``m + H``, as in the one-hot layout."""
    noisy = HadamardNoise(1.0, encoding, "exogenous-bits")
    clean = HadamardNoise(0.0, encoding, "exogenous-bits")
    ids = np.repeat(np.arange(len(NOISY.observations[1])), 20)
    moved = np.abs(unrotated(noisy, NOISY, 1, ids) - unrotated(clean, NOISY, 1, ids))
    noised = set(np.flatnonzero(moved.max(axis=0) > 1e-3).tolist())
    assert noised == set(range(3 + 5 + 3)) - spared


@pytest.mark.parametrize("encoding", ["authors", "orthonormal"])
def test_decoding_undoes_the_layout(encoding):
    encoder = HadamardNoise(encoding=encoding, layout="exogenous-bits")
    ids = np.array([5, 0, 23, 17, 17, 9])
    vectors = encoder.encode(NOISY, 2, ids, np.random.default_rng(3))
    assert encoder.decode(NOISY, vectors, step=3).tolist() == ids.tolist()


def test_the_one_hot_layout_draws_its_noise_as_before():
    """The one-hot layout's encodings are those of the encoder before layouts: its noise drawn
    as one ``(n, m + H + 1)`` block (authors') from the generator, so stored runs resume with
    the same draws."""
    lock, ids = combination_lock(6, 3, 0), np.array([0, 2, 1])
    encoded = HadamardNoise(0.01).encode(lock, 2, ids, np.random.default_rng(7))
    expected = np.zeros((3, 16))
    expected[np.arange(3), ids] = 1.0
    expected[:, 3 + 2] = 1.0
    expected[:, :10] += np.random.default_rng(7).normal(0.0, 0.1, size=(3, 10))
    np.testing.assert_allclose(encoded, expected @ hadamard(16).T, atol=1e-5)


def test_observations_not_named_with_bits_are_refused_naming_the_first():
    with pytest.raises(ValueError, match=r"observation 's1a' of layer 1 is not named 'x\|bits'"):
        BITS.dimension(combination_lock(2, 2, 0))


def test_bit_strings_of_two_lengths_are_refused_naming_the_observation():
    from kinematic import block_mdp

    mdp = block_mdp("mixed", [["s|0", "t|01"]], ["a"], {"s|0": "1/2", "t|01": "1/2"}, {})
    with pytest.raises(ValueError, match=r"observation 't\|01' of layer 1 has 2 bits, the "
                                         "first observation 1"):
        BITS.encode(mdp, 0, np.array([0]), np.random.default_rng(0))


def test_a_stored_encoder_without_a_layout_is_one_hot_and_a_bad_one_is_refused():
    assert LAYOUTS == ("one-hot", "exogenous-bits")
    assert HadamardNoise.from_record({"noise_variance": 0.01, "encoding": "authors"}).layout \
        == "one-hot"
    with pytest.raises(ValueError, match="layout must be one of one-hot, exogenous-bits, got 'x'"):
        HadamardNoise.from_record({"noise_variance": 0.01, "layout": "x"})


def test_the_gymnasium_environment_dresses_the_lock_with_the_layout():
    env = RichObservationEnv(NOISY, BITS, seed=0)
    vector, info = env.reset(seed=0)
    assert vector.shape == (16,)
    assert BITS.decode(NOISY, vector[None], step=1).tolist() == [
        NOISY.observations[0].index(info["observation"])]


def test_homer_runs_on_the_exogenous_lock_and_records_the_layout(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "--env", "combolock", "--horizon", "2", "--actions", "2",
                 "--exogenous-bits", "1", "--flip", "1/10", "--backward-capacity", "4",
                 "--forward-capacity", "6", "--out", str(out), "--json", *TINY]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["optimal_value"] == 1.0
    identity = json.loads((out / "config.json").read_text())
    assert identity["mdp"] == "combolock-H2-K2-seed0-exo1-flip1/10"
    assert identity["encoder"] == {"noise_variance": 0.01, "encoding": "authors",
                                   "layout": "exogenous-bits"}


@pytest.mark.parametrize(("argv", "message"), [
    (["--spec", "lock.json", "--exogenous-bits", "1"],
     "error: --exogenous-bits applies to --env combolock only; a --spec file holds its own MDP"),
    (["--env", "combolock", "--flip", "1/2"], "error: --flip applies with --exogenous-bits only"),
    (["--env", "combolock", "--exogenous-bits", "1", "--flip", "-1"],
     "argument --flip: must be a probability in [0, 1], got '-1'"),
    (["--env", "combolock", "--exogenous-bits", "0"],
     "argument --exogenous-bits: must be an int >= 1, got '0'"),
])
def test_run_refuses_the_exogenous_flags_where_they_do_not_apply(argv, message, tmp_path,
                                                                 capsys):
    try:
        status = main(["run", *argv, "--out", str(tmp_path / "run")])
    except SystemExit as stop:
        status = stop.code
    assert status == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "standard-environments.md"
DOCUMENTED_ROW = ("| any H >= 2 | `2^ceil(log2(H + 4 + k))` | `0 .. 2` | `h + 2` | "
                  "`H + 4 .. H + 3 + k` | `0 .. H + 3 + k` | all but `H + 3` |")


@pytest.mark.parametrize(("horizon", "bits"), [(2, 1), (3, 2), (5, 3), (9, 4)])
def test_the_guide_s_row_is_what_the_encoder_does(horizon, bits):
    """The guide's table of the exogenous lock's layout, measured: kills a table (or an
    encoder) with another dimension, time slot, bit slot or noised set."""
    assert DOCUMENTED_ROW in GUIDE.read_text()
    mdp = exogenous_combination_lock(horizon, 2, 0, bits).mdp
    d = 2 ** math.ceil(math.log2(horizon + 4 + bits))
    for encoding, noised in (("authors", set(range(horizon + 4 + bits))),
                             ("orthonormal", set(range(horizon + 4 + bits)) - {horizon + 3})):
        noisy = HadamardNoise(1.0, encoding, "exogenous-bits")
        clean = HadamardNoise(0.0, encoding, "exogenous-bits")
        assert clean.dimension(mdp) == d
        moved: set[int] = set()
        for layer, observations in enumerate(mdp.observations):
            ids = np.repeat(np.arange(len(observations)), 10)
            exact = unrotated(clean, mdp, layer, ids)
            moved |= set(np.flatnonzero(
                np.abs(unrotated(noisy, mdp, layer, ids) - exact).max(axis=0) > 1e-3).tolist())
            # step h = layer + 1 in slot h + 2
            np.testing.assert_allclose(exact[:, layer + 3], 1.0, atol=1e-5)
            ones = np.flatnonzero(np.abs(exact[-1]) > 0.5)  # the last observation: s..c|11..1
            assert ones.tolist() == [len(observations) // 2 ** bits - 1, layer + 3,
                                     *range(horizon + 4, horizon + 4 + bits)]
        assert moved == noised, encoding


def test_evaluate_scores_with_the_layout_asked_for(tmp_path, capsys):
    from kinematic.cli import main as kinematic_main

    spec = tmp_path / "exo.json"
    assert kinematic_main(["family", "combolock", "--horizon", "3", "--actions", "2",
                           "--exogenous-bits", "2", "--out", str(spec)]) == 0
    assert main(["evaluate", "--spec", str(spec), "--layout", "exogenous-bits",
                 "--abstraction", "oracle", "--samples", "20", "--json"]) == 0
    report = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert report["mdp"] == "combolock-H3-K2-seed0-exo2-flip1/10"
    lock = tmp_path / "lock.json"
    assert kinematic_main(["family", "combolock", "--horizon", "3", "--out", str(lock)]) == 0
    assert main(["evaluate", "--spec", str(lock), "--layout", "exogenous-bits",
                 "--abstraction", "oracle"]) == 2
    assert "observation 's1a' of layer 1 is not named 'x|bits'" in capsys.readouterr().err


def test_a_run_written_before_layouts_were_named_resumes_as_one_hot_only(tmp_path):
    """Its ``config.json`` names an encoding but no layout (every run written before the
    layouts): it reads as one-hot, and a resume with the exogenous-bits layout is refused."""
    from homer.config import HomerConfig
    from homer.run_directory import CONFIG, RunIdentity, claim_run_directory

    lock = exogenous_combination_lock(2, 2, 0, 1).mdp
    one_hot = RunIdentity.of(lock, HomerConfig(), 0, HadamardNoise(), True)
    stored = one_hot.to_json()
    del stored["encoder"]["layout"]
    (tmp_path / CONFIG).write_text(json.dumps(stored))
    claim_run_directory(tmp_path, one_hot, resume=True, force=False)
    bits = RunIdentity.of(lock, HomerConfig(), 0, HadamardNoise(layout="exogenous-bits"), True)
    with pytest.raises(ValueError, match="encoder differs"):
        claim_run_directory(tmp_path, bits, resume=True, force=False)

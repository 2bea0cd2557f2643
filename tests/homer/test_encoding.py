"""The observation encoder's two encodings (``homer.encoders``): the authors' (default: the +-1
Sylvester Hadamard matrix, noise on the m + H + 1 coordinates of the one-hots, as their released
environment's ``hadamhardg`` noise) and the orthonormal rotation (this project's before), and
how a stored encoder without a named encoding reads (as orthonormal, so old runs still load)."""

import json
import math

import numpy as np
import pytest
from scipy.linalg import hadamard

from homer.baselines.batched import BatchedConfig, run_batched_baseline
from homer.encoders import ENCODINGS, HadamardNoise, with_named_encoding
from homer.envs import lock_environment
from kinematic.families import combination_lock

LOCK = combination_lock(6, 3, 0)  # m = 3, H = 6: d = 16


def one_hots(observations: np.ndarray, layer: int, width: int = 3, d: int = 16) -> np.ndarray:
    vectors = np.zeros((len(observations), d))
    vectors[np.arange(len(observations)), observations] = 1
    vectors[:, width + layer] = 1
    return vectors


def test_the_default_is_the_authors_plus_minus_one_matrix():
    ids = np.array([0, 1, 2, 1])
    encoded = HadamardNoise(0.0).encode(LOCK, 2, ids, np.random.default_rng(0))
    np.testing.assert_array_equal(encoded, one_hots(ids, 2) @ hadamard(16).T)
    # entries of two +-1 rows summed: 0 or +-2; norm sqrt(2 d), not the rotation's sqrt(2)
    assert set(np.unique(encoded)) <= {-2.0, 0.0, 2.0}
    np.testing.assert_allclose(np.linalg.norm(encoded, axis=1), math.sqrt(32))
    assert HadamardNoise().encoding == "authors" == ENCODINGS[0]


def test_the_orthonormal_encoding_is_the_same_divided_by_the_square_root_of_d():
    ids = np.array([2, 0])
    rng = np.random.default_rng(0)
    authors = HadamardNoise(0.0).encode(LOCK, 4, ids, rng)
    orthonormal = HadamardNoise(0.0, "orthonormal").encode(LOCK, 4, ids, rng)
    np.testing.assert_allclose(orthonormal * 4, authors, rtol=1e-6)


@pytest.mark.parametrize(("encoding", "noised"), [("authors", 3 + 6 + 1), ("orthonormal", 3 + 6)])
def test_the_noise_falls_on_the_one_hots_coordinates_and_the_authors_last_time_slot(
        encoding, noised):
    encoder = HadamardNoise(0.25, encoding)
    encoded = encoder.encode(LOCK, 0, np.zeros(2000, int), np.random.default_rng(1))
    unrotated = encoded @ encoder.rotation(LOCK) / (16 if encoding == "authors" else 1)
    noise = unrotated - one_hots(np.zeros(2000, int), 0)
    spread = noise.std(axis=0)
    np.testing.assert_allclose(spread[:noised], 0.5, rtol=0.1)
    assert (np.abs(noise[:, noised:]) < 1e-5).all()


def test_decoding_undoes_either_encoding():
    ids = np.array([2, 0, 1, 1])
    for encoding in ENCODINGS:
        encoder = HadamardNoise(encoding=encoding)
        encoded = encoder.encode(LOCK, 3, ids, np.random.default_rng(2))
        assert encoder.decode(LOCK, encoded, step=4).tolist() == ids.tolist()


def test_a_stored_encoder_without_an_encoding_is_the_orthonormal_one():
    assert HadamardNoise.from_record({"noise_variance": 0.01}) == HadamardNoise(
        0.01, "orthonormal")
    assert HadamardNoise.from_record({"noise_variance": 0.0, "encoding": "authors"}) == (
        HadamardNoise(0.0))
    old = {"seed": 0, "encoder": {"noise_variance": 0.01}}
    assert with_named_encoding(old)["encoder"] == {"noise_variance": 0.01,
                                                  "encoding": "orthonormal",
                                                  "layout": "one-hot"}
    assert with_named_encoding([1]) == [1] and with_named_encoding({"encoder": 3}) == {
        "encoder": 3}


@pytest.mark.parametrize(("fields", "message"), [
    ({"encoding": "scaled"}, "encoding must be one of authors, orthonormal, got 'scaled'"),
    ({"noise_variance": -0.1}, "noise_variance must be a finite number >= 0, got -0.1"),
    ({"noise_variance": float("nan")}, "noise_variance must be a finite number >= 0, got nan"),
])
def test_a_bad_encoder_is_refused_naming_the_field(fields, message):
    with pytest.raises(ValueError) as error:
        HadamardNoise.from_record(fields)
    assert str(error.value) == message


def test_the_registered_environment_uses_the_authors_encoding_unless_asked():
    assert lock_environment(3, 2).encoder == HadamardNoise()
    assert lock_environment(3, 2, encoding="orthonormal").encoder.encoding == "orthonormal"


def test_a_batched_run_written_before_encodings_were_named_resumes_as_orthonormal(tmp_path):
    lock, config = combination_lock(2, 2, 0), BatchedConfig(workers=4)
    run = lambda episodes, encoder: run_batched_baseline(  # noqa: E731
        lock, "ppo", episodes, seed=0, run_dir=tmp_path, encoder=encoder, config=config,
        evaluate_every=4)
    run(8, HadamardNoise(encoding="orthonormal"))
    identity = json.loads((tmp_path / "identity.json").read_text())
    del identity["encoder"]["encoding"]  # as a checkpoint written before encodings were named
    (tmp_path / "identity.json").write_text(json.dumps(identity))
    assert run(12, HadamardNoise(encoding="orthonormal")).episodes == 12
    with pytest.raises(ValueError, match="encoder differs"):
        run(16, HadamardNoise())


def test_a_homer_run_written_before_encodings_were_named_resumes_only_as_orthonormal(tmp_path):
    from homer.config import HomerConfig
    from homer.run_directory import CONFIG, RunIdentity, claim_run_directory
    from kinematic.spec import dumps_spec

    lock = combination_lock(3, 2, 0)
    old = RunIdentity.of(lock, HomerConfig(), 0, HadamardNoise(encoding="orthonormal"), True)
    stored = old.to_json()
    del stored["encoder"]["encoding"]
    (tmp_path / CONFIG).write_text(json.dumps(stored))
    assert dumps_spec(lock)  # the identity names the spec's fingerprint
    claim_run_directory(tmp_path, old, resume=True, force=False)  # accepted as it ran
    authors = RunIdentity.of(lock, HomerConfig(), 0, HadamardNoise(), True)
    with pytest.raises(ValueError) as error:
        claim_run_directory(tmp_path, authors, resume=True, force=False)
    assert "(encoder differs in" in str(error.value)
    assert "it ran with the 'orthonormal' encoding" in str(error.value)
    assert "resume it with --encoding orthonormal" in str(error.value)

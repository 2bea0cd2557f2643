"""The lock's observation layout as ``docs/guide/standard-environments.md`` documents it (its
table: the dimension ``d``, each step's time slot, the coordinates the noise falls on), measured
on :class:`homer.encoders.HadamardNoise` itself: encode every observation of every step many
times, multiply back by the matrix, and see which coordinates ever differ from the noiseless
encoding. Also the authors' released layout (cereb-rl ``rl_acid_environment.py``, noise type
``hadamhardg``), written out here: the same from H = 2 on, not at H = 1."""

import math
import re
from pathlib import Path

import numpy as np
import pytest

from homer.encoders import HadamardNoise
from kinematic.families import combination_lock

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "standard-environments.md"
ROW = re.compile(r"^\| (\d+) \| (\d+) \| `(h \+ )?(\d+)` \| `0 \.\. (\d+)` \| `0 \.\. (\d+)` \|$",
                 re.MULTILINE)
GENERAL_ROW = ("| any H >= 2 | `2^ceil(log2(H + 4))` | `h + 2` | `0 .. H + 3` | `0 .. H + 2` |")


def documented() -> dict[int, tuple[int, list[int], dict[str, set[int]]]]:
    """H -> (d, the time slot of steps 1 .. H, the noised coordinates by encoding), from the
    guide's table."""
    rows = {}
    for match in ROW.finditer(GUIDE.read_text()):
        horizon, d, relative, slot, authors, orthonormal = match.groups()
        slots = [int(slot) + (h if relative else 0) for h in range(1, int(horizon) + 1)]
        rows[int(horizon)] = (int(d), slots, {"authors": set(range(int(authors) + 1)),
                                              "orthonormal": set(range(int(orthonormal) + 1))})
    return rows


def measured(horizon: int, encoding: str) -> tuple[int, list[int], set[int]]:
    """(d, the time slot of steps 1 .. H, the coordinates the noise ever moves) of the encoder
    on the H-step lock, read off its encodings with the matrix undone."""
    lock = combination_lock(horizon, 2, seed=0)
    noisy, clean = HadamardNoise(1.0, encoding), HadamardNoise(0.0, encoding)
    matrix = noisy.rotation(lock).astype(np.float64)
    rng = np.random.default_rng(0)
    slots, noised = [], set()
    for layer, observations in enumerate(lock.observations):
        indices = np.repeat(np.arange(len(observations)), 100)
        # vectors = padded @ matrix.T, so padded = solve(matrix, vectors.T).T
        padded = np.linalg.solve(matrix, noisy.encode(lock, layer, indices, rng).T).T
        exact = np.linalg.solve(matrix, clean.encode(lock, layer, indices, rng).T).T
        noised |= set(np.flatnonzero(np.abs(padded - exact).max(axis=0) > 1e-3).tolist())
        first = np.flatnonzero(np.abs(exact[0]) > 0.5).tolist()  # observation 0 and the step
        assert first[0] == 0 and len(first) == 2
        slots.append(first[1])
    return matrix.shape[0], slots, noised


def released(horizon: int) -> tuple[int, list[int], set[int]]:
    """The released code's layout: ``v`` of ``H + 4`` entries, ``v[x[0]]`` the state type (of
    3), ``v[3 + x[1]]`` the step (counted from 0), noise on all of ``v``, then times the first
    ``H + 4`` columns of the Sylvester matrix of the least power of 2 >= ``H + 4``."""
    return (2 ** math.ceil(math.log2(horizon + 4)), [3 + h for h in range(horizon)],
            set(range(horizon + 4)))


def test_the_guide_documents_the_lock_layout_at_several_horizons_h_1_included():
    """Kills a table row the pattern silently misses (the test would check nothing)."""
    assert set(documented()) == {1, 2, 3, 6}
    assert GENERAL_ROW in GUIDE.read_text()


@pytest.mark.parametrize("encoding", ["authors", "orthonormal"])
@pytest.mark.parametrize("horizon", [1, 2, 3, 6])
def test_each_documented_row_is_what_the_encoder_does(horizon, encoding):
    """Kills noise on the zero padding, noise without the last time slot for the authors'
    encoding (or with it for the orthonormal one), another dimension, a shifted time slot - or
    a table that says any of these."""
    d, slots, noised = documented()[horizon]
    assert measured(horizon, encoding) == (d, slots, noised[encoding])


@pytest.mark.parametrize("horizon", range(2, 10))
def test_the_general_row_is_what_the_encoder_does_from_h_2_on(horizon):
    """The table's last row, ``d = 2^ceil(log2(H + 4))``, slot ``h + 2``, noise on
    ``0 .. H + 3`` (authors) / ``0 .. H + 2`` (orthonormal), at every H from 2 to 9 (d from 8
    to 16), and the released code's layout with it."""
    d = 2 ** math.ceil(math.log2(horizon + 4))
    slots = [h + 2 for h in range(1, horizon + 1)]
    assert measured(horizon, "authors") == (d, slots, set(range(horizon + 4))) == released(horizon)
    assert measured(horizon, "orthonormal") == (d, slots, set(range(horizon + 3)))


def test_at_h_1_the_encoder_differs_from_the_released_code_as_the_guide_says():
    """The guide: at H = 1 the released code has d = 8, the time slot at 3 and the noise on
    ``0 .. 4``; this encoder d = 4, the slot at 2, the noise on ``0 .. 3`` (the lock's one layer
    has two observations). Fails, and the guide must change, when the encoder follows the
    released layout at H = 1 too."""
    assert released(1) == (8, [3], set(range(5)))
    said = "at H = 1 only, where the released code has `d = 8`, the time slot at 3 and the noise on"
    assert said + " `0 .. 4`" in " ".join(GUIDE.read_text().split())
    assert measured(1, "authors") == (4, [2], set(range(4)))

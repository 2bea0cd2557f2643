"""Observation encoders: latent observations of a Block MDP -> rich vectors in R^d.

:class:`HadamardNoise` is the encoder of the paper's experiments (Section 7, "The environment"):
the one-hot of the observation (within its layer) and the one-hot of the time step are
concatenated, isotropic Gaussian noise is added, the vector is zero-padded to
``d = 2^ceil(log2(m + H + 1))`` and multiplied by a Sylvester Hadamard matrix. For the
combination lock from ``H = 2`` on (``m = 3`` observations per layer) this is the paper's
``2^ceil(log2(H + 4))`` (the time one-hot has ``H + 1`` entries: the observations of steps
``1 .. H`` and, in the authors' code, the one after the last action, which a Block MDP of horizon
``H`` never emits). The ``H = 1`` lock has two observations (``m = 2``), so ``d = 4`` here where
the authors' code, which always reserves three observation slots, has ``d = 8``.

Two encodings (:data:`ENCODINGS`), named in every run's identity:

- ``"authors"`` (the default): as the authors' released environment code
  (``rl_acid_environment.py``, noise type ``hadamhardg``): the Gaussian noise falls on all
  ``m + H + 1`` coordinates of the concatenated one-hots (the unused last time slot included)
  and the matrix is the Sylvester matrix itself, entries ``+-1`` - the paper's footnote: "a
  square matrix with entries in {-1,+1} and mutually orthogonal rows". An observation then has
  norm about ``sqrt(2 d)``.
- ``"orthonormal"``: this project's encoder before it followed the authors: the noise on the
  ``m + H`` coordinates a Block MDP of horizon ``H`` can set, and the matrix divided by
  ``sqrt(d)`` (a rotation), so every observation is ``sqrt(d)`` times smaller (norm about
  ``sqrt(2)``). Run directories and sweep records written before encodings were named hold this
  one (:meth:`HadamardNoise.from_record`). It is not harmless: with inputs ``sqrt(d)`` times
  smaller, the RND bonus of PPO+RND is an order of magnitude weaker relative to the lock's
  rewards, and PPO+RND stays in the anti-shaped local optimum at ``H = 6`` where the authors'
  agent and this project's on the authors' scale solve it
  (``benchmarks/results/beside_authors.md``).

The noise variance defaults to :data:`DEFAULT_NOISE_VARIANCE` = 0.01 everywhere (HOMER, the
command line, sweeps, baselines and the registered environment), as in the authors' code; the
paper's text says 0.1, which caps the value of any policy near 0.32 at H = 100 (ARCHITECTURE.md,
"HOMER"). At 0.01 the observations are effectively noiseless: the Bayes error of telling two
one-hots apart is about 1e-12.

Each *observation* (not state) gets its own one-hot, so with several observations per state the
learner must itself find which observations belong together.

Two layouts (:data:`LAYOUTS`), also named in every run's identity:

- ``"one-hot"`` (the default): one coordinate per observation of a layer, as above.
- ``"exogenous-bits"``: for an exogenous Block MDP whose exogenous values are bit strings, as
  :func:`kinematic.families.exogenous_combination_lock` builds it. Every observation is named
  ``"x|0101"`` (``x`` the endogenous observation, :data:`kinematic.exogenous.SEPARATOR`, then
  ``k`` bits); the vector holds the one-hot of ``x`` among the layer's endogenous observations
  (``m`` of them at most), the one-hot of the time step (``H + 1`` coordinates) and then the
  ``k`` bits as ``0``/``1`` coordinates, ``d = 2^ceil(log2(m + H + 1 + k))``: the layout of the
  authors' later library (microsoft/Intrepid, ``temporal_diabcombolock.py``, noise type
  ``hadamhardg``), which writes the bits into the observation before the rotation. Two
  observations of one endogenous observation then differ in the bit coordinates alone, where
  the one-hot layout would give each of the ``m 2^k`` observations a coordinate of its own. The
  noise falls on every coordinate (``"authors"``) or on every one but the last time slot
  (``"orthonormal"``).
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy.linalg import hadamard

from kinematic.exogenous import SEPARATOR
from kinematic.lookup import layer_index
from kinematic.model import BlockMDP
from kinematic.resources import check_memory

__all__ = ["DEFAULT_NOISE_VARIANCE", "ENCODINGS", "LAYOUTS", "UNNAMED_ENCODING",
           "HadamardNoise", "with_named_encoding"]

DEFAULT_NOISE_VARIANCE = 0.01
"""Variance of the encoder's Gaussian noise unless a caller says otherwise."""

ENCODINGS = ("authors", "orthonormal")
"""The encodings :class:`HadamardNoise` knows: the authors' (+-1 matrix, the default) and the
orthonormal rotation."""

LAYOUTS = ("one-hot", "exogenous-bits")
"""What the vector before the matrix holds: one coordinate per observation of a layer (the
default), or the endogenous observation's one-hot and the exogenous bits (observations named
``"x|0101"``)."""

UNNAMED_ENCODING = "orthonormal"
"""The encoding of every stored run (run directory, checkpoint, sweep record) written before
encodings were named: the only one there was then."""


@dataclass(frozen=True)
class HadamardNoise:
    """One-hot(observation) + one-hot(time step) + N(0, noise_variance I), padded, times a
    Sylvester Hadamard matrix: ``+-1`` (``encoding="authors"``, the default) or divided by
    ``sqrt(d)`` (``encoding="orthonormal"``).

    >>> from kinematic import combination_lock
    >>> lock = combination_lock(3, 2, seed=0)
    >>> rng = np.random.default_rng(0)
    >>> authors = HadamardNoise(0.0).encode(lock, 0, np.array([0]), rng)
    >>> rotated = HadamardNoise(0.0, "orthonormal").encode(lock, 0, np.array([0]), rng)
    >>> authors.shape, float(np.linalg.norm(authors)), float(np.linalg.norm(rotated))
    ((1, 8), 4.0, 1.4142135381698608)

    ``layout="exogenous-bits"`` writes an exogenous lock's bits as coordinates of their own
    (the module's docstring): the two observations ``s1a|01`` and ``s1a|11`` differ in the first
    bit's coordinate alone.

    >>> from kinematic import exogenous_combination_lock
    >>> noisy = exogenous_combination_lock(3, 2, seed=0, bits=2).mdp
    >>> bits = HadamardNoise(0.0, layout="exogenous-bits")
    >>> ids = np.array([noisy.observations[0].index(x) for x in ("s1a|01", "s1a|11")])
    >>> vectors = bits.encode(noisy, 0, ids, rng) @ bits.rotation(noisy) / bits.dimension(noisy)
    >>> vectors[:, :9].round(3).tolist()  # m = 3 endogenous, H + 1 = 4 time slots, 2 bits
    [[1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0]]
    >>> bits.dimension(noisy)  # 2^ceil(log2(3 + 4 + 2))
    16

    Raises ``ValueError`` naming ``encoding`` for one not in :data:`ENCODINGS`, ``layout`` for
    one not in :data:`LAYOUTS` and ``noise_variance`` for a negative or non-finite variance;
    with ``layout="exogenous-bits"``, ``ValueError`` naming the first observation of an MDP
    that is not named ``"x|bits"`` (when it is first encoded or measured).
    """

    noise_variance: float = DEFAULT_NOISE_VARIANCE
    encoding: str = "authors"
    layout: str = "one-hot"

    def __post_init__(self) -> None:
        if self.encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {', '.join(ENCODINGS)}, got "
                             f"{self.encoding!r}")
        if self.layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, got "
                             f"{self.layout!r}")
        variance = self.noise_variance
        if (isinstance(variance, bool) or not isinstance(variance, numbers.Real)
                or not math.isfinite(variance) or variance < 0):
            raise ValueError(f"noise_variance must be a finite number >= 0, got {variance!r}")

    @classmethod
    def from_record(cls, stored: Mapping[str, Any]) -> HadamardNoise:
        """The encoder a run directory or a sweep record stored (its fields as a mapping). A
        record without ``encoding`` was written before encodings were named, when the only
        one was the orthonormal rotation: it reads as ``"orthonormal"``, so old runs resume
        and report with the encoder they ran with.

        >>> HadamardNoise.from_record({"noise_variance": 0.01}).encoding
        'orthonormal'
        >>> HadamardNoise.from_record({"noise_variance": 0.01, "encoding": "authors"}).encoding
        'authors'

        Raises ``TypeError`` for an unknown field and ``ValueError`` for a bad value, each
        naming it.
        """
        return cls(**{"encoding": UNNAMED_ENCODING, **stored})

    def dimension(self, mdp: BlockMDP) -> int:
        """``d = 2^ceil(log2(m_max + H + 1))``, ``m_max`` the most observations in one layer;
        ``2^ceil(log2(m + H + 1 + k))`` with ``layout="exogenous-bits"`` (``m`` the most
        endogenous observations of one layer, ``k`` the bits)."""
        factors = self._factors(mdp)
        return self.dimension_for(factors.width + factors.bits, mdp.horizon)

    @staticmethod
    def dimension_for(width: int, horizon: int) -> int:
        """``d`` for ``width`` observations per layer (at most) and horizon ``horizon``."""
        return 2 ** math.ceil(math.log2(width + horizon + 1))

    def check_fits(self, width: int, horizon: int) -> None:
        """Raise :class:`~kinematic.errors.TooLarge` before any work when the ``d x d`` matrix
        (built as int64, then float64 and float32: 20 bytes per entry) exceeds the memory."""
        d = self.dimension_for(width, horizon)
        check_memory(20 * d * d, f"the observation encoder at H = {horizon} with {width} "
                                 f"observations per layer (dimension d = {d})")

    def rotation(self, mdp: BlockMDP) -> np.ndarray:
        """The ``d x d`` matrix the padded vector is multiplied by (float32): the Sylvester
        Hadamard matrix, divided by ``sqrt(d)`` for ``encoding="orthonormal"``."""
        d = self.dimension(mdp)
        scale = math.sqrt(d) if self.encoding == "orthonormal" else 1.0
        return (hadamard(d) / scale).astype(np.float32)

    def _factors(self, mdp: BlockMDP) -> _Factors:
        """Where each observation's coordinates are, by :attr:`layout`."""
        if self.layout == "one-hot":
            return _Factors(max(len(x) for x in mdp.observations), 0, None)
        return _bit_factors(mdp.observations)

    def _noised(self, factors: _Factors, horizon: int) -> slice | np.ndarray:
        """The coordinates of the vector that get noise: all ``m + H + 1 + k`` (the authors'),
        or all but the last time slot, ``m + H`` (orthonormal)."""
        size = factors.width + horizon + 1 + factors.bits
        if self.encoding == "authors":
            return slice(0, size)
        if factors.bits == 0:
            return slice(0, size - 1)
        return np.delete(np.arange(size), factors.width + horizon)

    def decode(self, mdp: BlockMDP, vectors: np.ndarray, step: int) -> np.ndarray:
        """The latent observation of each encoded vector of time step ``step`` (1-based): its
        index in ``mdp.observations[step - 1]``, the largest of the step's observation
        coordinates after multiplying back by the matrix (its rows are orthogonal, so this
        undoes the encoding up to the positive factor ``d`` of the authors' encoding) - what an
        abstraction written by hand (``homer evaluate --abstraction file.py:phi``) starts from.
        Exact up to the noise's Bayes error (about 1e-12 at the default variance). With
        ``layout="exogenous-bits"``: the largest endogenous coordinate, and each bit set when
        its coordinate exceeds half of that one.

        >>> from kinematic import combination_lock
        >>> lock, encoder = combination_lock(3, 2, seed=0), HadamardNoise()
        >>> vectors = encoder.encode(lock, 1, np.array([2, 0, 1]), np.random.default_rng(0))
        >>> encoder.decode(lock, vectors, step=2).tolist()
        [2, 0, 1]
        """
        layer = layer_index(step, mdp.horizon, "step")
        unrotated = np.asarray(vectors, dtype=np.float64) @ self.rotation(mdp)
        factors = self._factors(mdp)
        if factors.layers is None:
            return np.argmax(unrotated[:, :len(mdp.observations[layer])], axis=1)
        endogenous, values = factors.layers[layer]
        x = np.argmax(unrotated[:, :int(endogenous.max()) + 1], axis=1)
        level = unrotated[np.arange(len(x)), x]
        start = factors.width + mdp.horizon + 1
        bits = unrotated[:, start:start + factors.bits] > level[:, None] / 2
        index = {(int(e), row.tobytes()): i
                 for i, (e, row) in enumerate(zip(endogenous, values.astype(bool), strict=True))}
        found = [index.get((int(e), row.tobytes()), -1) for e, row in zip(x, bits, strict=True)]
        if -1 in found:
            raise ValueError(f"a vector of step {step} decodes to no observation of "
                             f"{mdp.name!r} (encoded from another MDP?)")
        return np.array(found, dtype=np.int64)

    def encode(
        self, mdp: BlockMDP, layer: int, observations: np.ndarray, rng: np.random.Generator,
        rotation: np.ndarray | None = None,
    ) -> np.ndarray:
        """Encode observation indices of ``layer`` (0-based) as a ``(n, d)`` float32 array."""
        factors = self._factors(mdp)
        rotation = self.rotation(mdp) if rotation is None else rotation
        d, n = rotation.shape[0], len(observations)
        vectors = np.zeros((n, d), dtype=np.float32)
        if factors.layers is None:
            vectors[np.arange(n), observations] = 1.0
        else:
            endogenous, values = factors.layers[layer]
            vectors[np.arange(n), endogenous[observations]] = 1.0
            start = factors.width + mdp.horizon + 1
            vectors[:, start:start + factors.bits] = values[observations]
        vectors[:, factors.width + layer] = 1.0
        noised = self._noised(factors, mdp.horizon)
        used = len(range(d)[noised]) if isinstance(noised, slice) else len(noised)
        noise = rng.normal(0.0, math.sqrt(self.noise_variance), size=(n, used))
        vectors[:, noised] += noise.astype(np.float32)
        return vectors @ rotation.T


@dataclass(frozen=True)
class _Factors:
    """Where an MDP's observations go in the vector: ``width`` one-hot slots (``m``), then the
    time slots, then ``bits`` bit slots; ``layers`` (None for the one-hot layout) holds per
    layer each observation's endogenous index and its bits (an ``(n, k)`` float32 array)."""

    width: int
    bits: int
    layers: tuple[tuple[np.ndarray, np.ndarray], ...] | None


@functools.lru_cache(maxsize=16)
def _bit_factors(observations: tuple[tuple[str, ...], ...]) -> _Factors:
    """The ``exogenous-bits`` layout of observations named ``"x|0101"``: each layer's endogenous
    observations indexed in order of first appearance, and the bits."""
    layers, bits = [], None
    for h, layer in enumerate(observations, start=1):
        endogenous: dict[str, int] = {}
        indices, values = [], []
        for name in layer:
            x, separator, value = name.rpartition(SEPARATOR)
            if not separator or not value or set(value) - {"0", "1"}:
                raise ValueError(f"layout 'exogenous-bits': observation {name!r} of layer {h} "
                                 f"is not named 'x{SEPARATOR}bits' (an endogenous observation, "
                                 f"{SEPARATOR!r}, then 0s and 1s)")
            if bits is None:
                bits = len(value)
            elif len(value) != bits:
                raise ValueError(f"layout 'exogenous-bits': observation {name!r} of layer {h} "
                                 f"has {len(value)} bits, the first observation {bits}")
            indices.append(endogenous.setdefault(x, len(endogenous)))
            values.append([float(c) for c in value])
        layers.append((np.array(indices, dtype=np.int64), np.array(values, dtype=np.float32)))
    width = max(int(indices.max()) + 1 for indices, _ in layers)
    return _Factors(width, bits or 0, tuple(layers))


def with_named_encoding(stored: Any) -> Any:
    """``stored`` (a run's identity as ``config.json`` or a checkpoint holds it) with its
    encoder's ``encoding`` named: an identity written before encodings were named reads as
    ``"orthonormal"`` (:meth:`HadamardNoise.from_record`). Anything that is not an identity
    with a well-formed encoder is returned as it is, for the callers' checks to refuse."""
    if not isinstance(stored, dict) or not isinstance(stored.get("encoder"), dict):
        return stored
    try:
        encoder = HadamardNoise.from_record(stored["encoder"])
    except (TypeError, ValueError):
        return stored
    return {**stored, "encoder": asdict(encoder)}

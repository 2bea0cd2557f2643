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
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy.linalg import hadamard

from kinematic.lookup import layer_index
from kinematic.model import BlockMDP
from kinematic.resources import check_memory

__all__ = ["DEFAULT_NOISE_VARIANCE", "ENCODINGS", "UNNAMED_ENCODING", "HadamardNoise",
           "with_named_encoding"]

DEFAULT_NOISE_VARIANCE = 0.01
"""Variance of the encoder's Gaussian noise unless a caller says otherwise."""

ENCODINGS = ("authors", "orthonormal")
"""The encodings :class:`HadamardNoise` knows: the authors' (+-1 matrix, the default) and the
orthonormal rotation."""

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

    Raises ``ValueError`` naming ``encoding`` for one not in :data:`ENCODINGS` and naming
    ``noise_variance`` for a negative or non-finite variance.
    """

    noise_variance: float = DEFAULT_NOISE_VARIANCE
    encoding: str = "authors"

    def __post_init__(self) -> None:
        if self.encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {', '.join(ENCODINGS)}, got "
                             f"{self.encoding!r}")
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
        """``d = 2^ceil(log2(m_max + H + 1))``, ``m_max`` the most observations in one layer."""
        return self.dimension_for(max(len(x) for x in mdp.observations), mdp.horizon)

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

    def noised_coordinates(self, width: int, horizon: int) -> int:
        """How many leading coordinates of the padded vector get noise: ``width + H + 1``
        (the authors', the last time slot included) or ``width + H`` (orthonormal)."""
        return width + horizon + (1 if self.encoding == "authors" else 0)

    def decode(self, mdp: BlockMDP, vectors: np.ndarray, step: int) -> np.ndarray:
        """The latent observation of each encoded vector of time step ``step`` (1-based): its
        index in ``mdp.observations[step - 1]``, the largest of the step's observation
        coordinates after multiplying back by the matrix (its rows are orthogonal, so this
        undoes the encoding up to the positive factor ``d`` of the authors' encoding) - what an
        abstraction written by hand (``homer evaluate --abstraction file.py:phi``) starts from.
        Exact up to the noise's Bayes error (about 1e-12 at the default variance).

        >>> from kinematic import combination_lock
        >>> lock, encoder = combination_lock(3, 2, seed=0), HadamardNoise()
        >>> vectors = encoder.encode(lock, 1, np.array([2, 0, 1]), np.random.default_rng(0))
        >>> encoder.decode(lock, vectors, step=2).tolist()
        [2, 0, 1]
        """
        observations = len(mdp.observations[layer_index(step, mdp.horizon, "step")])
        unrotated = np.asarray(vectors, dtype=np.float64) @ self.rotation(mdp)
        return np.argmax(unrotated[:, :observations], axis=1)

    def encode(
        self, mdp: BlockMDP, layer: int, observations: np.ndarray, rng: np.random.Generator,
        rotation: np.ndarray | None = None,
    ) -> np.ndarray:
        """Encode observation indices of ``layer`` (0-based) as a ``(n, d)`` float32 array."""
        width = max(len(x) for x in mdp.observations)
        rotation = self.rotation(mdp) if rotation is None else rotation
        d = rotation.shape[0]
        vectors = np.zeros((len(observations), d), dtype=np.float32)
        vectors[np.arange(len(observations)), observations] = 1.0
        vectors[:, width + layer] = 1.0
        used = self.noised_coordinates(width, mdp.horizon)
        noise = rng.normal(0.0, math.sqrt(self.noise_variance), size=(len(observations), used))
        vectors[:, :used] += noise.astype(np.float32)
        return vectors @ rotation.T


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

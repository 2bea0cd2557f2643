"""Observation encoders: latent observations of a Block MDP -> rich vectors in R^d.

:class:`HadamardNoise` is the encoder of the paper's experiments (Section 7, "The environment"):
the one-hot of the observation (within its layer) and the one-hot of the time step are
concatenated, isotropic Gaussian noise is added, the vector is zero-padded to
``d = 2^ceil(log2(m + H + 1))`` and multiplied by a Sylvester Hadamard matrix. For the
combination lock (``m = 3`` observations per layer) this is the paper's ``2^ceil(log2(H + 4))``
(the time one-hot of the paper has ``H + 1`` entries; the last is never set here).

The noise variance defaults to :data:`DEFAULT_NOISE_VARIANCE` = 0.01 everywhere (HOMER, the
command line, sweeps, baselines and the registered environment), as in the authors' code; the
paper's text says 0.1, which caps the value of any policy near 0.32 at H = 100 (ARCHITECTURE.md,
"HOMER"). At 0.01 the observations are effectively noiseless: the Bayes error of telling two
one-hots apart is about 1e-12.

Each *observation* (not state) gets its own one-hot, so with several observations per state the
learner must itself find which observations belong together. The Hadamard matrix is scaled by
``1/sqrt(d)`` so that it is a rotation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import hadamard

from kinematic.lookup import layer_index
from kinematic.model import BlockMDP
from kinematic.resources import check_memory

__all__ = ["DEFAULT_NOISE_VARIANCE", "HadamardNoise"]

DEFAULT_NOISE_VARIANCE = 0.01
"""Variance of the encoder's Gaussian noise unless a caller says otherwise."""


@dataclass(frozen=True)
class HadamardNoise:
    """One-hot(observation) + one-hot(time step) + N(0, noise_variance I), padded, rotated."""

    noise_variance: float = DEFAULT_NOISE_VARIANCE

    def dimension(self, mdp: BlockMDP) -> int:
        """``d = 2^ceil(log2(m_max + H + 1))``, ``m_max`` the most observations in one layer."""
        return self.dimension_for(max(len(x) for x in mdp.observations), mdp.horizon)

    @staticmethod
    def dimension_for(width: int, horizon: int) -> int:
        """``d`` for ``width`` observations per layer (at most) and horizon ``horizon``."""
        return 2 ** math.ceil(math.log2(width + horizon + 1))

    def check_fits(self, width: int, horizon: int) -> None:
        """Raise :class:`~kinematic.errors.TooLarge` before any work when the ``d x d`` rotation
        (built as int64, then float64 and float32: 20 bytes per entry) exceeds the memory."""
        d = self.dimension_for(width, horizon)
        check_memory(20 * d * d, f"the observation encoder at H = {horizon} with {width} "
                                 f"observations per layer (dimension d = {d})")

    def rotation(self, mdp: BlockMDP) -> np.ndarray:
        d = self.dimension(mdp)
        return (hadamard(d) / math.sqrt(d)).astype(np.float32)

    def decode(self, mdp: BlockMDP, vectors: np.ndarray, step: int) -> np.ndarray:
        """The latent observation of each encoded vector of time step ``step`` (1-based): its
        index in ``mdp.observations[step - 1]``, the largest of the step's observation
        coordinates after undoing the rotation - what an abstraction written by hand (``homer
        evaluate --abstraction file.py:phi``) starts from. Exact up to the noise's Bayes error
        (about 1e-12 at the default variance).

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
        used = width + mdp.horizon
        noise = rng.normal(0.0, math.sqrt(self.noise_variance), size=(len(observations), used))
        vectors[:, :used] += noise.astype(np.float32)
        return vectors @ rotation.T

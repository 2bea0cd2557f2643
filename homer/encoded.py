"""Every latent observation of a Block MDP dressed in fresh encodings, for scoring learners.

A learner acts on encoded observations only; to score it against the exact answers, each latent
observation ``o`` of time step ``h`` is encoded ``samples`` times and the learner's outputs on
those encodings are read per observation. The encodings of step ``h`` are drawn from a generator
seeded with ``(seed, h, stream)`` alone, so two learners scored with the same ``seed`` (HOMER's
own abstraction in ``homer compare`` and any function in ``homer evaluate``) see the same
vectors, whatever else was drawn before.

An *encoder* is any object with ``dimension(mdp) -> d`` and ``encode(mdp, layer, ids, rng) ->
(n, d)`` array (``layer`` 0-based, ``ids`` the observations' indices in that layer), as
:class:`homer.encoders.HadamardNoise`, the paper's encoder and the default.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from homer.encoders import HadamardNoise
from homer.wording import setting
from kinematic.arguments import at_least, random_seed
from kinematic.errors import short_repr
from kinematic.lookup import layer_index
from kinematic.model import BlockMDP
from kinematic.resources import check_memory

__all__ = ["EncodedObservations", "Encoder"]


class Encoder(Protocol):
    """Latent observations -> rich vectors (:class:`homer.encoders.HadamardNoise`)."""

    def dimension(self, mdp: BlockMDP) -> int: ...

    def encode(self, mdp: BlockMDP, layer: int, observations: np.ndarray,
               rng: np.random.Generator) -> np.ndarray: ...


@dataclass
class EncodedObservations:
    """``samples`` encodings of every latent observation of every time step of ``mdp``, drawn
    once per step and kept.

    >>> from kinematic import combination_lock
    >>> encoded = EncodedObservations(combination_lock(3, 2, seed=0), samples=4)
    >>> ids, vectors = encoded.step(2)
    >>> ids.tolist(), vectors.shape
    ([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2], (12, 8))
    """

    mdp: BlockMDP
    encoder: Encoder = field(default_factory=HadamardNoise)
    samples: int = 500
    seed: int = 0
    stream: int = 0
    """Tells apart sets of encodings drawn from one ``seed`` (a learner's training encodings
    from the evaluation's): step ``h`` is drawn from ``(seed, h, stream)``."""
    _steps: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.mdp, BlockMDP):
            raise TypeError(f"mdp must be a BlockMDP, got {short_repr(self.mdp)} (a spec file is "
                            "read by kinematic.load_spec(path))")
        at_least(1).check(self.samples, "samples")
        random_seed().check(self.seed, "seed")
        self.encoder = HadamardNoise() if self.encoder is None else self.encoder

    def check_fits(self, extra_bytes: int = 0, doing: str = "scoring", also: str = "") -> None:
        """Raise :class:`~kinematic.errors.TooLarge` before any work when the encodings of every
        step (float32 vectors and their ids) and ``extra_bytes`` exceed this machine's memory;
        the message says ``doing`` with ``samples`` (and ``also``, another setting)."""
        mdp = self.mdp
        dimension = self.encoder.dimension(mdp)
        observations = sum(len(layer) for layer in mdp.observations)
        settings = setting("samples", self.samples) + (f" and {also}" if also else "")
        check_memory(self.samples * observations * (4 * dimension + 8) + extra_bytes,
                     f"{doing} with {settings} on {mdp.name!r} ({observations} latent "
                     f"observations, H = {mdp.horizon}, dimension {dimension})")

    def step(self, step: int) -> tuple[np.ndarray, np.ndarray]:
        """``(ids, encodings)`` of time step ``step`` (1-based): each observation's index in its
        layer, repeated ``samples`` times in order, and the ``(n, d)`` encodings."""
        layer = layer_index(step, self.mdp.horizon, "step")
        if step not in self._steps:
            ids = np.repeat(np.arange(len(self.mdp.observations[layer])), self.samples)
            rng = np.random.default_rng([self.seed, step, self.stream])
            vectors = np.asarray(self.encoder.encode(self.mdp, layer, ids, rng))
            if vectors.ndim != 2 or len(vectors) != len(ids):
                raise ValueError(f"the encoder {self.encoder!r} returned an array of shape "
                                 f"{vectors.shape} for {len(ids)} observations of step {step}; "
                                 f"expected ({len(ids)}, d)")
            self._steps[step] = ids, vectors
        return self._steps[step]

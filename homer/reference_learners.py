"""Reference abstractions to calibrate a score (``homer evaluate --abstraction NAME``): what a
learner that knows the answer, one that knows nothing, and clusterings of the raw observations
get, scored by the same code as any learner (:mod:`homer.evaluate`).

- ``oracle``: the latent state of each observation (decoded by the nearest mean encoding of
  each latent observation). It never merges distinct states, so it makes **0 wrong merges**
  against every exact partition (up to the encoder's Bayes error, about 1e-12 for the paper's
  encoder); it **splits** every KI class of several states (it cannot know they are
  inseparable), and its pairwise agreement is 1.
- ``random``: a uniformly random class among ``capacity`` for every encoding: wrong merges
  wherever a step has two exact classes, adjusted Rand index near 0.
- ``kmeans``: k-means (scikit-learn) of the encoded observations of each step into ``k = min(
  capacity, observations of the step)`` clusters, fitted on fresh encodings, equally many of
  each latent observation. It sees geometry, not dynamics: on the paper's encoder all
  observations are equally far apart, so it gets right exactly what a clustering can - with
  one observation per state and ``k`` at least the step's observations, no wrong merges - and
  when a step has more observations than ``k`` it merges observations regardless of their
  states: wrong merges in multi-observation MDPs whose KI classes it would need to find.
- ``pca-kmeans``: the same after projecting on the leading ``min(capacity, d)`` principal
  components (what one does before clustering high-dimensional observations); on one-hot
  encodings the leading components span the differences of the observation means, so it
  should find what ``kmeans`` finds.

``capacity`` defaults to the most KI classes of any step (``def:ki``): the fewest classes an
abstraction needs to make no wrong merge; it is at most 10^9
(:data:`homer.settings.REFERENCE_CAPACITY`).

>>> from kinematic import combination_lock
>>> from homer.evaluate import evaluate_abstraction
>>> lock = combination_lock(horizon=3, actions=2, seed=0)
>>> report = evaluate_abstraction(lock, reference_abstraction("oracle", lock))
>>> report.steps_with_wrong_merges("backward"), report.steps_with_wrong_merges("ki")
([], [])
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning

from homer.encoded import EncodedObservations, Encoder
from homer.encoders import HadamardNoise
from homer.evaluate import Abstraction
from homer.settings import REFERENCE_CAPACITY, REFERENCE_LEARNERS
from kinematic.inseparability import ki_partition
from kinematic.lookup import find
from kinematic.model import BlockMDP
from kinematic.partition import Partition

__all__ = ["REFERENCE_CAPACITY", "REFERENCE_LEARNERS", "default_capacity",
           "labelled_abstraction", "reference_abstraction"]

TRAINING_SAMPLES = 100
"""Fresh encodings of each latent observation the oracle and the clusterings are fitted on."""


def default_capacity(mdp: BlockMDP, ki: Partition | None = None) -> int:
    """The most KI classes of any step of ``mdp`` (``def:ki``; ``ki`` its KI partition, computed
    when None)."""
    partition = ki_partition(mdp) if ki is None else ki
    return max(len(partition.blocks(h)) for h in range(1, mdp.horizon + 1))


class _Decoded:
    """Nearest mean encoding -> latent observation -> its label (``labels[step - 1]``)."""

    def __init__(self, labels: Sequence[np.ndarray], training: EncodedObservations,
                 name: str) -> None:
        self.labels, self.training, self.name = labels, training, name

    def __repr__(self) -> str:
        return f"<{self.name} on {self.training.mdp.name!r}>"

    def __call__(self, observations: np.ndarray, step: int) -> np.ndarray:
        ids, vectors = self.training.step(step)
        means = np.zeros((int(ids.max()) + 1, vectors.shape[1]))
        np.add.at(means, ids, vectors)
        means /= np.bincount(ids)[:, None]
        # ||x - mu||^2 up to ||x||^2, the same for every mean: no (n, m, d) array
        distances = (means ** 2).sum(axis=1)[None, :] - 2 * observations @ means.T
        return self.labels[step - 1][np.argmin(distances, axis=1)]


class _Random:
    def __init__(self, capacity: int, seed: int) -> None:
        self.capacity, self.seed = capacity, seed

    def __repr__(self) -> str:
        return f"<reference learner 'random': {self.capacity} classes, seed {self.seed}>"

    def __call__(self, observations: np.ndarray, step: int) -> np.ndarray:
        rng = np.random.default_rng([self.seed, step, len(observations)])
        return rng.integers(self.capacity, size=len(observations))


class _Clustering:
    """k-means, after PCA when ``components`` is set, fitted once per step."""

    def __init__(self, training: EncodedObservations, capacity: int, seed: int,
                 pca: bool) -> None:
        self.training, self.capacity, self.seed, self.pca = training, capacity, seed, pca
        self.fitted: dict[int, tuple[PCA | None, KMeans]] = {}

    def __repr__(self) -> str:
        name = "pca-kmeans" if self.pca else "kmeans"
        return (f"<reference learner {name!r} on {self.training.mdp.name!r}: {self.capacity} "
                f"classes, seed {self.seed}>")

    def _fit(self, step: int) -> tuple[PCA | None, KMeans]:
        if step not in self.fitted:
            ids, vectors = self.training.step(step)
            k = min(self.capacity, int(ids.max()) + 1)
            projection = None
            if self.pca:
                projection = PCA(n_components=min(self.capacity, vectors.shape[1]),
                                 random_state=self.seed).fit(vectors)
                vectors = projection.transform(vectors)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)  # fewer distinct points
                model = KMeans(n_clusters=k, n_init=10, random_state=self.seed).fit(vectors)
            self.fitted[step] = projection, model
        return self.fitted[step]

    def __call__(self, observations: np.ndarray, step: int) -> np.ndarray:
        projection, model = self._fit(step)
        if projection is not None:
            observations = projection.transform(observations)
        return model.predict(observations)


def reference_abstraction(name: str, mdp: BlockMDP, encoder: Encoder | None = None,
                          capacity: int | None = None, seed: int = 0) -> Abstraction:
    """The reference abstraction ``name`` (one of :data:`REFERENCE_LEARNERS`) for ``mdp``
    encoded by ``encoder`` (the paper's when None), into ``capacity`` classes
    (:func:`default_capacity` when None); fitted on encodings drawn from a seed other than
    the evaluation's (module docstring)."""
    find(REFERENCE_LEARNERS, name, "reference learner", "name")
    capacity = default_capacity(mdp) if capacity is None else capacity
    REFERENCE_CAPACITY.check(capacity, "capacity")
    encoder = HadamardNoise() if encoder is None else encoder
    training = EncodedObservations(mdp, encoder, TRAINING_SAMPLES, seed, stream=1)
    if name == "oracle":
        return _Decoded([np.asarray(states) for states in mdp.emission_state], training,
                        "reference learner 'oracle'")
    if name == "random":
        return _Random(capacity, seed)
    return _Clustering(training, capacity, seed, pca=name == "pca-kmeans")


def labelled_abstraction(mdp: BlockMDP, labels: Sequence[Sequence[int]],
                         encoder: Encoder | None = None, seed: int = 0) -> Abstraction:
    """The abstraction that gives every encoding of observation ``x`` of time step ``h`` the
    class ``labels[h - 1][x]`` (``x`` indexing ``mdp.observations[h - 1]``): a hand-made or
    exactly computed abstraction - a partition of the states lifted by
    :func:`kinematic.planning.observation_labels`, an objective's Bayes-optimal abstraction -
    scored by :mod:`homer.evaluate` like a learned one. Encodings are decoded to their latent
    observation as the ``oracle`` decodes them (the oracle is this with the states' indices).

    Raises ``ValueError`` naming ``labels[h]`` when a layer's labels are not one integer per
    observation.

    >>> from kinematic import combination_lock
    >>> from homer.evaluate import evaluate_abstraction
    >>> lock = combination_lock(horizon=3, actions=2, seed=0)
    >>> merged = [[0, 0], [0, 0, 1], [0, 0, 1]]  # s_a and s_b together, s_c apart
    >>> report = evaluate_abstraction(lock, labelled_abstraction(lock, merged))
    >>> report.steps_with_wrong_merges("backward"), report.steps_with_wrong_merges("ki")
    ([], [1, 2])

    (At step 3 this lock's ``s3a`` and ``s3b`` share their good action: KI, merged rightly.)
    """
    if isinstance(labels, str) or len(labels) != mdp.horizon:
        raise ValueError(f"labels must hold one sequence per time step of {mdp.name!r} "
                         f"({mdp.horizon}), got {len(labels)}")
    checked = []
    for h, given in enumerate(labels):
        layer = np.asarray(given)
        expected = len(mdp.observations[h])
        if layer.shape != (expected,) or layer.dtype.kind not in "iu":
            raise ValueError(f"labels[{h}] (time step {h + 1}) must hold one integer class per "
                             f"observation ({expected}), got {layer.tolist()!r}")
        checked.append(layer)
    encoder = HadamardNoise() if encoder is None else encoder
    return _Decoded(checked, EncodedObservations(mdp, encoder, TRAINING_SAMPLES, seed,
                                                 stream=1), "labelled abstraction")

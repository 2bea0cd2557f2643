"""PPE, predictive path elimination, learned in torch on rich observations (Efroni, Misra,
Krishnamurthy, Agarwal, Langford, "Provably Filtering Exogenous Distractors using Multistep
Inverse Dynamics", ICLR 2022, Algorithm PPE), following its implementation in the authors'
library, microsoft/Intrepid ``src/learning/core_learner/ppe.py`` (``PPE.train``, ``PPEDecoder``).

At step ``h = 1 .. H - 1`` (paths of ``h`` actions, ending at layer ``h + 1``):

1. every kept path of step ``h - 1`` (the empty path at step 1) is extended by every action;
   path ``i`` of the kept list extended by action ``a`` gets the **path id** ``i K + a``
   (:func:`extended_paths`, as Intrepid numbers them);
2. each of the ``N`` paths is rolled out ``num_samples // N`` times (open loop) and its last
   observation kept with the path id;
3. a classifier ``f(j | x)`` is trained to predict the path id from the observation;
4. the ``(n x N)`` matrix ``f(j | x_i) / n`` over the ``n`` observations of the whole data set
   (Intrepid's ``get_class_mean_prob``) gives each pair of paths the gap ``sum_i |f(i | x) -
   f(j | x)| / n``; paths are merged greedily (:func:`merge_paths`): for ``i`` in increasing
   id, still kept, each later kept ``j`` with a gap below ``5 / (8 K N_prev)`` (``N_prev`` the
   kept paths of the previous step: ``len(prev_paths)`` in Intrepid's code, 1 at step 1) joins
   ``i`` and is dropped. The merge is not transitive: ``j`` dropped into ``i`` is never compared
   again, so a path close to ``j`` but far from ``i`` stays.

Intrepid runs steps ``1 .. H`` because its environments emit an observation after the last
action; a Block MDP of horizon ``H`` has none, so the steps here stop at ``H - 1``.

The kept paths of step ``h`` are the cover of layer ``h + 1``, as open-loop
:class:`kinematic.policies.Policy` objects (:func:`cover_policies`: their exact alpha is
:func:`kinematic.cover.policy_cover_alpha`'s); the abstraction of layer ``h + 1`` is
Intrepid's ``PPEDecoder``: the kept path id with the largest ``f(i | x)`` among the kept ids
(:func:`decode`; the first in id order on a tie). Layer 1 has one class.

**The classifier** is Intrepid's default for its combination locks (``classifier_type: "ff"``
in ``data/temporal_diabcombolock/constants.json``, ``FeedForwardClassifier``): ``Linear(d,
56)``, leaky ReLU, ``Linear(56, 56)``, leaky ReLU, ``Linear(56, N)``, softmax; trained with
Adam (learning rate 0.001), mini-batches of 100, gradient norm clipped at 10, at most 50 epochs,
20% held out and the best held-out epoch kept, stopping after 20 epochs without improvement
(their ``base_constants.json`` and the lock's constants). Differences: the held-out 20% is drawn
by example rather than as the last 20% of the shuffled mini-batches, and the initialisation is
drawn from a seeded torch generator (PyTorch's default ``nn.Linear`` initialisation otherwise).
Intrepid rolls out ``encoder_training_num_samples = 5000`` episodes per step.

>>> from kinematic import exogenous_combination_lock
>>> from homer.encoders import HadamardNoise
>>> noisy = exogenous_combination_lock(3, 2, seed=0, bits=1)
>>> learned = learn_ppe(noisy.mdp, HadamardNoise(layout="exogenous-bits"), num_samples=40,
...                     seed=0, settings=PPESettings(max_epochs=2))
>>> [list(step.path_ids) for step in learned.steps]  # K paths at step 1, K per kept path after
[[0, 1], [0, 1]]
>>> learned.kept_paths()  # from the uniform start both first actions reach the same states
[[('a1',)], [('a1', 'a1')]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from homer.encoded import Encoder
from homer.models import split_indices
from homer.multistep_inverse import rollouts
from kinematic.counterexamples.ppe import decoder_choice, eliminate_paths, path_gaps, path_groups
from kinematic.model import BlockMDP
from kinematic.policies import Policy, uniform_policy

__all__ = ["LearnedPPE", "PPESettings", "PPEStep", "cover_policies", "decode",
           "elimination_threshold", "extended_paths", "learn_ppe", "merge_paths",
           "path_gaps"]

Path = tuple[int, ...]
"""An open-loop path: the action indices taken at layers 1, 2, ..."""


@dataclass(frozen=True)
class PPESettings:
    """The classifier's training (module docstring: Intrepid's values)."""

    hidden: int = 56
    learning_rate: float = 1e-3
    batch_size: int = 100
    max_epochs: int = 50
    patience: int = 20
    gradient_clip: float = 10.0
    validation_fraction: float = 0.2


def extended_paths(previous: Sequence[Path], actions: int) -> dict[int, Path]:
    """Path id -> path: the kept path ``previous[i]`` extended by action ``a`` has id
    ``i * actions + a`` (Intrepid's ``path_id = prev_id * len(actions) + action_id``).

    >>> extended_paths([(0,), (1,)], 2)
    {0: (0, 0), 1: (0, 1), 2: (1, 0), 3: (1, 1)}
    """
    return {i * actions + a: (*path, a) for i, path in enumerate(previous)
            for a in range(actions)}


def elimination_threshold(actions: int, previous_paths: int) -> float:
    """``5 / (8 K N_prev)``: Intrepid's ``elim_param`` (``N_prev = len(prev_paths)``).

    >>> elimination_threshold(2, 1)
    0.3125
    """
    return 5.0 / (8 * actions * previous_paths)


def merge_paths(gaps: np.ndarray, threshold: float) -> dict[int, tuple[int, ...]]:
    """Intrepid's greedy elimination on the path ``gaps`` (:func:`path_gaps`): kept path id ->
    the ids merged into it (itself first), as the exact version runs it
    (:func:`kinematic.counterexamples.ppe.eliminate_paths`).

    Not transitive: 0 is close to 1, 1 to 2, 0 far from 2; 1 joins 0 and is never compared
    with 2, which stays.

    >>> gaps = np.array([[0, 0.1, 0.5], [0.1, 0, 0.1], [0.5, 0.1, 0]])
    >>> merge_paths(gaps, 0.2)
    {0: (0, 1), 2: (2,)}
    """
    return path_groups(*eliminate_paths(gaps, threshold))


def decode(probabilities: np.ndarray, kept: Sequence[int]) -> np.ndarray:
    """Intrepid's ``PPEDecoder``: for each row of ``probabilities`` (``f(. | x)``), the id in
    ``kept`` (increasing) with the largest probability, the first on a tie.

    >>> decode(np.array([[0.1, 0.5, 0.4], [0.4, 0.2, 0.4]]), [0, 2])  # 1 is not kept; a tie
    array([2, 0])
    """
    return np.asarray(kept)[decoder_choice(probabilities, kept)]


class PathClassifier(nn.Module):
    """``f(j | x)``: two hidden layers with leaky ReLUs (Intrepid's ``FeedForwardClassifier``)."""

    def __init__(self, dimension: int, paths: int, hidden: int):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(dimension, hidden), nn.LeakyReLU(),
                                    nn.Linear(hidden, hidden), nn.LeakyReLU(),
                                    nn.Linear(hidden, paths))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)

    @torch.no_grad()
    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """``f(. | x)`` of each row of ``x``."""
        return F.softmax(self(torch.from_numpy(np.asarray(x, np.float32))), dim=1).numpy()


def train_classifier(x: np.ndarray, labels: np.ndarray, paths: int, settings: PPESettings,
                     generator: torch.Generator) -> tuple[PathClassifier, float]:
    """The classifier of the module docstring trained on ``(x, labels)``; its best held-out
    loss (mean cross-entropy, nats)."""
    with torch.random.fork_rng():  # nn.Linear draws its initialisation from the global one
        torch.manual_seed(int(torch.randint(2**31 - 1, (1,), generator=generator)))
        model = PathClassifier(x.shape[1], paths, settings.hidden)
    best_state = {k: v.clone() for k, v in model.state_dict().items()}
    optimiser = torch.optim.Adam(model.parameters(), lr=settings.learning_rate)
    train, valid = split_indices(len(x), settings.validation_fraction, generator)
    inputs, targets = torch.from_numpy(x), torch.from_numpy(labels)
    best, waited = float("inf"), 0
    for _ in range(settings.max_epochs):
        order = train[torch.randperm(len(train), generator=generator)]
        for start in range(0, len(order), settings.batch_size):
            batch = order[start:start + settings.batch_size]
            loss = F.cross_entropy(model(inputs[batch]), targets[batch])
            optimiser.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), settings.gradient_clip)
            optimiser.step()
        with torch.no_grad():
            held_out = float(F.cross_entropy(model(inputs[valid]), targets[valid]))
        if held_out < best:
            best, waited = held_out, 0
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
        else:
            waited += 1
            if waited == settings.patience:
                break
    model.load_state_dict(best_state)
    return model, best


@dataclass(frozen=True)
class PPEStep:
    """One step of PPE: the ``N`` paths by id, the gaps between them, the threshold, the kept
    ids with the ids merged into each, and the classifier (for the decoder)."""

    path_ids: dict[int, Path]
    gaps: np.ndarray
    threshold: float
    merged: dict[int, tuple[int, ...]]
    classifier: PathClassifier
    validation_loss: float
    samples_per_path: int

    @property
    def kept(self) -> list[Path]:
        """The kept paths, in increasing id."""
        return [self.path_ids[i] for i in self.merged]


@dataclass(frozen=True)
class LearnedPPE:
    """PPE's steps (``steps[h - 1]`` for step ``h``: paths of ``h`` actions); :meth:`phi` is
    ``homer.evaluate``'s ``phi(observations, step)``."""

    steps: tuple[PPEStep, ...]
    actions: tuple[str, ...]
    num_samples: int

    def phi(self, observations: np.ndarray, step: int) -> np.ndarray:
        """The decoder's class (a kept path id) of each encoded observation of time step
        ``step`` (1-based; one class on step 1)."""
        if step == 1:
            return np.zeros(len(observations), dtype=np.int64)
        ppe_step = self.steps[step - 2]
        probabilities = ppe_step.classifier.probabilities(observations)
        return decode(probabilities, list(ppe_step.merged))

    def kept_paths(self) -> list[list[tuple[str, ...]]]:
        """The kept paths of each step as tuples of action names."""
        return [[tuple(self.actions[a] for a in path) for path in step.kept]
                for step in self.steps]


def cover_policies(mdp: BlockMDP, kept: Sequence[Sequence[Sequence[str]]]) -> list[Policy]:
    """The open-loop policies of the kept paths (action names; ``kept[h - 1]`` the paths of
    step ``h``) and, for layer 1, the uniform policy: each takes its path's actions whatever
    the observation, then acts uniformly. :func:`kinematic.cover.policy_cover_alpha` of the
    list is the cover's exact alpha.

    >>> from kinematic import combination_lock, policy_cover_alpha
    >>> lock = combination_lock(3, 2, seed=0)
    >>> policies = cover_policies(lock, [[("a1",), ("a2",)], [("a2", "a1")]])
    >>> len(policies), policy_cover_alpha(lock, policies).alpha_per_layer
    (4, (Fraction(1, 1), Fraction(1, 2), Fraction(1, 4)))

    (From the uniform start an open-loop path reaches ``s2a`` with probability 1/4 at most, a
    policy that reads the start state with 1/2: open-loop covers lose half per layer here.)
    """
    policies = [uniform_policy(mdp)]
    zero, one = mdp.mode.scalar(0), mdp.mode.scalar(1)
    for paths in kept:
        for path in paths:
            policy = uniform_policy(mdp)
            for h, action in enumerate(path):
                rows = policy.action_probabilities[h]
                rows.fill(zero)
                rows[:, mdp.action_index[action]] = one
            policies.append(policy)
    return policies


def learn_ppe(mdp: BlockMDP, encoder: Encoder, num_samples: int, seed: int,
              settings: PPESettings | None = None) -> LearnedPPE:
    """PPE (module docstring) on ``mdp``'s rich observations for steps ``1 .. H - 1``, with
    ``num_samples`` rollouts per step split evenly over its paths, drawn from ``seed``.
    Call it within :func:`homer.process_state.process_state` to fix torch's threads.

    Raises ``ValueError`` when ``num_samples`` leaves a path without a rollout (Intrepid's
    assertion)."""
    settings = settings or PPESettings()
    rng = np.random.default_rng(seed)
    generator = torch.Generator().manual_seed(seed)
    actions = mdp.number_of_actions
    previous: list[Path] = [()]
    steps = []
    for h in range(1, mdp.horizon):
        paths = extended_paths(previous, actions)
        per_path = num_samples // len(paths)
        if per_path < 1:
            raise ValueError(f"num_samples {num_samples} is too few to roll out each of the "
                             f"{len(paths)} paths of step {h} once")
        ids = np.repeat(np.array(list(paths)), per_path)
        taken = np.array([paths[int(i)] for i in ids], dtype=np.int64)
        vectors, _ = rollouts(mdp, encoder, taken, rng)
        classifier, loss = train_classifier(vectors[h], ids, len(paths), settings, generator)
        probabilities = classifier.probabilities(vectors[h]) / len(ids)
        gaps = path_gaps(probabilities)
        threshold = elimination_threshold(actions, len(previous))
        merged = merge_paths(gaps, threshold)
        step = PPEStep(paths, gaps, threshold, merged, classifier, loss, per_path)
        steps.append(step)
        previous = step.kept
    return LearnedPPE(tuple(steps), mdp.actions, num_samples)

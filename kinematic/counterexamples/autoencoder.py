"""Autoencoders (Section 5, "Training Autoencoders"), on
:func:`kinematic.counterexamples.mdps.autoencoder_counterexample`.

Over *all* encoders ``f: {0,1}^d -> {0,1}`` (one-bit codes; ``2^(2^d)`` of them, enumerated for
``d <= 4``), each with its optimal decoder (per code and bit, the more likely bit value):

- the paper's sentence: keeping a noise bit is never worse than keeping the state bit, and
  strictly better when the two states have unequal probability;
- the failure mode: when the states have unequal probability, no encoder of minimum loss
  reveals the state (its code never determines the state bit), so the representation carries no
  usable state information.

Reported beside them: whether some minimiser ignores the state bit altogether. It does for
``d = 2`` and ``d = 4`` but not for ``d = 3``, where the majority of the three bits (loss 3/4)
beats every encoder that ignores the state bit (5/6 when ``P(s0) = 2/3``) - a stronger reading
of the text ("optimal reconstruction loss is achieved by a representation that ignores the
state bit") is false there. Losses are exact: probabilities are scaled to integers and divided
back at the end.

Inside HOMER's loop the observations are one-hot encoded (homer/encoders.py), so there the
autoencoder's optimum is a mass-weighted clustering of the observations
(:func:`one_hot_reconstruction_optimum`): on
:func:`kinematic.counterexamples.mdps.autoencoder_exploration_counterexample` every optimal
two-class code keeps a noise value of the likelier state apart and merges the rest - it mixes
the states, as the learned autoencoder of ``python -m homer counterexamples`` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import lcm

import numpy as np

from kinematic.counterexamples import Counterexample
from kinematic.counterexamples.mdps import (
    autoencoder_counterexample,
    autoencoder_exploration_counterexample,
)
from kinematic.counterexamples.objectives import transition_distribution
from kinematic.model import BlockMDP

__all__ = ["autoencoder_claim", "encoder_losses", "one_hot_reconstruction_optimum",
           "reconstruction_loss", "second_layer_masses"]

MAX_BITS = 4


def encoder_losses(mdp: BlockMDP) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """For every encoder ``k`` (bit ``x`` of ``k`` is the code of observation ``x``):
    the scaled expected Hamming loss with the optimal decoder, the observations' bit matrix, the
    encoders' code matrix, and the scale (loss = scaled / scale)."""
    names = mdp.observations[0]
    bits = len(names[0])
    if bits > MAX_BITS:
        raise ValueError(f"enumerating all encoders is limited to {MAX_BITS} bits")
    probabilities = [
        Fraction(mdp.start[mdp.emission_state[0][x]]) * Fraction(mdp.emission_probability[0][x])
        for x in range(len(names))
    ]
    scale = lcm(*(p.denominator for p in probabilities))
    weights = np.array([int(p * scale) for p in probabilities], dtype=np.int64)
    matrix = np.array([[int(c) for c in name] for name in names], dtype=np.int64)
    encoders = (np.arange(2 ** len(names))[:, None] >> np.arange(len(names))) & 1
    losses = np.zeros(len(encoders), dtype=np.int64)
    for code in (0, 1):
        chosen = (encoders == code).astype(np.int64)
        ones = chosen @ (weights[:, None] * matrix)  # sum of P(x) over x with code and bit = 1
        mass = chosen @ weights
        losses += np.minimum(ones, mass[:, None] - ones).sum(axis=1)
    return losses, matrix, encoders, scale


def reconstruction_loss(masses: Sequence[Fraction], labels: np.ndarray) -> Fraction:
    """The square loss of reconstructing one-hot observations (probabilities ``masses``) from
    their class in ``labels``, each class decoded to its mean: a class ``G`` with mass ``m``
    costs ``m - sum_{x in G} P(x)^2 / m``."""
    loss = Fraction(0)
    for c in np.unique(labels):
        members = [masses[x] for x in np.flatnonzero(labels == c).tolist()]
        mass = sum(members, Fraction(0))
        if mass:
            loss += mass - sum(p * p for p in members) / mass
    return loss


def one_hot_reconstruction_optimum(
    masses: Sequence[Fraction], classes: int
) -> tuple[Fraction, list[np.ndarray]]:
    """The best :func:`reconstruction_loss` through at most ``classes`` codes, and every
    partition attaining it (labels, observation 0 in class 0; enumerated as restricted growth
    strings). HOMER's encoder puts each observation on its own axis, so this is the optimum of
    an autoencoder there (its Gaussian noise adds a constant)."""
    best: Fraction | None = None
    optimal: list[np.ndarray] = []

    def extend(labels: list[int], used: int) -> None:
        nonlocal best, optimal
        if len(labels) == len(masses):
            loss = reconstruction_loss(masses, np.array(labels))
            if best is None or loss < best:
                best, optimal = loss, [np.array(labels)]
            elif loss == best:
                optimal.append(np.array(labels))
            return
        for c in range(min(used + 1, classes)):
            extend([*labels, c], max(used, c + 1))

    extend([], 0)
    if best is None:  # no labels through fewer than one class
        raise ValueError(f"classes must be at least 1, got {classes}")
    return best, optimal


def second_layer_masses(mdp: BlockMDP) -> list[Fraction]:
    """``P(x')`` of the observations of layer 2 after a uniform first action: the data of the
    first step of HOMER's loop."""
    return [Fraction(m) for m in transition_distribution(mdp, [], 1).sum(axis=(0, 1))]


def _exploration_case() -> tuple[dict, bool]:
    """The two-class optimum of HOMER's one-hot encoding on the exploration version."""
    mdp = autoencoder_exploration_counterexample()
    masses = second_layer_masses(mdp)
    best, optimal = one_hot_reconstruction_optimum(masses, 2)
    by_state = mdp.emission_state[1]
    state_loss = reconstruction_loss(masses, by_state)
    mixes = all(any(len(set(by_state[labels == c])) > 1 for c in np.unique(labels))
                for labels in optimal)
    return {
        "observation probabilities (uniform actions)": {
            name: str(m) for name, m in zip(mdp.observations[1], masses, strict=True)},
        "minimum loss, two classes": str(best),
        "loss of the state partition": str(state_loss),
        "optimal classes": [[[mdp.observations[1][x] for x in np.flatnonzero(labels == c)]
                             for c in np.unique(labels)] for labels in optimal],
        "every optimum mixes the states": mixes,
    }, bool(mixes and best < state_loss)


def autoencoder_claim() -> Counterexample:
    numbers: dict = {}
    holds = True
    for bits in range(2, MAX_BITS + 1):
        for p in (Fraction(1, 2), Fraction(2, 3)):
            mdp = autoencoder_counterexample(bits, p)
            losses, matrix, encoders, scale = encoder_losses(mdp)
            best = losses.min()
            state_bit = int(np.flatnonzero((encoders == matrix[:, 0]).all(axis=1))[0])
            noise_bit = int(np.flatnonzero((encoders == matrix[:, 1]).all(axis=1))[0])
            pairs = [(x, y) for x in range(len(matrix)) for y in range(len(matrix))
                     if matrix[x, 0] == 0 and matrix[y, 0] == 1
                     and (matrix[x, 1:] == matrix[y, 1:]).all()]
            ignores = np.all([encoders[:, x] == encoders[:, y] for x, y in pairs], axis=0)
            minimisers = losses == best
            reveals = np.array([
                all(len(set(matrix[encoders[k] == c, 0])) <= 1 for c in (0, 1))
                for k in range(len(encoders))
            ])
            unequal = p != Fraction(1, 2)
            case = {
                "minimum expected Hamming loss": str(Fraction(int(best), scale)),
                "loss keeping the state bit": str(Fraction(int(losses[state_bit]), scale)),
                "loss keeping a noise bit": str(Fraction(int(losses[noise_bit]), scale)),
                "best loss ignoring the state bit": str(
                    Fraction(int(losses[ignores].min()), scale)),
                "a minimiser ignores the state bit": bool((minimisers & ignores).any()),
                "minimisers that reveal the state": int((minimisers & reveals).sum()),
                "encoders enumerated": len(encoders),
            }
            numbers[f"d={bits}, P(s0)={p}"] = case
            noise, state = losses[noise_bit], losses[state_bit]
            holds &= bool(noise < state) if unequal else bool(noise <= state)
            if unequal:
                holds &= case["minimisers that reveal the state"] == 0
    exploration, mixes = _exploration_case()
    numbers["HOMER's one-hot encoder, autoencoder_exploration_counterexample, layer 2"] = \
        exploration
    holds &= mixes
    return Counterexample(
        "autoencoder",
        "over all one-bit encoders (d <= 4) with optimal decoders: keeping a noise bit is never "
        "worse than keeping the state bit (strictly better when P(s0) != 1/2), and then no "
        "minimiser of the loss reveals the state; with HOMER's one-hot encoder inside the "
        "exploration loop (s0 reached by 1 of 4 actions) every optimal two-class code mixes "
        "the states",
        bool(holds),
        numbers,
    )

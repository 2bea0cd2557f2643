"""Independent reference for the predictive objectives: enumerate every abstraction of a small
layer and evaluate the exact population square loss of each from the joint table itself
(no posteriors, no compatibility graph, no clique cover)."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import numpy as np

MAX_OBSERVATIONS = 9
"""Bell(9) = 21147 partitions, the most this enumerates."""


def set_partitions(items: list[int]) -> Iterator[list[list[int]]]:
    """Every partition of ``items`` into non-empty blocks, each once."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in set_partitions(rest):
        yield [[first], *partition]
        for i in range(len(partition)):
            yield [*partition[:i], [first, *partition[i]], *partition[i + 1:]]


def brier_loss(joint: np.ndarray, blocks: list[list[int]]) -> Fraction:
    """``E[sum_y (1{Y = y} - p(y | C, block of x))^2]`` summed term by term."""
    loss = Fraction(0)
    for c in range(joint.shape[0]):
        for block in blocks:
            rows = [joint[c, x] for x in block]
            mass = sum(sum(row) for row in rows)
            if mass == 0:
                continue
            prediction = [Fraction(sum(row[y] for row in rows)) / mass
                          for y in range(joint.shape[2])]
            for row in rows:
                for y, p in enumerate(row):
                    if p:
                        loss += p * sum((int(y == z) - q) ** 2
                                        for z, q in enumerate(prediction))
    return loss


def brute_force_optimum(joint: np.ndarray) -> tuple[Fraction, list[list[list[int]]]]:
    """The minimum square loss over every abstraction of the observations the data show (the
    others stay alone, the convention under test) and the abstractions of fewest blocks
    attaining it."""
    observations = joint.shape[1]
    shown = [x for x in range(observations) if sum(joint[:, x].reshape(-1)) > 0]
    if len(shown) > MAX_OBSERVATIONS:
        raise ValueError(f"{len(shown)} observations: the brute force enumerates at most "
                         f"{MAX_OBSERVATIONS}")
    alone = [[x] for x in range(observations) if x not in shown]
    scored = [(brier_loss(joint, blocks + alone), blocks + alone)
              for blocks in set_partitions(shown)]
    best = min(loss for loss, _ in scored)
    optimal = [blocks for loss, blocks in scored if loss == best]
    fewest = min(map(len, optimal))
    return best, [blocks for blocks in optimal if len(blocks) == fewest]

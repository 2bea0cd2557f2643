"""Policy optimisation for HOMER: the contextual-bandit oracle as linear Q regression, PSDP
(``alg:rl_via_homing_policies``) and the greedy policy search (GPS) of Section 4, "Efficient
Implementation of HOMER".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from homer.sampler import Batch, BatchSampler, LinearPolicy

__all__ = ["PsdpFallbackWarning", "fit_q", "greedy_policy_search", "psdp", "q_values",
           "ridge_penalty"]

class PsdpFallbackWarning(UserWarning):
    """HOMER found a backward class's policy by full PSDP, because greedy policy search
    rejected it in every round: the estimated probability of reaching the class stayed below
    ``1 - gps_epsilon``. It cannot reach that threshold on a class whose states no policy reaches
    with probability at least ``1 - gps_epsilon`` (their ``eta``, ``def:homing``). Full PSDP
    learns such a policy too, at ``psdp_samples`` episodes per contextual-bandit problem: the run
    goes on, taking longer."""


RewardOf = Callable[[Batch, int], np.ndarray]
"""``reward_of(batch, t)``: per-episode return from step ``t`` (the contextual-bandit reward)."""


def fit_q(observations: np.ndarray, actions: np.ndarray, rewards: np.ndarray,
          number_of_actions: int, ridge: float) -> tuple[np.ndarray, np.ndarray]:
    """``CB(D, Pi)`` for linear policies: per action, the ridge regression of the reward on the
    observation with an unpenalised intercept (scikit-learn's ``Ridge(alpha=penalty)`` on the
    action's rows, in closed form: observations and rewards centred, then ``w = (X_c^T X_c +
    penalty I)^-1 X_c^T y_c`` and ``b = mean(y) - mean(x) . w``); the policy takes ``argmax_a
    Q(x, a)``.

    The penalty is relative to the observations' size: ``penalty = ridge x max(m, 1)``, ``m``
    the mean squared norm of all the rows given (:func:`ridge_penalty`), so that multiplying
    every observation by a constant ``c`` (the authors' +-1 Hadamard encoding against the
    orthonormal one: ``c = sqrt(d)``) changes no choice: the penalty grows by ``c^2`` and the
    weights shrink by ``c``. The floor 1 keeps a bound on the weights whatever the data
    (:func:`homer.run_state.check_reward_scale`); the encoder's observations have ``m`` about
    2 (orthonormal) or ``2 d`` (the authors'). A constant added to every reward moves every
    ``Q(x, a)`` by that constant, so no choice depends on it either (a penalised intercept
    would shrink each action's value by its own row count). Written out rather than calling
    scikit-learn because GPS and PSDP call it hundreds of times per run at H = 100: 3.1 ms
    against 8.8 ms for ten actions on 2,000 rows of dimension 128 (``tests/homer/test_psdp.py``
    checks it equals ``Ridge``). Returns ``(W, b)``.

    >>> x = np.eye(3)[[0, 1, 0, 1]]
    >>> weight, bias = fit_q(x, np.array([0, 0, 1, 1]), np.array([1.0, 0.0, 0.0, 1.0]), 2, 1e-9)
    >>> np.round(q_values(np.eye(3)[:2], weight, bias), 3).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    d = observations.shape[1]
    features = observations.astype(np.float64)
    penalty = ridge_penalty(features, ridge)
    weights = np.zeros((number_of_actions, d))
    biases = np.zeros(number_of_actions)
    for a in range(number_of_actions):
        rows = actions == a
        if not rows.any():
            continue
        design, targets = features[rows], rewards[rows].astype(np.float64)
        mean_observation, mean_reward = design.mean(axis=0), targets.mean()
        centred = design - mean_observation
        gram = centred.T @ centred + penalty * np.eye(d)
        weights[a] = np.linalg.solve(gram, centred.T @ (targets - mean_reward))
        biases[a] = mean_reward - mean_observation @ weights[a]
    return weights.astype(np.float32), biases.astype(np.float32)


def ridge_penalty(observations: np.ndarray, ridge: float) -> float:
    """The penalty :func:`fit_q` adds for relative penalty ``ridge``: ``ridge`` times the
    mean squared norm of the rows of ``observations``, at least ``ridge``.

    >>> ridge_penalty(np.array([[3.0, 4.0], [0.0, 0.0]]), 0.1)
    1.25
    """
    if len(observations) == 0:
        return ridge
    mean_square = float(np.mean(np.sum(np.square(observations, dtype=np.float64), axis=1)))
    return ridge * max(mean_square, 1.0)


def q_values(observations: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    return observations @ weight.T + bias


def greedy_policy_search(
    batch: Batch, roll_in_index: np.ndarray, cover: Sequence[LinearPolicy], step: int,
    rewards: np.ndarray, number_of_actions: int, ridge: float, epsilon: float,
) -> tuple[LinearPolicy | None, float]:
    """GPS: learn the last step from the transitions already collected, append it to the best
    policy of the previous cover; accept if the estimated value is at least ``1 - epsilon``.

    The value of ``prefix o last step`` is estimated by cross-fitting: the episodes are split in
    two halves; the policy chosen from the regression on one half is scored with the regression
    of the other (and vice versa). Scoring a policy with the regression that chose it would
    overestimate its value (every noisy action value competes for the max); inverse propensity
    scores are unbiased but, with |A| = 10, too noisy for a threshold near 1.
    Returns the composed policy (None if rejected) and its estimated value.
    """
    observations, taken = batch.observations[:, step], batch.actions[:, step]
    weight, bias = fit_q(observations, taken, rewards, number_of_actions, ridge)
    halves = np.arange(len(taken)) % 2
    fits = [fit_q(observations[halves == k], taken[halves == k], rewards[halves == k],
                  number_of_actions, ridge) for k in (0, 1)]
    estimate = np.zeros(len(taken))
    for k in (0, 1):
        chooser, scorer = fits[k], fits[1 - k]
        chosen = np.argmax(q_values(observations, *chooser), axis=1)
        estimate += q_values(observations, *scorer)[np.arange(len(taken)), chosen] / 2
    values = [estimate[roll_in_index == k].mean() if (roll_in_index == k).any() else -np.inf
              for k in range(len(cover))]
    best = int(np.argmax(values))
    if values[best] >= 1 - epsilon:
        return cover[best].extended(weight, bias), float(values[best])
    return None, float(values[best])


def psdp(
    sampler: BatchSampler, covers: Sequence[Sequence[LinearPolicy]], last_step: int,
    reward_of: RewardOf, samples: int, ridge: float,
    first: tuple[np.ndarray, np.ndarray] | None = None, episode_end: int | None = None,
) -> LinearPolicy:
    """PSDP over steps ``0 .. last_step``: for ``t = last_step .. 0`` roll in with
    ``Unf(covers[t])``, act uniformly at ``t``, follow the steps learned so far, and regress
    ``reward_of(batch)`` on ``(x_t, a_t)``. ``first`` may give the last step already learned;
    episodes run to ``episode_end`` (default: the horizon)."""
    d = sampler.dimension
    actions = sampler.mdp.number_of_actions
    weights: list[np.ndarray] = [np.zeros((actions, d), np.float32)] * (last_step + 1)
    biases: list[np.ndarray] = [np.zeros(actions, np.float32)] * (last_step + 1)
    for t in range(last_step, -1, -1):
        if t == last_step and first is not None:
            weights[t], biases[t] = first
            continue
        continuation = LinearPolicy(list(weights), list(biases))
        batch = sampler.run(samples, list(covers[t]), t, continuation, last_step=episode_end)
        weights[t], biases[t] = fit_q(batch.observations[:, t], batch.actions[:, t],
                                      reward_of(batch, t), actions, ridge)
    return LinearPolicy(weights, biases)

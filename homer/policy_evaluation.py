"""Score policies acting on encoded observations - a learned policy cover, a policy trained by
anyone - against the exact answers: alpha per state and step against eta (``def:policy-cover``)
and, when the MDP has rewards, each policy's value against V*.

A policy is a function ``pi(observations, step)``: ``observations`` an ``(n, d)`` array of
encoded observations of time step ``step`` (1-based), the result either ``n`` actions (integers
``0 .. |A| - 1``, the order of ``mdp.actions``) or an ``(n, |A|)`` array of action
probabilities. Its action distribution at each latent observation is the mean over that
observation's ``samples`` encodings (:class:`homer.encoded.EncodedObservations`); with these
distributions the visitation probabilities follow exactly, by dynamic programming over the latent
states (:func:`kinematic.visitation.state_visitation`, in floats), hence alpha and values. The
estimation error is reported as the largest standard error of those means (the standard
deviation over an observation's encodings divided by ``sqrt(samples)``: ``sqrt(p (1 - p) /
samples)`` for a policy returning actions).

>>> import numpy as np
>>> from kinematic import combination_lock
>>> lock = combination_lock(horizon=3, actions=2, seed=0)
>>> always_first = lambda observations, step: np.zeros(len(observations), dtype=int)
>>> report = evaluate_policies(lock, [always_first])
>>> [round(step["alpha_min"], 3) for step in report.steps]
[1.0, 0.5, 0.25]
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from homer.encoded import EncodedObservations, Encoder
from homer.encoders import HadamardNoise
from kinematic.analysis import has_rewards
from kinematic.errors import short_repr
from kinematic.homing import eta
from kinematic.model import BlockMDP, with_float_numbers
from kinematic.planning import optimal_values
from kinematic.policies import Policy
from kinematic.visitation import policy_value, state_visitation

__all__ = ["CoverReport", "LatentPolicies", "ObservationPolicy", "cover_step",
           "evaluate_policies", "float_model"]

ObservationPolicy = Callable[[np.ndarray, int], ArrayLike]
"""``pi(observations, step)``: encoded observations ``(n, d)`` of time step ``step`` (1-based)
-> ``n`` actions, or ``(n, |A|)`` action probabilities."""


def float_model(mdp: BlockMDP) -> BlockMDP:
    """``mdp`` with float numbers (learned numbers are estimates: exact arithmetic buys
    nothing)."""
    return with_float_numbers(mdp) if mdp.mode.exact else mdp


def _action_rows(policy: ObservationPolicy, vectors: np.ndarray, step: int, actions: int,
                 name: str) -> np.ndarray:
    """``policy``'s output on ``vectors`` as ``(n, |A|)`` action probabilities (one-hot rows
    for actions), checked; errors name ``name`` and the step."""
    n = len(vectors)
    output = np.asarray(policy(vectors, step))
    call = f"{name}(observations, {step})"
    if output.shape == (n,):
        integral = output.dtype.kind in "iu" or (
            output.dtype.kind == "f" and bool(np.all(output == np.round(output))))
        if not integral:
            raise ValueError(f"{call} returned {n} values of dtype {output.dtype}: actions must "
                             f"be integers 0..{actions - 1} (or return ({n}, {actions}) action "
                             "probabilities)")
        bad = (output < 0) | (output >= actions)
        if bad.any():
            raise ValueError(f"{call} returned the action {output[bad][0]}: actions run "
                             f"0..{actions - 1}")
        return np.eye(actions)[output.astype(np.intp)]
    if output.shape == (n, actions):
        rows = output.astype(np.float64)
        sums = rows.sum(axis=1)
        if not np.all(np.isfinite(rows)) or np.any(rows < 0) or np.any(np.abs(sums - 1) > 1e-4):
            first = int(np.flatnonzero(~np.isfinite(sums) | (np.abs(sums - 1) > 1e-4)
                                       | np.any(rows < 0, axis=1))[0])
            raise ValueError(f"{call}: row {first} is not a probability distribution over the "
                             f"{actions} actions: {rows[first].tolist()}")
        return rows / sums[:, None]  # float32 sums of a network's softmax
    raise ValueError(f"{call} returned an array of shape {output.shape}; expected {n} actions "
                     f"({n},) or action probabilities ({n}, {actions})")


class LatentPolicies:
    """Observation policies turned into policies on the latent observations (the mean of their
    action probabilities over each observation's encodings), with their exact visitation;
    cached per policy object."""

    def __init__(self, encoded: EncodedObservations) -> None:
        self.encoded, self.mdp = encoded, encoded.mdp
        self.floats = float_model(encoded.mdp)
        self._latent: dict[int, tuple[ObservationPolicy, Policy, tuple[float, ...]]] = {}
        self._visitation: dict[int, tuple[np.ndarray, ...]] = {}

    def latent(self, policy: ObservationPolicy, name: str = "policy", remember: bool = True
               ) -> tuple[Policy, tuple[float, ...]]:
        """The latent observation policy of ``policy`` and, per step, the largest standard
        error of its action probabilities; kept for the next call with the same object unless
        ``remember`` is False (a policy still learning)."""
        key = id(policy)
        if key not in self._latent or not remember:
            mdp, samples = self.mdp, self.encoded.samples
            layers, errors = [], []
            for step in range(1, mdp.horizon + 1):
                ids, vectors = self.encoded.step(step)
                rows = _action_rows(policy, vectors, step, mdp.number_of_actions, name)
                observations = len(mdp.observations[step - 1])
                mean = np.zeros((observations, mdp.number_of_actions))
                square = np.zeros_like(mean)
                np.add.at(mean, ids, rows)
                np.add.at(square, ids, rows ** 2)
                mean, square = mean / samples, square / samples
                spread = np.sqrt(np.clip(square - mean ** 2, 0.0, None) / samples)
                errors.append(float(spread.max()))
                layers.append(mean)
            found = Policy(tuple(layers), self.floats), tuple(errors)
            if not remember:
                return found
            self._latent[key] = (policy, *found)  # the policy kept alive: ids stay unique
        _, latent, step_errors = self._latent[key]
        return latent, step_errors

    def visitation(self, policy: ObservationPolicy, name: str = "policy"
                   ) -> tuple[tuple[np.ndarray, ...], tuple[float, ...]]:
        """``P_pi(s)`` of every latent state, per layer, and the per-step standard errors of
        :meth:`latent`."""
        latent, errors = self.latent(policy, name)
        key = id(policy)
        if key not in self._visitation:
            self._visitation[key] = tuple(np.asarray(v, dtype=float)
                                          for v in state_visitation(self.floats, latent))
        return self._visitation[key], errors

    def value(self, policy: ObservationPolicy, name: str = "policy") -> tuple[float, float]:
        """The exact value of ``policy``'s latent policy and the largest standard error of its
        action probabilities (over all steps)."""
        latent, errors = self.latent(policy, name)
        return float(policy_value(self.floats, latent)), max(errors)


def eta_floats(mdp: BlockMDP) -> list[np.ndarray]:
    """eta of every latent state, per layer, in floats (:func:`kinematic.eta`)."""
    return [np.asarray(layer, dtype=float) for layer in eta(float_model(mdp))]


def cover_step(mdp: BlockMDP, step: int,
               reached: Sequence[tuple[tuple[np.ndarray, ...], tuple[float, ...]]],
               eta: Sequence[np.ndarray]) -> dict[str, Any]:
    """The cover report of time step ``step`` (1-based): with ``reached`` the visitation and
    per-step standard errors of each policy of the cover (:meth:`LatentPolicies.visitation`),
    ``alpha`` of each state ``max_pi P_pi(s) / eta(s)`` (``def:policy-cover``; 1 where eta is
    0: nothing can reach the state) and its minimum, the best visitation, eta, and the largest
    standard error of the cover's action probabilities at the steps before ``step`` (the
    actions that decide ``P_pi(s)``; 0 at step 1)."""
    layer = step - 1
    best = np.max([visitation[layer] for visitation, _ in reached], axis=0)
    positive = eta[layer] > 0
    alpha = np.divide(best, eta[layer], out=np.ones_like(best), where=positive)
    states = mdp.layers[layer]
    return {
        "step": step, "alpha_min": float(alpha.min()),
        "alpha_per_state": dict(zip(states, alpha.tolist(), strict=True)),
        "visitation": dict(zip(states, best.tolist(), strict=True)),
        "eta": dict(zip(states, eta[layer].tolist(), strict=True)),
        "action_standard_error": max((error for _, errors in reached
                                      for error in errors[:layer]), default=0.0),
    }


@dataclass(frozen=True)
class CoverReport:
    """:func:`evaluate_policies`'s result."""

    mdp: str
    samples: int
    seed: int
    steps: list[dict[str, Any]]
    """Per time step: :func:`cover_step`'s report of the cover of that step."""
    values: list[float] | None
    """Each policy's exact value (given its estimated action probabilities); None without
    rewards."""
    action_standard_errors: list[float] | None
    """Each policy's largest standard error of an estimated action probability (the estimate
    its value rests on); None without rewards."""
    optimal_value: float | None

    def __repr__(self) -> str:
        """One line: the smallest alpha after step 1 and the best value against V*."""
        later = [step for step in self.steps if step["step"] >= 2] or self.steps
        lowest = min(later, key=lambda step: step["alpha_min"])
        value = ("" if self.values is None else
                 f"; best value {max(self.values):.3f} of V* {self.optimal_value:.3f}")
        return (f"<CoverReport on {self.mdp!r}: smallest alpha {lowest['alpha_min']:.3f} "
                f"(step {lowest['step']}){value}>")

    @property
    def alpha_min(self) -> float:
        """The smallest alpha over the steps."""
        return min(step["alpha_min"] for step in self.steps)

    def to_json(self) -> dict[str, Any]:
        """``report.json`` of ``homer evaluate``'s policy part."""
        return {"mdp": self.mdp, "samples": self.samples, "seed": self.seed,
                "alpha_min": self.alpha_min, "values": self.values,
                "action_standard_errors": self.action_standard_errors,
                "optimal_value": self.optimal_value, "steps": self.steps}


def _covers(mdp: BlockMDP, policies: Sequence[ObservationPolicy]
            | Mapping[int, Sequence[ObservationPolicy]], name: str = "policies"
            ) -> tuple[dict[int, list[int]], list[ObservationPolicy]]:
    """Every distinct policy once, and the indices of the cover of each step."""
    if callable(policies) or isinstance(policies, str):
        raise TypeError(f"{name} must be a list of policies (the cover of every step) or a dict "
                        f"step -> list, got {short_repr(policies)}: one policy is the list "
                        "[policy]")
    if isinstance(policies, Mapping):
        unique: list[ObservationPolicy] = []
        covers: dict[int, list[int]] = {}
        steps: dict[int, Sequence[ObservationPolicy]] = {}
        for key, cover in policies.items():
            if (isinstance(key, bool) or not isinstance(key, numbers.Integral)
                    or not 1 <= key <= mdp.horizon):
                raise ValueError(f"{name}: the key {key!r} is not a time step of {mdp.name!r} "
                                 f"(an int from 1 to {mdp.horizon})")
            steps[int(key)] = cover
        index: dict[int, int] = {}  # id(policy) -> its place in unique (alive there)
        for step, cover in sorted(steps.items()):
            covers[step] = []
            for policy in cover:
                k = index.setdefault(id(policy), len(unique))
                if k == len(unique):
                    unique.append(policy)
                covers[step].append(k)
    else:
        unique = list(policies)
        covers = {step: list(range(len(unique))) for step in range(1, mdp.horizon + 1)}
    for step, indices in covers.items():
        if not indices:
            raise ValueError(f"{name}: the cover of step {step} is empty")
    for k, policy in enumerate(unique):
        if not callable(policy):
            raise TypeError(f"{name}[{k}] is not callable: a policy is a function "
                            f"(observations, step) -> actions, got {policy!r}")
    return covers, unique


def evaluate_policies(mdp: BlockMDP, policies: Sequence[ObservationPolicy]
                      | Mapping[int, Sequence[ObservationPolicy]],
                      encoder: Encoder | None = None, samples: int = 500, seed: int = 0,
                      name: str = "policies") -> CoverReport:
    """Score a policy cover: ``policies`` a list of policies (the cover of every time step) or
    a mapping ``step -> list`` (a cover per step, as HOMER learns them); alpha of every state and
    step against the exact eta, and with rewards each policy's value and V* (module docstring).
    ``samples`` encodings of each latent observation by ``encoder`` (the paper's when None),
    drawn from ``seed``: the same encodings as :func:`homer.evaluate.evaluate_abstraction`'s.
    ``name`` names the policies in errors (``name[k]`` the ``k``-th distinct policy).

    >>> import numpy as np
    >>> from kinematic import combination_lock
    >>> lock = combination_lock(horizon=2, actions=2, seed=0)
    >>> report = evaluate_policies(lock, [lambda x, step: np.full((len(x), 2), 0.5)])
    >>> round(report.alpha_min, 3), report.optimal_value
    (0.5, 1.0)
    """
    covers, unique = _covers(mdp, policies, name)
    encoder = HadamardNoise() if encoder is None else encoder
    encoded = EncodedObservations(mdp, encoder, samples, seed)
    encoded.check_fits(doing="scoring policies")
    latent = LatentPolicies(encoded)
    eta = eta_floats(latent.floats)
    reached = [latent.visitation(policy, f"{name}[{k}]") for k, policy in enumerate(unique)]
    steps = [cover_step(mdp, step, [reached[k] for k in cover], eta)
             for step, cover in covers.items()]
    values = errors = optimal = None
    if has_rewards(mdp):
        pairs = [latent.value(policy, f"{name}[{k}]") for k, policy in enumerate(unique)]
        values, errors = [v for v, _ in pairs], [e for _, e in pairs]
        optimal = float(optimal_values(latent.floats).value)
    return CoverReport(mdp.name, samples, seed, steps, values, errors, optimal)

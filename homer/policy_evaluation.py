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
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from homer.encoded import EncodedObservations, Encoder
from homer.encoders import HadamardNoise
from kinematic.analysis import has_rewards
from kinematic.display import listed
from kinematic.errors import short_repr
from kinematic.homing import eta
from kinematic.model import BlockMDP, with_float_numbers
from kinematic.planning import optimal_values
from kinematic.policies import Policy
from kinematic.visitation import policy_value, state_visitation

__all__ = ["CoverReport", "LatentPolicies", "ObservationPolicy", "PolicyCover", "cover_step",
           "evaluate_policies", "float_model", "read_cover", "returned_array",
           "smallest_alpha", "steps_named"]

ObservationPolicy = Callable[[np.ndarray, int], ArrayLike]
"""``pi(observations, step)``: encoded observations ``(n, d)`` of time step ``step`` (1-based)
-> ``n`` actions, or ``(n, |A|)`` action probabilities."""


def float_model(mdp: BlockMDP) -> BlockMDP:
    """``mdp`` with float numbers (learned numbers are estimates: exact arithmetic buys
    nothing)."""
    return with_float_numbers(mdp) if mdp.mode.exact else mdp


def returned_array(returned: object, call: str, expected: str) -> np.ndarray:
    """What the user's ``call`` (an abstraction's or a policy's, named as errors name it)
    returned, as an array; a ragged list or tuple raises ``ValueError`` naming ``call``, the
    first item whose shape is not the most common one, and ``expected``.

    >>> returned_array([0, [1, 2], 3], "f(x, 1)", "one class per row")
    Traceback (most recent call last):
    ...
    ValueError: f(x, 1) returned a list of 3 items that is not one class per row: item 1 is [1, 2]
    """
    try:
        return np.asarray(returned)
    except (ValueError, TypeError) as error:
        if not isinstance(returned, list | tuple):
            raise ValueError(f"{call} returned {short_repr(returned)}, not {expected} "
                             f"({error})") from None
        shapes = [_shape(item) for item in returned]
        common = Counter(shapes).most_common(1)[0][0]
        odd = next(k for k, shape in enumerate(shapes) if shape != common)
        raise ValueError(f"{call} returned a {type(returned).__name__} of {len(returned)} items "
                         f"that is not {expected}: item {odd} is {short_repr(returned[odd])}"
                         ) from None


def _shape(item: object) -> tuple[int, ...] | None:
    """``item``'s array shape; None when it is ragged itself."""
    try:
        return np.asarray(item).shape
    except ValueError:
        return None


def _action_rows(policy: ObservationPolicy, vectors: np.ndarray, step: int, actions: int,
                 name: str) -> np.ndarray:
    """``policy``'s output on ``vectors`` as ``(n, |A|)`` action probabilities (one-hot rows
    for actions), checked; errors name ``name``, the step and the row."""
    n = len(vectors)
    call = f"{name}(observations, {step})"
    output = returned_array(policy(vectors, step), call, "one action per row nor one row of "
                                                         "action probabilities per row")
    if output.shape == (n,):
        integral = output.dtype.kind in "iu" or (
            output.dtype.kind == "f" and bool(np.all(output == np.round(output))))
        if not integral:
            raise ValueError(f"{call} returned {n} values of dtype {output.dtype}: actions must "
                             f"be integers 0..{actions - 1} (or return ({n}, {actions}) action "
                             "probabilities)")
        bad = (output < 0) | (output >= actions)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{call} returned the action {output[row]} at row {row}: actions "
                             f"run 0..{actions - 1}")
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
class PolicyCover:
    """A policy cover as :func:`read_cover` reads it: each distinct policy once, the steps it
    is scored on and the steps after the first that no policy covers."""

    horizon: int
    """The horizon of the MDP the cover was read for."""
    policies: list[ObservationPolicy]
    """Each distinct policy (object) once, in the order first found."""
    names: list[str]
    """How errors name each policy: the cover's name and where the policy was first found
    (``policies[0]``, ``policies[2][0]``)."""
    steps: dict[int, list[int]]
    """The steps with policies (1-based, ascending) -> the indices of their policies."""
    uncovered: list[int]
    """The steps from 2 on without any policy: they cannot be scored, so the cover has no
    alpha (step 1 needs no policy: it is reached by the start distribution alone)."""


def read_cover(mdp: BlockMDP, policies: Sequence[ObservationPolicy]
               | Mapping[int, Sequence[ObservationPolicy]], name: str = "policies"
               ) -> PolicyCover:
    """``policies`` read as a cover of ``mdp``'s steps, the one check of a cover for
    :func:`evaluate_policies`, ``homer evaluate --policies`` and ``homer compare``: a list (or
    tuple) of policies is the cover of every step, a mapping step (1-based) -> list a cover per
    step. A step left out of the mapping or given an empty list has no policies: it is named
    in :attr:`PolicyCover.uncovered` (from step 2 on) and the report's alpha is not defined.
    Raises ``TypeError`` for anything but a list or a mapping of lists of callables, and
    ``ValueError`` naming ``name`` for a key that is not a step and for a cover with no policy
    at all (nothing to score).

    >>> import numpy as np
    >>> from kinematic import combination_lock
    >>> first = lambda observations, step: np.zeros(len(observations), dtype=int)
    >>> cover = read_cover(combination_lock(horizon=3, actions=2, seed=0), {1: [first]})
    >>> cover.steps, cover.uncovered, cover.names
    ({1: [0]}, [2, 3], ['policies[1][0]'])
    """
    if callable(policies) or not isinstance(policies, list | tuple | Mapping):
        raise TypeError(f"{name} must be a list of policies (the cover of every step) or a dict "
                        f"step -> list, got {short_repr(policies)}: one policy is the list "
                        "[policy]")
    if isinstance(policies, Mapping):
        given: dict[int, tuple[str, object]] = {}
        for key, cover in policies.items():
            if (isinstance(key, bool) or not isinstance(key, numbers.Integral)
                    or not 1 <= key <= mdp.horizon):
                raise ValueError(f"{name}: the key {short_repr(key)} is not a time step of "
                                 f"{mdp.name!r} (an int from 1 to {mdp.horizon})")
            given[int(key)] = f"[{int(key)}]", cover
    else:
        given = {step: ("", policies) for step in range(1, mdp.horizon + 1)}
    unique: list[ObservationPolicy] = []
    names: list[str] = []
    index: dict[int, int] = {}  # id(policy) -> its place in unique (alive there)
    steps: dict[int, list[int]] = {}
    for step, (where, items) in sorted(given.items()):
        if not isinstance(items, list | tuple):
            raise TypeError(f"{name}{where} must be a list of policies, got "
                            f"{short_repr(items)}")
        for k, policy in enumerate(items):
            if not callable(policy):
                raise TypeError(f"{name}{where}[{k}] is not callable: a policy is a function "
                                f"(observations, step) -> actions, got {short_repr(policy)}")
            if id(policy) not in index:
                index[id(policy)] = len(unique)
                unique.append(policy)
                names.append(f"{name}{where}[{k}]")
            steps.setdefault(step, []).append(index[id(policy)])
    if not unique:
        raise ValueError(f"{name}: no policies for any step (give a list of policies, the cover "
                         f"of every step, or a dict step -> list with steps 2 to {mdp.horizon})"
                         if mdp.horizon > 1 else f"{name}: no policies (give a list of them)")
    uncovered = [step for step in range(2, mdp.horizon + 1) if step not in steps]
    return PolicyCover(mdp.horizon, unique, names, steps, uncovered)


def steps_named(numbers: Sequence[int]) -> str:
    """``step 3``, ``steps 2-4`` (consecutive) or ``steps 2, 4, 6, ...`` (the first 6 named):
    how a cover report and the summaries name steps.

    >>> steps_named([3]), steps_named([2, 3, 4]), steps_named([2, 4])
    ('step 3', 'steps 2-4', 'steps 2, 4')
    """
    if len(numbers) == 1:
        return f"step {numbers[0]}"
    if list(numbers) == list(range(numbers[0], numbers[-1] + 1)):
        return f"steps {numbers[0]}-{numbers[-1]}"
    return f"steps {listed(map(str, numbers), 6)}"


def smallest_alpha(steps: Sequence[Mapping[str, Any]], uncovered: Sequence[int]
                   ) -> float | None:
    """The smallest alpha of a cover (``def:policy-cover``) over the scored ``steps``
    (:func:`cover_step` reports), None when a step is ``uncovered``: not the smallest over the
    covered steps only, as if they were all."""
    return None if uncovered else min(step["alpha_min"] for step in steps)


@dataclass(frozen=True)
class CoverReport:
    """:func:`evaluate_policies`'s result."""

    mdp: str
    samples: int
    seed: int
    steps: list[dict[str, Any]]
    """Per time step with policies: :func:`cover_step`'s report of the cover of that step."""
    values: list[float] | None
    """Each policy's exact value (given its estimated action probabilities); None without
    rewards."""
    action_standard_errors: list[float] | None
    """Each policy's largest standard error of an estimated action probability (the estimate
    its value rests on); None without rewards."""
    optimal_value: float | None
    uncovered: list[int] = field(default_factory=list)
    """The steps from 2 on that the cover gives no policy (:attr:`PolicyCover.uncovered`)."""

    def __repr__(self) -> str:
        """One line: the smallest alpha after step 1 (or the steps without policies) and the
        best value against V*."""
        value = ("" if self.values is None else
                 f"; best value {max(self.values):.3f} of V* {self.optimal_value:.3f}")
        if self.uncovered:
            alpha = f"no alpha: no policies for {steps_named(self.uncovered)}"
        else:
            later = [step for step in self.steps if step["step"] >= 2] or self.steps
            lowest = min(later, key=lambda step: step["alpha_min"])
            alpha = f"smallest alpha {lowest['alpha_min']:.3f} (step {lowest['step']})"
        return f"<CoverReport on {self.mdp!r}: {alpha}{value}>"

    @property
    def alpha_min(self) -> float | None:
        """The smallest alpha over the steps; None when a step has no policies
        (:func:`smallest_alpha`)."""
        return smallest_alpha(self.steps, self.uncovered)

    def to_json(self) -> dict[str, Any]:
        """``report.json`` of ``homer evaluate``'s policy part: ``alpha_min`` null and
        ``uncovered_steps`` the steps without policies when the cover leaves some out."""
        return {"mdp": self.mdp, "samples": self.samples, "seed": self.seed,
                "alpha_min": self.alpha_min, "uncovered_steps": self.uncovered,
                "values": self.values, "action_standard_errors": self.action_standard_errors,
                "optimal_value": self.optimal_value, "steps": self.steps}


def evaluate_policies(mdp: BlockMDP, policies: Sequence[ObservationPolicy]
                      | Mapping[int, Sequence[ObservationPolicy]] | PolicyCover,
                      encoder: Encoder | None = None, samples: int = 500, seed: int = 0,
                      name: str = "policies") -> CoverReport:
    """Score a policy cover: ``policies`` a list of policies (the cover of every time step) or
    a mapping ``step -> list`` (a cover per step, as HOMER learns them), read by
    :func:`read_cover` (or already read by it); alpha of every state and step against the exact
    eta, and with rewards each policy's value and V* (module docstring). A step from 2 on
    without policies is not scored: the report names it and has no smallest alpha.
    ``samples`` encodings of each latent observation by ``encoder`` (the paper's when None),
    drawn from ``seed``: the same encodings as :func:`homer.evaluate.evaluate_abstraction`'s.
    ``name`` names the policies in errors (``name[k]`` the ``k``-th of a list, ``name[h][k]``
    the ``k``-th of step ``h``'s).

    >>> import numpy as np
    >>> from kinematic import combination_lock
    >>> lock = combination_lock(horizon=2, actions=2, seed=0)
    >>> report = evaluate_policies(lock, [lambda x, step: np.full((len(x), 2), 0.5)])
    >>> round(report.alpha_min, 3), report.optimal_value
    (0.5, 1.0)
    """
    cover = policies if isinstance(policies, PolicyCover) else read_cover(mdp, policies, name)
    if cover.horizon != mdp.horizon:
        raise ValueError(f"{name}: a cover read for horizon {cover.horizon}, not the "
                         f"{mdp.horizon} steps of {mdp.name!r}")
    encoder = HadamardNoise() if encoder is None else encoder
    encoded = EncodedObservations(mdp, encoder, samples, seed)
    encoded.check_fits(doing="scoring policies")
    latent = LatentPolicies(encoded)
    eta = eta_floats(latent.floats)
    named = list(zip(cover.policies, cover.names, strict=True))
    reached = [latent.visitation(policy, label) for policy, label in named]
    steps = [cover_step(mdp, step, [reached[k] for k in indices], eta)
             for step, indices in cover.steps.items()]
    values = errors = optimal = None
    if has_rewards(mdp):
        pairs = [latent.value(policy, label) for policy, label in named]
        values, errors = [v for v, _ in pairs], [e for _, e in pairs]
        optimal = float(optimal_values(latent.floats).value)
    return CoverReport(mdp.name, samples, seed, steps, values, errors, optimal, cover.uncovered)

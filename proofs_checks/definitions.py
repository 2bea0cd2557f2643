"""The definitions of Sections 2 and 3 as checks: ``def:homing``, ``def:policy-cover``,
``def:bki``, ``def:fki``, ``def:ki`` and the (unlabelled) definition of the canonical form.

Each toolkit computation is compared with a computation taken straight from the definition and
independent of the algorithm that implements it:

- backward KI: the backward dynamics ``P_u(x, a | x')`` under a full-support prior ``u`` over
  ``X x A`` (drawn by Hypothesis), compared for every pair of observations;
- forward KI: the transition rows ``T(. | x, a)`` of every action, compared for every pair;
- ``eta`` and cover quality: enumeration of every deterministic non-stationary policy.

The partition comparison (:func:`partition_failure`) reports wrong merges *and* wrong splits, and
the other partition-related claims of ``proofs_checks`` call it on the partition they use.
Conventions of the ends (``DESIGN.md``): every first-layer observation is backward KI with every
other, every last-layer observation is forward KI with every other.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from kinematic.canonical import canonical_form
from kinematic.cover import is_policy_cover, policy_cover_alpha
from kinematic.families import figure1_noncompositional
from kinematic.homing import eta, homing_policy
from kinematic.inseparability import backward_ki_partition, forward_ki_partition, ki_partition
from kinematic.model import BlockMDP
from kinematic.planning import observation_labels
from kinematic.policies import Policy
from kinematic.strategies import block_mdps, policies
from kinematic.visitation import state_visitation
from proofs_checks.registry import Claim, Outcome, register
from proofs_checks.witness import number, policy_json, spec

__all__ = [
    "Computation",
    "Relation",
    "backward_partition_violation",
    "definition_keys",
    "deterministic_policies",
    "merged_backward_partition",
    "partition_failure",
]

Relation = Literal["backward", "forward", "ki"]

MAX_ENUMERATED_POLICIES = 4096
"""Enumeration of deterministic policies is refused above this many policies."""


@dataclass(frozen=True)
class Computation:
    """A named function under test, carried by an instance so that a negative control can hand
    the claim's own check a deliberately wrong computation."""

    name: str
    function: Callable[..., Any]

    def __call__(self, *args: Any) -> Any:
        return self.function(*args)

    def __repr__(self) -> str:
        return self.name


# --- independent computations ------------------------------------------------------------------


def deterministic_policies(mdp: BlockMDP, layers: int | None = None) -> Iterator[Policy]:
    """Every deterministic non-stationary observation policy, deciding on the first ``layers``
    layers (default: all; later layers take the first action)."""
    layers = mdp.horizon if layers is None else layers
    deciding = [(h, x) for h in range(layers) for x in range(len(mdp.observations[h]))]
    count = mdp.number_of_actions ** len(deciding)
    if count > MAX_ENUMERATED_POLICIES:
        raise ValueError(f"{count} deterministic policies: too many to enumerate")
    for actions in itertools.product(range(mdp.number_of_actions), repeat=len(deciding)):
        tables = [mdp.mode.zeros((len(x), mdp.number_of_actions)) for x in mdp.observations]
        for table in tables:
            table[:, 0] = mdp.mode.scalar(1)
        for (h, x), a in zip(deciding, actions, strict=True):
            tables[h][x, :] = mdp.mode.scalar(0)
            tables[h][x, a] = mdp.mode.scalar(1)
        yield Policy(tuple(tables))


def enumerated_eta(mdp: BlockMDP) -> dict[str, Any]:
    """``eta(s) = max_pi P_pi(s)`` over every deterministic policy (``def:homing``; deterministic
    policies suffice by ``lem:homing_deterministic``)."""
    best: dict[str, Any] = dict.fromkeys(mdp.states, mdp.mode.scalar(0))
    for policy in deterministic_policies(mdp, layers=mdp.horizon - 1):
        for layer, visits in zip(mdp.layers, state_visitation(mdp, policy), strict=True):
            for state, p in zip(layer, visits, strict=True):
                best[state] = max(best[state], p)
    return best


def full_support_prior(mdp: BlockMDP, layer: int, weights: Sequence[int] = (1, 2, 3)) -> np.ndarray:
    """A full-support prior ``u`` over ``X_layer x A`` (unnormalised: ``P_u`` normalises), with
    positive weights cycled from ``weights``."""
    shape = (len(mdp.observations[layer]), mdp.number_of_actions)
    values = [Fraction(weights[k % len(weights)]) for k in range(shape[0] * shape[1])]
    return np.array(values, dtype=object).reshape(shape)


def definition_keys(
    mdp: BlockMDP, relation: Relation, weights: Sequence[int] = (1, 2, 3)
) -> list[list[tuple]]:
    """Per layer, one key per observation such that two observations are related iff their keys
    are equal: the backward dynamics ``P_u(., . | x')`` (``def:bki``), the rows ``T(. | x, a)``
    of every action (``def:fki``), or both (``def:ki``)."""
    keys: list[list[tuple]] = []
    for h, names in enumerate(mdp.observations):
        backward: list[tuple] = [()] * len(names)
        forward: list[tuple] = [()] * len(names)
        if h > 0:
            tensor = mdp.observation_transition_tensor(h - 1)
            prior = full_support_prior(mdp, h - 1, weights)
            for y in range(len(names)):
                joint = tensor[:, :, y] * prior
                backward[y] = tuple(Fraction(v) for v in (joint / joint.sum()).reshape(-1))
        if h + 1 < mdp.horizon:
            tensor = mdp.observation_transition_tensor(h)
            forward = [tuple(Fraction(v) for v in tensor[x].reshape(-1))
                       for x in range(len(names))]
        keys.append([
            {"backward": (b,), "forward": (f,), "ki": (b, f)}[relation]
            for b, f in zip(backward, forward, strict=True)
        ])
    return keys


def partition_failure(
    mdp: BlockMDP, relation: Relation, state_labels: Sequence[np.ndarray],
    weights: Sequence[int] = (1, 2, 3),
) -> dict[str, Any] | None:
    """The first pair of observations on which per-layer state labels (``Partition.labels``)
    disagree with the definition of ``relation``: a *wrong merge* (same label, not related) or a
    *wrong split* (related, different labels). None when the partition is the definition's."""
    labels = observation_labels(mdp, state_labels)
    keys = definition_keys(mdp, relation, weights)
    for h, names in enumerate(mdp.observations):
        for x, y in itertools.combinations(range(len(names)), 2):
            same_label = labels[h][x] == labels[h][y]
            related = keys[h][x] == keys[h][y]
            if same_label != related:
                return {"relation": relation, "layer": h + 1, "observations": [names[x], names[y]],
                        "error": "wrong merge" if same_label else "wrong split"}
    return None


def backward_partition_violation(
    mdp: BlockMDP, state_labels: Sequence[np.ndarray], **context: Any
) -> Outcome | None:
    """The violation (with ``context`` in its witness) when per-layer state labels used as the
    backward KI partition have a wrong merge or a wrong split; None when they are def:bki's."""
    failure = partition_failure(mdp, "backward", state_labels)
    return None if failure is None else Outcome(False, {"instance": spec(mdp), **context,
                                                        **failure})


# --- def:bki, def:fki, def:ki --------------------------------------------------------------------

PARTITIONS: dict[Relation, Computation] = {
    "backward": Computation("backward_ki_partition", lambda m: backward_ki_partition(m).labels),
    "forward": Computation("forward_ki_partition", lambda m: forward_ki_partition(m).labels),
    "ki": Computation("ki_partition", lambda m: ki_partition(m).labels),
}
SINGLETONS = Computation("singletons (wrong splits)",
                         lambda m: tuple(np.arange(m.width(h)) for h in range(m.horizon)))
ONE_CLASS = Computation("one class per layer (wrong merges)",
                        lambda m: tuple(np.zeros(m.width(h), dtype=int) for h in range(m.horizon)))


def check_partition_definition(case) -> Outcome:
    """The partition computed by ``case``'s computation equals the relation's definition, pair by
    pair, under the prior weights drawn for the instance."""
    relation, mdp, weights, computation = case
    failure = partition_failure(mdp, relation, computation(mdp), weights)
    if failure:
        return Outcome(False, {"instance": spec(mdp), "computation": computation.name,
                               "prior_weights": list(weights), **failure})
    return Outcome(True)


@st.composite
def _partition_cases(draw: st.DrawFn, relation: Relation, wrong: bool = False):
    mdp = draw(block_mdps(max_horizon=3, max_observations=2, max_splits=2))
    weights = draw(st.lists(st.integers(1, 5), min_size=1, max_size=4))
    computation = draw(st.sampled_from([SINGLETONS, ONE_CLASS])) if wrong else PARTITIONS[relation]
    if wrong:
        assume(partition_failure(mdp, relation, computation(mdp), weights) is not None)
    return relation, mdp, weights, computation


for _relation, _label, _statement in (
    ("backward", "def:bki", "backward_ki_partition groups x1', x2' iff P_u(x, a | x1') = "
                            "P_u(x, a | x2') under a full-support prior u over X x A"),
    ("forward", "def:fki", "forward_ki_partition groups x1, x2 iff T(. | x1, a) = T(. | x2, a) "
                           "for every action a"),
    ("ki", "def:ki", "ki_partition groups two observations iff they are backward and forward KI "
                     "by the definitions"),
):
    register(Claim(
        label=_label,
        statement=_statement,
        instances=lambda r=_relation: _partition_cases(r),
        check=check_partition_definition,
        negative_control="a wrong partition: singletons (wrong splits) or one class per layer "
                         "(wrong merges)",
        negative_instances=lambda r=_relation: _partition_cases(r, wrong=True),
    ))

def merged_backward_partition(first: str, second: str) -> Computation:
    """A wrong backward partition: ``backward_ki_partition`` with the blocks of two states
    merged."""

    def labels(mdp: BlockMDP) -> tuple[np.ndarray, ...]:
        result = [np.array(layer_labels, copy=True)
                  for layer_labels in backward_ki_partition(mdp).labels]
        h, i = mdp.state_location[first]
        j = mdp.state_location[second][1]
        result[h][result[h] == result[h][j]] = result[h][i]
        return tuple(result)

    return Computation(f"backward KI with the blocks of {first} and {second} merged", labels)


# --- def:homing ---------------------------------------------------------------------------------


def _toolkit_homing(mdp: BlockMDP) -> tuple[dict[str, Any], dict[str, Policy]]:
    return eta(mdp), {s: homing_policy(mdp, s) for s in mdp.states}


def _compositional_homing(mdp: BlockMDP) -> tuple[dict[str, Any], dict[str, Policy]]:
    """A wrong computation: the homing policy of ``s`` extends the homing policy of one state of
    the previous layer by the last action most likely to reach ``s`` (``prop:comp-homing`` says
    this is not enough)."""
    chosen = {s: homing_policy(mdp, s) for s in mdp.layers[0]}
    for h in range(1, mdp.horizon):
        tensor = mdp.observation_transition_tensor(h - 1)
        for i, state in enumerate(mdp.layers[h]):
            # reach[x, a] = P(s | x, a): the best last action in each observation x.
            reach = tensor[:, :, mdp.emission_state[h] == i].sum(axis=2)
            last = mdp.mode.zeros(reach.shape)
            for x in range(reach.shape[0]):
                last[x, int(np.argmax(reach[x]))] = mdp.mode.scalar(1)
            candidates = []
            for previous in mdp.layers[h - 1]:
                tables = list(homing_policy(mdp, previous).action_probabilities)
                tables[h - 1] = last
                candidates.append(Policy(tuple(tables)))
            chosen[state] = max(candidates, key=lambda p, h=h, i=i: state_visitation(mdp, p)[h][i])
    values = {s: state_visitation(mdp, chosen[s])[mdp.state_location[s][0]][
        mdp.state_location[s][1]] for s in mdp.states}
    return values, chosen


TOOLKIT_HOMING = Computation("eta and homing_policy", _toolkit_homing)
COMPOSITIONAL_HOMING = Computation("homing policies composed layer by layer",
                                   _compositional_homing)


def check_homing(case) -> Outcome:
    """``eta(s)`` is the maximum of ``P_pi(s)`` over every deterministic policy (enumerated), and
    the homing policy of ``s`` attains it."""
    mdp, computation = case
    values, homing = computation(mdp)
    best = enumerated_eta(mdp)
    for state in mdp.states:
        h, i = mdp.state_location[state]
        reached = state_visitation(mdp, homing[state])[h][i]
        if values[state] != best[state] or reached != best[state]:
            return Outcome(False, {
                "instance": spec(mdp), "computation": computation.name, "state": state,
                "eta_by_enumeration": number(best[state]), "eta": number(values[state]),
                "P_homing_policy(s)": number(reached),
                "homing_policy": policy_json(mdp, homing[state]),
            })
    return Outcome(True)


def _small_mdps(max_width: int = 3) -> st.SearchStrategy[BlockMDP]:
    """MDPs small enough to enumerate every deterministic policy."""
    return block_mdps(max_horizon=3, max_width=max_width, max_actions=2, max_observations=2,
                      max_splits=1)


register(Claim(
    label="def:homing",
    statement="eta(s) = max over deterministic non-stationary policies of P_pi(s) (enumerated), "
              "attained by homing_policy(s)",
    instances=lambda: st.tuples(_small_mdps(), st.just(TOOLKIT_HOMING)),
    check=check_homing,
    negative_control="homing policies composed from the previous layer's (Figure 1)",
    negative_instances=lambda: st.just((figure1_noncompositional(), COMPOSITIONAL_HOMING)),
))

# --- def:policy-cover -----------------------------------------------------------------------------


def _toolkit_cover(mdp: BlockMDP, cover: list[Policy]):
    return policy_cover_alpha(mdp, cover).alpha_per_layer, lambda a: is_policy_cover(mdp, cover, a)


def _mean_cover(mdp: BlockMDP, cover: list[Policy]):
    """A wrong computation: the cover's *mean* visitation instead of its best policy's."""
    values = eta(mdp)
    mean = [sum(v) / len(cover) for v in zip(*(state_visitation(mdp, p) for p in cover),
                                              strict=True)]
    alphas = tuple(min(mean[h][i] / values[s] for i, s in enumerate(layer))
                   for h, layer in enumerate(mdp.layers))
    return alphas, lambda a: min(alphas) >= a


TOOLKIT_COVER = Computation("policy_cover_alpha and is_policy_cover", _toolkit_cover)
MEAN_COVER = Computation("mean visitation of the cover", _mean_cover)


def check_policy_cover(case) -> Outcome:
    """alpha per layer = min over its states of max_{pi in Psi} P_pi(s) / eta(s), with eta by
    enumeration; Psi is an alpha'-cover for alpha' = alpha and alpha / 2, and for no larger
    alpha'."""
    mdp, cover, computation = case
    best = enumerated_eta(mdp)
    visits = [state_visitation(mdp, p) for p in cover]
    expected = tuple(
        min(max(v[h][i] for v in visits) / best[s] for i, s in enumerate(layer))
        for h, layer in enumerate(mdp.layers)
    )
    alphas, is_cover = computation(mdp, cover)
    alpha = min(expected)
    larger = (alpha + 1) / 2
    below = not (is_cover(alpha) and is_cover(alpha / 2))
    if tuple(alphas) != expected or below or (alpha < 1 and is_cover(larger)):
        return Outcome(False, {
            "instance": spec(mdp), "computation": computation.name,
            "cover": [policy_json(mdp, p) for p in cover],
            "alpha_per_layer_by_definition": number(list(expected)),
            "alpha_per_layer": number(list(alphas)),
            "is_cover(alpha)": is_cover(alpha), "is_cover(larger)": is_cover(larger),
        })
    return Outcome(True)


@st.composite
def _covers(draw: st.DrawFn, computation: Computation = TOOLKIT_COVER):
    mdp = draw(_small_mdps(max_width=2))
    cover = draw(st.lists(policies(mdp), min_size=1, max_size=3))
    if computation is MEAN_COVER:
        cover = [*cover, draw(policies(mdp, deterministic=True))]
    return mdp, cover, computation


register(Claim(
    label="def:policy-cover",
    statement="policy_cover_alpha is min_s max_{pi in Psi} P_pi(s) / eta(s) (eta enumerated); "
              "is_policy_cover holds at that alpha and not above",
    instances=_covers,
    check=check_policy_cover,
    negative_control="alpha from the cover's mean visitation instead of its best policy",
    negative_instances=lambda: _covers(MEAN_COVER),
))

# --- the canonical form (unlabelled definition of Section 3) -----------------------------------


def _toolkit_canonical(mdp: BlockMDP) -> BlockMDP:
    return canonical_form(mdp).mdp


def _identity_form(mdp: BlockMDP) -> BlockMDP:
    return mdp


TOOLKIT_CANONICAL = Computation("canonical_form", _toolkit_canonical)
IDENTITY_FORM = Computation("the MDP itself (no merging)", _identity_form)


def check_canonical_form(case) -> Outcome:
    """In the computed form, two observations share a state iff they are KI (def:ki, computed by
    definition on the form itself), and the form has the original's observations."""
    mdp, computation = case
    form = computation(mdp)
    keys = definition_keys(form, "ki")
    for h, names in enumerate(form.observations):
        for x, y in itertools.combinations(range(len(names)), 2):
            same_state = form.emission_state[h][x] == form.emission_state[h][y]
            if same_state != (keys[h][x] == keys[h][y]):
                return Outcome(False, {"instance": spec(mdp), "computation": computation.name,
                                       "form": spec(form), "layer": h + 1,
                                       "observations": [names[x], names[y]],
                                       "same_state": bool(same_state)})
    if [sorted(x) for x in form.observations] != [sorted(x) for x in mdp.observations]:
        return Outcome(False, {"instance": spec(mdp), "form": spec(form),
                               "message": "the form's observations differ"})
    return Outcome(True)


@st.composite
def _non_canonical(draw: st.DrawFn):
    mdp = draw(block_mdps(max_horizon=3, max_observations=2, max_splits=2))
    assume(ki_partition(mdp).number_of_blocks < len(mdp.states))
    return mdp, IDENTITY_FORM


register(Claim(
    label="def:canonical-form",
    statement="canonical_form's output is in canonical form: observations share a state iff "
              "they are KI",
    instances=lambda: st.tuples(block_mdps(max_horizon=3, max_observations=2, max_splits=2),
                                st.just(TOOLKIT_CANONICAL)),
    check=check_canonical_form,
    negative_control="the MDP itself as its 'form', on MDPs with KI states to merge",
    negative_instances=_non_canonical,
))

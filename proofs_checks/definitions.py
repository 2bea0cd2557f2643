"""The definitions of Sections 2 and 3 as checks: ``def:homing``, ``def:policy-cover``,
``def:bki``, ``def:fki``, ``def:ki`` and the (unlabelled) definition of the canonical form.

Each toolkit computation is compared with a computation taken straight from the definition and
independent of the algorithm that implements it:

- backward KI: the backward dynamics ``P_u(x, a | x')`` under a full-support prior ``u`` over
  ``X x A`` (drawn by Hypothesis), compared for every pair of observations;
- forward KI: the transition rows ``T(. | x, a)`` of every action, compared for every pair, on
  instances that include copies of a state apart on one action only or with two actions' rows
  swapped (:func:`rows_apart_on_few_actions`);
- ``eta`` and cover quality: enumeration of every deterministic non-stationary policy;
- the canonical form: the KI partition of the form, by definition, and the observation process
  it generates, every observation-action trajectory's probability under the uniform policy
  compared exactly with the original's (:func:`observation_process_difference`).

The partition comparison (:func:`partition_failure`) reports wrong merges *and* wrong splits, and
the other partition-related claims of ``proofs_checks`` call it on the partition they use.
Conventions of the ends, as in :mod:`kinematic.inseparability`: every first-layer observation is
backward KI with every other, every last-layer observation is forward KI with every other.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from kinematic.canonical import canonical_form
from kinematic.counterexamples.mdps import figure1_noncompositional
from kinematic.cover import is_policy_cover, policy_cover_alpha
from kinematic.families import split_state
from kinematic.homing import eta, homing_policy
from kinematic.inseparability import backward_ki_partition, forward_ki_partition, ki_partition
from kinematic.model import BlockMDP
from kinematic.planning import observation_labels
from kinematic.policies import Policy, uniform_policy
from kinematic.quotient import Quotient
from kinematic.spec import from_spec, to_spec
from kinematic.strategies import block_mdps, policies
from kinematic.visitation import state_visitation, trajectory_distribution
from proofs_checks.registry import Claim, Outcome, register
from proofs_checks.witness import number, policy_json, spec

__all__ = [
    "Computation",
    "Relation",
    "backward_partition_violation",
    "definition_keys",
    "deterministic_policies",
    "equal_member_shares",
    "merged_backward_partition",
    "observation_process_difference",
    "one_member_start",
    "partition_failure",
    "rows_apart_on_few_actions",
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
def rows_apart_on_few_actions(draw: st.DrawFn) -> BlockMDP:
    """A generated MDP (two actions or more) with a state ``s`` of a layer before the last split
    into three KI copies (``split_state`` twice: ``s/a``, ``s/b/a``, ``s/b/b``), then the rows
    of two of them changed so that they are not forward KI (``def:fki``) with ``s/a`` while all
    stay backward KI: ``s/b/a`` moves to a point mass elsewhere on one action (its rows agree with
    those of ``s/a`` on every other action), and ``s/b/b`` has the rows of two actions swapped
    (their sum over actions agrees with ``s/a``'s; when every action has the same row, ``s/b/b``
    too moves elsewhere on one action, drawn anew). Random rows rarely agree on all actions but
    one: a forward partition that compares one action only, or the sum over actions, merges
    these copies.

    The MDP is returned unchanged when no state has a next layer of two states or more.

    >>> from hypothesis import find, settings
    >>> def swapped(mdp):
    ...     rows = to_spec(mdp)["transitions"]
    ...     return "s1_0/b/b" in rows and all(rows["s1_0/b/b"][a] != rows["s1_0/a"][a]
    ...                                       for a in mdp.actions)
    >>> quiet = settings(settings.get_profile("default"), database=None, derandomize=True)
    >>> mdp = find(rows_apart_on_few_actions(), swapped, settings=quiet)
    >>> for state in ("s1_0/a", "s1_0/b/a", "s1_0/b/b"):
    ...     print(state, to_spec(mdp)["transitions"][state])
    s1_0/a {'a0': {'s2_0': '1'}, 'a1': {'s2_1': '1'}}
    s1_0/b/a {'a0': {'s2_1': '1'}, 'a1': {'s2_1': '1'}}
    s1_0/b/b {'a0': {'s2_1': '1'}, 'a1': {'s2_0': '1'}}
    """
    mdp = draw(block_mdps(min_horizon=2, max_horizon=3, min_actions=2, max_observations=2,
                          max_splits=1))
    candidates = [s for s in mdp.states if mdp.state_location[s][0] + 1 < mdp.horizon
                  and mdp.width(mdp.state_location[s][0] + 1) > 1]
    if not candidates:
        return mdp
    state = draw(st.sampled_from(candidates))
    following = mdp.layers[mdp.state_location[state][0] + 1]
    copies = split_state(mdp, state, weight=Fraction(draw(st.integers(1, 4)), 5))
    copies = split_state(copies, f"{state}/b", weight=Fraction(draw(st.integers(1, 4)), 5))
    result = to_spec(copies)
    original = result["transitions"][f"{state}/a"]

    def moved_on_one_action() -> dict[str, dict[str, str]]:
        action = draw(st.sampled_from(mdp.actions))
        target = draw(st.sampled_from([t for t in following if list(original[action]) != [t]]))
        return {**original, action: {target: "1"}}

    result["transitions"][f"{state}/b/a"] = moved_on_one_action()
    different = [(a, b) for a, b in itertools.combinations(mdp.actions, 2)
                 if original[a] != original[b]]
    if different:
        first, second = draw(st.sampled_from(different))
        swapped = {**original, first: original[second], second: original[first]}
    else:
        swapped = moved_on_one_action()
    result["transitions"][f"{state}/b/b"] = swapped
    return from_spec(result)


@st.composite
def _partition_cases(draw: st.DrawFn, relation: Relation, wrong: bool = False):
    mdp = draw(st.one_of(block_mdps(max_horizon=3, max_observations=2, max_splits=2),
                         rows_apart_on_few_actions()))
    weights = draw(st.lists(st.integers(1, 5), min_size=1, max_size=4))
    computation = draw(st.sampled_from([SINGLETONS, ONE_CLASS])) if wrong else PARTITIONS[relation]
    if wrong:
        assume(partition_failure(mdp, relation, computation(mdp), weights) is not None)
    return relation, mdp, weights, computation


_PARTITION_CLAIMS: tuple[tuple[Relation, str, str], ...] = (
    ("backward", "def:bki", "backward_ki_partition groups x1', x2' iff P_u(x, a | x1') = "
                            "P_u(x, a | x2') under a full-support prior u over X x A"),
    ("forward", "def:fki", "forward_ki_partition groups x1, x2 iff T(. | x1, a) = T(. | x2, a) "
                           "for every action a"),
    ("ki", "def:ki", "ki_partition groups two observations iff they are backward and forward KI "
                     "by the definitions"),
)
for _relation, _label, _statement in _PARTITION_CLAIMS:
    register(Claim(
        label=_label,
        statement=_statement,
        instances=functools.partial(_partition_cases, _relation),
        check=check_partition_definition,
        negative_control="a wrong partition: singletons (wrong splits) or one class per layer "
                         "(wrong merges)",
        negative_instances=functools.partial(_partition_cases, _relation, wrong=True),
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
    values = dict(eta(mdp).by_state)
    return values, {s: homing_policy(mdp, s) for s in mdp.states}


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
            visits = [state_visitation(mdp, p)[h][i] for p in candidates]
            chosen[state] = candidates[visits.index(max(visits))]
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
    alphas = tuple(min(mean[h] / values[h]) for h in range(mdp.horizon))
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


def _first_layers(mdp: BlockMDP, layers: int) -> BlockMDP:
    """``mdp`` cut after its first ``layers`` layers (the process it generates up to ``x_h``,
    ``a_h`` for ``h = layers``)."""
    return dataclasses.replace(
        mdp, layers=mdp.layers[:layers], transitions=mdp.transitions[:layers - 1],
        observations=mdp.observations[:layers], emission_state=mdp.emission_state[:layers],
        emission_probability=mdp.emission_probability[:layers], rewards=mdp.rewards[:layers],
        reward_distributions={key: value for key, value in mdp.reward_distributions.items()
                              if key[0] < layers})


def observation_process_difference(mdp: BlockMDP, other: BlockMDP) -> dict[str, Any] | None:
    """The first observation-action trajectory ``(x_1, a_1, ..., x_h, a_h)``, ``h`` as small
    as possible, whose probability under the uniform policy differs between ``mdp`` and
    ``other`` (Block MDPs of the same horizon, over the same observation names), with both
    probabilities; None when the two generate the same observation process.

    One full-support policy is enough: the probability of a trajectory is the product of the
    policy's factors ``pi(a_h | x_h) > 0`` and of the process's own (start, emission and
    transition) factors, so equal trajectory distributions under it are equal under every
    policy. Trajectories of ``h = 1`` weigh the start; each ``h`` is computed by
    ``trajectory_distribution`` on the first ``h`` layers, so a factor that is not a
    probability (a start, emission or transition row not summing to 1) shows in its own layer.

    >>> from kinematic import canonical_form, figure2_split
    >>> split = figure2_split()
    >>> observation_process_difference(split, canonical_form(split).mdp) is None
    True
    >>> wrong = equal_member_shares(split, canonical_form(split))
    >>> difference = observation_process_difference(split, wrong)
    >>> difference["layer"], difference["trajectory"], difference["P_uniform(trajectory)"]
    (2, 's1 a x2a a', ['4/5', '1/2'])
    """
    if other.horizon != mdp.horizon:
        raise ValueError(f"other: horizon {other.horizon}, but mdp has horizon {mdp.horizon}")
    for h in range(1, mdp.horizon + 1):
        sides = [trajectory_distribution(m, uniform_policy(m))
                 for m in (_first_layers(mdp, h), _first_layers(other, h))]
        for trajectory in sorted(sides[0].keys() | sides[1].keys()):
            probabilities = [side.get(trajectory, 0) for side in sides]
            if probabilities[0] != probabilities[1]:
                return {"layer": h, "trajectory": " ".join(trajectory), "policy": "uniform",
                        "P_uniform(trajectory)": number(probabilities)}
    return None


def _toolkit_canonical(mdp: BlockMDP) -> BlockMDP:
    return canonical_form(mdp).mdp


def _identity_form(mdp: BlockMDP) -> BlockMDP:
    return mdp


def one_member_start(mdp: BlockMDP, result: Quotient) -> BlockMDP:
    """A wrong form: the merge ``result`` of ``mdp`` with each merged first-layer state starting
    with the start probability of its first member, renormalised over the layer (instead of
    the sum over its members).

    >>> from kinematic import block_mdp, canonical_form
    >>> mdp = block_mdp(name="twins", layers=[["s", "twin", "t"], ["u", "v"]], actions=["a"],
    ...                 start={"s": "1/8", "twin": "3/8", "t": "1/2"},
    ...                 transitions={"s": {"a": {"u": 1}}, "twin": {"a": {"u": 1}},
    ...                              "t": {"a": {"v": 1}}})
    >>> canonical_form(mdp).mdp.start.tolist()
    [Fraction(1, 2), Fraction(1, 2)]
    >>> one_member_start(mdp, canonical_form(mdp)).start.tolist()
    [Fraction(1, 5), Fraction(4, 5)]
    """
    first_member: dict[str, str] = {}
    for state in mdp.layers[0]:
        first_member.setdefault(result.state_map[state], state)
    weights = [mdp.start[mdp.state_location[first_member[s]][1]] for s in result.mdp.layers[0]]
    start = np.array([w / sum(weights) for w in weights], dtype=object)
    return dataclasses.replace(result.mdp, start=start)


def equal_member_shares(mdp: BlockMDP, result: Quotient) -> BlockMDP:
    """A wrong form: the merge ``result`` of ``mdp`` with a merged state ``C`` emitting each
    member's observation ``x`` with ``q(x | s) / |C|`` (members weighted equally, instead of by
    their share of the visits ``P_pi(s) / P_pi(C)``).

    >>> from kinematic import canonical_form, figure2_split
    >>> split = figure2_split()
    >>> canonical_form(split).mdp.observations_of("s2a+s2b")
    {'x2a': Fraction(4, 5), 'x2b': Fraction(1, 5)}
    >>> equal_member_shares(split, canonical_form(split)).observations_of("s2a+s2b")
    {'x2a': Fraction(1, 2), 'x2b': Fraction(1, 2)}
    """
    form = result.mdp
    sizes = Counter(result.state_map.values())
    emission_probability = tuple(
        np.array([mdp.emission_probability[h][mdp.observation_location[x][1]]
                  / sizes[form.layers[h][form.emission_state[h][i]]]
                  for i, x in enumerate(names)], dtype=object)
        for h, names in enumerate(form.observations))
    return dataclasses.replace(form, emission_probability=emission_probability)


TOOLKIT_CANONICAL = Computation("canonical_form", _toolkit_canonical)
IDENTITY_FORM = Computation("the MDP itself (no merging)", _identity_form)
ONE_MEMBER_START = Computation("canonical_form with the start of one member per merged state",
                               lambda m: one_member_start(m, canonical_form(m)))
EQUAL_MEMBER_SHARES = Computation("canonical_form with members' emissions weighted equally",
                                  lambda m: equal_member_shares(m, canonical_form(m)))


def check_canonical_form(case) -> Outcome:
    """The computed form has the original's observations; two of them share a state iff they
    are KI (def:ki, computed by definition on the form itself); and the form generates the
    original's observation process (:func:`observation_process_difference`: every
    observation-action trajectory, start weights included, has the same probability)."""
    mdp, computation = case
    form = computation(mdp)

    def violation(**details: Any) -> Outcome:
        return Outcome(False, {"instance": spec(mdp), "computation": computation.name,
                               "form": spec(form), **details})

    if [sorted(x) for x in form.observations] != [sorted(x) for x in mdp.observations]:
        return violation(message="the form's observations differ")
    keys = definition_keys(form, "ki")
    for h, names in enumerate(form.observations):
        for x, y in itertools.combinations(range(len(names)), 2):
            same_state = form.emission_state[h][x] == form.emission_state[h][y]
            if same_state != (keys[h][x] == keys[h][y]):
                return violation(layer=h + 1, observations=[names[x], names[y]],
                                 same_state=bool(same_state))
    difference = observation_process_difference(mdp, form)
    if difference is not None:
        return violation(message="the form generates another observation process", **difference)
    return Outcome(True)


def _canonical_forms_differ(first: BlockMDP, second: BlockMDP) -> bool:
    return (list(first.start) != list(second.start)
            or any(list(p) != list(q) for p, q in zip(first.emission_probability,
                                                      second.emission_probability, strict=True)))


@st.composite
def _wrong_canonical_forms(draw: st.DrawFn):
    """An MDP with KI states to merge and a wrong form of it: the MDP itself (wrong partition),
    or a form whose start or emission weights are not the merge's (wrong observation
    process)."""
    mdp = draw(block_mdps(max_horizon=3, max_observations=2, max_splits=2))
    assume(ki_partition(mdp).number_of_blocks < len(mdp.states))
    computation = draw(st.sampled_from([IDENTITY_FORM, ONE_MEMBER_START, EQUAL_MEMBER_SHARES]))
    if computation is not IDENTITY_FORM:
        assume(_canonical_forms_differ(computation(mdp), canonical_form(mdp).mdp))
    return mdp, computation


register(Claim(
    label="def:canonical-form",
    statement="canonical_form's output is in canonical form (observations share a state iff "
              "they are KI) and generates the original's observation process",
    instances=lambda: st.tuples(block_mdps(max_horizon=3, max_observations=2, max_splits=2),
                                st.just(TOOLKIT_CANONICAL)),
    check=check_canonical_form,
    negative_control="on MDPs with KI states to merge, a wrong form: the MDP itself (no "
                     "merging), or canonical_form with one member's start or with members' "
                     "emissions weighted equally",
    negative_instances=_wrong_canonical_forms,
))

"""Section 3 and Appendix ``app:appendix-kinematic-inseparability``: kinematic inseparability.

Claims are checked on observations (``proofs_checks.observation_process``) or on the partitions
of :mod:`kinematic.inseparability`, always against a definition computed another way.
"""

from __future__ import annotations

import itertools
import re
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from kinematic.canonical import canonical_form
from kinematic.families import (
    combination_lock,
    figure2_canonical,
    figure2_split,
    split_state,
    unequal_split,
)
from kinematic.homing import eta
from kinematic.inseparability import backward_ki_partition, forward_ki_partition, ki_partition
from kinematic.model import BlockMDP
from kinematic.planning import observation_labels, optimal_values
from kinematic.policies import transfer_policy
from kinematic.spec import from_spec, to_spec
from kinematic.strategies import block_mdps, policies, separable_pairs
from kinematic.visitation import observation_visitation, trajectory_distribution
from proofs_checks.definitions import (
    PARTITIONS,
    Computation,
    backward_partition_violation,
    merged_backward_partition,
)
from proofs_checks.observation_process import (
    latent_model,
    observation_process,
    with_overlapping_emission,
)
from proofs_checks.registry import Claim, Outcome, register
from proofs_checks.witness import number, policy_json, spec

# --- the three notions are equivalence relations (the unlabelled Fact of the appendix) -------


def _relation_failure(mdp: BlockMDP, related) -> dict | None:
    """First violation of reflexivity, symmetry or transitivity of ``related(h, x, y)``."""
    for h, names in enumerate(mdp.observations):
        indices = range(len(names))
        for x in indices:
            if not related(h, x, x):
                return {"property": "reflexive", "observations": [names[x]]}
        for x, y in itertools.permutations(indices, 2):
            if related(h, x, y) != related(h, y, x):
                return {"property": "symmetric", "observations": [names[x], names[y]]}
        for x, y, z in itertools.permutations(indices, 3):
            if related(h, x, y) and related(h, y, z) and not related(h, x, z):
                return {"property": "transitive", "observations": [names[x], names[y], names[z]]}
    return None


def _definitions(process) -> dict:
    return {"forward": process.forward_ki, "backward": process.backward_ki, "ki": process.ki}


APPROXIMATE_TOLERANCE = Fraction(1, 10)


def _approximate_forward(process) -> dict:
    """A deliberately wrong relation: forward "KI" as rows equal up to 1/10 in the max norm."""
    last = len(process.observations) - 1

    def close(h: int, x: int, y: int) -> bool:
        if h == last:
            return True
        difference = process.transitions[h][x] - process.transitions[h][y]
        return max(abs(v) for v in difference.reshape(-1)) <= APPROXIMATE_TOLERANCE

    return {"rows within 1/10": close}


DEFINITIONS = Computation("def:fki, def:bki, def:ki", _definitions)
APPROXIMATE_FORWARD = Computation("forward KI up to 1/10", _approximate_forward)


def check_equivalence(case) -> Outcome:
    """Each relation of ``case`` is reflexive, symmetric and transitive on every layer."""
    mdp, relations = case
    process = observation_process(latent_model(mdp))
    for name, related in relations(process).items():
        failure = _relation_failure(mdp, related)
        if failure:
            return Outcome(False, {"instance": spec(mdp), "relation": name, **failure})
    return Outcome(True)


@st.composite
def _chains(draw: st.DrawFn):
    """Three states whose rows step by 3/40..1/10 twice: neighbours within 1/10, ends not."""
    step = Fraction(draw(st.integers(3, 4)), 40)
    rows = {f"s2_{k}": {"a": {"s3_0": str(Fraction(1, 4) + k * step),
                              "s3_1": str(Fraction(3, 4) - k * step)}} for k in range(3)}
    return from_spec({
        "name": "chain", "horizon": 3, "actions": ["a"],
        "layers": [["s1"], list(rows), ["s3_0", "s3_1"]], "start": {"s1": "1"},
        "transitions": {"s1": {"a": dict.fromkeys(rows, "1/3")}, **rows},
    }), APPROXIMATE_FORWARD


register(Claim(
    label="app:appendix-kinematic-inseparability",
    statement="Fact: forward KI, backward KI and KI are equivalence relations on observations",
    instances=lambda: st.tuples(
        block_mdps(max_horizon=3, max_width=3, max_observations=2, max_splits=2),
        st.just(DEFINITIONS)),
    check=check_equivalence,
    negative_control="'forward KI' weakened to rows equal within 1/10 (not transitive)",
    negative_instances=_chains,
))

# --- lem:state-inseparable -------------------------------------------------------------------


def check_state_inseparable(model) -> Outcome:
    """Observations that share an emitting state are KI (forward and backward)."""
    process = observation_process(model)
    for h, names in enumerate(process.observations):
        for x, y in itertools.combinations(range(len(names)), 2):
            if process.emitters[h][x] & process.emitters[h][y] and not process.ki(h, x, y):
                return Outcome(False, {
                    "instance": spec(model.mdp),
                    "emissions_layer": h + 1,
                    "emission_matrix": number(model.emissions[h].tolist()),
                    "observations": [names[x], names[y]],
                    "forward_ki": process.forward_ki(h, x, y),
                    "backward_ki": process.backward_ki(h, x, y),
                    "rows": number([process.transitions[h][x].tolist(),
                                    process.transitions[h][y].tolist()])
                    if h + 1 < len(process.observations) else None,
                })
    return Outcome(True)


@st.composite
def _overlapping(draw: st.DrawFn):
    """A generated MDP whose emissions are made to overlap in a layer with two states of
    different outgoing rows (Assumption 1 dropped)."""
    mdp = draw(block_mdps(min_horizon=3, max_horizon=3, max_splits=0))
    candidates = [
        (h, i, j)
        for h in range(mdp.horizon - 1)
        for i, j in itertools.permutations(range(mdp.width(h)), 2)
        if not (mdp.transition_tensor(h)[i] == mdp.transition_tensor(h)[j]).all()
    ]
    assume(candidates)
    h, i, j = draw(st.sampled_from(candidates))
    return with_overlapping_emission(mdp, h, i, j)


register(Claim(
    label="lem:state-inseparable",
    statement="observations emitted by the same state are KI (hence forward and backward KI)",
    instances=lambda: block_mdps(max_horizon=3, max_observations=3, max_splits=1).map(
        latent_model),
    check=check_state_inseparable,
    negative_control="drop disjoint emissions: one observation emitted by two states",
    negative_instances=_overlapping,
))

# --- fact:time-separable ---------------------------------------------------------------------


START, END = "<start>", "<end>"
"""The global process has a start observation (leading to the first layer under every action)
and an end observation (reached from the last layer), so no observation has an empty row or
column."""


def _time_agnostic(name: str) -> str:
    """``s12a`` -> ``sa``, ``s3_1`` -> ``s_1``: the name without its time step."""
    return re.sub(r"^s\d+", "s", name)


def _keep_name(name: str) -> str:
    return name


KEEP_NAMES = Computation("observation names as they are", _keep_name)
DROP_TIME = Computation("observation names without their time step", _time_agnostic)


def global_process(mdp: BlockMDP, rename) -> dict[tuple[int, str], dict[tuple[str, str], Any]]:
    """``T(x' | x, a)`` on the union of all layers: for every ``(time step, observation)`` its
    row keyed by ``(action, renamed next observation)``, with no time step in the keys. Only the
    names say which time step an observation belongs to."""
    rows: dict[tuple[int, str], dict[tuple[str, str], Any]] = {
        (-1, START): {(a, rename(x)): p for a in mdp.actions
                      for x, p in _first_layer_distribution(mdp).items()}}
    for h in range(mdp.horizon):
        tensor = None if h + 1 == mdp.horizon else mdp.observation_transition_tensor(h)
        for x, observation in enumerate(mdp.observations[h]):
            row: dict[tuple[str, str], Any] = {}
            for a, action in enumerate(mdp.actions):
                if tensor is None:  # the last layer
                    row[action, END] = 1
                    continue
                for y, target in enumerate(mdp.observations[h + 1]):
                    if tensor[x, a, y] != 0:
                        key = (action, rename(target))
                        row[key] = row.get(key, 0) + tensor[x, a, y]
            rows[h, observation] = row
    return rows


def _first_layer_distribution(mdp: BlockMDP) -> dict[str, Any]:
    matrix = mdp.emission_matrix(0)
    return {x: sum(mdp.start[i] * matrix[i, k] for i in range(len(mdp.start)))
            for k, x in enumerate(mdp.observations[0])}


def check_time_separable(case) -> Outcome:
    """On the global observation process (all layers, start and end observations), pairs that
    are forward KI (equal rows) or backward KI (proportional columns over every ``(x, a)``) are
    at the same time step."""
    mdp, rename = case
    rows = global_process(mdp, rename)
    columns: dict[str, dict[tuple[str, str], Any]] = {}
    for (_, source), row in rows.items():
        for (action, target), p in row.items():
            columns.setdefault(target, {})[rename(source), action] = p
    keys = [key for key in rows if key[0] >= 0]
    for (h1, x1), (h2, x2) in itertools.combinations(keys, 2):
        if h1 == h2:
            continue
        forward = rows[h1, x1] == rows[h2, x2]
        c1, c2 = columns.get(rename(x1), {}), columns.get(rename(x2), {})
        backward = set(c1) == set(c2) and len({c1[k] / c2[k] for k in c1}) == 1
        if forward or backward:
            return Outcome(False, {
                "instance": spec(mdp), "names": rename.name,
                "observations": [[h1 + 1, x1], [h2 + 1, x2]],
                "forward_ki": forward, "backward_ki": backward,
                "forward_rows": [number({f"{a}->{t}": p for (a, t), p in rows[h1, x1].items()}),
                                 number({f"{a}->{t}": p for (a, t), p in rows[h2, x2].items()})],
            })
    return Outcome(True, {"observations": len(keys)})


register(Claim(
    label="fact:time-separable",
    statement="observations that are forward or backward KI are reachable at the same time step",
    instances=lambda: st.tuples(block_mdps(max_horizon=4, max_width=2, max_splits=1),
                                st.just(KEEP_NAMES)),
    check=check_time_separable,
    negative_control="time not observable: names without their time step (s3c and s4c become "
                     "'sc'), on combination locks",
    negative_instances=lambda: st.tuples(
        st.builds(combination_lock, st.integers(3, 5), st.integers(2, 4), st.integers(0, 50)),
        st.just(DROP_TIME)),
))

# --- lem:bki-ratio ---------------------------------------------------------------------------


def _backward_dynamics(tensor: np.ndarray, prior: np.ndarray, target: int) -> list | None:
    """``P_u(x, a | x')`` for all ``(x, a)`` (None when ``x'`` has no incoming mass under ``u``)."""
    weights = (tensor[:, :, target] * prior).reshape(-1)
    total = weights.sum()
    return None if total == 0 else list(weights / total)


def check_bki_ratio(case) -> Outcome:
    """For every pair of observations of a layer h >= 2:
    (eq:bki-ratio with u(x') = sum_{x,a} T(x'|x,a) u~(x,a), u~ uniform)  <=>  (def:bki's backward
    dynamics agree under a full-support prior)  <=>  (same block of backward_ki_partition).

    ``prior_kind="point"`` is the negative control: def:bki tested with a prior concentrated on
    one ``(x, a)`` that leads to both observations (not of full support).
    """
    mdp, prior_kind = case
    labels = observation_labels(mdp, backward_ki_partition(mdp).labels)
    for h in range(1, mdp.horizon):
        tensor = mdp.observation_transition_tensor(h - 1)
        u = tensor.sum(axis=(0, 1))  # u~ uniform (unnormalised)
        full_prior = np.array(
            [[Fraction(1 + (x + 2 * a) % 3) for a in range(tensor.shape[1])]
             for x in range(tensor.shape[0])], dtype=object)
        for first, second in itertools.combinations(range(tensor.shape[2]), 2):
            ratio = all(
                tensor[x, a, first] * u[second] == tensor[x, a, second] * u[first]
                for x in range(tensor.shape[0]) for a in range(tensor.shape[1])
            )
            if prior_kind == "full":
                prior = full_prior
            else:
                both = np.argwhere((tensor[:, :, first] != 0) & (tensor[:, :, second] != 0))
                if not len(both):
                    continue
                prior = np.zeros(tensor.shape[:2], dtype=object)
                prior.fill(Fraction(0))
                prior[tuple(both[0])] = Fraction(1)
            left = _backward_dynamics(tensor, prior, first)
            right = _backward_dynamics(tensor, prior, second)
            definition = left is not None and left == right
            partition = labels[h][first] == labels[h][second]
            if not ratio == definition == partition:
                names = mdp.observations[h]
                return Outcome(False, {
                    "instance": spec(mdp), "observations": [names[first], names[second]],
                    "ratio_identity": ratio, "def_bki_with_prior": definition,
                    "same_backward_block": bool(partition), "prior": number(prior.tolist()),
                    "backward_dynamics": number([left, right]),
                })
    return Outcome(True)


register(Claim(
    label="lem:bki-ratio",
    statement="a set is backward KI iff T(x'|x,a)/u(x') is the same for its members, for some "
              "full-support u",
    instances=lambda: st.tuples(block_mdps(max_horizon=3, max_observations=2, max_splits=2),
                                st.just("full")),
    check=check_bki_ratio,
    negative_control="test def:bki with a prior on a single (x, a), not of full support",
    negative_instances=lambda: st.tuples(separable_pairs().map(lambda case: case[0]),
                                         st.just("point")),
))

# --- lem:bki-policy-ratio --------------------------------------------------------------------


def _observation_sets(names: list[str]) -> list[list[str]]:
    """Non-empty subsets of a block (all of them up to 4 members, else singletons and halves)."""
    if len(names) <= 4:
        return [list(c) for k in range(1, len(names) + 1) for c in itertools.combinations(names, k)]
    return [[n] for n in names] + [names[: len(names) // 2], names[len(names) // 2:]]


def _observation_blocks(mdp: BlockMDP, state_labels) -> list[list[str]]:
    """The observations of each block of per-layer state labels."""
    blocks: dict[tuple[int, int], list[str]] = {}
    for h, layer in enumerate(mdp.layers):
        for i, state in enumerate(layer):
            blocks.setdefault((h, int(state_labels[h][i])), []).extend(mdp.observations_of(state))
    return list(blocks.values())


def check_policy_ratio(case) -> Outcome:
    """Inside every block of the backward partition (computed by ``case``'s computation), all
    subsets ``X1, X2`` satisfy ``P_pi1(X1) P_pi2(X2) = P_pi1(X2) P_pi2(X1)``; and the partition is
    def:bki's (no wrong merge, no wrong split)."""
    mdp, first_policy, second_policy, computation = case
    labels = computation(mdp)
    visits = [
        {x: p for h, values in enumerate(observation_visitation(mdp, policy))
         for x, p in zip(mdp.observations[h], values, strict=True)}
        for policy in (first_policy, second_policy)
    ]
    for block in _observation_blocks(mdp, labels):
        for one, two in itertools.combinations(_observation_sets(block), 2):
            p11, p21 = (sum(v[x] for x in one) for v in visits)
            p12, p22 = (sum(v[x] for x in two) for v in visits)
            if p11 * p22 != p12 * p21:
                return Outcome(False, {
                    "instance": spec(mdp), "partition": computation.name, "block": block,
                    "subsets": [one, two],
                    "policies": [policy_json(mdp, first_policy), policy_json(mdp, second_policy)],
                    "P_pi1(X1) * P_pi2(X2)": number(p11 * p22),
                    "P_pi1(X2) * P_pi2(X1)": number(p12 * p21),
                })
    return backward_partition_violation(mdp, labels, partition=computation.name) or Outcome(True)


@st.composite
def _mdp_and_two_policies(draw: st.DrawFn):
    mdp = draw(block_mdps(max_horizon=3, max_observations=2, max_splits=2))
    return mdp, draw(policies(mdp)), draw(policies(mdp)), PARTITIONS["backward"]


def _separable_pair_as_block(case):
    """``(mdp, pi1, pi2, partition)`` with the blocks of an unequally split pair merged."""
    mdp, first, second, first_policy, second_policy = case
    return mdp, first_policy, second_policy, merged_backward_partition(first, second)


register(Claim(
    label="lem:bki-policy-ratio",
    statement="for X1, X2 inside a backward KI set and any pi1, pi2: "
              "P_pi1(X1)/P_pi2(X1) = P_pi1(X2)/P_pi2(X2)",
    instances=_mdp_and_two_policies,
    check=check_policy_ratio,
    negative_control="treat a separable pair (unequal split) as a block",
    negative_instances=lambda: separable_pairs().map(_separable_pair_as_block),
))

# --- lem:abstraction-policy ------------------------------------------------------------------


def check_abstraction_policy(case) -> Outcome:
    """For every block of the backward partition (computed by ``case``'s computation), the
    optimal policy for the reward ``1{x in block}`` reaches every member ``x`` with probability
    ``eta(x)``; and the partition is def:bki's."""
    mdp, computation = case
    labels = computation(mdp)
    eta_states = eta(mdp)
    for block in _observation_blocks(mdp, labels):
        h = mdp.observation_location[block[0]][0]
        rewards = [mdp.mode.zeros((len(x), mdp.number_of_actions)) for x in mdp.observations]
        for observation in block:
            rewards[h][mdp.observation_location[observation][1], :] = mdp.mode.scalar(1)
        policy = optimal_values(mdp, tuple(rewards)).policy
        visits = observation_visitation(mdp, policy)[h]
        for observation in block:
            x = mdp.observation_location[observation][1]
            state = mdp.emission_state[h][x]
            best = eta_states[h][state] * mdp.emission_probability[h][x]
            if visits[x] != best:
                return Outcome(False, {
                    "instance": spec(mdp), "partition": computation.name, "set": block,
                    "observation": observation,
                    "optimal_policy_for_set_reward": policy_json(mdp, policy),
                    "P_pi(x)": number(visits[x]), "eta(x)": number(best),
                })
    return backward_partition_violation(mdp, labels, partition=computation.name) or Outcome(True)


register(Claim(
    label="lem:abstraction-policy",
    statement="for a backward KI set X', the optimal policy for reward 1{x in X'} maximises "
              "P_pi(x') for every x' in X' simultaneously",
    instances=lambda: st.tuples(block_mdps(max_horizon=3, max_observations=2, max_splits=2),
                                st.just(PARTITIONS["backward"])),
    check=check_abstraction_policy,
    negative_control="use a set that is not backward KI (an unequally split state)",
    negative_instances=lambda: separable_pairs().map(
        lambda case: (case[0], merged_backward_partition(case[1], case[2]))),
))

# --- max(N_FD, N_BD) <= N_KD <= |S| (Section 3) ------------------------------------------------


def check_dimensions(model) -> Outcome:
    """``max(N_FD, N_BD) <= N_KD <= |S|`` for the observation-level partitions computed from the
    definitions; for a Block MDP (disjoint emissions) the toolkit's ``N_FD``, ``N_BD``, ``N_KD``
    (numbers of blocks of its partitions) equal them."""
    process = observation_process(model)
    n_fd, n_bd, n_kd = (process.number_of_classes(r) for r in ("forward", "backward", "ki"))
    states = sum(e.shape[0] for e in model.emissions)
    witness = {"N_FD": n_fd, "N_BD": n_bd, "N_KD": n_kd, "states": states}
    if all(len(emitters) == 1 for layer in process.emitters for emitters in layer):
        toolkit = {"N_FD": forward_ki_partition(model.mdp).number_of_blocks,
                   "N_BD": backward_ki_partition(model.mdp).number_of_blocks,
                   "N_KD": ki_partition(model.mdp).number_of_blocks}
        if toolkit != {k: witness[k] for k in toolkit}:
            return Outcome(False, {"instance": spec(model.mdp), "by_definition": witness,
                                   "toolkit": toolkit})
    if not max(n_fd, n_bd) <= n_kd <= states:
        return Outcome(False, {"instance": spec(model.mdp), **witness,
                               "emissions": [number(e.tolist()) for e in model.emissions]})
    return Outcome(True, witness)


register(Claim(
    label="sec:kinematic-inseparable",
    statement="max(N_FD, N_BD) <= N_KD <= |S| (observation-level partitions)",
    instances=lambda: block_mdps(max_horizon=3, max_observations=3, max_splits=2).map(
        latent_model),
    check=check_dimensions,
    negative_control="drop disjoint emissions: one observation emitted by two states",
    negative_instances=_overlapping,
))

# --- Figure fig:mdp-canonical ------------------------------------------------------------------


def _form_signature(mdp: BlockMDP) -> tuple:
    """A Block MDP up to state names: per layer its observations grouped by emitting state, and
    the observation-level start, emission and transition probabilities keyed by names."""
    groups = tuple(frozenset(frozenset(mdp.observations_of(s)) for s in layer)
                   for layer in mdp.layers)
    emissions = {x: mdp.emission_probability[h][i] for h, names in enumerate(mdp.observations)
                 for i, x in enumerate(names)}
    start = {x: mdp.start[mdp.emission_state[0][i]] for i, x in enumerate(mdp.observations[0])}
    transitions = {}
    for h in range(mdp.horizon - 1):
        tensor = mdp.observation_transition_tensor(h)
        for x, a, y in zip(*np.nonzero(tensor != 0), strict=True):
            transitions[mdp.observations[h][x], mdp.actions[a], mdp.observations[h + 1][y]] = \
                tensor[x, a, y]
    return groups, emissions, start, transitions


def check_state_split(case) -> Outcome:
    """``fig:mdp-canonical``: for ``case = (mdp, split, policy)``, where ``split`` is ``mdp``
    with one state split in two (:func:`kinematic.families.split_state`, or Figure 2's
    :func:`kinematic.figure2_split` of :func:`kinematic.figure2_canonical`), the original and
    its split emit the same observation process under the policy, exactly
    (:func:`kinematic.visitation.trajectory_distribution`), and
    :func:`kinematic.canonical_form` gives both the same canonical form up to state names."""
    mdp, split, policy = case
    original = trajectory_distribution(mdp, policy)
    transformed = trajectory_distribution(split, transfer_policy(policy, mdp, split))
    if original != transformed:
        difference = {
            " ".join(k): [number(original.get(k, 0)), number(transformed.get(k, 0))]
            for k in sorted(set(original) | set(transformed))
            if original.get(k, 0) != transformed.get(k, 0)
        }
        return Outcome(False, {"original": spec(mdp), "split": spec(split),
                               "policy": policy_json(mdp, policy),
                               "trajectories_that_differ": dict(list(difference.items())[:5])})
    forms = [canonical_form(m).mdp for m in (mdp, split)]
    if _form_signature(forms[0]) != _form_signature(forms[1]):
        return Outcome(False, {"original": spec(mdp), "split": spec(split),
                               "canonical_forms": [spec(f) for f in forms]})
    return Outcome(True)


@st.composite
def _splits(draw: st.DrawFn, unequal: bool = False):
    """``(mdp, split, policy)`` for observation-subset splits (Figure 2 included)."""
    if not unequal and draw(st.booleans()):
        mdp, split = figure2_canonical(), figure2_split()
    else:
        mdp = draw(block_mdps(min_horizon=2, max_horizon=3, max_width=2, max_actions=2,
                              max_observations=3, max_splits=0))
        states = [s for s in mdp.states if len(mdp.observations_of(s)) > 1
                  and mdp.state_location[s][0] > 0]
        assume(states)
        state = draw(st.sampled_from(states))
        observations = sorted(mdp.observations_of(state))
        chosen = draw(st.lists(st.sampled_from(observations), min_size=1,
                               max_size=len(observations) - 1, unique=True))
        if unequal:
            h = mdp.state_location[state][0]
            spec_dict = to_spec(mdp)
            predecessors = [(s, a) for s in mdp.layers[h - 1] for a in mdp.actions
                            if state in spec_dict["transitions"][s][a]]
            predecessor = draw(st.sampled_from(predecessors))
            split = unequal_split(mdp, state, predecessor, ("1/4", "3/4"), observations_a=chosen)
        else:
            split = split_state(mdp, state, observations_a=chosen)
    return mdp, split, draw(policies(mdp))


register(Claim(
    label="fig:mdp-canonical",
    statement="a state split into KI halves (Figure 2) leaves the observation process unchanged",
    instances=_splits,
    check=check_state_split,
    negative_control="split unequally (shares 1/4 from one predecessor, 3/4 from the others)",
    negative_instances=lambda: _splits(unequal=True),
))

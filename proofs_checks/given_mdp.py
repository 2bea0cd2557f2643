"""Every claim that applies to one given Block MDP, run on it: :func:`check` and
``python -m proofs_checks --spec FILE``.

``python -m proofs_checks`` checks each claim on Hypothesis-generated instances. Here the
instances are the given MDP and instances derived from it only: the policies, covers, layers,
prior weights and abstractions a claim quantifies over are drawn for that MDP; a state split
(``fig:mdp-canonical``, ``def:canonical-form``), an overlapping emission
(``lem:state-inseparable``) or a wrong partition is made from it. Each claim gets one of:

- *checked*: its check ran on those instances, with the report of
  :func:`proofs_checks.registry.run_claim` (violations, witness, the negative control);
- *not applicable*: the MDP breaks a hypothesis of the claim (float numbers where the checks
  compare exact rationals, a horizon of 1 where the claim is about layers ``h >= 2``, rewards
  outside ``[0, 1]`` where a theorem's sampled bound assumes them). Never a pass;
- *skipped*: the claim is not about one Block MDP (``needs generated families: ...``):
  Bernstein's inequality, the regression bounds, the contextual bandit, and existence
  statements such as ``prop:comp-homing``;
- *refused*: the claim's exact computation on this MDP is estimated above a limit (the message
  gives the estimate), instead of running for hours.

A negative control runs on the MDP (or an instance derived from it) only where it can fail
there. Where it fails on every such instance by construction (a wrong partition on an MDP
whose partition has several blocks, a label prior of 1/3, ...), not catching it is a *missed*
control, as in the registry. Where breaking the hypothesis need not break the conclusion on this
MDP (a capacity below ``N_BD``, a roll-in that is not a cover), the control runs and is reported
*caught* if the check fails, else *not applicable on this MDP* with the reason; so is a control
that cannot be built from the MDP at all (a wrong partition when every layer has one state).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import strategies as st

from kinematic.canonical import canonical_form
from kinematic.exogenous import ExogenousBlockMDP
from kinematic.families import split_state, unequal_split
from kinematic.homing import eta, eta_min, homing_policy
from kinematic.inseparability import backward_ki_partition, ki_partition
from kinematic.model import BlockMDP
from kinematic.policies import Policy, state_policy, uniform_policy
from kinematic.spec import to_spec
from kinematic.strategies import policies, separable_pairs
from kinematic.visitation import state_visitation
from proofs_checks import (
    definitions,
    exogenous,
    homer_analysis,
    homer_guarantees,
    inseparability,
    planning,
)
from proofs_checks.definitions import (
    MAX_ENUMERATED_POLICIES,
    ONE_CLASS,
    PARTITIONS,
    SINGLETONS,
    Computation,
    merged_backward_partition,
)
from proofs_checks.observation_process import (
    latent_model,
    observation_process,
    with_overlapping_emission,
)
from proofs_checks.preliminaries import Objective, reward_objectives
from proofs_checks.registry import (
    MIN_NEGATIVE_EXAMPLES,
    SHRINK_BUDGET,
    Claim,
    ClaimReport,
    all_claims,
    claim_seed,
    search,
)
from proofs_checks.sample_sizes import exp_oracle_sample_sizes

__all__ = [
    "EXACT_STEP_LIMIT",
    "SAMPLED_STEP_LIMIT",
    "SKIPPED",
    "TRAJECTORY_LIMIT",
    "Plan",
    "check",
    "check_claim",
]

EXACT_STEP_LIMIT = 2_000_000
"""A claim whose exact computation on the MDP is estimated above this many rational
multiply-adds is refused (about 1 to 10 us each: seconds to a minute)."""
TRAJECTORY_LIMIT = 20_000
"""Claims that enumerate observation-action trajectories are refused above this many."""
SAMPLED_STEP_LIMIT = 50_000_000
"""Sampled claims are refused above this many simulated episode steps (about a minute)."""


class _NotRun(Exception):
    """Why a claim does not run on the MDP; ``status`` is the report's."""

    status = "not applicable"


class _NeedsFamilies(_NotRun):
    status = "skipped"


class _Refused(_NotRun):
    status = "refused"


@dataclass(frozen=True)
class Plan:
    """How one claim runs on the MDP: its instances, and its negative control's (None, with
    ``control_reason``, when the control cannot be built from the MDP). ``control_certain``:
    every control instance makes a correct check fail, so a control not caught is missed;
    otherwise it is reported not applicable with ``control_reason``."""

    instances: st.SearchStrategy
    control: st.SearchStrategy | None
    control_reason: str
    control_certain: bool = False


# --- sizes ---------------------------------------------------------------------------------------


def _observations(mdp: BlockMDP) -> list[int]:
    return [len(x) for x in mdp.observations]


def _enumeration(mdp: BlockMDP, layers: int) -> None:
    """Refuse when the deterministic policies deciding on the first ``layers`` layers are too
    many to enumerate (``proofs_checks.definitions.deterministic_policies``)."""
    decisions = sum(_observations(mdp)[:layers])
    count = mdp.number_of_actions ** decisions
    if count > MAX_ENUMERATED_POLICIES:
        raise _Refused(f"{mdp.number_of_actions}^{decisions} = {count:.3g} deterministic policies "
                      f"to enumerate, above the limit of {MAX_ENUMERATED_POLICIES}")


def _trajectories(mdp: BlockMDP, what: str = "the MDP") -> None:
    """Refuse when ``what`` has too many observation-action trajectories to enumerate."""
    total, count = 0, 1
    for m in _observations(mdp):
        count *= m * mdp.number_of_actions
        total += count
        if total > TRAJECTORY_LIMIT:
            raise _Refused(f"{what} has at least {total:.3g} observation-action trajectories to "
                          f"enumerate, above the limit of {TRAJECTORY_LIMIT}")


def _exact_steps(mdp: BlockMDP, steps: float, what: str) -> None:
    if steps > EXACT_STEP_LIMIT:
        raise _Refused(f"about {steps:.3g} exact multiply-adds ({what}), above the limit of "
                      f"{EXACT_STEP_LIMIT:.3g}")


def _tensor_entries(mdp: BlockMDP) -> int:
    """Entries of the observation transition tensors, ``sum_h m_h |A| m_{h+1}``."""
    m = _observations(mdp)
    return sum(m[h] * mdp.number_of_actions * m[h + 1] for h in range(mdp.horizon - 1))


def _pairwise(mdp: BlockMDP) -> None:
    """Pairwise comparisons of observations on their incoming and outgoing dynamics."""
    m = _observations(mdp)
    steps = sum(m[h] ** 2 * (m[h - 1] * mdp.number_of_actions) ** 2 for h in range(1, len(m)))
    steps += sum(mh ** 3 for mh in m)
    _exact_steps(mdp, steps, "pairs of observations times the pairs (x, a) before them")


def _planning(mdp: BlockMDP, factor: int = 1) -> None:
    """Dynamic programmes per state or block: tensor entries times states times layers."""
    _exact_steps(mdp, _tensor_entries(mdp) * len(mdp.states) * mdp.horizon * factor,
                 "transition entries times states times layers")


# --- hypotheses ----------------------------------------------------------------------------------


def _layers_after_the_first(mdp: BlockMDP) -> None:
    if mdp.horizon < 2:
        raise _NotRun("horizon 1: the claim is about a layer h >= 2 and the one before it")


def _rewards_in_unit_interval(mdp: BlockMDP) -> None:
    """The sampled theorems assume rewards in [0, 1] (returns above 1 are scaled down)."""
    for (h, x, a), (values, _) in sorted(mdp.reward_distributions.items()):
        outside = [v for v in values if not 0 <= v <= 1]
        if outside:
            raise _NotRun(f"the theorem assumes rewards in [0, 1]; R({mdp.observations[h][x]!r}, "
                         f"{mdp.actions[a]!r}) takes the value {outside[0]}")
    for h, table in enumerate(mdp.rewards):
        for x, a in zip(*np.nonzero((table < 0) | (table > 1)), strict=True):
            raise _NotRun(f"the theorem assumes rewards in [0, 1]; R({mdp.observations[h][x]!r}, "
                         f"{mdp.actions[a]!r}) takes the value {table[x, a]}")


# --- derived instances ---------------------------------------------------------------------------


def _first_action(mdp: BlockMDP) -> Policy:
    return state_policy(mdp, {}, default_action=mdp.actions[0])


def _policies(mdp: BlockMDP, deterministic: bool = False) -> st.SearchStrategy[Policy]:
    """The uniform policy, the first-action policy and random ones for ``mdp``."""
    fixed = [uniform_policy(mdp), _first_action(mdp)]
    return st.one_of(st.sampled_from(fixed[1:] if deterministic else fixed),
                     policies(mdp, deterministic=deterministic))


def _rolled_in(mdp: BlockMDP, deterministic: bool = False) -> st.SearchStrategy:
    """``(mdp, cover, layer)`` as in ``proofs_checks.homer_analysis``, for this MDP."""
    return st.tuples(st.just(mdp), st.lists(_policies(mdp, deterministic), min_size=1,
                                            max_size=3),
                     st.integers(1, mdp.horizon - 1))


def _covering(mdp: BlockMDP) -> st.SearchStrategy:
    """``(mdp, cover, layer)`` with the uniform policy in the cover."""
    return st.tuples(st.just(mdp), st.lists(_policies(mdp), max_size=2).map(
        lambda cover: [uniform_policy(mdp), *cover]), st.integers(1, mdp.horizon - 1))


def _split_candidates(mdp: BlockMDP) -> list[str]:
    """States to split: those after the first layer (the first layer's when there is one)."""
    return [s for layer in (mdp.layers[1:] or mdp.layers[:1]) for s in layer]


def _a_split(mdp: BlockMDP) -> BlockMDP:
    """``mdp`` with one state split into two KI halves (shares 1/3, 2/3)."""
    return split_state(mdp, _split_candidates(mdp)[0], weight=Fraction(1, 3))


def _pairs_in_different_blocks(mdp: BlockMDP) -> list[tuple[str, str]]:
    """Pairs of states of a layer that are in different backward KI blocks (toolkit)."""
    partition = backward_ki_partition(mdp)
    pairs = []
    for h, layer in enumerate(mdp.layers):
        labels = partition.labels[h]
        pairs += [(layer[i], layer[j]) for i, j in itertools.combinations(range(len(layer)), 2)
                  if labels[i] != labels[j]]
    return pairs


NO_SECOND_BLOCK = ("every layer has one backward KI block, so no wrong partition merges two "
                   "blocks")


def _merged_partitions(mdp: BlockMDP) -> st.SearchStrategy[Computation] | None:
    pairs = _pairs_in_different_blocks(mdp)
    return st.sampled_from(pairs).map(lambda pair: merged_backward_partition(*pair)) \
        if pairs else None


# --- the claims -------------------------------------------------------------------------------

Planner = Callable[[BlockMDP], Plan]
PLANS: dict[str, Planner] = {}


def _plans(*labels: str) -> Callable[[Planner], Planner]:
    def record(planner: Planner) -> Planner:
        for label in labels:
            PLANS[label] = planner
        return planner
    return record


SKIPPED: dict[str, str] = {
    "prop:comp-homing": "an existence statement (there is a Block MDP whose homing policies do "
                        "not compose), witnessed by Figure 1; it says nothing about a given MDP",
    "prop:csc-call": "a statement about contextual bandits, not about a Block MDP",
    "prop:bernstein": "a statement about sums of bounded random variables, not about a Block "
                      "MDP",
    "prop:sq-loss": "a statement about square-loss regression over a function class, not about "
                    "a Block MDP",
}
"""Claims that are not about one given Block MDP, with why."""


def _partition_plan(relation: definitions.Relation) -> Planner:
    def planner(mdp: BlockMDP) -> Plan:
        _pairwise(mdp)
        toolkit = PARTITIONS[relation](mdp)
        wrong = []
        if any(len(set(labels.tolist())) < len(labels) for labels in toolkit):
            wrong.append(SINGLETONS)  # splits a block of several states
        if any(len(set(labels.tolist())) > 1 for labels in toolkit):
            wrong.append(ONE_CLASS)  # merges two blocks
        weights = st.lists(st.integers(1, 5), min_size=1, max_size=4)
        return Plan(
            st.tuples(st.just(relation), st.just(mdp), weights, st.just(PARTITIONS[relation])),
            st.tuples(st.just(relation), st.just(mdp), weights, st.sampled_from(wrong))
            if wrong else None,
            "every layer has one state: singletons and one class are both the partition",
            control_certain=True)
    return planner


for _relation, _label in (("backward", "def:bki"), ("forward", "def:fki"), ("ki", "def:ki")):
    PLANS[_label] = _partition_plan(_relation)  # type: ignore[arg-type]


def _uniform_homing(mdp: BlockMDP) -> tuple[dict[str, Any], dict[str, Policy]]:
    """A wrong computation: the uniform policy as every state's homing policy."""
    uniform = uniform_policy(mdp)
    visits = state_visitation(mdp, uniform)
    values = {s: visits[h][i] for h, layer in enumerate(mdp.layers) for i, s in enumerate(layer)}
    return values, dict.fromkeys(mdp.states, uniform)


UNIFORM_HOMING = Computation("the uniform policy as every homing policy", _uniform_homing)


@_plans("def:homing")
def _homing(mdp: BlockMDP) -> Plan:
    _enumeration(mdp, mdp.horizon - 1)
    values = dict(zip(mdp.states, itertools.chain.from_iterable(eta(mdp)), strict=True))
    wrong = [c for c in (definitions.COMPOSITIONAL_HOMING, UNIFORM_HOMING)
             if c(mdp)[0] != values]
    return Plan(st.just((mdp, definitions.TOOLKIT_HOMING)),
                st.tuples(st.just(mdp), st.sampled_from(wrong)) if wrong else None,
                "the uniform policy and the composed homing policies both attain eta on "
                "this MDP", control_certain=True)


@_plans("def:policy-cover")
def _policy_cover(mdp: BlockMDP) -> Plan:
    _enumeration(mdp, mdp.horizon - 1)
    toolkit = definitions.TOOLKIT_COVER
    covers = [[homing_policy(mdp, s) for s in mdp.states],
              [uniform_policy(mdp), _first_action(mdp)]]
    wrong = [c for c in covers
             if definitions.MEAN_COVER(mdp, c)[0] != tuple(toolkit(mdp, c)[0])]
    return Plan(
        st.tuples(st.just(mdp), st.lists(_policies(mdp), min_size=1, max_size=3),
                  st.just(toolkit)),
        st.tuples(st.just(mdp), st.sampled_from(wrong), st.just(definitions.MEAN_COVER))
        if wrong else None,
        "the mean visitation of a cover equals its best policy's on this MDP",
        control_certain=True)


def _wrong_forms(mdp: BlockMDP) -> list[Computation]:
    if ki_partition(mdp).number_of_blocks == len(mdp.states):
        return []
    form = canonical_form(mdp).mdp
    return [definitions.IDENTITY_FORM, *(
        c for c in (definitions.ONE_MEMBER_START, definitions.EQUAL_MEMBER_SHARES)
        if definitions._canonical_forms_differ(c(mdp), form))]


@_plans("def:canonical-form")
def _canonical_form(mdp: BlockMDP) -> Plan:
    """The MDP and a split of it; the control on whichever has KI states to merge."""
    split = _a_split(mdp)
    for instance, what in ((mdp, "the MDP"), (split, "the MDP with a state split")):
        _trajectories(instance, what)
        _pairwise(instance)
    cases = [(m, w) for m in (mdp, split) for w in _wrong_forms(m)]
    return Plan(st.tuples(st.sampled_from([mdp, split]), st.just(definitions.TOOLKIT_CANONICAL)),
                st.sampled_from(cases), "", control_certain=True)


@_plans("lem:homing_deterministic")
def _homing_deterministic(mdp: BlockMDP) -> Plan:
    _enumeration(mdp, mdp.horizon)
    uniform = uniform_policy(mdp)
    visits = [state_visitation(mdp, p) for p in definitions.deterministic_policies(mdp)]
    with_uniform = state_visitation(mdp, uniform)
    pairs = []
    for h, layer in enumerate(mdp.layers):
        for i, j in itertools.combinations(range(len(layer)), 2):
            best = max(min(v[h][i], v[h][j]) for v in visits)
            if best < min(with_uniform[h][i], with_uniform[h][j]):
                pairs.append((h, i, j))

    def not_a_reward(pair: tuple[int, int, int]) -> tuple:
        h, i, j = pair
        objective = Objective(
            f"min(P_pi({mdp.layers[h][i]}), P_pi({mdp.layers[h][j]}))",
            lambda p: min(state_visitation(mdp, p)[h][i], state_visitation(mdp, p)[h][j]))
        return mdp, [objective], [uniform]

    return Plan(
        _policies(mdp).map(lambda p: (mdp, reward_objectives(mdp), [uniform, p])),
        st.sampled_from(pairs).map(not_a_reward) if pairs else None,
        "no two states of a layer are reached together more often by the uniform policy than "
        "by the best deterministic one, so min(P_pi(s), P_pi(t)) is maximised by a "
        "deterministic policy here", control_certain=True)


def _chains(mdp: BlockMDP) -> bool:
    """Whether three observations of a layer have rows within 1/10 that do not chain."""
    process = observation_process(latent_model(mdp))
    close = inseparability._approximate_forward(process)["rows within 1/10"]
    return any(close(h, x, y) and close(h, y, z) and not close(h, x, z)
               for h, names in enumerate(mdp.observations[:-1])
               for x, y, z in itertools.permutations(range(len(names)), 3))


@_plans("app:appendix-kinematic-inseparability")
def _equivalence(mdp: BlockMDP) -> Plan:
    _pairwise(mdp)
    return Plan(st.just((mdp, inseparability.DEFINITIONS)),
                st.just((mdp, inseparability.APPROXIMATE_FORWARD)) if _chains(mdp) else None,
                "no three observations of a layer have rows within 1/10 of each other that "
                "do not chain, so 'rows within 1/10' is transitive here", control_certain=True)


def _overlaps(mdp: BlockMDP) -> list[tuple[int, int, int]]:
    """``(layer, i, j)`` with states ``i``, ``j`` of different outgoing rows: overlapping their
    emissions makes an observation of ``j`` forward separable from ``i``'s shared one (every
    state is reachable, so the uniform policy puts belief on ``i``)."""
    return [(h, i, j) for h in range(mdp.horizon - 1)
            for i, j in itertools.permutations(range(mdp.width(h)), 2)
            if not (mdp.transition_tensor(h)[i] == mdp.transition_tensor(h)[j]).all()]


NO_OVERLAP = ("no two states of a layer before the last move differently, so overlapping "
              "emissions changes no observation's row")


def _overlapping_emissions(mdp: BlockMDP) -> st.SearchStrategy | None:
    """The MDP with the emissions of two states that move differently overlapping (None when no
    two states of a layer before the last move differently)."""
    _pairwise(mdp)
    overlaps = _overlaps(mdp)
    return (st.sampled_from(overlaps).map(lambda c: with_overlapping_emission(mdp, *c))
            if overlaps else None)


@_plans("lem:state-inseparable")
def _state_inseparable(mdp: BlockMDP) -> Plan:
    control = _overlapping_emissions(mdp)  # refuses a large MDP before the latent model
    return Plan(st.just(latent_model(mdp)), control, NO_OVERLAP, control_certain=True)


@_plans("sec:kinematic-inseparable")
def _dimensions(mdp: BlockMDP) -> Plan:
    control = _overlapping_emissions(mdp)
    return Plan(st.just(latent_model(mdp)), control,
                NO_OVERLAP if control is None else "overlapping emissions does not raise N_KD "
                "above |S| on this MDP")


@_plans("fact:time-separable")
def _time_separable(mdp: BlockMDP) -> Plan:
    m = sum(_observations(mdp))
    _exact_steps(mdp, m * m * max(_observations(mdp)) * mdp.number_of_actions,
                 "pairs of observations times their rows")
    rows = inseparability.global_process(mdp, inseparability.DROP_TIME)
    keys = [key for key in rows if key[0] >= 0]
    collide = any(h1 != h2 and rows[h1, x1] == rows[h2, x2]
                  for (h1, x1), (h2, x2) in itertools.combinations(keys, 2))
    return Plan(st.just((mdp, inseparability.KEEP_NAMES)),
                st.just((mdp, inseparability.DROP_TIME)) if collide else None,
                "names without their time step (s3c -> sc) leave no two time steps with equal "
                "rows on this MDP (they do on combination locks)", control_certain=True)


@_plans("lem:bki-ratio")
def _bki_ratio(mdp: BlockMDP) -> Plan:
    _pairwise(mdp)
    labels = backward_ki_partition(mdp).labels
    shared = False
    for h in range(1, mdp.horizon):
        reaches = mdp.transition_tensor(h - 1) != 0  # (s, a, s')
        for i, j in itertools.combinations(range(mdp.width(h)), 2):
            shared |= bool(labels[h][i] != labels[h][j]
                           and (reaches[:, :, i] & reaches[:, :, j]).any())
    return Plan(st.just((mdp, "full")), st.just((mdp, "point")) if shared else None,
                "no two states of a layer that are not backward KI share a predecessor (s, a), "
                "so a prior on one (x, a) never makes them look backward KI",
                control_certain=True)


@_plans("lem:bki-policy-ratio")
def _bki_policy_ratio(mdp: BlockMDP) -> Plan:
    _planning(mdp)
    merged = _merged_partitions(mdp)
    return Plan(st.tuples(st.just(mdp), _policies(mdp), _policies(mdp),
                          st.just(PARTITIONS["backward"])),
                None if merged is None else st.tuples(st.just(mdp), _policies(mdp),
                                                      _policies(mdp), merged),
                NO_SECOND_BLOCK, control_certain=True)


@_plans("lem:abstraction-policy")
def _abstraction_policy(mdp: BlockMDP) -> Plan:
    _planning(mdp)
    merged = _merged_partitions(mdp)
    return Plan(st.tuples(st.just(mdp), st.just(PARTITIONS["backward"])),
                None if merged is None else st.tuples(st.just(mdp), merged),
                NO_SECOND_BLOCK, control_certain=True)


@_plans("fig:mdp-canonical")
def _state_split(mdp: BlockMDP) -> Plan:
    """Splits by observation subsets (Figure 2): a state after the first layer emitting two
    observations or more gives its first to one half, the others to the other."""
    states = [s for s in _split_candidates(mdp) if mdp.state_location[s][0] > 0
              and len(mdp.observations_of(s)) > 1]
    if not states:
        raise _NotRun("the claim compares the MDP with a split of a state into halves emitting "
                     "disjoint subsets of its observations; no state after the first layer "
                     "emits two observations")
    splits = [split_state(mdp, s, observations_a=sorted(mdp.observations_of(s))[:1])
              for s in states]
    for split in splits:
        _trajectories(split, "the MDP with a state split")
    spec = to_spec(mdp)
    unequal = [unequal_split(mdp, s, (p, a), ("1/4", "3/4"),
                             observations_a=sorted(mdp.observations_of(s))[:1])
               for s in states for p in mdp.layers[mdp.state_location[s][0] - 1]
               for a in mdp.actions if s in spec["transitions"][p][a]]
    return Plan(
        st.tuples(st.just(mdp), st.sampled_from(splits), _policies(mdp)),
        st.tuples(st.just(mdp), st.sampled_from(unequal), _policies(mdp)),
        "splitting a state unequally (shares 1/4 from one predecessor, 3/4 from the others) "
        "changes no trajectory's probability under the policies tried on this MDP")


@_plans("alg:rl_via_homing_policies")
def _psdp_homes_blocks(mdp: BlockMDP) -> Plan:
    _layers_after_the_first(mdp)
    _planning(mdp, mdp.horizon)
    return Plan(st.just((mdp, planning.HOMING_COVERS)), st.just((mdp, planning.FIRST_ACTION)),
                "rolling in with the first-action policy still reaches every block's states "
                "with probability eta on this MDP")


def _blocks_after_the_first(mdp: BlockMDP) -> bool:
    return max(backward_ki_partition(mdp).blocks_per_layer[1:], default=1) >= 2


@_plans("alg:oracle-exp")
def _oracle_exp(mdp: BlockMDP) -> Plan:
    _layers_after_the_first(mdp)
    _planning(mdp, mdp.horizon)
    return Plan(st.just((mdp, PARTITIONS["backward"])),
                st.just((mdp, ONE_CLASS)) if _blocks_after_the_first(mdp) else None,
                NO_SECOND_BLOCK, control_certain=True)


@_plans("thm:oracle-exp-statement")
def _oracle_exp_statement(mdp: BlockMDP) -> Plan:
    _layers_after_the_first(mdp)
    _planning(mdp, mdp.horizon)
    return Plan(st.just((mdp, PARTITIONS["backward"])), st.just((mdp, ONE_CLASS)),
                "the one-class abstraction still gives 1/2-policy covers and an optimal policy "
                "on this MDP (it does not on combination locks)")


@_plans("thm:psdp-spread")
def _psdp_spread(mdp: BlockMDP) -> Plan:
    _rewards_in_unit_interval(mdp)
    steps = planning.PSDP_TRIALS * planning.PSDP_SAMPLES * mdp.horizon ** 2
    if steps > SAMPLED_STEP_LIMIT:
        raise _Refused(f"about {steps:.3g} sampled episode steps, above the limit of "
                      f"{SAMPLED_STEP_LIMIT:.3g}")
    _planning(mdp)
    seeds = st.integers(0, 2**31)
    return Plan(
        st.tuples(st.just(mdp), seeds,
                  st.sampled_from([planning.HOMING_COVERS, planning.PERTURBED_COVERS]),
                  st.just(False)),
        st.tuples(st.just(mdp), seeds, st.just(planning.FIRST_ACTION), st.just(True)),
        "rolling in with the first-action policy while claiming alpha = 1 stays within the "
        "bound on this MDP")


@_plans("thm:exp-oracle")
def _exp_oracle(mdp: BlockMDP) -> Plan:
    _layers_after_the_first(mdp)
    _rewards_in_unit_interval(mdp)
    if mdp.number_of_actions < 2:
        raise _NotRun("one action: the policy class has one policy (ln |Pi| = 0), outside the "
                     "theorem's sample sizes")
    blocks = max(backward_ki_partition(mdp).blocks_per_layer)
    log_policies = max(_observations(mdp)) * math.log(mdp.number_of_actions)
    sizes = exp_oracle_sample_sizes(blocks, mdp.horizon, mdp.number_of_actions,
                                    float(eta_min(mdp)), planning.EPSILON, planning.DELTA,
                                    log_policies)
    steps = planning.ORACLE_TRIALS * mdp.horizon ** 2 * (blocks * sizes.n_psdp + sizes.n_eval)
    if steps > SAMPLED_STEP_LIMIT:
        raise _Refused(f"the theorem's sample sizes (n_psdp = {sizes.n_psdp:.3g}, n_eval = "
                      f"{sizes.n_eval:.3g} for N = {blocks}, eta = eta_min = "
                      f"{float(eta_min(mdp)):.3g}) make about {steps:.3g} sampled episode steps, "
                      f"above the limit of {SAMPLED_STEP_LIMIT:.3g}")
    seeds = st.integers(0, 2**31)
    return Plan(st.tuples(st.just(mdp), seeds, st.just(PARTITIONS["backward"])),
                st.tuples(st.just(mdp), seeds, st.just(ONE_CLASS)),
                "the one-class abstraction with the theorem's sample sizes still meets the "
                "guarantee on this MDP")


@_plans("lem:bound-rho-prior")
def _bound_rho_prior(mdp: BlockMDP) -> Plan:
    _layers_after_the_first(mdp)
    _planning(mdp)
    return Plan(_rolled_in(mdp).map(lambda case: (*case, True)),
                _rolled_in(mdp, deterministic=True).map(lambda case: (*case, False)),
                "the roll-in policies' own last actions reach every state often enough on "
                "this MDP")


@_plans("lem:p-form")
def _p_form(mdp: BlockMDP) -> Plan:
    _layers_after_the_first(mdp)
    _planning(mdp)
    # With P(y = 1) = 1/3 the Bayes-optimal predictor is T / (T + 2 rho) wherever T > 0.
    return Plan(_rolled_in(mdp).map(lambda case: (*case, Fraction(1, 2))),
                _rolled_in(mdp).map(lambda case: (*case, Fraction(1, 3))), "",
                control_certain=True)


NO_SEPARABLE = ("no state is reached from one state by two actions, so no unequal split of it "
                "is told apart by two policies")


def _on_splits(mdp: BlockMDP, control: Callable[[Any], Any], reason: str
               ) -> tuple[st.SearchStrategy | None, str]:
    """A :class:`Plan`'s control and its reason, when the control is ``control`` of
    ``separable_pairs`` built from this MDP (an unequal split of one of its states, with
    ``reason`` why a check may pass on it); ``(None, NO_SEPARABLE)`` when no state is reached
    from one state by two actions."""
    spec = to_spec(mdp)
    found = any(s in per_action[b] for per_action in spec["transitions"].values()
                for a, b in itertools.permutations(per_action, 2) for s in per_action[a])
    if not found:
        return None, NO_SEPARABLE
    return separable_pairs(st.just(mdp)).map(control), reason


@_plans("prop:bki-in-class")
def _bki_in_class(mdp: BlockMDP) -> Plan:
    _layers_after_the_first(mdp)
    _planning(mdp)
    return Plan(st.one_of(_covering(mdp).map(lambda case: (*case, True)),
                          _rolled_in(mdp, deterministic=True).map(lambda case: (*case, True))),
                *_on_splits(mdp, homer_analysis._separable_with_its_second_policy,
                            "the roll-in without the uniform last action still gives backward "
                            "KI level sets on the splits of this MDP"))


@_plans("prop:ki-equal-fstar")
def _ki_equal_fstar(mdp: BlockMDP) -> Plan:
    _layers_after_the_first(mdp)
    _planning(mdp)
    return Plan(_covering(mdp).map(lambda case: (*case, "ki", "ki")),
                *_on_splits(mdp, homer_guarantees._forward_twins_as_related,
                            "the forward KI halves of the unequal splits of this MDP have equal "
                            "f* in the third argument"))


def _phis(mdp: BlockMDP, layer: int) -> st.SearchStrategy[tuple[int, ...]]:
    """Abstractions of a layer's observations: backward KI, one class, or random."""
    size = len(mdp.observations[layer])
    labels = backward_ki_partition(mdp).labels[layer][mdp.emission_state[layer]]
    return st.one_of(st.just(tuple(int(v) for v in labels)), st.just((0,) * size),
                     st.lists(st.integers(0, size - 1), min_size=size, max_size=size).map(
                         lambda phi: tuple(int(v) for v in np.unique(phi,
                                                                     return_inverse=True)[1])))


def _with_phi(mdp: BlockMDP, cases: st.SearchStrategy) -> st.SearchStrategy:
    return cases.flatmap(lambda case: _phis(mdp, case[2]).map(lambda phi: (*case, phi)))


def _merging_phis(mdp: BlockMDP) -> list[tuple[int, tuple[int, ...]]]:
    """``(layer, phi)``: one class holding two observations that are not backward KI (by the
    definition), every other observation alone."""
    found = []
    for layer in range(1, mdp.horizon):
        keys = definitions.definition_keys(mdp, "backward")[layer]
        for x, y in itertools.combinations(range(len(keys)), 2):
            if keys[x] != keys[y]:
                phi = [k + 1 for k in range(len(keys))]
                phi[x] = phi[y] = 0
                found.append((layer, tuple(np.unique(phi, return_inverse=True)[1].tolist())))
                break
    return found


@_plans("lem:coupling")
def _coupling(mdp: BlockMDP) -> Plan:
    _layers_after_the_first(mdp)
    _planning(mdp)
    merging = _merging_phis(mdp)
    # err = 0 without the bottleneck, while a class mixing two observations that are not
    # backward KI has V != 0 under the uniform roll-in: the left side is positive.
    return Plan(_with_phi(mdp, _covering(mdp)).map(lambda case: (*case, True)),
                st.sampled_from(merging).map(
                    lambda found: (mdp, [uniform_policy(mdp)], found[0], found[1], False))
                if merging else None, NO_SECOND_BLOCK, control_certain=True)


def _capacity(mdp: BlockMDP) -> st.SearchStrategy:
    return st.sampled_from([0, 1]).map(
        lambda extra: (mdp, max(ki_partition(mdp).blocks_per_layer) + extra))


@_plans("thm:main-theorem", "alg:learn_homing_policy")
def _exact_homer(mdp: BlockMDP) -> Plan:
    _layers_after_the_first(mdp)
    _planning(mdp, 2 * max(ki_partition(mdp).blocks_per_layer))
    below = max(backward_ki_partition(mdp).blocks_per_layer) - 1
    return Plan(_capacity(mdp), st.just((mdp, below)) if below else None,
                NO_SECOND_BLOCK if not below else
                f"the capacity N = N_BD - 1 = {below} still meets the conclusion on this MDP "
                "(it does not on combination locks)")


@_plans("lem:policy-comparison")
def _policy_comparison(mdp: BlockMDP) -> Plan:
    _layers_after_the_first(mdp)
    _planning(mdp)
    pairs = st.tuples(_policies(mdp), _policies(mdp))
    backward = _covering(mdp).map(lambda case: (mdp, [uniform_policy(mdp)], case[2]))

    def labels(layer: int) -> tuple[int, ...]:
        values = backward_ki_partition(mdp).labels[layer][mdp.emission_state[layer]]
        return tuple(int(v) for v in values)

    return Plan(
        st.tuples(_with_phi(mdp, _covering(mdp)), pairs).map(
            lambda both: (*both[0], both[1], False)),
        st.tuples(backward, st.tuples(_policies(mdp, True), _policies(mdp, True))).map(
            lambda both: (*both[0], labels(both[0][2]), both[1], True)),
        "the literal 'min over i' (every class) holds for the policies tried on this MDP")


@_plans("lem:policy-cover-guarantee")
def _policy_cover_guarantee(mdp: BlockMDP) -> Plan:
    _layers_after_the_first(mdp)
    _planning(mdp, mdp.horizon)
    layers = st.integers(1, mdp.horizon - 1)
    return Plan(layers.flatmap(lambda h: _phis(mdp, h).map(lambda phi: (mdp, h, phi, True))),
                layers.map(lambda h: (mdp, h, (0,) * len(mdp.observations[h]), False)),
                "PSDP for the one class still homes every state on this MDP")


@_plans("corr:sq-loss")
def _sq_loss(mdp: BlockMDP) -> Plan:
    _layers_after_the_first(mdp)
    capacity = max(2, max(ki_partition(mdp).blocks_per_layer))
    m = _observations(mdp)
    pairs = {h: capacity ** (m[h - 1] + m[h]) for h in range(1, mdp.horizon)}
    layers = [h for h, count in pairs.items() if count <= homer_guarantees.MAX_ABSTRACTION_PAIRS]
    if not layers:
        raise _Refused(f"at least {min(pairs.values()):.3g} pairs of abstractions to enumerate "
                      f"(N = {capacity}), above the limit of "
                      f"{homer_guarantees.MAX_ABSTRACTION_PAIRS}")
    blocks = backward_ki_partition(mdp).blocks_per_layer
    below = [h for h in layers if blocks[h] >= 2]
    seeds = st.integers(0, 2**31)
    return Plan(
        st.tuples(st.just(mdp), st.sampled_from(layers), st.just(capacity),
                  st.integers(20_000, 100_000), seeds),
        st.tuples(st.just(mdp), st.sampled_from(below), st.just(1), st.just(200_000), seeds)
        if below else None,
        NO_SECOND_BLOCK if not below else
        "N = 1 below N_BD still leaves the regression error within the bound on this MDP")


@_plans("lem:perf-diff")
def _perf_diff(mdp: BlockMDP) -> Plan:
    _planning(mdp)
    return Plan(st.tuples(st.just(mdp), _policies(mdp), _policies(mdp), st.just("first")),
                st.tuples(st.just(mdp), _policies(mdp), _policies(mdp), st.just("second"))
                if mdp.horizon > 1 else None,
                "horizon 1: both policies' state distributions are the start distribution"
                if mdp.horizon == 1 else "weighting with pi2's distribution gives the same sum "
                "for the policies tried on this MDP")


# --- running ------------------------------------------------------------------------------------


def _not_run(claim: Claim, error: _NotRun, seconds: float) -> ClaimReport:
    return ClaimReport(
        label=claim.label, statement=claim.statement, instances=0, violations=0, witness=None,
        negative_control=claim.negative_control, negative_control_caught=False,
        negative_witness=None, seconds=seconds, status=error.status, reason=str(error),
        control_not_applicable="the claim did not run")


def check_claim(claim: Claim, mdp: BlockMDP, examples: int = 10,
                shrink_budget: int = SHRINK_BUDGET,
                model: ExogenousBlockMDP | None = None) -> ClaimReport:
    """``claim`` on ``mdp`` and instances derived from it (``examples * claim.cost`` of them at
    most; a deterministic case runs once), with its negative control where it applies. The
    ``exo:`` claims run when ``model``, ``mdp``'s declared factorisation, is given."""
    start = time.perf_counter()
    try:
        if claim.label not in EXOGENOUS_PLANS and (claim.label in SKIPPED
                                                   or claim.label not in PLANS):
            raise _NeedsFamilies("needs generated families: "
                                + SKIPPED.get(claim.label, "no plan for one given MDP"))
        if not mdp.mode.exact:
            raise _NotRun("the spec's numbers are floats; the checks compare exact rationals "
                         "with == (write the probabilities as \"p/q\" strings)")
        if claim.label in EXOGENOUS_PLANS:
            if model is None:
                raise _NotRun("the spec declares no exogenous factorisation (the compact form "
                              "'endogenous' + 'exogenous', or 'factorisation': "
                              "docs/guide/spec-format.md)")
            plan = EXOGENOUS_PLANS[claim.label](model)
        else:
            plan = PLANS[claim.label](mdp)
    except _NotRun as error:
        return _not_run(claim, error, time.perf_counter() - start)
    except Exception as error:  # a crash of the code checked, while deriving the instances
        return ClaimReport(
            label=claim.label, statement=claim.statement, instances=0, violations=1,
            witness={"exception": f"{type(error).__name__}: {error}",
                     "while": "deriving the instances from the MDP"},
            negative_control=claim.negative_control, negative_control_caught=False,
            negative_witness=None, seconds=time.perf_counter() - start,
            control_not_applicable="the claim did not run")
    budget = max(1, round(examples * claim.cost))
    seed = claim_seed(claim.label)
    tried, failure, rates = search(plan.instances, claim.check, budget, shrink_budget, seed)
    caught, negative, reason = False, None, plan.control_reason
    if plan.control is not None:
        negative_budget = max(1, round(max(examples, MIN_NEGATIVE_EXAMPLES) * claim.cost))
        _, found, _ = search(plan.control, claim.check, negative_budget, shrink_budget,
                             claim_seed(claim.label + "/negative"))
        caught = found is not None and not found.crashed
        negative = found.witness if found else None
    not_applicable = None
    if not caught and not (plan.control is not None and plan.control_certain):
        not_applicable = f"control not applicable on this MDP: {reason}"
    return ClaimReport(
        label=claim.label, statement=claim.statement, instances=tried,
        violations=int(failure is not None), witness=failure.witness if failure else None,
        negative_control=claim.negative_control, negative_control_caught=caught,
        negative_witness=negative, seconds=time.perf_counter() - start,
        observed_failure_rate=sum(rates) / len(rates) if rates else None,
        control_not_applicable=not_applicable)


def check(mdp: BlockMDP | ExogenousBlockMDP, examples: int = 10,
          only: Sequence[str] | None = None) -> list[ClaimReport]:
    """Every registered claim on ``mdp`` (the labels of ``only``, in the registry's order; the
    ``exo:`` claims when ``mdp`` is an :class:`kinematic.ExogenousBlockMDP`): the
    reports of ``python -m proofs_checks --spec FILE --json``, one per claim, each with its
    ``status``: ``"checked"`` (with violations and the negative control), ``"not applicable"``,
    ``"skipped"`` or ``"refused"`` (with the ``reason``).

    >>> from kinematic import figure2_split
    >>> reports = check(figure2_split(), 1, ["def:bki", "thm:exp-oracle", "prop:bernstein"])
    >>> for report in reports:  # doctest: +NORMALIZE_WHITESPACE
    ...     print(report.label, "|", report.status, "|", report.reason or report.control_verdict)
    def:bki | checked | caught
    thm:exp-oracle | not applicable | one action: the policy class has one policy
        (ln |Pi| = 0), outside the theorem's sample sizes
    prop:bernstein | skipped | needs generated families: a statement about sums of bounded
        random variables, not about a Block MDP
    """
    model = mdp if isinstance(mdp, ExogenousBlockMDP) else None
    block = mdp.mdp if isinstance(mdp, ExogenousBlockMDP) else mdp
    claims = all_claims()
    if only is not None:
        claims = [c for c in claims if c.label in only]
    return [check_claim(claim, block, examples, model=model) for claim in claims]


# --- the exo: claims on a declared factorisation -------------------------------------------------


def _exogenous_plan(relation: str | None) -> Callable[[ExogenousBlockMDP], Plan]:
    """The plan of an ``exo:`` claim on a declared model: its instances are the model under
    generated prior weights; its control makes the exogenous value sticky at one step by an
    action or an endogenous state, which contradicts the claim for certain when the declared
    noise is i.i.d. (:mod:`proofs_checks.exogenous`), and is not applicable otherwise."""

    def plan(model: ExogenousBlockMDP) -> Plan:
        def case(mdp: BlockMDP, weights: list[int], what: str) -> tuple:
            return ((mdp, model, weights, what) if relation is None
                    else (relation, mdp, model, weights, what))

        instances = exogenous.WEIGHTS.map(lambda w: case(model.mdp, w, "nothing"))
        if not exogenous.iid(model.chain):
            return Plan(instances, None, "the control makes i.i.d. noise sticky; the declared "
                                         "noise has memory already")
        breaks = [(step, by) for step in range(model.mdp.horizon - 1)
                  for by in ("action", "endogenous")
                  if min(len(model.chain.layers[step]), len(model.chain.layers[step + 1])) > 1
                  and (len(model.mdp.actions) > 1 if by == "action"
                       else len(model.endogenous.layers[step]) > 1)]
        if not breaks:
            return Plan(instances, None, "no step has two exogenous values on both sides and "
                                         "two actions or two endogenous states to make one "
                                         "sticky by")
        control = st.tuples(st.sampled_from(breaks), exogenous.WEIGHTS).map(
            lambda drawn: case(exogenous.sticky_exogenous_part(model, *drawn[0]), drawn[1],
                               f"the exogenous value is sticky at step {drawn[0][0] + 1} "
                               f"by {drawn[0][1]}"))
        return Plan(instances, control, "", control_certain=True)

    return plan


EXOGENOUS_PLANS: dict[str, Callable[[ExogenousBlockMDP], Plan]] = {
    "exo:bki-product": _exogenous_plan("backward"),
    "exo:fki-product": _exogenous_plan("forward"),
    "exo:ki-product": _exogenous_plan("ki"),
    "exo:iid-noise": _exogenous_plan(None),
}
"""The ``exo:`` claims, which run on a model whose factorisation the spec declares."""

"""The checks of ``def:fki`` and of the canonical form see everything their definitions define:
forward KI compares the rows of every action (and the generated instances hold copies of a
state apart on one action only, or with two actions' rows swapped), and a canonical form must
generate the original's observation process, start weights and emission weights included."""

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from kinematic.canonical import canonical_form
from kinematic.families import split_state
from kinematic.model import BlockMDP, block_mdp
from kinematic.partition import Partition, first_appearance
from kinematic.quotient import Quotient
from proofs_checks.definitions import (
    PARTITIONS,
    TOOLKIT_CANONICAL,
    Computation,
    check_canonical_form,
    check_partition_definition,
    equal_member_shares,
    one_member_start,
)
from proofs_checks.registry import all_claims, run_claim

CLAIMS = {claim.label: claim for claim in all_claims()}
NO_SHRINKING = 0
EXAMPLES = 20  # as in `python -m proofs_checks --examples 20`


def copies_apart_on_actions() -> BlockMDP:
    """``s`` moves to ``u`` with ``a`` and to ``v`` with ``b``; ``one_action`` agrees with it on
    ``a`` (the first action) only, ``swapped`` has its two rows swapped (the same sum over
    actions). No two of the three are forward KI; all are backward KI (layer 1)."""
    return block_mdp(
        name="copies apart on actions",
        layers=[["s", "one_action", "swapped"], ["u", "v"]],
        actions=["a", "b"],
        start={"s": "1/3", "one_action": "1/3", "swapped": "1/3"},
        transitions={"s": {"a": {"u": 1}, "b": {"v": 1}},
                     "one_action": {"a": {"u": 1}, "b": {"u": 1}},
                     "swapped": {"a": {"v": 1}, "b": {"u": 1}}},
    )


def _state_partition(mdp: BlockMDP, key) -> Partition:
    """A forward 'partition' grouping the states of each layer by ``key(T(. | s, .))``, the
    last layer in one block."""
    labels = []
    for h in range(mdp.horizon - 1):
        tensor = mdp.transition_tensor(h)
        labels.append(first_appearance([key(tensor[s]) for s in range(mdp.width(h))]))
    labels.append(np.zeros(mdp.width(mdp.horizon - 1), dtype=np.intp))
    return Partition("forward", mdp.layers, tuple(labels), mdp)


def _first_action_only(mdp: BlockMDP) -> Partition:
    return _state_partition(mdp, lambda rows: tuple(rows[0]))


def _summed_over_actions(mdp: BlockMDP) -> Partition:
    return _state_partition(mdp, lambda rows: tuple(rows.sum(axis=0)))


BLIND_FORWARD_PARTITIONS = [_first_action_only, _summed_over_actions]
BLIND_IDS = ["first action only", "sum over actions"]


@pytest.mark.parametrize("relation", ["forward", "ki"])
def test_the_toolkit_separates_copies_apart_on_one_action_or_by_swapped_rows(relation):
    """Fails on a forward partition comparing the first action only or the sum over
    actions."""
    case = (relation, copies_apart_on_actions(), (1,), PARTITIONS[relation])
    assert check_partition_definition(case).holds


@pytest.mark.parametrize("wrong", BLIND_FORWARD_PARTITIONS, ids=BLIND_IDS)
def test_the_fki_check_reports_the_wrong_merge_of_a_partition_blind_to_actions(wrong):
    computation = Computation(wrong.__name__, lambda mdp: wrong(mdp).labels)
    outcome = check_partition_definition(("forward", copies_apart_on_actions(), (1,),
                                          computation))
    expected = ["s", "one_action"] if wrong is _first_action_only else ["s", "swapped"]
    assert not outcome.holds
    assert (outcome.witness["error"], outcome.witness["layer"],
            outcome.witness["observations"]) == ("wrong merge", 1, expected)


@pytest.mark.parametrize("wrong", BLIND_FORWARD_PARTITIONS, ids=BLIND_IDS)
@pytest.mark.parametrize("label", ["def:fki", "def:ki"])
def test_the_generated_instances_catch_a_forward_partition_blind_to_actions(
        monkeypatch, label, wrong):
    """Before the instances held copies apart on one action or with swapped rows, neither
    was caught by any claim of ``python -m proofs_checks --examples 20``."""
    monkeypatch.setattr("proofs_checks.definitions.forward_ki_partition", wrong)
    monkeypatch.setattr("kinematic.inseparability.forward_ki_partition", wrong)
    report = run_claim(CLAIMS[label], EXAMPLES, NO_SHRINKING)
    assert report.violations == 1
    assert report.witness["error"] == "wrong merge"


def ki_copies() -> BlockMDP:
    """KI copies the canonical form merges: ``s1`` split into ``s1/a``, ``s1/b`` with start
    1/8 and 3/8 (layer 1), ``s2`` into ``s2/a``, ``s2/b`` with shares 1/4 and 3/4 of every
    incoming probability (layer 2), entered from ``s1`` only."""
    base = block_mdp(
        name="KI copies",
        layers=[["s1", "t1"], ["s2", "t2"]],
        actions=["a", "b"],
        start={"s1": "1/2", "t1": "1/2"},
        transitions={"s1": {"a": {"s2": 1}, "b": {"t2": 1}},
                     "t1": {"a": {"t2": 1}, "b": {"t2": 1}}},
    )
    return split_state(split_state(base, "s1", weight="1/4"), "s2", weight="1/4")


def test_the_canonical_form_of_ki_copies_passes_the_check():
    """Fails on a canonical form that starts with one member's probability, emits without the
    members' shares (or with equal shares, or layer-1 shares ignoring the start, or shares read
    from one incoming pair), or moves into one member of the next block instead of the
    block."""
    mdp = ki_copies()
    assert canonical_form(mdp).mdp.layers == (("s1/a+s1/b", "t1"), ("s2/a+s2/b", "t2"))
    assert check_canonical_form((mdp, TOOLKIT_CANONICAL)).holds


def _one_members_start(form: BlockMDP) -> BlockMDP:
    # s1/a+s1/b starts with s1/a's 1/8 and t1 with 1/2, renormalised: 1/5 and 4/5
    return dataclasses.replace(form, start=np.array([Fraction(1, 5), Fraction(4, 5)]))


def _unweighted_emissions(form: BlockMDP) -> BlockMDP:
    # each member's q(x | s) = 1 kept as the merged state's: the rows sum to 2
    return dataclasses.replace(form, emission_probability=tuple(
        np.array([Fraction(1)] * len(names), dtype=object) for names in form.observations))


def _equal_shares_in_layer_2(form: BlockMDP) -> BlockMDP:
    emissions = list(form.emission_probability)
    emissions[1] = np.array([Fraction(1, 2), Fraction(1, 2), Fraction(1)], dtype=object)
    return dataclasses.replace(form, emission_probability=tuple(emissions))


def _into_one_member(form: BlockMDP) -> BlockMDP:
    # T(s2/a+s2/b | s1/a+s1/b, a) = T(s2/a | s1/a, a) = 1/4 instead of 1/4 + 3/4
    transitions = form.transitions[0].copy()
    transitions[0, 0] = Fraction(1, 4)
    return dataclasses.replace(form, transitions=(transitions,))


WRONG_FORMS = {  # the first trajectory whose probability differs, in the original and the form
    "one member's start": (_one_members_start, "s1/a a", ["1/16", "1/40"]),
    "emissions not reweighted": (_unweighted_emissions, "s1/a a", ["1/16", "1/4"]),
    "equal shares in layer 2": (_equal_shares_in_layer_2, "s1/a a s2/a a", ["1/128", "1/64"]),
    "moves into one member": (_into_one_member, "s1/a a s2/a a", ["1/128", "1/512"]),
}


@pytest.mark.parametrize("name", WRONG_FORMS)
def test_a_form_with_the_right_partition_but_another_observation_process_fails(name):
    """Each wrong form has canonical_form's states; before, the check compared only the
    partition and passed all four."""
    alter, trajectory, probabilities = WRONG_FORMS[name]
    computation = Computation(name, lambda mdp: alter(canonical_form(mdp).mdp))
    outcome = check_canonical_form((ki_copies(), computation))
    assert not outcome.holds
    assert outcome.witness["trajectory"] == trajectory
    assert outcome.witness["layer"] == len(trajectory.split()) // 2
    assert outcome.witness["P_uniform(trajectory)"] == probabilities


@pytest.mark.parametrize("alter", [one_member_start, equal_member_shares])
def test_the_generated_instances_catch_a_canonical_form_with_another_process(monkeypatch, alter):
    """Before the check compared the observation processes, def:canonical-form passed both
    (and a canonical form starting with one member's probability passed every claim of
    ``python -m proofs_checks --examples 20``)."""

    def wrong(mdp: BlockMDP) -> Quotient:
        result = canonical_form(mdp)
        return Quotient(alter(mdp, result), result.state_map)

    monkeypatch.setattr("proofs_checks.definitions.canonical_form", wrong)
    report = run_claim(CLAIMS["def:canonical-form"], EXAMPLES, NO_SHRINKING)
    assert report.violations == 1
    assert report.witness["message"] == "the form generates another observation process"

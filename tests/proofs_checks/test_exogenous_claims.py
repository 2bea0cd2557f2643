"""The claims beyond the paper (``proofs_checks.exogenous``): their labels cannot pass for the
paper's, and every instance of their negative control breaks the theorem's hypothesis (the Block
MDP does not factorise as declared) and violates the claim."""

import pytest
from hypothesis import given, settings

from kinematic import NotFactorised, check_factorisation
from proofs_checks.commands import coverage_line
from proofs_checks.exogenous import _iid_cases, _product_cases, check_iid_noise, check_product
from proofs_checks.reference_labels import (
    BEYOND_THE_PAPER,
    BEYOND_THE_PAPER_TOPICS,
    REFERENCE_LABELS,
    RESULT_KINDS,
)
from proofs_checks.registry import all_claims, run_claim

PAPER_PREFIXES = {*RESULT_KINDS, "app", "sec", "fig"}


def test_labels_beyond_the_paper_have_a_topic_prefix_that_is_none_of_the_papers():
    assert BEYOND_THE_PAPER
    for entry in BEYOND_THE_PAPER:
        prefix = entry.label.split(":")[0]
        assert prefix == entry.kind and prefix in BEYOND_THE_PAPER_TOPICS, entry.label
        assert prefix not in PAPER_PREFIXES and not entry.in_source
    assert not {entry.label.split(":")[0] for entry in REFERENCE_LABELS} & \
        set(BEYOND_THE_PAPER_TOPICS)


def test_they_are_registered_after_the_papers_claims_and_counted_apart():
    labels = [claim.label for claim in all_claims()]
    beyond = [entry.label for entry in BEYOND_THE_PAPER]
    assert labels[-len(beyond):] == beyond
    line = coverage_line([run_claim(claim, 1, 0) for claim in all_claims()
                          if claim.label in beyond[:1]])
    assert line.endswith("; 1 of 4 results beyond the paper (exo:)")
    assert line.startswith("0 of 30 labelled results")


def _labels(model):
    return ({z: parts[0] for z, parts in model.parts.items()},
            {z: parts[1] for z, parts in model.parts.items()})


@settings(max_examples=15)
@given(_product_cases("ki", broken=True))
def test_every_control_instance_breaks_the_factorisation_and_the_product_theorem(case):
    """Not a filter on failures: each instance, by construction, does not factorise as declared
    (a sticky exogenous part) and contradicts the prediction, for all three relations."""
    _, mdp, model, weights, broken = case
    assert broken.startswith("the exogenous value is sticky at step ")
    with pytest.raises(NotFactorised, match=r"^transitions\["):
        check_factorisation(mdp, *_labels(model))
    for relation in ("backward", "forward", "ki"):
        assert not check_product((relation, mdp, model, weights, broken)).holds, relation
    assert not check_iid_noise((mdp, model, weights, broken)).holds


@settings(max_examples=15)
@given(_iid_cases())
def test_the_instances_factorise_as_declared(case):
    mdp, model, _, broken = case
    assert broken == "nothing" and mdp is model.mdp
    assert check_factorisation(mdp, *_labels(model)).chain == model.chain

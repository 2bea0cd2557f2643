"""Beyond the paper: kinematic inseparability of exogenous Block MDPs (the model of Efroni,
Misra, Krishnamurthy, Agarwal and Langford, ICLR 2022; :mod:`kinematic.exogenous`).

The results are this project's, proved in ``docs/concepts/exogenous.md``; their labels start
with ``exo:`` (:data:`proofs_checks.reference_labels.BEYOND_THE_PAPER`), never with a prefix of
the paper's:

- ``exo:bki-product``, ``exo:fki-product``, ``exo:ki-product``: the backward (forward, full) KI
  partition of the product of an endogenous Block MDP and an exogenous chain is the product of
  the two parts' partitions (:func:`kinematic.exogenous_ki.predicted_ki_partitions`);
- ``exo:iid-noise``: the three partitions are the endogenous Block MDP's own, lifted to every
  exogenous value, iff every step of the chain is i.i.d.

Each check computes the prediction from the *declared* parts of an instance and compares it,
pair of observations by pair, with the definitions (``def:bki``, ``def:fki``, ``def:ki``) on the
instance's Block MDP (:func:`proofs_checks.definitions.partition_failure`), never with the
toolkit's partition of the product. The negative control breaks the theorem's hypothesis in the
instance: the declared chain is i.i.d., but in the Block MDP one action (or the first endogenous
state of a layer) makes the exogenous value sticky at one step, so the exogenous part is no
longer independent of the endogenous one. Then two exogenous values of one state are forward
separated and two of the next layer backward separated, which the prediction (every value
merged) contradicts: every control instance is a violation.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from kinematic.exogenous import ExogenousBlockMDP, ExogenousChain
from kinematic.exogenous_ki import chain_partitions, product_partition
from kinematic.inseparability import backward_ki_partition, forward_ki_partition, ki_partition
from kinematic.model import BlockMDP
from kinematic.partition import Partition
from kinematic.spec import from_spec, to_spec
from kinematic.strategies import block_mdps, exogenous_block_mdps
from proofs_checks.definitions import Relation, partition_failure
from proofs_checks.registry import Claim, Outcome, register
from proofs_checks.witness import number, spec

__all__ = ["WEIGHTS", "check_iid_noise", "check_product", "iid", "sticky_exogenous_part"]

ENDOGENOUS_PARTITIONS: dict[Relation, Callable[[BlockMDP], Partition]] = {
    "backward": backward_ki_partition, "forward": forward_ki_partition, "ki": ki_partition}


def iid(chain: ExogenousChain) -> bool:
    """Every step of ``chain`` is i.i.d.: ``T_ex(. | xi)`` is the same row for every ``xi``."""
    return all(all(row == rows[0] for row in rows)
               for rows in (list(step.values()) for step in chain.transitions))


def _chain_json(chain: ExogenousChain) -> dict[str, Any]:
    return {"layers": [list(layer) for layer in chain.layers], "start": number(dict(chain.start)),
            "transitions": [number({xi: dict(row) for xi, row in step.items()})
                            for step in chain.transitions]}


def _one_class(chain: ExogenousChain) -> Partition:
    return Partition("lifted", chain.layers,
                     tuple(np.zeros(len(layer), dtype=np.intp) for layer in chain.layers))


def _predicted(relation: Relation, model: ExogenousBlockMDP) -> Partition:
    """The theorem's partition of ``model.mdp``, from the declared parts."""
    chain = getattr(chain_partitions(model.chain), relation)
    return product_partition(ENDOGENOUS_PARTITIONS[relation](model.endogenous), chain, model)


def check_product(case: tuple[Relation, BlockMDP, ExogenousBlockMDP, list[int], str]) -> Outcome:
    """The ``relation`` KI partition predicted from ``model``'s declared parts is that of
    ``mdp`` by the definition, pair of observations by pair (under the drawn prior weights)."""
    relation, mdp, model, weights, broken = case
    failure = partition_failure(mdp, relation, _predicted(relation, model).labels, weights)
    if failure is None:
        return Outcome(True)
    return Outcome(False, {"instance": spec(mdp), "declared_chain": _chain_json(model.chain),
                           "hypothesis_broken": broken, "prior_weights": list(weights),
                           **failure})


def check_iid_noise(case: tuple[BlockMDP, ExogenousBlockMDP, list[int], str]) -> Outcome:
    """For each relation, ``mdp``'s partition (by the definition) is the endogenous Block MDP's,
    lifted to every exogenous value, iff the declared chain is i.i.d."""
    mdp, model, weights, broken = case
    noise_iid = iid(model.chain)
    for relation, partition in ENDOGENOUS_PARTITIONS.items():
        lifted = product_partition(partition(model.endogenous), _one_class(model.chain), model)
        failure = partition_failure(mdp, relation, lifted.labels, weights)
        if (failure is None) != noise_iid:
            return Outcome(False, {"instance": spec(mdp),
                                   "declared_chain": _chain_json(model.chain),
                                   "hypothesis_broken": broken, "relation": relation,
                                   "chain_iid": noise_iid, "lifted_is_the_partition":
                                   failure is None, "lifted_differs_at": failure})
    return Outcome(True)


def sticky_exogenous_part(model: ExogenousBlockMDP, step: int, by: str) -> BlockMDP:
    """``model.mdp`` with the exogenous part made sticky at ``step`` (0-based, from layer
    ``step + 1`` to ``step + 2``) where ``by`` says: the last action (``"action"``) or the first
    endogenous state of the layer (``"endogenous"``). There the exogenous value moves by
    ``(T_ex(xi' | xi) + [xi' = f(xi)]) / 2`` instead of ``T_ex(xi' | xi)``, ``f`` mapping the
    ``i``-th value to the ``(i mod n)``-th of the next layer's ``n``; every product state stays
    reachable (``T_ex`` is unchanged elsewhere)."""
    endogenous = to_spec(model.endogenous)["transitions"]
    names = {parts: state for state, parts in model.parts.items()}
    values, following = model.chain.layers[step], model.chain.layers[step + 1]
    image = {xi: following[i % len(following)] for i, xi in enumerate(values)}
    result = to_spec(model.mdp)
    first = model.endogenous.layers[step][0]
    for s in model.endogenous.layers[step]:
        for action in model.mdp.actions:
            if (by == "action" and action != model.mdp.actions[-1]) or \
                    (by == "endogenous" and s != first):
                continue
            for xi in values:
                row = model.chain.transitions[step][xi]
                result["transitions"][names[s, xi]][action] = {
                    names[s2, xi2]: str(Fraction(p) * (row[xi2] + (xi2 == image[xi])) / 2)
                    for s2, p in endogenous[s][action].items() for xi2 in following
                    if row[xi2] or xi2 == image[xi]}
    result["name"] = f"{model.mdp.name}, sticky at step {step + 1} by {by}"
    return from_spec(result)


def _endogenous(min_actions: int = 1) -> st.SearchStrategy[BlockMDP]:
    return block_mdps(min_horizon=2, max_horizon=3, max_width=2, min_actions=min_actions,
                      max_actions=2, max_observations=2, max_splits=1)


@st.composite
def _models(draw: st.DrawFn, broken: bool = False) -> tuple[BlockMDP, ExogenousBlockMDP, str]:
    """``(mdp, declared model, what is broken)``: a generated exogenous Block MDP, or (``broken``)
    one with i.i.d. noise whose exogenous part is made sticky at one step with two values or
    more on both sides, by an action (of two or more) or by an endogenous state (of two or
    more in its layer): ``T_ex`` then depends on the action or on the endogenous state, and
    ``mdp`` does not factorise with the declared labels."""
    if not broken:
        model = draw(exogenous_block_mdps(_endogenous()))
        return model.mdp, model, "nothing"
    by = draw(st.sampled_from(["action", "endogenous"]))
    model = draw(exogenous_block_mdps(_endogenous(2 if by == "action" else 1), noise="iid"))
    # two values on both sides; for a sticky state, another state of its layer that is not
    steps = [h for h in range(model.mdp.horizon - 1)
             if min(len(model.chain.layers[h]), len(model.chain.layers[h + 1])) > 1
             and (by == "action" or len(model.endogenous.layers[h]) > 1)]
    assume(steps)
    step = draw(st.sampled_from(steps))
    return (sticky_exogenous_part(model, step, by), model,
            f"the exogenous value is sticky at step {step + 1} "
            + ("under the last action" if by == "action" else
               f"from the endogenous state {model.endogenous.layers[step][0]!r}"))


WEIGHTS = st.lists(st.integers(1, 5), min_size=1, max_size=4)
"""Prior weights of the pairs compared by the definitions (``partition_failure``)."""


@st.composite
def _product_cases(draw: st.DrawFn, relation: Relation, broken: bool = False):
    mdp, model, what = draw(_models(broken))
    return relation, mdp, model, draw(WEIGHTS), what


@st.composite
def _iid_cases(draw: st.DrawFn, broken: bool = False):
    mdp, model, what = draw(_models(broken))
    return mdp, model, draw(WEIGHTS), what


CONTROL = ("hypothesis broken: with i.i.d. noise declared, the exogenous value made sticky at one "
           "step by an action or by an endogenous state")

_PRODUCT_CLAIMS: tuple[tuple[Relation, str, str], ...] = (
    ("backward", "exo:bki-product",
     "(s1', xi1') and (s2', xi2') of an exogenous Block MDP are backward KI iff s1', s2' are "
     "backward KI in the endogenous Block MDP and T_ex(xi1' | .), T_ex(xi2' | .) are "
     "proportional"),
    ("forward", "exo:fki-product",
     "(s1, xi1) and (s2, xi2) of an exogenous Block MDP are forward KI iff s1, s2 are forward KI "
     "in the endogenous Block MDP and T_ex(. | xi1) = T_ex(. | xi2)"),
    ("ki", "exo:ki-product",
     "the KI partition of an exogenous Block MDP is the product of the endogenous Block MDP's "
     "and the exogenous chain's"),
)
for _relation, _label, _statement in _PRODUCT_CLAIMS:
    register(Claim(
        label=_label,
        statement=_statement,
        instances=functools.partial(_product_cases, _relation),
        check=check_product,
        negative_control=CONTROL,
        negative_instances=functools.partial(_product_cases, _relation, broken=True),
    ))

register(Claim(
    label="exo:iid-noise",
    statement="the backward, forward and full KI partitions of an exogenous Block MDP are its "
              "endogenous Block MDP's, lifted to every exogenous value, iff the exogenous noise "
              "is i.i.d.",
    instances=_iid_cases,
    check=check_iid_noise,
    negative_control=CONTROL,
    negative_instances=functools.partial(_iid_cases, broken=True),
))

"""The JSON spec of an exogenous Block MDP (``kinematic.exogenous_spec``): the compact form builds
the product, the declared form is checked on load, what ``to_exogenous_spec`` writes reads
back, every tool's ``load_spec`` takes both, and malformed ones are refused with one line naming
the file and the entry."""

import copy
import json
import re
import time
from fractions import Fraction

import pytest

from kinematic import (
    InvalidBlockMDP,
    NotFactorised,
    TooLarge,
    check_factorisation,
    combination_lock,
    dumps_exogenous_spec,
    exogenous_block_mdp,
    exogenous_chain,
    from_exogenous_spec,
    from_spec,
    load_exogenous_spec,
    load_spec,
    to_exogenous_spec,
)
from kinematic.exogenous_spec import declares_factorisation, load_with_factorisation
from kinematic.spec import to_spec

LOCK = combination_lock(3, 2, seed=0)
FLIP = {"values": ["0", "1"], "start": {"0": "1/2", "1": "1/2"},
        "transitions": {"0": {"0": "9/10", "1": "1/10"}, "1": {"0": "1/10", "1": "9/10"}}}
COMPACT = {"name": "noisy lock", "endogenous": to_spec(LOCK), "exogenous": FLIP}


def flip_chain(horizon=3):
    return exogenous_chain(FLIP["values"], FLIP["start"], FLIP["transitions"], horizon=horizon)


def test_the_compact_form_builds_the_product_of_exogenous_block_mdp():
    model = from_exogenous_spec(COMPACT)
    expected = exogenous_block_mdp(LOCK, flip_chain(), "noisy lock")
    assert to_spec(model.mdp) == to_spec(expected.mdp)
    assert model.chain == expected.chain and model.parts == expected.parts
    # the name is optional: the product's default
    unnamed = {key: value for key, value in COMPACT.items() if key != "name"}
    assert from_exogenous_spec(unnamed).mdp.name == "combolock-H3-K2-seed0+exogenous"


def test_a_chain_given_layer_by_layer():
    per_layer = {"values": [["-"], ["0", "1"], ["0", "1"]], "start": {"-": 1},
                 "transitions": [{"-": {"0": "1/2", "1": "1/2"}}, FLIP["transitions"]]}
    model = from_exogenous_spec({"endogenous": to_spec(LOCK), "exogenous": per_layer})
    assert model.mdp.layers[0] == ("s1a|-", "s1b|-")
    assert model.chain.transitions[1]["0"]["1"] == Fraction(1, 10)


def test_every_loader_reads_both_forms_as_the_product(tmp_path):
    """``load_spec`` / ``from_spec``, which every tool uses, give the product Block MDP; the
    declared form written by ``dumps_exogenous_spec`` reads back to the same MDP, chain and
    parts."""
    model = from_exogenous_spec(COMPACT)
    compact, declared = tmp_path / "compact.json", tmp_path / "declared.json"
    compact.write_text(json.dumps(COMPACT))
    declared.write_text(dumps_exogenous_spec(model))
    for path in (compact, declared):
        assert to_spec(load_spec(path)) == to_spec(model.mdp), path
        back = load_exogenous_spec(path)
        assert to_spec(back.mdp) == to_spec(model.mdp)
        assert back.chain == model.chain and back.parts == model.parts
        mdp, factorisation = load_with_factorisation(path)
        assert factorisation is not None and factorisation.mdp is mdp
        assert factorisation.parts == model.parts
    written = json.loads(declared.read_text())
    assert written["factorisation"]["endogenous"]["s2b|1"] == "s2b"
    assert written["factorisation"]["exogenous"]["s2b|1"] == "1"
    assert {key for key in written if key != "factorisation"} == set(to_spec(model.mdp))


def test_a_checked_factorisation_with_names_of_its_own_round_trips():
    """States named anyhow (not ``s|xi``): the labels are written, not parsed from names."""
    mdp = from_spec({"name": "grid", "horizon": 2, "actions": ["a"],
                     "layers": [["s"], ["p", "q", "r", "t"]], "start": {"s": 1},
                     "transitions": {"s": {"a": {"p": "1/8", "q": "3/8", "r": "1/8",
                                                 "t": "3/8"}}}})
    model = check_factorisation(mdp, {"s": "s", "p": "L", "q": "L", "r": "R", "t": "R"},
                                {"s": "-", "p": "0", "q": "1", "r": "0", "t": "1"})
    back = from_exogenous_spec(json.loads(dumps_exogenous_spec(model)))
    assert back.parts == model.parts and back.chain == model.chain
    assert back.chain.transitions[0]["-"] == {"0": Fraction(1, 4), "1": Fraction(3, 4)}


def test_an_ordinary_spec_declares_nothing(tmp_path):
    path = tmp_path / "lock.json"
    path.write_text(json.dumps(to_spec(LOCK)))
    mdp, factorisation = load_with_factorisation(path)
    assert factorisation is None and to_spec(mdp) == to_spec(LOCK)
    assert not declares_factorisation(to_spec(LOCK))
    with pytest.raises(InvalidBlockMDP, match=r"^.*lock\.json: spec: declares no factorisation: "
                                              r"give 'endogenous' and 'exogenous'"):
        load_exogenous_spec(path)


def _compact(change):
    spec = copy.deepcopy(COMPACT)
    change(spec)
    return spec


def _declared(change):
    spec = to_exogenous_spec(from_exogenous_spec(COMPACT))
    change(spec)
    return spec


MALFORMED = [
    (_compact(lambda s: s["exogenous"]["transitions"]["0"].update({"1": "2/10"})),
     InvalidBlockMDP, r"exogenous transitions\[1\]\['0'\]: the probabilities sum to 11/10, not 1"),
    (_compact(lambda s: s["exogenous"].update({"value": []})),
     InvalidBlockMDP, r"exogenous: unknown key 'value' \(did you mean 'values'\?\)"),
    (_compact(lambda s: s["exogenous"].pop("start")),
     InvalidBlockMDP, r"exogenous: missing key 'start'"),
    (_compact(lambda s: s["exogenous"]["transitions"].update({"2": {"0": 1}})),
     InvalidBlockMDP, r"exogenous transitions\[1\] \(from layer 1\): unknown exogenous value '2'"),
    (_compact(lambda s: s["exogenous"].update({"values": [["0"], ["0", "1"]]})),
     InvalidBlockMDP, r"exogenous chain: 2 layers of values but horizon 3"),
    (_compact(lambda s: s["endogenous"]["transitions"]["s1a"]["a1"].update({"s2a": "1"})),
     InvalidBlockMDP, r"endogenous: transitions\['s1a'\]\['a1'\] sums to"),
    (_compact(lambda s: s.update({"layers": []})),
     InvalidBlockMDP, r"spec: 'layers' beside 'endogenous' and 'exogenous': the Block MDP goes "
                      r"under 'endogenous'"),
    (_compact(lambda s: s.update({"exogenus": {}})),
     InvalidBlockMDP, r"spec: unknown key 'exogenus' \(did you mean 'exogenous'"),
    (_compact(lambda s: s.pop("exogenous")), InvalidBlockMDP, r"spec: missing key 'exogenous'"),
    (_compact(lambda s: s.update({"name": 7})),
     InvalidBlockMDP, r"spec: name must be a non-empty string, got 7"),
    (_compact(lambda s: s.update({"endogenous": copy.deepcopy(COMPACT)})),
     InvalidBlockMDP, r"endogenous: a Block MDP spec, not an exogenous one"),
    (_compact(lambda s: s["exogenous"].update({"start": {"0": 0.5, "1": 0.5}})),
     InvalidBlockMDP, r"the product of endogenous and exogenous: numbers mix floats and exact"),
    (_declared(lambda s: s["factorisation"]["exogenous"].update({"s1a|0": "1"})),
     NotFactorised, r"factorisation does not hold: layer 1: states 's1a\|0' and 's1a\|1' have the "
                    r"same labels"),
    (_declared(lambda s: s["transitions"]["s1a|0"]["a2"].update({"s2a|0": "1/2"})),
     InvalidBlockMDP, r"transitions\['s1a\|0'\]\['a2'\] sums to 21/20, not 1"),
    (_declared(lambda s: s["transitions"]["s1a|0"]["a2"].update(
        {"s2a|0": "1/20", "s2a|1": "9/20"})),  # the sum kept, the exogenous bit's memory lost
     NotFactorised, r"factorisation does not hold: transitions\['s1a\|0'\]\['a2'\]\['s2a\|0'\]: "
                    r"1/20 is not T_en\('s2a' \| 's1a', 'a2'\) T_ex\('0' \| '0'\) = 1/2 \* 9/10"),
    (_declared(lambda s: s["factorisation"]["endogenous"].update({"zz": "s1a"})),
     InvalidBlockMDP, r"factorisation: endogenous labels: unknown state 'zz'"),
    (_declared(lambda s: s["factorisation"]["exogenous"].pop("s3c|1")),
     InvalidBlockMDP, r"factorisation: exogenous labels: no label for state\(s\) 's3c\|1'"),
    (_declared(lambda s: s["factorisation"]["exogenous"].update({"s1a|0": 0})),
     InvalidBlockMDP, r"factorisation\['exogenous'\]\['s1a\|0'\]: a label is a non-empty string, "
                      r"got 0"),
    (_declared(lambda s: s["factorisation"].update({"endogenus": {}})),
     InvalidBlockMDP, r"factorisation: unknown key 'endogenus' \(did you mean 'endogenous'"),
    (_declared(lambda s: s["factorisation"].pop("exogenous")),
     InvalidBlockMDP, r"factorisation: missing key 'exogenous'"),
    (_declared(lambda s: s.update({"factorisation": []})),
     InvalidBlockMDP, r"factorisation must be a mapping, got list"),
    (_declared(lambda s: s.update({"exogenous": FLIP})),
     InvalidBlockMDP, r"spec: 'exogenous' beside 'factorisation': give either"),
    (_declared(lambda s: s.update({"factorization": s.pop("factorisation")})),
     InvalidBlockMDP, r"spec: unknown key 'factorization' \(did you mean 'factorisation'"),
]


# Ids without the patterns' backslashes: pytest escapes a backslash of an explicit id anew at
# each collection in one process, and mutmut collects several times in one process (its stats,
# then its clean run), which then finds none of these ids.
@pytest.mark.parametrize(("spec", "error", "message"), MALFORMED,
                         ids=[message.replace("\\", "")[:40] for _, _, message in MALFORMED])
def test_a_malformed_spec_is_refused_in_one_line_naming_the_file_and_the_entry(
        tmp_path, spec, error, message):
    path = tmp_path / "exo.json"
    path.write_text(json.dumps(spec))
    for load in (load_spec, load_exogenous_spec):
        with pytest.raises(error) as raised:
            load(path)
        text = str(raised.value)
        assert "\n" not in text
        assert re.match(rf"^{re.escape(str(path))}: {message}", text), text


def test_a_product_too_large_for_memory_is_refused_before_it_is_built(tmp_path):
    """A spec of a few hundred kilobytes that declares 30,000 exogenous values on the lock: the
    product would have ~10^10 transition entries; refused at once with the estimate."""
    values = [f"v{k}" for k in range(30_000)]
    spec = _compact(lambda s: s.update({"exogenous": {
        "values": values, "start": {"v0": 1}, "transitions": {}}}))
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(spec))
    started = time.perf_counter()
    with pytest.raises(TooLarge, match=rf"^{re.escape(str(path))}: exogenous: the product Block "
                                       r"MDP \(about 240,000 states and [\d,]+ transition "
                                       r"entries\) would need about [\d.]+ [TPG]iB of memory"):
        load_spec(path)
    assert time.perf_counter() - started < 2

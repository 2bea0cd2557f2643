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
    with_float_numbers,
)
from kinematic.exogenous_spec import (
    declares_factorisation,
    load_with_factorisation,
    to_compact_exogenous_spec,
)
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
     InvalidBlockMDP, r"numbers mix floats and exact fractions: exogenous start\['0'\] is the "
                      r"float 0\.5 but exogenous transitions\[1\]\['0'\]\['0'\] is the exact"),
    (_declared(lambda s: s["factorisation"]["exogenous"].update({"s1a|0": "1"})),
     NotFactorised, r"factorisation does not hold: layer 1: states 's1a\|0' and 's1a\|1' have the "
                    r"same labels"),
    (_declared(lambda s: s["transitions"]["s1a|0"]["a2"].update({"s2a|0": "1/2"})),
     InvalidBlockMDP, r"transitions\['s1a\|0'\]\['a2'\] sums to 21/20, not 1"),
    (_declared(lambda s: s["transitions"]["s1a|0"]["a2"].update(
        {"s2a|0": "1/20", "s2a|1": "9/20"})),  # the sum kept, the exogenous bit's memory lost
     NotFactorised, r"factorisation does not hold: transitions\['s1a\|0'\]\['a2'\]: the next "
                    r"exogenous value is \{'0': 1/2, '1': 1/2\}, but from 's1a\|0' with action "
                    r"'a1' \{'0': 9/10, '1': 1/10\}: it depends on the action"),
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


REFUSED = {  # a spec -> its whole message
    "not an object": ([1], "spec must be a JSON object, got list"),
    "both forms": (_declared(lambda s: s.update({"endogenous": {}})),
                   "spec: 'endogenous' beside 'factorisation': give either an endogenous Block "
                   "MDP and an exogenous chain (the compact form) or a Block MDP with its "
                   "factorisation"),
    "neither form": (to_spec(LOCK), "spec: declares no factorisation: give 'endogenous' and "
                                    "'exogenous' (an endogenous Block MDP and an exogenous chain) "
                                    "or 'factorisation' (each state's endogenous and exogenous "
                                    "label)"),
    **{f"{key} beside": (_compact(lambda s, key=key: s.update({key: 1})),
                         f"spec: {key!r} beside 'endogenous' and 'exogenous': the Block MDP goes "
                         "under 'endogenous' (or declare each state's labels under "
                         "'factorisation')")
       for key in ("transitions", "start", "horizon", "actions")},
    "no endogenous": (_compact(lambda s: s.pop("endogenous")),
                      "spec: missing key 'endogenous' (the compact form has 'endogenous' and "
                      "'exogenous')"),
    "nested": (_compact(lambda s: s.update({"endogenous": copy.deepcopy(COMPACT)})),
               "endogenous: a Block MDP spec, not an exogenous one (one factorisation per spec)"),
    "labels a list": (_declared(lambda s: s["factorisation"].update({"endogenous": []})),
                      "factorisation['endogenous'] must be a mapping, got list"),
    "empty label": (_declared(lambda s: s["factorisation"]["exogenous"].update({"s1a|0": ""})),
                    "factorisation['exogenous']['s1a|0']: a label is a non-empty string, got ''"),
    "int label": (_declared(lambda s: s["factorisation"]["exogenous"].update({"s1a|0": 5})),
                  "factorisation['exogenous']['s1a|0']: a label is a non-empty string, got 5"),
    "values a number": (_compact(lambda s: s["exogenous"].update({"values": 5})),
                        "exogenous values: a non-empty list of names (or one list per layer), "
                        "got 5"),
    "values mixed": (_compact(lambda s: s["exogenous"].update({"values": [["0"], 5]})),
                     "exogenous values: names, or one list of names per layer, got [['0'], 5]"),
    "values a long string": (_compact(lambda s: s["exogenous"].update({"values": "0" * 30_000})),
                             "exogenous values: a non-empty list of names (or one list per "
                             "layer), got '" + "0" * 56 + "..."),  # not 30,000 values
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_spec_is_refused_with_the_whole_message(case):
    spec, message = REFUSED[case]
    with pytest.raises(InvalidBlockMDP) as raised:
        from_exogenous_spec(spec)
    assert str(raised.value) == message


LOOSE = {"name": "loose", "horizon": 2, "actions": ["a"], "layers": [["s"], ["t", "u"]],
         "start": {"s": 1.0}, "transitions": {"s": {"a": {"t": 0.5002, "u": 0.5002}}}}
"""A float Block MDP whose row sums to 1.0004: valid within atol = 10^-3 only."""


def test_every_loader_passes_atol_on(tmp_path):
    """The compact form (its Block MDP and its chain, both off by 4 x 10^-4), the declared form
    and a spec declaring nothing, read with atol = 10^-3 by each entry point; with the default
    atol the same spec is refused."""
    loose_chain = {"values": ["0", "1"], "start": {"0": 0.5002, "1": 0.5002},
                   "transitions": {"0": {"0": 0.9, "1": 0.1004}, "1": {"0": 0.1, "1": 0.9004}}}
    compact = {"endogenous": LOOSE, "exogenous": loose_chain}
    with pytest.raises(InvalidBlockMDP):
        from_exogenous_spec(compact)
    model = from_exogenous_spec(compact, atol=1e-3)
    assert model.mdp.mode.atol == 1e-3
    declared = to_exogenous_spec(model)
    assert from_exogenous_spec(declared, atol=1e-3).parts == model.parts
    for name, spec in (("compact", compact), ("declared", declared)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(spec))
        assert load_exogenous_spec(path, atol=1e-3).parts == model.parts
        assert load_with_factorisation(path, atol=1e-3)[1].parts == model.parts
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(LOOSE))
    assert load_with_factorisation(plain, atol=1e-3)[1] is None
    with pytest.raises(InvalidBlockMDP, match=r"^spec: declares no factorisation"):
        from_exogenous_spec(LOOSE, atol=1e-3)


@pytest.mark.parametrize("float_mode", [False, True])
def test_the_memory_estimate_counts_the_products_states_and_entries(float_mode):
    """A chain of 1, 30,000 and 20,000 values on the H = 3 lock (2, 3, 3 states; 6 and 8
    transition entries, dense in exact mode, sparse in float mode): 2 + 3 x 30,000 + 3 x 20,000
    states and 6 x 30,000 + 8 x 30,000 x 20,000 entries."""
    lock = with_float_numbers(LOCK) if float_mode else LOCK
    spec = {"endogenous": to_spec(lock), "exogenous": {
        "values": [["v0"], [f"v{k}" for k in range(30_000)], [f"w{k}" for k in range(20_000)]],
        "start": {"v0": 1}, "transitions": []}}
    with pytest.raises(TooLarge, match=r"^exogenous: the product Block MDP \(about 150,002 states "
                                       r"and 4,800,180,000 transition entries\) would need"):
        from_exogenous_spec(spec)


def test_the_compact_form_writes_a_stationary_chain_once_and_any_other_per_layer():
    """Values and transitions once when every step is the same (the lock's flipping bit), one
    list per layer and step otherwise (a chain whose layers or steps differ), each reading back
    to the same MDP; one layer has no step at all."""
    model = from_exogenous_spec(COMPACT)
    stationary = to_compact_exogenous_spec(model)["exogenous"]
    assert stationary["values"] == ["0", "1"] and stationary["transitions"] == FLIP["transitions"]
    steps = [FLIP["transitions"], {"0": {"0": "1/2", "1": "1/2"}, "1": {"0": "1/2", "1": "1/2"}}]
    for chain in (exogenous_chain([["-"], ["0", "1"], ["0", "1"]], {"-": 1},
                                  [{"-": {"0": "1/2", "1": "1/2"}}, FLIP["transitions"]]),
                  exogenous_chain([["0", "1"]] * 3, FLIP["start"], steps)):
        changing = exogenous_block_mdp(LOCK, chain)
        spec = to_compact_exogenous_spec(changing)
        assert spec["exogenous"]["values"] == [list(layer) for layer in chain.layers]
        assert to_spec(from_exogenous_spec(spec).mdp) == to_spec(changing.mdp)
    single = exogenous_block_mdp(combination_lock(1, 2, seed=0),
                                 exogenous_chain(["0", "1"], FLIP["start"], {}, horizon=1))
    assert to_compact_exogenous_spec(single)["exogenous"] == {
        "values": ["0", "1"], "start": {"0": "1/2", "1": "1/2"}, "transitions": {}}


def test_a_model_its_parts_do_not_rebuild_has_no_compact_form():
    """Recovered by check_factorisation from a product whose states emit two observations: the
    parts (each state emitting itself) do not rebuild it."""
    two = from_spec({"name": "two", "horizon": 2, "actions": ["a"], "layers": [["s"], ["t"]],
                     "start": {"s": 1}, "transitions": {"s": {"a": {"t": 1}}},
                     "emissions": {"t": {"x": "1/2", "y": "1/2"}}})
    noisy = exogenous_block_mdp(two, flip_chain(2))
    model = check_factorisation(noisy.mdp, {z: p[0] for z, p in noisy.parts.items()},
                                {z: p[1] for z, p in noisy.parts.items()})
    with pytest.raises(ValueError, match=r"^'two\+exogenous' is not the product of its "
                                         r"endogenous part and its chain \(they do not keep its "
                                         r"observations or stochastic rewards\): write it in the "
                                         r"declared form \(to_exogenous_spec\)$"):
        to_compact_exogenous_spec(model)


def test_the_declared_form_is_written_with_one_space_of_indent():
    model = from_exogenous_spec(COMPACT)
    text = dumps_exogenous_spec(model)
    assert text == json.dumps(to_exogenous_spec(model), indent=1)
    assert "\n " in text and "\n" not in dumps_exogenous_spec(model, indent=None)

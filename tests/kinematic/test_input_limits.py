"""Inputs that used to hang, crash or be silently misread: bounded numbers, strict JSON, files
that are not files, tolerances, and requests too large for the machine. Each gets a one-line
error naming the culprit, so that any file handed over is safe to read."""

import argparse
import json
import os
import re
import sys
import warnings
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kinematic import cli
from kinematic.arguments import (
    NumberRange,
    WorkCount,
    at_least,
    format_duration,
    fraction,
    positive,
    tolerance,
)
from kinematic.errors import InvalidBlockMDP, TooLarge
from kinematic.families import combination_lock
from kinematic.json_input import MAX_JSON_DEPTH, _nesting_depth, read_json
from kinematic.model import with_float_numbers
from kinematic.numbers import MAX_EXPONENT, MAX_NUMBER_LENGTH, NumberMode, parse_number
from kinematic.resources import check_memory, format_bytes, physical_memory
from kinematic.spec import dumps_spec, from_spec, load_spec, to_spec

SPEC = to_spec(combination_lock(3, 2, 0))
FLOAT_SPEC = to_spec(with_float_numbers(combination_lock(3, 2, 0)))


def test_numbers_at_the_limits_parse_and_beyond_them_are_refused_at_once():
    assert parse_number(f"1e-{MAX_EXPONENT}", "x") == Fraction(1, 10**MAX_EXPONENT)
    assert parse_number("1" * MAX_NUMBER_LENGTH, "x") == int("1" * MAX_NUMBER_LENGTH)
    with pytest.raises(InvalidBlockMDP, match=r"^x: '1e-100000000' has exponent -100000000 "
                                              r"\(at most 1000 in absolute value accepted\)$"):
        parse_number("1e-100000000", "x")
    with pytest.raises(InvalidBlockMDP, match="exponent 1001"):
        parse_number(f"1E{MAX_EXPONENT + 1}", "x")
    with pytest.raises(InvalidBlockMDP, match=r"^x: a number string of 1001 characters \(at "
                                              r"most 1000 accepted\)$"):
        parse_number("1" * (MAX_NUMBER_LENGTH + 1), "x")


def test_json_deeper_than_the_limit_is_refused_without_recursion():
    assert read_json("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, "f") is not None
    with pytest.raises(ValueError, match=r"^f: JSON nested 100000 levels deep \(at most 32"):
        read_json("[" * 100_000 + "]" * 100_000, "f")
    # brackets inside strings (with escaped quotes) are not nesting
    assert read_json(json.dumps({"k": "\\\"[[[[" * 50}), "f") == {"k": "\\\"[[[[" * 50}


def _depth(value: object) -> int:
    if isinstance(value, dict | list):
        children = value.values() if isinstance(value, dict) else value
        return 1 + max((_depth(child) for child in children), default=0)
    return 0


_BRACKETY = st.text(st.sampled_from('[]{}"\\ ab\u00e9'), max_size=6)
_JSON = st.recursive(
    st.none() | st.integers() | _BRACKETY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_BRACKETY, inner, max_size=3),
    max_leaves=12,
)


@given(_JSON, st.booleans())
def test_nesting_depth_is_the_depth_of_the_parsed_value(value, indented):
    """Strings full of brackets, quotes and backslashes (escaped in the text) are not nesting;
    without a backslash the quote-counting path runs, with one the strings are emptied first."""
    text = json.dumps(value, indent=1 if indented else None)
    assert _nesting_depth(text) == _depth(value)


def test_duplicate_keys_are_refused_naming_the_key():
    with pytest.raises(ValueError, match=r"^f: duplicate key 's1a'$"):
        read_json('{"t": {"s1a": 1, "s1b": 2, "s1a": 3}}', "f")
    with pytest.raises(ValueError, match=r"^f: malformed JSON at line 2, column 1"):
        read_json('{"a":\n}', "f")
    with pytest.raises(ValueError, match=r"^f: Exceeds the limit"):
        read_json("1" * 5000, "f")


@pytest.mark.parametrize("write, message", [
    (lambda p: p.write_text(dumps_spec(combination_lock(3, 2, 0)).replace(
        '"name": "combolock-H3-K2-seed0"', '"name": "a", "name": "b"')),
     "duplicate key 'name'"),
    (lambda p: p.write_bytes(b'{"name": "\xff"}'), "not UTF-8 text"),
    (lambda p: os.mkfifo(p), "not a regular file"),
    (lambda p: p.mkdir(), "not a regular file"),
    (lambda p: None, "no such file"),
    (lambda p: p.write_text(json.dumps({**SPEC, "start": {"s1a": "1e-99999999"}})),
     "start['s1a']: '1e-99999999' has exponent"),
])
def test_every_spec_file_error_names_the_file(tmp_path: Path, write, message):
    path = tmp_path / "spec.json"
    write(path)
    with pytest.raises(InvalidBlockMDP) as error:
        load_spec(path)
    assert str(error.value).startswith(f"{path}: ") and message in str(error.value)


@pytest.mark.parametrize("atol", [0.5, -1e-9, float("nan"), float("inf"), 2e-3])
def test_a_tolerance_outside_its_range_is_refused(atol):
    with pytest.raises(ValueError, match=r"^atol must be a finite number in \[0, 0.001\]"):
        NumberMode(exact=False, atol=atol)
    spec = {**FLOAT_SPEC, "start": {"s1a": 0.45, "s1b": 0.45}}  # sums to 0.9
    with pytest.raises(ValueError, match=r"^atol must be"):
        from_spec(spec, atol=atol)


def test_the_tolerance_judges_sums_up_to_its_bound():
    near = {**FLOAT_SPEC, "start": {"s1a": 0.4995, "s1b": 0.5}}
    assert from_spec(near, atol=1e-3).mode.atol == 1e-3
    with pytest.raises(InvalidBlockMDP, match="sums to"):
        from_spec(near, atol=1e-4)


def test_number_ranges_describe_check_and_parse():
    assert at_least(2).describe() == "an int >= 2"
    assert fraction().describe() == "a finite number in (0, 1)"
    assert positive().describe() == "a finite number > 0"
    assert tolerance().describe() == "a finite number in [0, 0.001]"
    assert NumberRange(float, high=1, open_high=True).describe() == "a finite number < 1"
    assert NumberRange(int).describe() == "an int"
    assert [fraction().contains(v) for v in (0, 0.5, 1, float("nan"), True, "0.5")] == [
        False, True, False, False, False, False]
    assert [at_least(2).contains(v) for v in (1, 2, 2.0, 10**30)] == [False, True, False, True]
    assert NumberRange(float, low=0, high=1).contains(1.0)
    assert not NumberRange(float, low=0, high=1, open_high=True).contains(1.0)
    assert at_least(1)("3") == 3 and positive()("1e-3") == 1e-3
    with pytest.raises(ValueError, match=r"^hidden must be an int >= 1, got 0$"):
        at_least(1).check(0, "hidden")
    for bad in ("0", "x", "1.5"):
        with pytest.raises(Exception, match=f"must be an int >= 1, got '{bad}'"):
            at_least(1)(bad)


def test_requests_larger_than_the_machine_are_refused_with_an_estimate():
    with pytest.raises(TooLarge, match=r"^combination_lock\(horizon=100000000, actions=10\) "
                                       r"would need about 2\.3 TiB of memory; this machine has"):
        combination_lock(10**8, 10, 0)
    with pytest.raises(TooLarge, match="actions=100000000"):
        combination_lock(10, 10**8, 0)
    check_memory(physical_memory(), "exactly the machine")  # at the limit: accepted
    with pytest.raises(TooLarge, match=r"^one byte more would need"):
        check_memory(physical_memory() + 1, "one byte more")
    assert [format_bytes(n) for n in (512, 1536, 3 * 2**30, 2**50 * 5)] == [
        "512 B", "1.5 KiB", "3.0 GiB", "5.0 PiB"]


@pytest.mark.parametrize("arguments, flag", [
    (["analyze", "spec.json", "--atol", "nan"], "--atol"),
    (["analyze", "spec.json", "--atol", "0.5"], "--atol"),
    (["family", "combolock", "--horizon", "0"], "--horizon"),
    (["family", "combolock", "--actions", "1"], "--actions"),
    (["family", "combolock", "--seed", "-1"], "--seed"),
    (["find-counterexample", "--objective", "pcid_target", "--max-examples", "-1"],
     "--max-examples"),
])
def test_command_line_flags_are_validated_naming_the_flag(arguments, flag, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(arguments)
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"error: argument {flag}: must be" in captured.err.splitlines()[-1]


def test_a_too_large_family_request_exits_2_with_one_line(capsys):
    assert cli.main(["family", "combolock", "--horizon", str(10**9)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("error: combination_lock(horizon=1000000000")


def test_an_ambiguous_float_spec_exits_2_naming_the_file(tmp_path: Path, capsys):
    from tests.kinematic.test_float_mode import near_rows_spec

    spec = tmp_path / "near.json"
    spec.write_text(json.dumps(near_rows_spec((0, 1, 2))))
    assert cli.main(["analyze", str(spec)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(f"error: {spec}: ") and "'s2_0' and 's2_2'" in captured.err


@pytest.mark.parametrize("name", [None, "", 3, ["x"]])
def test_a_spec_name_must_be_a_non_empty_string(name):
    with pytest.raises(InvalidBlockMDP, match=r"^spec: name must be a non-empty string, got "):
        from_spec({**SPEC, "name": name})


def test_a_slow_exact_analysis_warns_first_with_its_estimate(tmp_path: Path, capsys,
                                                             monkeypatch: pytest.MonkeyPatch):
    from kinematic import analysis
    from kinematic.model import with_float_numbers

    lock = combination_lock(3, 2, 0)  # widths 2, 3, 3, two successors per pair:
    assert analysis.exact_operations(lock) == 2 * 2 * 3 + (2 * 2 + 3 * 2) * 3  # W_t d_t W_h
    seconds = 42 * analysis.EXACT_SECONDS_PER_OPERATION
    monkeypatch.setattr(analysis, "SLOW_EXACT_SECONDS", seconds - 1e-12)
    with pytest.warns(analysis.SlowExactAnalysis, match=r"needs 42 integer multiply-adds"):
        analysis.analyze(lock)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        analysis.analyze(with_float_numbers(lock))  # float mode: no warning
        monkeypatch.setattr(analysis, "SLOW_EXACT_SECONDS", seconds)
        analysis.analyze(lock)  # at the threshold: no warning
    monkeypatch.setattr(analysis, "SLOW_EXACT_SECONDS", 0.0)
    spec = tmp_path / "lock.json"
    spec.write_text(dumps_spec(lock))
    assert cli.main(["analyze", str(spec), "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith(f"warning: {spec}: exact analysis of 'combolock-H3-K2-seed0'")
    assert captured.err.count("\n") == 1
    assert json.loads(captured.out)["eta_min"] == "1/2"


@pytest.mark.parametrize("text", ["1_000", "1/1_0", "0.2_5", "1e-99_999_999", "1E1_0"])
def test_a_number_with_an_underscore_is_refused_naming_the_entry(text):
    """``Fraction`` reads digit separators, and the exponent guard reads digits only: without
    this check ``"1_000"`` would parse as 1000 and ``"1e-99_999_999"`` would hang."""
    with pytest.raises(InvalidBlockMDP, match=rf"^start\['s1a'\]: '{text}' has an underscore"):
        from_spec({**SPEC, "start": {"s1a": text}})


def test_the_depth_pre_scan_reads_a_long_run_of_escaped_quotes_in_one_pass():
    """A spec truncated inside 65,536 escaped quotes (a regex over whole strings retried from
    each quote took a minute) is reported as malformed JSON; a complete one reads back."""
    run = '\\"' * 65_536
    with pytest.raises(ValueError, match=r"^f: malformed JSON at line 1, column 16: "
                                         r"Unterminated string"):
        read_json('{"name": [[1], "' + run, "f")
    assert _nesting_depth('{"name": [[1], "' + run) == 3
    assert read_json('{"name": "' + run + '"}', "f") == {"name": '"' * 65_536}


@pytest.mark.parametrize("backslashes", range(6))
def test_a_quote_is_escaped_after_an_odd_run_of_backslashes_only(backslashes):
    """A string holding a run of backslashes, then for an odd run a quote and brackets: in the
    text, the quote after the run closes the string for an even run and is escaped for an odd
    one (counting one backslash, or pairing from the right, gets one of them wrong)."""
    content = "\\" * (backslashes // 2) + ('"[[' if backslashes % 2 else "")
    text = json.dumps([content, [[1]]])
    assert text.count("\\") == backslashes  # the run in the text
    assert _nesting_depth(text) == 3


def _actions_spec(count: int) -> dict:
    actions = [f"a{i}" for i in range(count)]
    return {"name": "wide", "horizon": 2, "actions": actions, "layers": [["s1"], ["s2"]],
            "start": {"s1": "1"}, "transitions": {"s1": {a: {"s2": "1"} for a in actions}}}


def test_a_hundred_thousand_actions_validate_and_a_repeated_one_is_named():
    """Action checks by counter and set (``list.count`` per action, or membership in the tuple
    of actions per transition entry, took minutes here)."""
    spec = _actions_spec(100_000)
    assert from_spec(spec).number_of_actions == 100_000
    spec["actions"] = [*spec["actions"], "a99999", "a5"]
    with pytest.raises(InvalidBlockMDP, match=r"^action 'a5' appears twice$"):
        from_spec(spec)
    del spec["transitions"]["s1"]["a0"]
    spec["transitions"]["s1"]["b0"] = {"s2": "1"}
    spec["actions"] = spec["actions"][:-2]
    with pytest.raises(InvalidBlockMDP, match=r"^transitions\['s1'\]: unknown action 'b0'$"):
        from_spec(spec)


def test_a_name_that_is_a_lone_surrogate_is_refused_naming_its_place():
    spec = {"name": "s", "horizon": 2, "actions": ["a"], "layers": [["s1"], ["s2", "\ud800"]],
            "start": {"s1": "1"}, "transitions": {"s1": {"a": {"s2": "1/2", "\ud800": "1/2"}}}}
    with pytest.raises(InvalidBlockMDP, match=r"^layer 2, state 2: name '\\ud800' is not valid "
                                              r"Unicode text \(a lone surrogate\)$"):
        from_spec(spec)
    spec = {**spec, "layers": [["s1"], ["s2"]], "actions": ["a", "\udfff"],
            "transitions": {"s1": {"a": {"s2": "1"}, "\udfff": {"s2": "1"}}}}
    with pytest.raises(InvalidBlockMDP, match=r"^action 2: name '\\udfff' is not valid Unicode "
                                              r"text \(a lone surrogate\)$"):
        from_spec(spec)
    with pytest.raises(InvalidBlockMDP, match=r"^emissions\['s2'\]: name '\\udc80' is not valid "
                                              r"Unicode text \(a lone surrogate\)$"):
        from_spec({**spec, "actions": ["a"], "transitions": {"s1": {"a": {"s2": "1"}}},
                   "emissions": {"s2": {"x": "1/2", "\udc80": "1/2"}}})
    with pytest.raises(InvalidBlockMDP, match=r"^the MDP: name 'lock\\ud800' is not valid "
                                              r"Unicode text \(a lone surrogate\)$"):
        from_spec({**spec, "actions": ["a"], "transitions": {"s1": {"a": {"s2": "1"}}},
                   "name": "lock\ud800"})  # HOMER printed it after a whole run
    accented = from_spec({**spec, "actions": ["a", "\u00e9t\u00e9"],
                          "transitions": {"s1": {"a": {"s2": "1"}, "\u00e9t\u00e9": {"s2": "1"}}}})
    assert accented.actions == ("a", "\u00e9t\u00e9")  # any other text is a name


def test_the_text_report_of_a_spec_with_a_surrogate_name_is_an_error_line(tmp_path: Path,
                                                                          capsys):
    spec = tmp_path / "surrogate.json"
    spec.write_text(json.dumps(SPEC).replace('"s2a"', '"\\ud800"'))
    assert cli.main(["analyze", str(spec)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(f"error: {spec}: layer 2, state 1: name '\\ud800'")


@pytest.mark.parametrize("exists", [False, True])
def test_a_spec_path_with_a_newline_is_named_on_one_line(tmp_path: Path, capsys, exists):
    spec = tmp_path / "two\nlines.json"
    if exists:
        spec.write_text(json.dumps({**SPEC, "start": {"s1a": "2"}}))
    assert cli.main(["analyze", str(spec)]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1
    assert captured.err.startswith(f"error: {str(spec)!r}: ")
    assert ("start sums to 2, not 1" if exists else "no such file") in captured.err


def _long_chain_spec(horizon: int, digits: int) -> dict:
    """A chain whose state ``a_h`` moves on to ``a_{h+1}`` with probability ``1/p`` (``p`` of
    ``digits`` digits): eta of ``a_h`` is ``p^-(h-1)``, with ``(h-1) * digits`` digits."""
    p = 10 ** (digits - 1) + 1
    layers = [["s1"]] + [[f"a{h}", f"b{h}"] for h in range(2, horizon + 1)]
    transitions = {}
    for h, layer in enumerate(layers[:-1], start=1):
        stay, leave = layers[h]
        for state in layer:
            transitions[state] = {"go": {leave: "1"}} if state.startswith("b") else {
                "go": {stay: f"1/{p}", leave: f"{p - 1}/{p}"}}
    return {"name": "long-chain", "horizon": horizon, "actions": ["go"], "layers": layers,
            "start": {"s1": "1"}, "transitions": transitions}


@pytest.mark.parametrize("as_json", [True, False])
def test_exact_results_beyond_the_int_to_str_limit_are_written_in_full(tmp_path: Path, capsys,
                                                                         as_json):
    """H = 10 and 495-digit denominators: eta of ``a10`` has 4,456 digits, over Python's 4,300
    limit on int-to-str conversion, and is written whole; the limit is back after."""
    spec = tmp_path / "long.json"
    spec.write_text(json.dumps(_long_chain_spec(10, 495)))
    limit = sys.get_int_max_str_digits()
    assert cli.main(["analyze", str(spec), *(["--json"] if as_json else [])]) == 0
    assert sys.get_int_max_str_digits() == limit
    out = capsys.readouterr().out
    expected = f"1/{Decimal((10 ** 494 + 1) ** 9)}"  # Decimal: digits without the limit
    assert len(expected) == 2 + 494 * 9 + 1
    if as_json:
        result = json.loads(out)
        assert result["eta"]["a10"] == result["eta_min"] == expected
        assert result["canonical"]["transitions"]["a9"]["go"]["a10"] == f"1/{10 ** 494 + 1}"
    else:
        assert f"  a10: {expected}\n" in out
    assert NumberMode(exact=True).to_json(Fraction(3, 10**5000)) == "3/1" + "0" * 5000


@pytest.mark.parametrize("value, reason", [
    ("1/0", "'1/0' is not a number"), ("abc", "'abc' is not a number"),
    ("1e-99999999", "'1e-99999999' has exponent -99999999"), ("1_0", "has an underscore"),
    ("0", r"must be a number in \(0, 1\]"), ("3/2", r"must be a number in \(0, 1\]"),
])
def test_a_threshold_that_is_no_alpha_exits_2_naming_the_flag(value, reason, capsys):
    """``--threshold`` is read as a spec number (``"1e-99999999"`` used to hang in ``Fraction``,
    ``"1/0"`` to raise ``ZeroDivisionError``) before any search starts."""
    with pytest.raises(SystemExit) as stop:
        cli.main(["find-counterexample", "--objective", "pcid_target", "--threshold", value])
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert re.match(r"^python -m kinematic find-counterexample: error: argument --threshold: .*"
                    + reason, captured.err.splitlines()[-1])


def test_a_search_beyond_its_bound_exits_2_with_the_time_it_would_take(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["find-counterexample", "--objective", "pcid_target", "--max-examples",
                  "1000000000"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(
        "error: argument --max-examples: at most 1,000,000 (about 0.02 s per generated MDP "
        "measured on a 2-core machine; 1000000000 would take about 231 days), got '1000000000'")
    assert cli.MAX_EXAMPLES("1000000") == 1_000_000


def test_work_counts_estimate_the_time_asked_for_in_readable_units():
    assert [format_duration(s) for s in (0.02, 59, 90, 7200, 3 * 86400, 400 * 86400,
                                         1.3e12)] == [
        "0.02 s", "59 s", "1.5 min", "2 h", "3 days", "1.1 years", "41,223 years"]
    count = WorkCount(high=10, seconds_per_unit=60, unit="trial")
    assert count("10") == 10
    with pytest.raises(argparse.ArgumentTypeError,
                       match=r"^at most 10 \(about 1 min per trial measured on a 2-core machine; "
                             r"11 would take about 11 min\), got '11'$"):
        count("11")
    with pytest.raises(argparse.ArgumentTypeError, match=r"^must be an int >= 1, got '0'$"):
        count("0")
    with pytest.raises(argparse.ArgumentTypeError,  # not an OverflowError from a float
                       match=r"^at most 10 .*; 1000000000000.*\.\.\. would take longer than the "
                             r"age of the universe\), got '1000000000000.*\.\.\.$"):
        count("1" + "0" * 400)
    assert at_least(1).contains(10**400) and not NumberRange(int, high=10).contains(10**400)


@pytest.mark.parametrize("place", ["transitions", "start", "emissions"])
def test_a_sum_beyond_the_int_to_str_limit_is_named_in_full(place):
    """Ten 495-digit denominators make a sum of about 4,950 digits: its message names the
    entry and the whole sum (formatting it used to raise Python's digit-limit error instead)."""
    terms = {f"s2_{k}": f"1/{10 ** 494 + k}" for k in range(1, 11)}
    spec = {"name": "sum", "horizon": 2, "actions": ["a"], "layers": [["s1"], list(terms)],
            "start": {"s1": "1"},
            "transitions": {"s1": {"a": {state: "1/10" for state in terms}}}}
    where = {"transitions": r"transitions\['s1'\]\['a'\]", "start": "start",
             "emissions": r"emissions\['s1'\]"}[place]
    if place == "transitions":
        spec["transitions"]["s1"]["a"] = terms
    elif place == "start":
        spec["layers"][0] = list(terms)
        spec["layers"][1] = ["s1"]
        spec["start"] = terms
        spec["transitions"] = {state: {"a": {"s1": "1"}} for state in terms}
    else:
        spec["emissions"] = {"s1": {f"x{k}": p for k, p in enumerate(terms.values())}}
    with pytest.raises(InvalidBlockMDP, match=rf"^{where} sums to \d{{4000,}}/\d{{4000,}}, not 1$"):
        from_spec(spec)


def test_a_spec_larger_than_the_memory_is_refused_naming_it(tmp_path: Path, capsys):
    spec = tmp_path / "huge.json"
    spec.write_text("{}")
    os.truncate(spec, 2**40)  # sparse: a terabyte that takes no disk
    assert cli.main(["analyze", str(spec)]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and captured.err.startswith(
        f"error: reading {spec} would need about 1.0 TiB of memory; this machine has ")

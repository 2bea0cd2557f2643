"""Inputs that used to hang, crash or be silently misread: bounded numbers, strict JSON, files
that are not files, tolerances, and requests too large for the machine. Each gets a one-line
error naming the culprit (issue "safe with any input")."""

import json
import os
import warnings
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kinematic import cli
from kinematic.arguments import NumberRange, at_least, fraction, positive, tolerance
from kinematic.errors import InvalidBlockMDP, TooLarge
from kinematic.families import combination_lock
from kinematic.json_input import MAX_JSON_DEPTH, _nesting_depth, read_json
from kinematic.numbers import MAX_EXPONENT, MAX_NUMBER_LENGTH, NumberMode, parse_number
from kinematic.resources import check_memory, format_bytes, physical_memory
from kinematic.spec import dumps_spec, from_spec, load_spec, to_spec

SPEC = to_spec(combination_lock(3, 2, 0))


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
    spec = {**SPEC, "start": {"s1a": 0.45, "s1b": 0.45}}  # sums to 0.9
    with pytest.raises(ValueError, match=r"^atol must be"):
        from_spec(spec, atol=atol)


def test_the_tolerance_judges_sums_up_to_its_bound():
    near = {**SPEC, "start": {"s1a": 0.4995, "s1b": 0.5}}
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

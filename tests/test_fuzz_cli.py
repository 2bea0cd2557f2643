"""Fuzzing the command lines with what people hand each other: mutated specs fed to
``python -m kinematic analyze`` and mutated run directories fed to ``python -m homer compare``,
in-process. Whatever the mutation, the command either succeeds with valid JSON or exits 2 with
one line on stderr that names the culprit file, writes nothing to stdout and no report, and
never raises (a traceback fails the test)."""

import json
import math
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kinematic import cli as kinematic_cli
from kinematic.exogenous_spec import from_exogenous_spec, to_exogenous_spec
from kinematic.families import combination_lock, figure2_split
from kinematic.spec import to_spec

EXOGENOUS = {"endogenous": to_spec(combination_lock(3, 2, 0)),
             "exogenous": {"values": ["0", "1"], "start": {"0": "1/2", "1": "1/2"},
                           "transitions": {"0": {"0": "9/10", "1": "1/10"},
                                           "1": {"0": "1/10", "1": "9/10"}}}}
"""An exogenous Block MDP in the compact form; :data:`SPECS` has it in the declared form too."""

SPECS = [to_spec(combination_lock(3, 2, 0)), to_spec(figure2_split()),
         to_spec(combination_lock(8, 6, 1)), EXOGENOUS,
         to_exogenous_spec(from_exogenous_spec(EXOGENOUS))]

UNDERSCORED = ["1_000", "1/1_0", "0.5_0", "1e-99_999_999", "1E1_0", "_1", "1_"]
"""Numbers with digit separators, which ``Fraction`` reads and a spec refuses (one hung)."""

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**6) | st.sampled_from(
        [0.5, -0.25, 1e-320, 1e308, math.nan, math.inf, "1/2", "0", "1", "-1/3", "1e-999999",
         "x", "", "s1a", "a1", "\ud800", "1" * 5000, *UNDERSCORED]),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.sampled_from(["s1a", "s2b", "a1", "x", "name"]), children, max_size=3),
    max_leaves=6,
)


def _paths(value: object, prefix: tuple = ()) -> list[tuple]:
    """Every path (keys / indices) into a JSON value, the root included."""
    paths = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            paths += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            paths += _paths(child, (*prefix, index))
    return paths


@st.composite
def mutated_json(draw: st.DrawFn, document: object) -> str:
    """``document`` with one structural change (a value replaced, a key dropped or added) or
    one textual change (a slice of its JSON text replaced, possibly by nothing or by itself)."""
    document = json.loads(json.dumps(document))
    kind = draw(st.sampled_from(["replace", "drop", "add", "text"]))
    if kind == "text":
        text = json.dumps(document, indent=1)
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 20)))
        insert = draw(st.sampled_from(["", "{", "}", "[", "]", ",", '"', ":", "0", "1/2",
                                       text[start:end], '"' + '\\"' * 20_000, "[" * 10_000,
                                       "\\" * 3, *UNDERSCORED]) | st.text(max_size=4))
        return text[:start] + insert + text[end:]
    path = draw(st.sampled_from(_paths(document)))
    if not path:
        return json.dumps(draw(json_values))
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    if kind == "replace":
        parent[path[-1]] = draw(json_values)
    elif kind == "drop":
        del parent[path[-1]]
    elif isinstance(parent, dict):
        parent[draw(st.sampled_from(["s9z", "a7", "extra", "s1a", "start"]))] = draw(json_values)
    else:
        parent.append(draw(json_values))
    return json.dumps(document, allow_nan=True)


def _assert_clean_outcome(status: int, captured, culprit: Path) -> None:
    """Success with JSON on stdout, or exit 2 with one stderr line naming ``culprit``."""
    if status == 0:
        json.loads(captured.out.splitlines()[-1])
        return
    assert status == 2, (status, captured.err)
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("error: ") and str(culprit) in lines[0], lines[0]
    assert "Traceback" not in captured.err


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=150)
@given(data=st.data())
def test_analyze_on_a_mutated_spec_succeeds_or_names_the_file(data, tmp_path, capsys):
    spec = tmp_path / "mutated.json"
    spec.write_text(data.draw(mutated_json(data.draw(st.sampled_from(SPECS)))))
    capsys.readouterr()
    status = kinematic_cli.main(["analyze", str(spec), "--json"])
    _assert_clean_outcome(status, capsys.readouterr(), spec)


torch = pytest.importorskip("torch")

from homer import cli as homer_cli  # noqa: E402
from homer.algorithm import run_homer  # noqa: E402
from homer.config import HomerConfig  # noqa: E402
from homer.run_directory import ARTEFACTS  # noqa: E402


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fuzzed") / "run"
    config = HomerConfig(transitions=200, max_transitions=200, max_epochs=5, min_epochs=5,
                         evaluation_episodes=10)
    run_homer(combination_lock(3, 2, 0), out, config, seed=0, progress=False)
    return out


@st.composite
def damage(draw: st.DrawFn, run_dir: Path) -> tuple[str, bytes | None]:
    """One artefact and its new content (None: deleted)."""
    name = draw(st.sampled_from(ARTEFACTS))
    original = (run_dir / name).read_bytes()
    kind = draw(st.sampled_from(["delete", "truncate", "flip", "random", "json"]))
    if kind == "delete":
        return name, None
    if kind == "truncate":
        return name, original[:draw(st.integers(0, len(original) - 1))]
    if kind == "flip":
        position = draw(st.integers(0, len(original) - 1))
        byte = draw(st.integers(0, 255))
        return name, original[:position] + bytes([byte]) + original[position + 1:]
    if kind == "random":
        return name, draw(st.binary(max_size=64))
    if not name.endswith(".json"):
        return name, b""
    return name, draw(mutated_json(json.loads(original))).encode()


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=40)
@given(data=st.data())
def test_compare_on_a_damaged_run_directory_succeeds_or_names_the_file(data, run_dir,
                                                                         tmp_path_factory,
                                                                         capsys):
    copy = tmp_path_factory.mktemp("damaged") / "run"
    shutil.copytree(run_dir, copy)
    name, content = data.draw(damage(run_dir))
    if content is None:
        (copy / name).unlink()
    else:
        (copy / name).write_bytes(content)
    out = copy / "compare"
    capsys.readouterr()
    status = homer_cli.main(["compare", str(copy), "--samples", "3", "--transitions", "10",
                             "--json", "--out", str(out)])
    captured = capsys.readouterr()
    _assert_clean_outcome(status, captured, copy)
    if status == 2:
        assert not out.exists()  # no partial report

"""``python -m homer evaluate``: a reference learner or the user's own ``phi`` (a Python file
named ``path/to/file.py:FUNCTION``) against the exact partitions of a spec, and the user's
policies against eta and V*. Hand-built functions only, nothing learned."""

import json
import os
import re
import shlex
import subprocess
import sys
from math import comb
from pathlib import Path

import pytest

from homer.cli import main
from homer.commands import EVALUATE_OUTPUTS
from homer.compare import compare_run
from homer.evaluate import KINDS, exact_partitions
from kinematic.cli import main as kinematic_main
from kinematic.families import combination_lock
from kinematic.spec import dumps_spec
from tests.homer.handmade import lock, perfect_artefacts
from tests.homer.test_compare import SAMPLES
from tests.homer.test_evaluate import NOISY

ROOT = Path(__file__).resolve().parents[2]

FUNCTIONS = '''
import numpy as np


def constant(observations, step):
    return np.zeros(len(observations), dtype=int)


def wrong_shape(observations, step):
    return np.zeros((len(observations), 2), dtype=int)


def raises(observations, step):
    return {}["no such key"]


def uniform(mdp):
    k = mdp.number_of_actions
    return [lambda observations, step: np.full((len(observations), k), 1 / k)]


def first_action(observations, step):
    return np.zeros(len(observations), dtype=int)


cover = [first_action]
per_step = {2: [first_action], 3: [first_action]}
not_a_function = 3


def decoded(observations, step, mdp):
    from homer.encoders import HadamardNoise

    return mdp.emission_state[step - 1][HadamardNoise().decode(mdp, observations, step)]


def needs_the_mdp(observations, step, *, mdp):
    return {}[mdp.name]
'''


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """A directory holding ``lock.json`` (the H = 3, K = 2 lock) and ``mine.py``."""
    (tmp_path / "lock.json").write_text(dumps_spec(combination_lock(3, 2, 0)))
    (tmp_path / "mine.py").write_text(FUNCTIONS)
    return tmp_path


def evaluate(capsys, files: Path, *arguments: str) -> tuple[int, str, str]:
    code = main(["evaluate", "--spec", str(files / "lock.json"), "--samples", "20",
                 *arguments])
    out, err = capsys.readouterr()
    return code, out, err


def _python(code: str, directory: Path) -> subprocess.CompletedProcess[str]:
    """``code`` run by a fresh Python in ``directory`` (one BLAS thread; must exit 0)."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-c", code], cwd=directory, env=environment,
                          capture_output=True, text=True, check=True)


def test_evaluate_and_its_plots_run_without_importing_torch(files):
    """torch takes seconds to import and ``homer evaluate`` needs none of it: the commands
    that do (run, compare, counterexamples) import their modules themselves."""
    code = ("import sys\nfrom homer.cli import main\n"
            "main(['evaluate', '--spec', 'lock.json', '--abstraction', 'oracle', '--samples', "
            "'5', '--out', 'out'])\n"
            "print(sorted(m for m in sys.modules if m == 'torch' or m.startswith('torch.')))")
    finished = _python(code, files)
    assert finished.stdout.splitlines()[-1] == "[]"
    assert (files / "out" / "confusion.png").is_file()


def test_a_ctrl_c_during_evaluate_imports_no_torch_either(files):
    """The message after a Ctrl-C says how to go on without importing a run's modules: a
    second Ctrl-C during a seconds-long torch import would print a traceback."""
    code = ("import sys\nimport homer.cli\nimport homer.commands\n"
            "def interrupted(*arguments, **keywords):\n"
            "    raise KeyboardInterrupt\n"
            "homer.commands.evaluate_abstraction = interrupted\n"
            "status = homer.cli.main(['evaluate', '--spec', 'lock.json', '--abstraction', "
            "'oracle', '--samples', '5'])\n"
            "print(status, sorted(m for m in sys.modules if m.split('.')[0] == 'torch'))")
    finished = _python(code, files)
    assert finished.stdout.splitlines()[-1] == "130 []"
    assert finished.stderr == ("error: interrupted; the report was not written (or not "
                               "completely); rerun the same command\n")


def test_the_oracle_makes_no_wrong_merge_in_a_fresh_process(files):
    """The command as a user types it (``--json``: only report.json on stdout)."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    finished = subprocess.run(
        [sys.executable, "-m", "homer", "evaluate", "--spec", "lock.json", "--abstraction",
         "oracle", "--samples", "50", "--json"],
        cwd=files, env=environment, capture_output=True, text=True, check=True)
    document = json.loads(finished.stdout)
    assert [step["wrong_merges"] for step in document["steps"]] == [0, 0, 0]
    for kind in KINDS:
        assert [s["abstractions"][kind]["wrong_merges"] for s in document["steps"]] == [0] * 3
    assert document["steps_with_wrong_merges"] == dict.fromkeys(KINDS, 0)
    assert document["abstraction"] == "oracle" and document["cover"] is None


def test_a_constant_function_merges_exactly_the_separable_pairs(capsys, files):
    code, out, _ = evaluate(capsys, files, "--abstraction", f"{files / 'mine.py'}:constant",
                            "--json")
    assert code == 0
    document = json.loads(out)
    partitions = exact_partitions(combination_lock(3, 2, 0))
    for kind in KINDS:
        pairs = [comb(len(partitions[kind].blocks(h)), 2) for h in (1, 2, 3)]
        assert [s["abstractions"][kind]["wrong_merges"] for s in document["steps"]] == pairs
    assert [s["wrong_merges"] for s in document["steps"]] == [1, 3, 1]


def test_the_summary_names_the_abstraction_and_counts_like_compare(capsys, files):
    code, out, _ = evaluate(capsys, files, "--abstraction", "oracle", "--policies",
                            f"{files / 'mine.py'}:uniform")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "phi = oracle on combolock-H3-K2-seed0 vs the exact answers:"
    rows = {line.split("   ")[0].strip(): line for line in lines[2:6]}
    assert "0 of 3" in rows["phi vs KI"] and "phi vs backward KI" in rows
    assert any(line.startswith("pairwise agreement with the latent states: lowest 1.000")
               for line in lines)
    # uniform over K = 2 actions: alpha (1/2)^(h-1) at s_{h,a}, s_{h,b}; V* = 1
    assert "policy cover: smallest alpha 0.250 at step 3 of steps 2-3 (step 1 needs no policy)" \
        in lines
    assert any(line.startswith("value 0.") and line.endswith("vs optimal 1.000")
               for line in lines)


def test_a_function_with_a_parameter_mdp_is_given_the_spec(capsys, files):
    """``phi(observations, step, mdp)`` decodes with the ``--spec`` MDP: the latent states,
    scored as the oracle is."""
    scored = {}
    for name in ("oracle", f"{files / 'mine.py'}:decoded"):
        code, out, err = evaluate(capsys, files, "--abstraction", name, "--json")
        assert code == 0, err
        scored[name] = [{kind: {key: step["abstractions"][kind][key] for key in
                                ("wrong_merges", "splits", "pairwise_agreement")}
                         for kind in KINDS} for step in json.loads(out)["steps"]]
    assert scored[f"{files / 'mine.py'}:decoded"] == scored["oracle"]
    assert all(step["ki"]["wrong_merges"] == 0 for step in scored["oracle"])


def test_an_error_of_a_function_given_the_mdp_shows_the_call_with_it(capsys, files):
    mine = files / "mine.py"
    line = FUNCTIONS.splitlines().index("    return {}[mdp.name]") + 1
    code, _, err = evaluate(capsys, files, "--abstraction", f"{mine}:needs_the_mdp")
    assert code == 2
    assert err == (f"error: --abstraction {mine}:needs_the_mdp(observations, 1, mdp=BlockMDP) "
                   f"raised KeyError: 'combolock-H3-K2-seed0' ({mine}, line {line})\n")


DOCUMENTED = (ROOT / "docs" / "guide" / "homer.md").read_text()


def _documented_blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", DOCUMENTED, re.MULTILINE | re.DOTALL)


def test_the_guides_phi_py_runs_as_documented(capsys, tmp_path, monkeypatch):
    """docs/guide/homer.md's complete ``phi.py`` and the commands under it, as a reader copies
    them, print the summary the page shows."""
    (example,) = [b for b in _documented_blocks("python") if b.startswith("# phi.py")]
    (commands,) = [b for b in _documented_blocks("bash") if "--abstraction phi.py:phi" in b]
    (shown,) = [b for b in _documented_blocks("text") if b.startswith("phi = phi.py:phi")]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "phi.py").write_text(example)
    mains = {"kinematic": kinematic_main, "homer": main}
    printed = []
    for line in commands.splitlines():
        words = shlex.split(line, comments=True)
        assert words[:2] == ["python", "-m"], line
        assert mains[words[2]](words[3:]) == 0, line
        printed.append(capsys.readouterr().out)
    assert printed[-1] == shown


@pytest.mark.parametrize("name", ["cover", "per_step", "uniform"])
def test_policies_are_a_list_a_dict_or_a_function_of_the_mdp(capsys, files, name):
    code, out, err = evaluate(capsys, files, "--abstraction", "oracle", "--policies",
                              f"{files / 'mine.py'}:{name}", "--json")
    assert code == 0, err
    cover = json.loads(out)["cover"]
    assert [s["step"] for s in cover["steps"]] == ([2, 3] if name == "per_step" else [1, 2, 3])
    assert cover["optimal_value"] == 1.0


def test_out_writes_the_summary_report_and_plots(capsys, files):
    out_dir = files / "result"
    code, out, _ = evaluate(capsys, files, "--abstraction", "kmeans", "--policies",
                            f"{files / 'mine.py'}:cover", "--out", str(out_dir))
    assert code == 0
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(EVALUATE_OUTPUTS)
    assert (out_dir / "summary.txt").read_text() == "\n".join(out.splitlines()[:-2]) + "\n"
    document = json.loads((out_dir / "report.json").read_text())
    assert document["abstraction"] == "kmeans" and document["capacity"] == 3
    assert len(document["plots"]) == 4


def test_out_without_policies_removes_the_alpha_plot_of_an_earlier_run(capsys, files):
    out_dir = files / "result"
    code, _, _ = evaluate(capsys, files, "--abstraction", "oracle", "--policies",
                          f"{files / 'mine.py'}:cover", "--out", str(out_dir))
    assert code == 0 and (out_dir / "alpha.png").is_file() and (out_dir / "alpha.svg").is_file()
    code, _, _ = evaluate(capsys, files, "--abstraction", "oracle", "--out", str(out_dir))
    assert code == 0
    names = sorted(p.name for p in out_dir.iterdir())
    assert names == sorted(name for name in EVALUATE_OUTPUTS if not name.startswith("alpha."))
    document = json.loads((out_dir / "report.json").read_text())
    assert len(document["plots"]) == 2 and document["cover"] is None


def test_out_without_policies_refuses_and_keeps_a_symbolic_link_named_alpha_png(capsys, files):
    out_dir = files / "result"
    out_dir.mkdir()
    (files / "kept.png").write_text("not ours")
    (out_dir / "alpha.png").symlink_to(files / "kept.png")
    code, _, err = evaluate(capsys, files, "--abstraction", "oracle", "--out", str(out_dir))
    assert code == 2 and "alpha.png: a symbolic link" in err
    assert (out_dir / "alpha.png").is_symlink()
    assert (files / "kept.png").read_text() == "not ours"


def test_out_refuses_a_symbolic_link_before_any_work(capsys, files):
    out_dir = files / "result"
    out_dir.mkdir()
    (out_dir / "summary.txt").symlink_to(files / "elsewhere.txt")
    code, out, err = evaluate(capsys, files, "--abstraction", "oracle", "--out", str(out_dir))
    assert code == 2 and out == ""
    assert "summary.txt: a symbolic link" in err
    assert not (files / "elsewhere.txt").exists() and not (out_dir / "report.json").exists()


@pytest.mark.parametrize(("arguments", "message"), [
    (["--abstraction", "orcale"], "error: --abstraction: unknown reference learner 'orcale' "
                                  "(did you mean 'oracle'?)"),
    (["--abstraction", "{mine}:constnat"], "has no attribute 'constnat' (did you mean "
                                           "'constant'?)"),
    (["--abstraction", "{mine}:not_a_function"], ":not_a_function: not callable (of type int)"),
    (["--abstraction", "no_such_module:phi"], "error: --abstraction no_such_module:phi: no "
                                              "module named 'no_such_module'"),
    (["--abstraction", "{mine}"], "expected MODULE:FUNCTION or path/to/file.py:FUNCTION"),
    (["--abstraction", "{mine}:wrong_shape"], ":wrong_shape(observations, 1) returned an array "
                                              "of shape (40, 2)"),  # 2 observations x 20
    (["--abstraction", "{mine}:raises"], ":raises(observations, 1) raised KeyError: 'no such "
                                         "key' ({mine}, line {line})"),
    (["--abstraction", "oracle", "--policies", "{mine}:first_action"],
     "first_action cannot be called with one argument, the MDP"),
    (["--abstraction", "oracle", "--policies", "{mine}:not_a_function"],
     ":not_a_function must be a list of policies (the cover of every step) or a dict step -> "
     "list, got 3"),
    (["--abstraction", "{mine}:constant", "--capacity", "2"],
     "error: --capacity applies to the reference learners random, kmeans and pca-kmeans"),
])
def test_errors_name_the_flag_in_one_line_with_exit_status_2(capsys, files, arguments,
                                                              message):
    mine = str(files / "mine.py")
    line = FUNCTIONS.splitlines().index('    return {}["no such key"]') + 1
    code, out, err = evaluate(capsys, files, *(a.format(mine=mine) for a in arguments))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert message.format(mine=mine, line=line) in err


def test_evaluate_of_a_phi_file_reproduces_compare(capsys, tmp_path):
    """A file building a run's phi-bar, evaluated by the command with the run's encoder (its
    noise variance), gives each step the comparison ``homer compare`` gives."""
    mdp = lock()
    (tmp_path / "lock.json").write_text(dumps_spec(mdp))
    (tmp_path / "phi_bar.py").write_text(
        "from homer.compare import combined_classifier\n"
        "from tests.homer.handmade import lock\n"
        "from tests.homer.handmade import perfect_artefacts\n"
        "from tests.homer.test_evaluate import NOISY\n"
        "ARTEFACTS = perfect_artefacts(lock(), encoder=NOISY)\n\n\n"
        "def phi(observations, step):\n"
        "    return combined_classifier(ARTEFACTS, step - 1)(observations)\n")
    code = main(["evaluate", "--spec", str(tmp_path / "lock.json"), "--abstraction",
                 f"{tmp_path / 'phi_bar.py'}:phi", "--samples", str(SAMPLES), "--seed", "3",
                 "--noise-variance", str(NOISY.noise_variance), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    document = json.loads(out)
    compared = compare_run(perfect_artefacts(mdp, encoder=NOISY), samples=SAMPLES,
                           transitions=100, seed=3)
    for h in range(mdp.horizon):
        assert document["steps"][h]["abstractions"]["ki"] == \
            compared.abstractions[h + 1]["ki"].to_json()


def test_names_with_newlines_cannot_forge_a_line_of_the_summary(capsys, tmp_path):
    """The MDP's name and its states' names print on one line each: a newline in a name is
    written as its escape (a state name through ``block_text``, the MDP's through
    ``display_path``)."""
    forged = {"name": "forged\nline", "horizon": 2, "actions": ["a", "b"],
              "layers": [["s1"], ["s2a\nV* = 9", "s2b", "s2c"]], "start": {"s1": "1"},
              "transitions": {"s1": {"a": {"s2a\nV* = 9": "1/2", "s2b": "1/2"},
                                     "b": {"s2c": "1"}}},
              "rewards": {"s2b": {"a": "1"}}}
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    (tmp_path / "mine.py").write_text(FUNCTIONS)
    code = main(["evaluate", "--spec", str(tmp_path / "forged.json"), "--samples", "20",
                 "--abstraction", f"{tmp_path / 'mine.py'}:constant"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert not any(line.startswith(("line", "V* = 9")) for line in out.splitlines())
    assert "on 'forged\\nline' vs the exact answers:" in out
    assert ("    step 2: 100.0% of {'s2a\\nV* = 9', s2b}'s encodings in a learned class holding "
            "100.0% of s2c's (standard error 0.0%)") in out.splitlines()


LEAKS = ("from tests.homer.handmade import leaking_phi\n\n"
         "forty = leaking_phi(0.4)\n"
         "one = leaking_phi(0.01)\n")
"""phi of the H = 3 lock leaking 40% (1%) of s3c's encodings into the class of {s3a, s3b}."""


def test_a_40_percent_leak_is_named_with_its_rate_and_a_1_percent_leak_is_not(capsys, files):
    (files / "leaks.py").write_text(LEAKS)
    code, out, err = evaluate(capsys, files, "--abstraction", f"{files / 'leaks.py'}:forty",
                              "--samples", "500")
    assert code == 0, err
    lines = out.splitlines()
    assert re.split(" {3,}", lines[3].strip())[:3] == ["phi vs KI", "1 of 3 (step 3)", "1"]
    assert lines[lines.index("  phi vs KI wrong merges:") + 1] == (
        "    step 3: 40.0% of s3c's encodings in a learned class holding 100.0% of {s3a, s3b}'s "
        "(standard error 2.2%)")
    assert ("  wrong merge: a pair of exact classes with a merge rate above 0.05 "
            "(--merge-threshold);") in lines
    code, out, _ = evaluate(capsys, files, "--abstraction", f"{files / 'leaks.py'}:forty",
                            "--samples", "500", "--json")
    document = json.loads(out)
    assert document["merge_threshold"] == 0.05
    assert [s["wrong_merges"] for s in document["steps"]] == [0, 0, 1]
    (pair,) = document["steps"][2]["abstractions"]["ki"]["merge_rates"]
    assert pair["rate"] == 0.4 and pair["standard_error"] == (0.4 * 0.6 / 500) ** 0.5
    code, out, _ = evaluate(capsys, files, "--abstraction", f"{files / 'leaks.py'}:one",
                            "--samples", "500", "--json")
    document = json.loads(out)
    assert [s["wrong_merges"] for s in document["steps"]] == [0, 0, 0]
    assert document["steps"][2]["abstractions"]["ki"]["merge_rates"][0]["rate"] == 0.01
    code, out, _ = evaluate(capsys, files, "--abstraction", f"{files / 'leaks.py'}:one",
                            "--samples", "500", "--merge-threshold", "0.005")
    assert "    step 3: 1.0% of s3c's encodings in a learned class holding 100.0% of {s3a, " \
           "s3b}'s (standard error 0.4%)" in out.splitlines()
    assert "merge rate above 0.005 (--merge-threshold);" in out


@pytest.mark.parametrize("value", ["1", "-0.1", "nan", "x"])
def test_a_merge_threshold_outside_0_to_1_is_refused_naming_the_flag(capsys, files, value):
    with pytest.raises(SystemExit) as stop:
        evaluate(capsys, files, "--abstraction", "oracle", "--merge-threshold", value)
    assert stop.value.code == 2
    assert "argument --merge-threshold: must be a finite number in [0, 1), got " \
           f"'{value}'" in capsys.readouterr().err

"""The benchmarks' results pages: a run rewrites only its script's section and keeps the notes
written by hand around it (``benchmarks/results_page.py``)."""

import doctest
import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"
_spec = importlib.util.spec_from_file_location("results_page", BENCHMARKS / "results_page.py")
assert _spec is not None and _spec.loader is not None
results_page = sys.modules["results_page"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(results_page)  # as the scripts import it, from beside them
ResultsPage, markers = results_page.ResultsPage, results_page.markers

SCRIPT = "benchmarks/bench.py"
BEGIN, END = markers(SCRIPT)
NOTES_BEFORE = "# A page\n\nWritten by hand: *before* the section, with a trailing space \n\n"
NOTES_AFTER = "\n\nNotes:\n\n- by hand, after the section; no newline at the end"
PAGE = NOTES_BEFORE + BEGIN + "\n\nold figures\n\n" + END + NOTES_AFTER


def sectioned_scripts() -> list[Path]:
    """The benchmark scripts that write a section of their page (``results/<name>.md``)."""
    return sorted(path for path in BENCHMARKS.glob("*.py")
                  if "from results_page import ResultsPage" in path.read_text())


def test_the_examples_in_the_module_run():
    assert doctest.testmod(results_page).failed == 0


def test_writing_a_section_twice_keeps_the_notes_and_one_section(tmp_path):
    path = tmp_path / "page.md"
    path.write_text(PAGE)
    for figures in (["| a |", "|---|", "| 1 |"], ["| a |", "|---|", "| 2 |", "", "more"]):
        ResultsPage.read(path, SCRIPT, "unused: the page exists").write(figures)
    text = path.read_text()
    assert text.startswith(NOTES_BEFORE + BEGIN)
    assert text.endswith(END + NOTES_AFTER)
    assert text.count(BEGIN) == text.count(END) == 1
    assert "old figures" not in text and "| 1 |" not in text
    assert text == NOTES_BEFORE + BEGIN + "\n\n| a |\n|---|\n| 2 |\n\nmore\n\n" + END + NOTES_AFTER


def test_a_page_not_written_yet_gets_a_title_and_the_section(tmp_path):
    path = tmp_path / "results" / "new.md"
    ResultsPage.read(path, SCRIPT, "New figures").write(["figures"])
    assert path.read_text() == f"# New figures\n\n{BEGIN}\n\nfigures\n\n{END}\n"


@pytest.mark.parametrize(("page", "problem"), [
    (PAGE.replace(BEGIN, ""), f"{BEGIN!r} is missing"),
    (PAGE.replace(END, ""), f"{END!r} is missing"),
    (PAGE + "\n" + END + "\n", f"{END!r} appears 2 times"),
    (PAGE.replace(BEGIN, "@").replace(END, BEGIN).replace("@", END),
     f"{END!r} comes before {BEGIN!r}"),
    (PAGE.replace(BEGIN, markers("benchmarks/other.py")[0]), f"{BEGIN!r} is missing"),
])
def test_a_page_without_its_section_is_refused_naming_it(tmp_path, page, problem):
    path = tmp_path / "page.md"
    path.write_text(page)
    with pytest.raises(SystemExit) as refusal:
        ResultsPage.read(path, SCRIPT, "A page")
    assert str(refusal.value.code).startswith(f"{path}: no section of {SCRIPT} to write")
    assert problem in str(refusal.value.code)
    assert path.read_text() == page


def test_the_pages_written_whole_are_those_the_module_names():
    writers = {path.stem for path in BENCHMARKS.glob("*.py")
               if re.search(r'^RESULTS = .*"results"', path.read_text(), re.MULTILINE)}
    whole = writers - {path.stem for path in sectioned_scripts()}
    assert whole == {"learner_scores", "standard_envs"}
    for name in whole:
        assert f"``{name}.py``" in str(results_page.__doc__)


@pytest.mark.parametrize("script", sectioned_scripts(), ids=lambda path: path.stem)
def test_each_sectioned_page_has_its_markers_once_as_the_script_writes_them(script, tmp_path):
    name = f"benchmarks/{script.name}"
    assert f'ResultsPage.read(args.results, "{name}",' in script.read_text()
    path = BENCHMARKS / "results" / f"{script.stem}.md"
    text = path.read_text()
    begin, end = markers(name)
    assert text.count(begin) == text.count(end) == 1, path
    page = ResultsPage.read(path, name, "unused: the page exists")
    section = text[len(page.before):len(text) - len(page.after)]
    assert section.startswith(begin + "\n\n") and section.endswith("\n\n" + end), path
    copy = ResultsPage(tmp_path / path.name, name, page.before, page.after)
    copy.write(section[len(begin) + 2:-len(end) - 2].split("\n"))
    assert copy.path.read_bytes() == path.read_bytes()


def test_the_horizon_sweep_report_judges_every_directory_and_links_its_figures(tmp_path):
    import subprocess

    from homer.sweep import run_sweep
    from homer.sweep_verdicts import verdict_legend
    from tests.homer.test_sweep import counting_runner

    first, second = tmp_path / "sweep-a", tmp_path / "sweep-b"
    run_sweep(["homer"], [3], 1, 5, first, executor="local", workers=1, runner=counting_runner)
    run_sweep(["pcid"], [6], 1, 5, second, executor="local", workers=1,
              runner=counting_runner)
    page, figures = tmp_path / "results" / "sweep.md", tmp_path / "results" / "sweep"
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / "horizon_sweep.py"), "--out", str(first), "--out",
         str(second), "--figures", str(figures), "--results", str(page)],
        capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    text = page.read_text()
    assert "`python benchmarks/horizon_sweep.py --out sweep-a --out sweep-b --figures " in text
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| lock (K = 10) |"))
    grid = lines[start:lines.index("", start)]
    assert grid[0] == ("| lock (K = 10) | algorithm | H = 3 | H = 6 | H = 12 | H = 25 | H = 50 "
                       "| H = 100 |")
    [homer] = [line for line in grid if line.startswith("| paper | homer | ")]
    assert homer.startswith("| paper | homer | reproduced (authors' encoding): 1/1 seed "
                            "reached, median 30 episodes")
    [pcid] = [line for line in grid if line.startswith("| paper | pcid | ")]
    # a fake PCID solving H = 6 on one seed: not reproduced (3 seeds refute)
    assert pcid.split(" | ")[3].startswith("not reproduced (authors' encoding; 1 seed, ")
    assert lines[start - 2] == verdict_legend() and verdict_legend() in result.stdout
    old = tmp_path / "sweep-old"  # written before encodings were named: orthonormal
    (old / "records.jsonl").parent.mkdir()
    (old / "records.jsonl").write_text("".join(
        json.dumps({name: value for name, value in json.loads(line).items()
                    if name != "encoding"}) + "\n"
        for line in (first / "records.jsonl").read_text().splitlines()))
    for encoding, verdict in (("authors", "not run"), ("orthonormal", "reproduced (orthonormal")):
        result = subprocess.run(
            [sys.executable, str(BENCHMARKS / "horizon_sweep.py"), "--out", str(old),
             "--figures", str(figures), "--results", str(page), "--encoding", encoding],
            capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stderr
        assert f"| paper | homer | {verdict}" in result.stdout
        assert verdict_legend(encoding) in result.stdout
    for name in ("horizon", "value", "traces"):
        assert (figures / f"{name}.png").exists() and f"[{name}.png](sweep/{name}.png)" in text
        assert not (figures / f"{name}.svg").exists()  # the page shows PNGs only
    assert "- homer, paper lock, H = 3, seed 0: value 1.000 of V* = 1" in text


@pytest.mark.no_mutants
def test_the_start_up_benchmark_times_each_command_beside_its_baselines(tmp_path):
    """A smoke run of ``benchmarks/cli_startup.py`` on one program, one timed run each: a row
    per baseline and per command, each with its median, maximum and verdict."""
    import subprocess

    page = tmp_path / "cli_startup.md"
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / "cli_startup.py"), "--only", "proofs_checks",
         "--repeats", "1", "--note", "a test", "--results", str(page)],
        capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    rows = [line for line in page.read_text().splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == [
        "python -c pass", "python -c 'import kinematic'", "python -c 'import torch'",
        "python -m proofs_checks --help", "python -m proofs_checks --examples 0",
        "python -m proofs_checks sample-sizes --help",
        "python -m proofs_checks sample-sizes --horizon 0"]
    for row in rows:
        assert re.fullmatch(r"\| `[^`]+` \| \d+\.\d\d s \| \d+\.\d\d s \| (yes|NO) \|", row), row
    assert "timed runs of each: 1, after one unrecorded run" in page.read_text()
    assert "Also running: a test." in page.read_text()



@pytest.mark.no_mutants
def test_the_exogenous_search_benchmark_times_the_search_beside_the_plain_enumeration(tmp_path):
    """A smoke run of ``benchmarks/exogenous_search.py`` at widths 4 and 6: a row per MDP with
    what the search found, the plain enumeration measured at width 4 and projected at 6, and
    sympy's count of set partitions."""
    import subprocess

    page = tmp_path / "exogenous_search.md"
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / "exogenous_search.py"), "--only-small", "--repeats",
         "1", "--baseline-max", "4", "--note", "a test", "--results", str(page)],
        capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    text = page.read_text()
    assert "| twins | 6 | 4 | 1/1/1/3 | 3 | 12 | " in text
    assert "| i.i.d. noise (3 x 2) | 6 | 4 | 3/3/3/3 | 1 | 256 | " in text
    assert re.search(r"^\| 4 \(2 x 2\) \| 8 \| 64 \| \d+\.\d\d s \(measured\) \| ", text,
                     re.MULTILINE)
    assert re.search(r"^\| 6 \(3 x 2\) \| 122 \| 14,884 \| [\d.,]+ (s|min) \(projected\) \| ",
                     text, re.MULTILINE)
    assert "| 6 | 203 | " in text
    assert "Also running: a test." in text

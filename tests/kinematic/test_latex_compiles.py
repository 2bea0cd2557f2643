"""``analyze --latex`` compiles as it is: each report is put in a minimal document (``article``
and the packages the report's second line names) and compiled by pdflatex, which must succeed
with every table within the text width (no ``Overfull \\hbox``); the PDF's text holds the state
names. Skipped without pdflatex (pdftotext), failed instead when ``KINEMATIC_REQUIRE_TOOLS=1``
(``tests/tools.py``)."""

import re
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kinematic import analyze, combination_lock, from_spec, relabel_states
from kinematic.analysis_tables import LATEX_PACKAGES, latex_report, markdown_report
from kinematic.families import random_exact_mdp
from tests.kinematic.test_analysis_names import HOSTILE, hostile_mdps
from tests.tools import require_tool

LOCK = combination_lock(horizon=4, actions=10, seed=0)
"""The paper's lock (Section 6) at H = 4, with the command line's default 10 actions."""

GENERATED = random_exact_mdp(horizon=5, width=6, actions=2, successors=2, seed=0)
"""A generated MDP of 30 states: six per layer, mostly singletons in every partition."""


def compile_latex(directory: Path, reports: list[str], options: str = "") -> str:
    """pdflatex on ``reports`` in one ``article`` (``\\documentclass[options]``) with the
    packages the first report names (the report's second line); asserts it succeeds and returns
    its log."""
    pdflatex = require_tool("pdflatex")
    needs = reports[0].split("\n")[1]
    assert needs == rf"% needs \usepackage{{{','.join(LATEX_PACKAGES)}}}"
    body = "\n\n\\clearpage\n".join(reports)
    (directory / "report.tex").write_text(
        f"\\documentclass[{options}]{{article}}\n{needs.removeprefix('% needs ')}\n"
        f"\\begin{{document}}\n{body}\n\\end{{document}}\n")
    result = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error",
                             "report.tex"], cwd=directory, capture_output=True, text=True,
                            check=False, timeout=120)
    log = (directory / "report.log").read_text(errors="replace")
    assert result.returncode == 0, result.stdout[-3000:]
    assert "! " not in log and (directory / "report.pdf").exists()
    return log


def overfull(log: str) -> list[str]:
    return [line for line in log.split("\n") if line.startswith("Overfull \\hbox")]


def test_the_lock_compiles_within_the_text_width_with_and_without_policies(tmp_path):
    log = compile_latex(tmp_path, [latex_report(analyze(LOCK)),
                                   latex_report(analyze(LOCK, policies=True))])
    assert overfull(log) == []


def test_the_lock_and_the_generated_mdp_fit_a_column_of_a_two_column_paper(tmp_path):
    """ICML's appendix has two columns: the partitions and policies tables wrap to the column."""
    log = compile_latex(tmp_path, [latex_report(analyze(LOCK, policies=True)),
                                   latex_report(analyze(GENERATED), merged_only=True)],
                        options="twocolumn")
    assert overfull(log) == []


def test_a_generated_mdp_of_30_states_compiles_within_the_text_width_in_both_modes(tmp_path):
    """Without ``merged_only`` its partitions table wraps (each layer's six singletons over two
    lines per column); with it, each row is a line."""
    analysis = analyze(GENERATED, policies=True)
    assert analysis["states"] == 30
    log = compile_latex(tmp_path, [latex_report(analysis),
                                   latex_report(analysis, merged_only=True)])
    assert overfull(log) == []


def test_merged_only_keeps_every_row_of_the_partitions_short():
    """The generated MDP's rows list 18 singleton blocks in full; ``merged_only`` counts them."""
    analysis = analyze(GENERATED)

    def longest_row(report: str, header: str) -> int:
        lines = report.split("\n")
        start = lines.index(header)
        rows = lines[start + 2:start + 2 + GENERATED.horizon]
        return max(map(len, rows))

    latex_header = r"layer & backward KI & forward KI & KI \\"
    assert longest_row(latex_report(analysis), latex_header) > 250
    assert longest_row(latex_report(analysis, merged_only=True), latex_header) < 120
    assert ("2 & 6 singletons & 6 singletons & 6 singletons \\\\"
            in latex_report(analysis, merged_only=True).split("\n"))
    markdown_header = "| layer | backward KI | forward KI | KI |"
    assert longest_row(markdown_report(analysis), markdown_header) > 150
    assert longest_row(markdown_report(analysis, merged_only=True), markdown_header) < 100
    assert ("| 5 | 6 singletons | {s5\\_0, s5\\_1, s5\\_2, s5\\_3, s5\\_4, s5\\_5} | 6 singletons |"
            in markdown_report(analysis, merged_only=True).split("\n"))


def pdf_text(directory: Path) -> str:
    pdftotext = require_tool("pdftotext")
    subprocess.run([pdftotext, "report.pdf", "report.txt"], cwd=directory, check=True,
                   timeout=60)
    return (directory / "report.txt").read_text()


def test_the_pdf_text_holds_the_state_names(tmp_path):
    """A name's subscript follows its letter in the PDF's text: ``s_{1a}`` reads ``s1a``,
    ``s_{1,0}`` ``s1,0``."""
    compile_latex(tmp_path, [latex_report(analyze(LOCK)), latex_report(analyze(GENERATED))])
    text = re.sub(r"\s", "", pdf_text(tmp_path))
    for state in [*LOCK.states, *GENERATED.states]:
        assert state.replace("_", ",") in text, state


NON_ASCII = ["\xe9t\xe9", "\u4e00", "\U0001f600", "s\u0301", "\u03c3_1", "\u2192"]
"""Names pdflatex cannot typeset as they are without more packages (CJK, an emoji, Greek, an
arrow); the report writes them as Python escapes."""


def test_every_hostile_name_compiles(tmp_path):
    """The lock's 59 states renamed to the hostile names of the property test and names outside
    ASCII, in both modes, with the policies (whose rows start with a state's name)."""
    lock = combination_lock(horizon=20, actions=2, seed=0)
    names = NON_ASCII + HOSTILE  # 66 names for 59 states: the last of HOSTILE left out
    hostile = relabel_states(lock, dict(zip(lock.states, names, strict=False)))
    analysis = analyze(hostile, policies=True)
    reports = [latex_report(analysis), latex_report(analysis, merged_only=True)]
    assert all(report.isascii() for report in reports)
    compile_latex(tmp_path, reports)


@settings(max_examples=1, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
@given(st.lists(hostile_mdps(), min_size=4, max_size=4))
def test_generated_mdps_with_hostile_names_compile(tmp_path, specs):
    compile_latex(tmp_path, [latex_report(analyze(from_spec(spec), policies=True))
                             for spec in specs])


LIGATURES = ["s--1", "s---2", "a``b", "a''b", "x!`y", "q?`r", 'a"b', "c,,d", "e<<f", "g>>h",
             "i'j"]
"""Names TeX would print otherwise: dashes (``--``), curly or low quotes (``````, ``'``, ``"``,
``,,``), inverted marks (``!````), guillemets (``<<``)."""


def test_names_that_tex_would_join_or_curl_read_as_typed(tmp_path):
    """Fails when ``--`` prints an en dash, ``''`` a closing quote, ``!``` an inverted mark..."""
    lock = combination_lock(horizon=4, actions=2, seed=0)
    renamed = relabel_states(lock, dict(zip(lock.states, LIGATURES, strict=True)))
    compile_latex(tmp_path, [latex_report(analyze(renamed))])
    text = re.sub(r"\s", "", pdf_text(tmp_path))
    for name in LIGATURES:
        assert name in text, name

"""``analyze`` of an exogenous Block MDP: the endogenous partition beside the KI partitions in
every report (text, JSON, Markdown, LaTeX, ``python -m kinematic analyze``), and whether KI
separates exogenous values; an ordinary MDP's analysis is left as it was."""

import json
from fractions import Fraction

import pytest

from kinematic import (
    analyze,
    block_mdp,
    combination_lock,
    dumps_exogenous_spec,
    dumps_spec,
    endogenous_partition,
    exogenous_block_mdp,
    exogenous_chain,
    ki_partition,
    to_spec,
)
from kinematic import cli as kinematic_cli
from kinematic.analysis import format_report, ki_separation
from kinematic.analysis_tables import latex_report, markdown_report
from tests.kinematic.test_latex_compiles import compile_latex, overfull

LOCK = combination_lock(3, 2, seed=0)


def flips(p, horizon=3):
    q = str(1 - Fraction(p))
    return exogenous_chain(["0", "1"], {"0": "1/2", "1": "1/2"},
                           {"0": {"0": q, "1": p}, "1": {"0": p, "1": q}}, horizon=horizon)


@pytest.mark.parametrize(("flip", "n_kd", "separated"),
                         [("1/10", [4, 6, 4], {"layer": 1, "states": ["s1a|0", "s1a|1"]}),
                          ("1/2", [2, 3, 2], None)])
def test_the_analysis_has_the_endogenous_partition_and_where_ki_separates_exogenous_values(
        flip, n_kd, separated):
    model = exogenous_block_mdp(LOCK, flips(flip))
    result = analyze(model)
    assert [row["n_kd"] for row in result["per_layer"]] == n_kd
    assert [row["endogenous"] for row in result["per_layer"]] == [2, 3, 3]
    assert result["n_endogenous"] == 8
    assert result["ki_separates_exogenous"] == separated
    assert result["partitions"]["endogenous"][0] == {"layer": 1, "states": ["s1a|0", "s1a|1"]}
    # the rest is the analysis of the Block MDP itself
    plain = analyze(model.mdp)
    extra = {"n_endogenous", "ki_separates_exogenous"}
    assert {key: value for key, value in result.items() if key not in extra} | {
        "partitions": plain["partitions"], "per_layer": plain["per_layer"]} == plain
    assert {key: value for key, value in result["partitions"].items()
            if key != "endogenous"} == plain["partitions"]
    assert [{key: value for key, value in row.items() if key != "endogenous"}
            for row in result["per_layer"]] == plain["per_layer"]


def test_ki_separation_is_exact_not_a_count():
    """Four endogenous states of layer 2 that no observation tells apart, times a bit that is
    drawn fresh at layer 2 and then kept with probability 9/10: KI has 2 classes at layer 2
    (one per bit), fewer than the 4 endogenous ones, yet separates the bit's values there;
    comparing counts would first see it at layer 3 (2 KI classes, 1 endogenous)."""
    endogenous = block_mdp("four", [["s"], ["a", "b", "c", "d"], ["t"]], ["x"], {"s": 1},
                           {"s": {"x": {state: "1/4" for state in "abcd"}},
                            **{state: {"x": {"t": 1}} for state in "abcd"}})
    chain = exogenous_chain([["-"], ["0", "1"], ["0", "1"]], {"-": 1},
                            [{"-": {"0": "1/2", "1": "1/2"}},
                             {"0": {"0": "9/10", "1": "1/10"}, "1": {"0": "1/10", "1": "9/10"}}])
    model = exogenous_block_mdp(endogenous, chain)
    ki = ki_partition(model.mdp)
    assert ki.blocks_per_layer == (1, 2, 2)
    assert endogenous_partition(model).blocks_per_layer == (1, 4, 1)
    assert ki_separation(ki, endogenous_partition(model)) == {"layer": 2,
                                                              "states": ["a|0", "a|1"]}


def test_every_report_has_the_endogenous_column_and_the_separation_line():
    result = analyze(exogenous_block_mdp(LOCK, flips("1/10")))
    text = format_report(result).splitlines()
    assert text[3].endswith("|S| = 16, endogenous classes = 8")
    assert text[4] == ("KI separates exogenous values: first at layer 1, where s1a|0 and s1a|1 "
                       "(one endogenous state) are in two KI classes")
    assert "layer states  N_BD  N_FD  N_KD endogenous  eta_min" in text
    assert "    1      4     1     4     4          2  1/4" in text
    assert any(line.startswith("endogenous partition blocks with more than one state: layer 1: "
                               "{s1a|0, s1a|1}") for line in text)
    markdown = markdown_report(result).splitlines()
    assert "| layer | states | N_BD | N_FD | N_KD | endogenous | eta_min |" in markdown
    assert "| all | 16 | 9 | 11 | 14 | 8 | 1/4 |" in markdown
    assert "| layer | backward KI | forward KI | KI | endogenous |" in markdown
    assert markdown[0].endswith("N_KD = 14, endogenous classes = 8, V\\* = 1")
    assert markdown[4].startswith(r"KI separates exogenous values: first at layer 1, where "
                                  r"s1a\|0 and s1a\|1")
    merged = markdown_report(result, merged_only=True).splitlines()
    assert merged[-1].endswith("| {s3a\\|0, s3a\\|1}, {s3b\\|0, s3b\\|1}, {s3c\\|0, s3c\\|1} |")
    latex = latex_report(result)
    assert ("layer & states & $\\mathrm{N}_{\\mathrm{BD}}$ & $\\mathrm{N}_{\\mathrm{FD}}$ & "
            "$\\mathrm{N}_{\\mathrm{KD}}$ & \\shortstack[r]{endo-\\\\genous} & $\\eta_{\\min}$ "
            "\\\\") in latex
    assert "\\setlength{\\tabcolsep}{4pt}\\noindent\\begin{tabular}{rrrrrrr}" in latex
    assert "layer & back\\-ward KI & forward KI & KI & endo\\-genous \\\\" in latex
    assert latex.endswith("(one endogenous state) are in two KI classes.\\par")


@pytest.mark.parametrize("flag", [[], ["--json"], ["--markdown"], ["--latex"]])
def test_analyze_on_a_spec_that_declares_a_factorisation(tmp_path, capsys, flag):
    """Both forms of the spec give one report, with the endogenous column; the same Block MDP
    without its factorisation gives none."""
    model = exogenous_block_mdp(LOCK, flips("1/10"), name="noisy")
    declared, compact, plain = (tmp_path / f"{name}.json"
                                for name in ("declared", "compact", "plain"))
    declared.write_text(dumps_exogenous_spec(model))
    compact.write_text(json.dumps({"name": "noisy", "endogenous": to_spec(LOCK), "exogenous": {
        "values": ["0", "1"], "start": {"0": "1/2", "1": "1/2"},
        "transitions": {"0": {"0": "9/10", "1": "1/10"}, "1": {"0": "1/10", "1": "9/10"}}}}))
    plain.write_text(dumps_spec(model.mdp))
    outputs = []
    for path in (declared, compact, plain):
        assert kinematic_cli.main(["analyze", str(path), *flag]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert "endogenous" in outputs[0] and "endogenous" not in outputs[2]
    if flag == ["--json"]:
        assert json.loads(outputs[0])["ki_separates_exogenous"]["layer"] == 1


def test_the_latex_report_of_an_exogenous_lock_compiles_within_a_column(tmp_path):
    """The partitions table has a fourth wrapped column: it still fits a column of a two-column
    paper (no ``Overfull \\hbox``)."""
    noisy = exogenous_block_mdp(combination_lock(4, 10, seed=0), flips("1/10", horizon=4))
    report = latex_report(analyze(noisy))
    assert overfull(compile_latex(tmp_path, [report], options="twocolumn")) == []

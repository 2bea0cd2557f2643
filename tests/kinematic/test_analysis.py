"""``kinematic.analyze``'s V*, optimal policy and layered blocks, and its Markdown and LaTeX
tables (``kinematic.analysis_tables``)."""

import re
from fractions import Fraction

import pytest

from kinematic import analyze, combination_lock, figure2_canonical, figure2_split, from_spec
from kinematic.analysis import format_report, merged_blocks
from kinematic.analysis_tables import latex_report, markdown_report
from kinematic.errors import UnknownName
from kinematic.policies import Policy
from kinematic.visitation import policy_value

REWARDED_SPEC = {
    "name": "rewarded", "horizon": 2, "actions": ["right", "left"],
    "layers": [["s1"], ["s2a", "s2b"]], "start": {"s1": "1"},
    "transitions": {"s1": {"right": {"s2a": "1/3", "s2b": "2/3"}, "left": {"s2a": "1"}}},
    "emissions": {"s2b": {"y": "1/2", "z": "1/2"}},
    "rewards": {"s1": {"right": "1/2"}, "s2a": {"right": "1", "left": "1"},
                "y": {"left": "3/2"}, "z": {"right": "1/2"}},
}
"""By hand: V(s2a) = 1 (both actions: a tie), V(y) = 3/2 (left), V(z) = 1/2 (right), so s2b is
worth 1/2 * 3/2 + 1/2 * 1/2 = 1; Q(s1, right) = 1/2 + 1/3 * 1 + 2/3 * 1 = 3/2 beats
Q(s1, left) = 1, so V* = 3/2. The actions are listed against alphabetical order, so the tie at
s2a goes to "right" only if ties follow the spec."""

ODD_NAME = "s_1#&%{x}"

ODD_SPEC = {
    "name": "odd_names #1", "horizon": 3, "actions": ["a_1", "a&2"],
    "layers": [["start"], [ODD_NAME, "s2~}b"], ["end"]], "start": {"start": "1"},
    "transitions": {"start": {"a_1": {ODD_NAME: "1/2", "s2~}b": "1/2"},
                              "a&2": {ODD_NAME: "1/4", "s2~}b": "3/4"}},
                    ODD_NAME: {"a_1": {"end": "1"}, "a&2": {"end": "1"}},
                    "s2~}b": {"a_1": {"end": "1"}, "a&2": {"end": "1"}}},
    "rewards": {"end": {"a&2": "1/8"}},
}
"""Layer 2's states are not backward KI (their incoming columns (1/2, 1/4) and (1/2, 3/4) are not
proportional) but forward KI (both go to ``end``): one merged block, of names LaTeX and Markdown
treat specially. eta is 1/2 and 3/4 on layer 2; the only reward, 1/8, is certain: V* = 1/8."""


def decisions_policy(mdp, optimal_policy: list[dict]) -> Policy:
    """The deterministic observation policy of ``analyze``'s ``optimal_policy``."""
    tables = []
    for h, layer in enumerate(optimal_policy):
        assert layer["layer"] == h + 1
        table = mdp.mode.zeros((len(mdp.observations[h]), mdp.number_of_actions))
        for x, observation in enumerate(mdp.observations[h]):
            table[x, mdp.action_index[layer["decisions"][observation]]] = mdp.mode.scalar(1)
        tables.append(table)
    return Policy(tuple(tables))


def test_v_star_of_a_spec_with_rewards_is_the_hand_computed_fraction():
    analysis = analyze(from_spec(REWARDED_SPEC))
    assert analysis["optimal_value"] == "3/2"
    assert "V* = 3/2 (" in format_report(analysis)


def test_an_mdp_without_rewards_has_no_v_star_in_any_format():
    analysis = analyze(figure2_split(), policies=True)
    assert "optimal_value" not in analysis and "optimal_policy" not in analysis
    assert "V*" not in format_report(analysis)
    assert "V\\*" not in markdown_report(analysis)
    assert "V^*" not in latex_report(analysis)


def test_the_optimal_policy_decides_per_observation_and_ties_go_to_the_first_listed_action():
    analysis = analyze(from_spec(REWARDED_SPEC), policies=True)
    assert analysis["optimal_policy"] == [
        {"layer": 1, "decisions": {"s1": "right"}},
        {"layer": 2, "decisions": {"s2a": "right", "y": "left", "z": "right"}},
    ]


@pytest.mark.parametrize("mdp", [from_spec(REWARDED_SPEC),
                                 combination_lock(horizon=4, actions=3, seed=1)],
                         ids=["rewarded", "lock"])
def test_the_optimal_policy_achieves_v_star(mdp):
    analysis = analyze(mdp, policies=True)
    value = policy_value(mdp, decisions_policy(mdp, analysis["optimal_policy"]))
    assert value == Fraction(analysis["optimal_value"])


def test_json_blocks_carry_their_layer_when_two_layers_have_merged_blocks():
    analysis = analyze(combination_lock(horizon=3, actions=2, seed=0))
    assert analysis["partitions"]["backward"] == [
        {"layer": 1, "states": ["s1a", "s1b"]},
        {"layer": 2, "states": ["s2a", "s2b"]}, {"layer": 2, "states": ["s2c"]},
        {"layer": 3, "states": ["s3a", "s3b"]}, {"layer": 3, "states": ["s3c"]},
    ]
    assert analysis["partitions"]["ki"][-2:] == [{"layer": 3, "states": ["s3a", "s3b"]},
                                                 {"layer": 3, "states": ["s3c"]}]


def test_the_text_report_names_the_layer_of_each_merged_block():
    report = format_report(analyze(combination_lock(horizon=3, actions=2, seed=0)))
    assert ("backward KI blocks with more than one state: layer 1: {s1a, s1b}; "
            "layer 2: {s2a, s2b}; layer 3: {s3a, s3b}\n") in report


def cells(row: str) -> list[str]:
    """The cells of a Markdown table row, splitting at unescaped ``|`` only."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row)[1:-1]]


def test_markdown_gives_a_row_per_layer_and_one_for_the_mdp_and_partitions_by_layer():
    lines = markdown_report(analyze(combination_lock(horizon=3, actions=2, seed=0))).split("\n")
    per_layer = lines[lines.index("| layer | states | N_BD | N_FD | N_KD | eta_min |"):][:6]
    assert [cells(row) for row in per_layer[2:]] == [
        ["1", "2", "1", "2", "2", "1/2"], ["2", "3", "2", "3", "3", "1/2"],
        ["3", "3", "2", "1", "2", "1/2"], ["all", "8", "5", "6", "7", "1/2"]]
    partitions = lines[lines.index("| layer | backward KI | forward KI | KI |"):]
    assert cells(partitions[4]) == [
        "3", "**{s3a, s3b}**, {s3c}", "**{s3a, s3b, s3c}**", "**{s3a, s3b}**, {s3c}"]
    assert lines[0].endswith("V\\* = 1")


def test_markdown_escapes_names_so_cells_stay_cells():
    report = markdown_report(analyze(from_spec(ODD_SPEC), policies=True))
    lines = report.split("\n")
    row = lines[lines.index("| layer | backward KI | forward KI | KI |") + 3]
    assert cells(row) == ["2", "{s\\_1\\#\\&%{x}}, {s2\\~}b}", "**{s\\_1\\#\\&%{x}, s2\\~}b}**",
                          "{s\\_1\\#\\&%{x}}, {s2\\~}b}"]


LINE_BREAK_SPEC = {
    "name": "line\nbreak %x", "horizon": 2, "actions": ["a\nb", "c"],
    "layers": [["s\n1", "s&lt;2"], ["t"]], "start": {"s\n1": "1/2", "s&lt;2": "1/2"},
    "transitions": {"s\n1": {"a\nb": {"t": "1"}, "c": {"t": "1"}},
                    "s&lt;2": {"a\nb": {"t": "1"}, "c": {"t": "1"}}},
    "rewards": {"t": {"c": "1"}},
}
"""Names with a newline (which would split a row or end a LaTeX comment) and an HTML entity
(which Markdown would render as ``<``); ``s\\n1`` and ``s&lt;2`` form one block."""


def test_markdown_keeps_each_row_of_names_with_line_breaks_on_one_line():
    lines = markdown_report(analyze(from_spec(LINE_BREAK_SPEC), policies=True)).split("\n")
    assert lines[0].startswith("**Block MDP line\\\\nbreak %x**")
    assert all(line.endswith(" |") for line in lines if line.startswith("|"))
    row = lines[lines.index("| layer | backward KI | forward KI | KI |") + 2]
    assert cells(row)[1] == "**{s\\\\n1, s\\&lt;2}**"


def test_markdown_renders_names_with_line_breaks_and_entities_as_they_are_written():
    markdown_it = pytest.importorskip("markdown_it")
    report = markdown_report(analyze(from_spec(LINE_BREAK_SPEC), policies=True))
    html = markdown_it.MarkdownIt("commonmark").enable("table").render(report)
    assert "<td><strong>{s\\n1, s&amp;lt;2}</strong></td>" in html
    assert "<td>s\\n1 -&gt; a\\nb, s&amp;lt;2 -&gt; a\\nb</td>" in html


def test_latex_keeps_the_comment_and_each_row_of_names_with_line_breaks_on_one_line():
    report = latex_report(analyze(from_spec(LINE_BREAK_SPEC), policies=True))
    lines = report.split("\n")
    assert lines[0].startswith(r"% python -m kinematic analyze: Block MDP line\textbackslash{}n")
    assert lines[1] == r"% needs \usepackage{booktabs,tabularx,amsmath}"
    assert ("\n1 & {\\bfseries\\boldmath \\{$\\text{s\\textbackslash{}n1}$, "
            "$\\text{s\\&lt;2}$\\}} & ") in report


def unescaped(text: str, character: str) -> int:
    """Occurrences of ``character`` in LaTeX source not preceded by a backslash."""
    return len(re.findall(r"(?<!\\)" + re.escape(character), text))


def test_latex_writes_names_that_are_not_math_as_escaped_text_in_math():
    report = latex_report(analyze(from_spec(ODD_SPEC), policies=True))
    assert r"$\text{s\_1\#\&\%\{x\}}$" in report
    assert r"odd\_names \#1" in report and r"\text{a\&2}" in report
    assert r"$\text{s2\textasciitilde{}\}b}$" in report
    assert "\n1 & $\\mathrm{start}$ & $1$ & $\\frac{1}{8}$ \\\\\n" in report
    body = "\n".join(line for line in report.split("\n") if not line.startswith("%"))
    assert ODD_NAME not in body
    assert unescaped(body, "%") == unescaped(body, "#") == 0
    texts = re.findall(r"\\text\{((?:[^{}\\]|\\[^a-z]|\\[a-z]+\{\})*)\}", body)
    assert len(texts) > 10 and all(unescaped(text, "_") == unescaped(text, "&") == 0
                                   for text in texts)
    outside_math = re.sub(r"(?<!\\)\$(?:[^$\\]|\\.)*\$", "", body)
    assert unescaped(outside_math, "_") == 0


def test_latex_braces_balance_and_each_row_has_a_cell_per_column():
    report = latex_report(analyze(from_spec(ODD_SPEC), policies=True))
    depth = 0
    for character in re.sub(r"\\[{}]", "", report):
        depth += {"{": 1, "}": -1}.get(character, 0)
        assert depth >= 0
    assert depth == 0
    columns = 0
    for line in report.split("\n"):
        begin = re.search(r"\\begin\{tabularx?\}(?:\{\\linewidth\})?\{(.*)\}$", line)
        if begin:
            columns = len(re.sub(r">\{[^{}]*\}", "", begin.group(1)))
        elif line.endswith(r" \\"):
            outside_math = re.sub(r"(?<!\\)\$(?:[^$\\]|\\.)*\$", "", line)
            assert unescaped(outside_math, "&") == columns - 1, line
    assert columns == 2


def test_latex_writes_exact_numbers_as_fractions():
    report = latex_report(analyze(from_spec(ODD_SPEC)))
    assert r"$V^* = \frac{1}{8}$." + "\n" in report
    assert "\n2 & 2 & 2 & 1 & 2 & $\\frac{1}{2}$ \\\\\n" in report
    assert "\n2 & $\\text{s2\\textasciitilde{}\\}b}$ & $\\frac{3}{4}$ & $\\frac{1}{8}$ \\\\\n" \
        in report


def test_float_v_star_is_a_json_number_and_the_tables_round_it():
    """0.1 + 0.2 is 0.30000000000000004 in floats: the JSON keeps it, the tables print 0.3."""
    mdp = from_spec({"name": "float", "horizon": 2, "actions": ["a"], "layers": [["s"], ["t"]],
                     "start": {"s": 1.0}, "transitions": {"s": {"a": {"t": 1.0}}},
                     "rewards": {"s": {"a": 0.1}, "t": {"a": 0.2}}})
    analysis = analyze(mdp)
    assert analysis["optimal_value"] == 0.1 + 0.2 != 0.3
    assert "V\\* = 0.3;" in markdown_report(analysis)
    assert "$V^* = 0.3$;" in latex_report(analysis)
    assert "\n2 & $t$ & $1$ & $0.2$ \\\\\n" in latex_report(analysis)


GAP = 0.75 * 2.0**-30  # below atol = 2**-30; binary fractions, so the sums below are exact


def chain_preferring_b_by(gap: float) -> dict:
    """Three layers of one state each; at every layer ``b`` earns ``gap`` more than ``a``."""
    layers = [["s1"], ["s2"], ["s3"]]
    return {"name": "gaps", "horizon": 3, "actions": ["a", "b"], "layers": layers,
            "start": {"s1": 1.0},
            "transitions": {"s1": {"a": {"s2": 1.0}, "b": {"s2": 1.0}},
                            "s2": {"a": {"s3": 1.0}, "b": {"s3": 1.0}}},
            "rewards": {s: {"a": 0.5, "b": 0.5 + gap} for (s,) in layers}}


def test_in_float_mode_the_optimal_policy_may_fall_short_of_v_star_by_horizon_times_atol():
    mdp = from_spec(chain_preferring_b_by(GAP), atol=2.0**-30)
    analysis = analyze(mdp, policies=True)
    assert [layer["decisions"] for layer in analysis["optimal_policy"]] == [
        {"s1": "a"}, {"s2": "a"}, {"s3": "a"}]
    value = policy_value(mdp, decisions_policy(mdp, analysis["optimal_policy"]))
    assert analysis["optimal_value"] - value == 3 * GAP > 2.0**-30


def test_the_float_reports_say_the_optimal_policy_is_within_horizon_times_atol_of_v_star():
    analysis = analyze(from_spec(chain_preferring_b_by(GAP), atol=2.0**-30), policies=True)
    assert ("optimal policy (observation->action per layer; ties, any action within atol of the "
            "best, go to the one listed first in the spec, so the policy's value is within "
            "horizon * atol of V*):") in format_report(analysis)
    assert "value is within horizon \\* atol of V\\*):" in markdown_report(analysis)
    assert "value is within horizon * atol of V*\n" in latex_report(analysis)


def test_the_report_names_a_large_block_by_its_first_forty_states():
    states = [f"s{i}" for i in range(45)]
    text = merged_blocks([{"layer": 3, "states": states}])
    assert text == f"layer 3: {{{', '.join(states[:40])}, ... (5 more)}}"


@pytest.mark.parametrize("mdp, line", [
    (combination_lock(4, 2, 1), "canonical form: 8 states (from 11), merged: s1a+s1b <- s1a, s1b; "
                                "s3a+s3b <- s3a, s3b; s4a+s4b <- s4a, s4b"),
    (figure2_canonical(), "canonical form: 3 states (from 3) - already canonical"),
], ids=["lock", "canonical"])
def test_the_text_report_names_the_merged_states_of_the_canonical_form(mdp, line):
    assert line in format_report(analyze(mdp)).splitlines()


def test_latex_labels_give_names_their_own_math_and_a_label_of_no_name_is_refused():
    analysis = analyze(combination_lock(horizon=2, actions=2, seed=0))
    report = latex_report(analysis, labels={"s2a": "s_{2,a}"})
    assert "\n2 & $s_{2,a}$ & $\\frac{1}{2}$ & $1$ \\\\\n" in report
    assert "\n2 & $s_{2b}$ & $\\frac{1}{2}$ & $1$ \\\\\n" in report
    with pytest.raises(UnknownName, match=r"^labels: unknown name 's2d' \(did you mean 's2c'"):
        latex_report(analysis, labels={"s2d": "s_{2,d}"})


def test_two_names_that_would_read_alike_in_math_are_both_text():
    mdp = from_spec({"name": "alike", "horizon": 1, "actions": ["a"],
                     "layers": [["s1", "s_1", "s2"]],
                     "start": {"s1": "1/3", "s_1": "1/3", "s2": "1/3"}, "transitions": {}})
    report = latex_report(analyze(mdp))
    assert ("\n1 & $\\text{s1}$ & $\\frac{1}{3}$ \\\\\n1 & $\\text{s\\_1}$ & $\\frac{1}{3}$ \\\\\n"
            "1 & $s_{2}$ & $\\frac{1}{3}$ \\\\\n") in report


def test_analyze_gives_v_star_of_every_state():
    """By hand (REWARDED_SPEC): V*(s2a) = 1, V*(s2b) = 1/2 * 3/2 + 1/2 * 1/2 = 1, V*(s1) = 3/2."""
    analysis = analyze(from_spec(REWARDED_SPEC))
    assert analysis["optimal_state_values"] == {"s1": "3/2", "s2a": "1", "s2b": "1"}
    assert "optimal_state_values" not in analyze(figure2_split())


def test_latex_labels_take_the_drawings_form_with_dollars_and_refuse_a_stray_dollar():
    """One mapping serves the figure (mathtext between dollars) and the table: ``$G$`` is the
    math ``G``, not ``$$G$$`` (display math in a cell, which broke the table silently)."""
    from kinematic.analysis_tables import latex_names

    assert latex_names(["goal", "s2a"], labels={"goal": "$G$", "s2a": "s_{2,a}"}) == {
        "goal": "G", "s2a": "s_{2,a}"}
    report = latex_report(analyze(combination_lock(2, 2, seed=0)), labels={"s2a": "$s_{2,a}$"})
    assert "$s_{2,a}$" in report and "$$" not in report
    with pytest.raises(ValueError, match=r"labels\['s2a'\]: '\$a\$b\$' holds '\$' inside"):
        latex_names(["s2a"], labels={"s2a": "$a$b$"})
    with pytest.raises(ValueError, match=r"labels\['s2a'\]: the math of a name is a string"):
        latex_names(["s2a"], labels={"s2a": 3})

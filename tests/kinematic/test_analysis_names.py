"""Hostile names in ``python -m kinematic analyze``'s three reports: in the text report no name
forges a line or a field (``kinematic.display.name_text``), in Markdown none splits a row or a
cell, in LaTeX each is math (``s_{2a}``, or escaped ASCII text in ``\\text{}``) that no row's
``\\\\`` reads as its spacing or star; each name reads back from every report, with and without
``merged_only``. The one-line forms of ``kinematic.display`` (how an MDP, a policy
and a cover report print) stay one printable line too."""

import ast
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kinematic import (
    analyze,
    combination_lock,
    from_spec,
    homing_policies,
    policy_cover_alpha,
    relabel_states,
    to_spec,
    uniform_policy,
)
from kinematic.analysis import ETA_MIN_LISTED, format_report
from kinematic.analysis_tables import STATE_ROWS, latex_number, latex_report, markdown_report
from kinematic.display import name_text
from kinematic.strategies import block_mdps

try:
    import markdown_it
except ImportError:  # installed with rich and jupytext (the dev extra), not by kinematic itself
    markdown_it = None

ROOT = Path(__file__).resolve().parents[2]

FORGING_SPEC = {
    "name": "forged", "horizon": 2, "actions": ["a", "b"],
    "layers": [["A\neta_min = 1"], ["[2pt]", "*"]], "start": {"A\neta_min = 1": "1"},
    "transitions": {"A\neta_min = 1": {"a": {"[2pt]": "1/2", "*": "1/2"}, "b": {"*": "1"}}},
    "rewards": {"*": {"a": "1"}},
}
"""A state whose name holds a line of the report (``eta_min = 1``), and two whose names LaTeX
reads after a row's ``\\\\`` as its spacing (``[2pt]``) and its star: the homing policies' table
starts rows with state names."""


def test_a_name_holding_a_line_of_the_report_prints_quoted_on_its_own_line():
    lines = format_report(analyze(from_spec(FORGING_SPEC), policies=True)).split("\n")
    assert not any(line.startswith("eta_min = 1") for line in lines[2:])
    assert "  'A\\neta_min = 1': 1" in lines
    assert "  [2pt]: 'A\\neta_min = 1'->a" in lines


def test_the_text_report_of_the_command_line_quotes_the_name(tmp_path: Path):
    spec = tmp_path / "forged.json"
    spec.write_text(json.dumps(FORGING_SPEC))
    result = subprocess.run([sys.executable, "-m", "kinematic", "analyze", str(spec)],
                            capture_output=True, text=True, check=True,
                            env={"PYTHONPATH": str(ROOT)})
    assert [line for line in result.stdout.split("\n") if line.startswith("eta_min")] == [
        "eta_min = 1/2", "eta_min attained by 1 state: layer 2: [2pt]"]


def test_latex_rows_starting_with_a_state_name_start_with_its_math():
    report = latex_report(analyze(from_spec(FORGING_SPEC), policies=True))
    assert "\n$\\text{[2pt]}$ & " in report and "\n$\\text{*}$ & " in report
    assert not re.search(r"\\\\\s*[\[*]", report)


HOSTILE = ["A\neta_min = 1", "[2pt]", "*", "*[1ex]", " [2pt]", "|", "a|b", "`x`", "# h",
           "- item", "\t", "\r", "\r\n", "\u2028", "\u2029", "\u0085", "\x0b", "\x0c",
           "\x1b[31mred\x1b[0m", "\x00", "\\", "\\\\", "{", "}", "{}", "%", "&", "$", "$x$",
           "a, b", "x->y", "m <- n", "s: 1", "l; m", "'q'", '"', "'", " lead", "trail ",
           "\\hline", "\\\\[2pt]", "~", "^", "_", "<b>", "&lt;", "\u200b", "\ufeff", "\u202e",
           "\xa0", "(start state)", "none", "layer 1: x", "**b**", ":", ",", "-", ">", "<"]
"""Names that forged or could forge a line, a field, a cell or a row, or that a format reads
specially."""

names = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(st.sampled_from("".join(HOSTILE)) | st.characters(codec="utf-8"),
            min_size=1, max_size=6),
).filter(lambda name: "+" not in name)  # a canonical form names a merged state "a+b"


@st.composite
def hostile_mdps(draw: st.DrawFn) -> dict:
    """A generated Block MDP (``kinematic.strategies.block_mdps``) whose name, states,
    observations and actions are renamed to distinct hostile names, as its spec."""
    spec = to_spec(draw(block_mdps(min_horizon=2, max_horizon=3, max_width=2, max_actions=2)))
    old = [*spec["actions"], *(s for layer in spec["layers"] for s in layer),
           *(x for emitted in spec.get("emissions", {}).values() for x in emitted)]
    new = draw(st.lists(names, min_size=len(old), max_size=len(old), unique=True))
    mapping = dict(zip(old, new, strict=True))

    def renamed(value: object) -> object:
        if isinstance(value, dict):
            return {mapping.get(k, k): renamed(v) for k, v in value.items()}
        if isinstance(value, list):
            return [renamed(v) for v in value]
        return mapping.get(value, value) if isinstance(value, str) else value

    result = renamed(spec)
    assert isinstance(result, dict)
    result["name"] = draw(names)
    return result


QUOTED = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*\"""")


def read_name(text: str, position: int, stops: tuple[str, ...]) -> tuple[str, int]:
    """The name written at ``position`` of the text report (quoted: read back as Python reads
    it; else up to the first of ``stops`` or the end) and where it ends."""
    if text[position:position + 1] in ("'", '"'):
        match = QUOTED.match(text, position)
        assert match, text[position:]
        return ast.literal_eval(match.group()), match.end()
    ends = [end for end in (text.find(stop, position) for stop in stops) if end >= 0]
    end = min(ends, default=len(text))
    return text[position:end], end


def read_list(text: str, position: int, item, separator: str,
              ends: tuple[str, ...] = ("",)) -> tuple[list, int]:
    """Items read by ``item(text, position) -> (value, end)`` separated by ``separator``, up to
    one of ``ends`` (``""``: the end of the text)."""
    items = []
    while True:
        value, position = item(text, position)
        items.append(value)
        if text.startswith(separator, position):
            position += len(separator)
        elif any(text.startswith(end, position) if end else position == len(text)
                 for end in ends):
            return items, position
        else:
            raise AssertionError(f"{text!r} at {position}")


def read_decisions(text: str) -> dict[str, str]:
    """``x->a, y->b`` as ``{x: a, y: b}``."""
    def decision(line: str, position: int) -> tuple[tuple[str, str], int]:
        source, position = read_name(line, position, ("->",))
        assert line.startswith("->", position)
        action, position = read_name(line, position + 2, (", ",))
        return (source, action), position
    pairs, _ = read_list(text, 0, decision, ", ")
    return dict(pairs)


def read_blocks(text: str) -> list[dict]:
    """``layer 2: {a, b}, {c}; layer 3: {d, e}`` (or ``none``) as analyze's blocks."""
    if text == "none":
        return []

    def block(line: str, position: int) -> tuple[list[str], int]:
        assert line[position] == "{"
        states, position = read_list(line, position + 1,
                                     lambda t, p: read_name(t, p, (", ", "}")), ", ", ("}",))
        return states, position + 1

    def layer(line: str, position: int) -> tuple[list[dict], int]:
        match = re.compile(r"layer (\d+): ").match(line, position)
        assert match, line[position:]
        blocks, position = read_list(line, match.end(), block, ", ", ("; ", ""))
        return [{"layer": int(match.group(1)), "states": b} for b in blocks], position

    layers, _ = read_list(text, 0, layer, "; ")
    return [b for blocks in layers for b in blocks]


def read_merges(text: str) -> list[tuple[str, list[str]]]:
    """``m <- a, b; n <- c, d`` as ``[(m, [a, b]), (n, [c, d])]``."""
    def merge(line: str, position: int) -> tuple[tuple[str, list[str]], int]:
        into, position = read_name(line, position, (" <- ",))
        assert line.startswith(" <- ", position)
        group, position = read_list(line, position + 4,
                                    lambda t, p: read_name(t, p, (", ", "; ")), ", ", ("; ", ""))
        return (into, group), position
    merges, _ = read_list(text, 0, merge, "; ")
    return merges


def read_attained(text: str) -> list[dict]:
    """``3 states: layer 1: a, b; layer 2: c`` (the first :data:`ETA_MIN_LISTED` states, then
    ``, ... (N more)``) as analyze's ``eta_min_states`` cut to the states shown; the count says
    how many names to read, so a name ``...`` cannot pass for the cut."""
    match = re.compile(r"([\d,]+) states?: ").match(text)
    assert match, text
    total = int(match.group(1).replace(",", ""))
    assert match.group().startswith(f"{total:,} state{'s' if total != 1 else ''}: ")
    shown, position, groups = min(total, ETA_MIN_LISTED), match.end(), []
    while sum(len(group["states"]) for group in groups) < shown:
        if groups:
            assert text.startswith("; ", position), text[position:]
            position += 2
        layer = re.compile(r"layer (\d+): ").match(text, position)
        assert layer, text[position:]
        groups.append({"layer": int(layer.group(1)), "states": []})
        position = layer.end()
        while True:
            state, position = read_name(text, position, (", ", "; "))
            groups[-1]["states"].append(state)
            if (sum(len(group["states"]) for group in groups) == shown
                    or not text.startswith(", ", position)):
                break
            position += 2
    rest = f", ... ({total - shown:,} more)" if total > shown else ""
    assert text[position:] == rest
    return groups


def shown_attaining(analysis: dict) -> list[dict]:
    """analyze's ``eta_min_states`` cut to the first :data:`ETA_MIN_LISTED` states."""
    groups, left = [], ETA_MIN_LISTED
    for group in analysis["eta_min_states"]:
        if left:
            groups.append({"layer": group["layer"], "states": group["states"][:left]})
            left -= len(groups[-1]["states"])
    return groups


def check_text_report(analysis: dict) -> None:
    """The text report has the lines it should, each field in its place, and every name reads
    back: eta per state, the merged blocks, the canonical form's merges, the policies."""
    lines = format_report(analysis).split("\n")
    horizon, states = analysis["horizon"], analysis["states"]
    expected = (4 + ("optimal_value" in analysis) + 2 + horizon + 2 + states + 3 + 1
                + ("homing_policies" in analysis) * (2 + states)
                + ("optimal_policy" in analysis) * (2 + horizon))
    assert len(lines) == expected
    header = re.fullmatch(r"Block MDP (.*): horizon \d+, \d+ states, exact arithmetic", lines[0])
    assert header and ast.literal_eval(header.group(1)) == analysis["name"]
    assert lines[1] == f"eta_min = {analysis['eta_min']}"
    assert lines[2].startswith("eta_min attained by ")
    assert read_attained(lines[2].removeprefix("eta_min attained by ")) == shown_attaining(analysis)
    at = lines.index("eta(s):") + 1
    eta = {}
    for line in lines[at:at + states]:
        assert line.startswith("  ")
        state, end = read_name(line, 2, (": ",))
        eta[state] = line[end:]
    assert eta == {state: f": {value}" for state, value in analysis["eta"].items()}
    at += states
    for kind, label in (("backward", "backward KI"), ("forward", "forward KI"), ("ki", "KI")):
        prefix = f"{label} blocks with more than one state: "
        assert lines[at].startswith(prefix)
        assert read_blocks(lines[at][len(prefix):]) == [
            block for block in analysis["partitions"][kind] if len(block["states"]) > 1]
        at += 1
    merged: dict[str, list[str]] = {}
    for state, into in analysis["canonical_state_map"].items():
        merged.setdefault(into, []).append(state)
    if all(len(group) == 1 for group in merged.values()):
        assert lines[at].endswith(" - already canonical")
    else:
        pairs = read_merges(lines[at].split(", merged: ", 1)[1])
        assert pairs == [(into, group) for into, group in merged.items() if len(group) > 1]
    at += 1
    if "homing_policies" in analysis:
        at += 2
        for line, (state, choices) in zip(lines[at:at + states],
                                          analysis["homing_policies"].items(), strict=True):
            target, end = read_name(line, 2, (": ",))
            assert (target, line[end:end + 2]) == (state, ": ")
            rest = line[end + 2:]
            assert (read_decisions(rest) if choices else rest) == (choices or "(start state)")
        at += states
    if "optimal_policy" in analysis:
        at += 2
        for line, layer in zip(lines[at:], analysis["optimal_policy"], strict=True):
            prefix = f"  layer {layer['layer']}: "
            assert line.startswith(prefix)
            assert read_decisions(line[len(prefix):]) == layer["decisions"]


def visible(name: str) -> str:
    """A name as the tables show it: each character that does not print as itself as its
    Python escape."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in name)


def markdown_cells(row: str) -> list[str]:
    """The cells of a Markdown table row: ``|`` ends a cell unless backslash-escaped (a
    backslash escapes the character after it, so ``\\\\|`` ends one)."""
    assert row.startswith("| ") and row.endswith(" |"), row
    cells, cell, position = [], "", 1
    while position < len(row):
        if row[position] == "\\":
            cell += row[position:position + 2]
            position += 2
        elif row[position] == "|":
            cells.append(cell.strip())
            cell, position = "", position + 1
        else:
            cell += row[position]
            position += 1
    assert cell == ""
    return cells


def markdown_unescaped(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


class HtmlShape(HTMLParser):
    """The tags of rendered HTML that give its shape: per table, the cells of each row; and
    every tag that starts a block other than a table or a paragraph (a heading, a list, a rule,
    code, a quote), which no name may start."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[int]] = []
        self.other_blocks: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append(0)
        elif tag in ("td", "th"):
            self.tables[-1][-1] += 1
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "hr", "pre", "blockquote"):
            self.other_blocks.append(tag)


def check_rendered_markdown(report: str, sizes: list[tuple[int, int]]) -> None:
    """``report`` rendered as CommonMark with GitHub's tables has ``sizes`` tables (rows under
    the header, columns) and no other block (unchecked without markdown-it)."""
    if markdown_it is None:
        return
    shape = HtmlShape()
    shape.feed(markdown_it.MarkdownIt("commonmark").enable("table").render(report))
    assert [(len(rows) - 1, rows[0]) for rows in shape.tables] == sizes
    assert all(len(set(rows)) == 1 for rows in shape.tables)
    assert shape.other_blocks == []


def check_markdown_report(analysis: dict, merged_only: bool = False) -> None:
    report = markdown_report(analysis, merged_only=merged_only)
    lines = report.split("\n")
    tables: list[list[list[str]]] = []
    for previous, line in zip(["", *lines], lines, strict=False):
        if line.startswith("|"):
            if not previous.startswith("|"):
                tables.append([])
            tables[-1].append(markdown_cells(line))
        else:
            assert "\n" not in line
    states, horizon = analysis["states"], analysis["horizon"]
    sizes = [(horizon + 1, 6), (horizon, 4)]
    if "optimal_policy" in analysis:
        sizes.append((horizon, 2))
    if "homing_policies" in analysis:
        sizes.append((states, 2))
    assert [(len(table) - 2, len(table[0])) for table in tables] == sizes
    check_rendered_markdown(report, sizes)
    assert all(len(row) == len(table[0]) for table in tables for row in table)
    if "homing_policies" in analysis:
        targets = [markdown_unescaped(row[0]) for row in tables[-1][2:]]
        assert targets == [visible(state).strip() for state in analysis["homing_policies"]]
    header = re.fullmatch(r"\*\*Block MDP (.*)\*\* \(horizon .*", lines[0])
    assert header and markdown_unescaped(header.group(1)) == visible(analysis["name"])
    assert lines[1] == "" and lines[2].startswith("eta_min is attained by ")
    attained = markdown_unescaped(lines[2].removeprefix("eta_min is attained by "))
    assert read_attained(attained) == shown_attaining(analysis)


LATEX_ESCAPES = {r"\textbackslash{}": "\\", r"\textasciicircum{}": "^",
                 r"\textasciitilde{}": "~", r"\textless{}": "<", r"\textgreater{}": ">",
                 r"\textbar{}": "|", r"\textasciigrave{}": "`", r"\textquotesingle{}": "'",
                 r'\texttt{"}': '"', "-{}": "-", ",{}": ","}


def latex_unescaped(text: str) -> str:
    pattern = "|".join(map(re.escape, LATEX_ESCAPES)) + r"|\\([{}_#%&$])"
    return re.sub(pattern, lambda m: m.group(1) or LATEX_ESCAPES[m.group()], text)


def ascii_visible(name: str) -> str:
    """A name as LaTeX text shows it: each character other than printable ASCII as its Python
    escape."""
    return "".join(c if c.isascii() and c.isprintable() else ascii(c)[1:-1] for c in name)


MATH_FORM = re.compile(r"(?P<base>[A-Za-z]|\\mathrm\{[A-Za-z]{2,}\})"
                       r"(?:_\{(?P<tail>(?:[0-9A-Za-z,]|\\mathrm\{[A-Za-z]{2,}\})+)\})?")


def latex_name_reads_as(math: str, name: str) -> bool:
    """Whether ``math``, a name as the LaTeX report writes it between ``$``, reads back as
    ``name``: ``\\text{...}`` unescaped is the name (characters other than printable ASCII as
    Python escapes); else letters with a subscript, ``s_{2a}`` for ``s2a`` (or ``s_2a``), runs
    of letters upright, the subscript's commas for ``_``."""
    if math.startswith(r"\text{"):
        assert math.endswith("}"), math
        return latex_unescaped(math[len(r"\text{"):-1]) == ascii_visible(name)
    match = MATH_FORM.fullmatch(math)
    assert match, math
    base = re.sub(r"\\mathrm\{(\w+)\}", r"\1", match["base"])
    if match["tail"] is None:
        return name == base
    tail = re.sub(r"\\mathrm\{(\w+)\}", r"\1", match["tail"]).replace(",", "_")
    return name in (base + tail, f"{base}_{tail}") and (tail[0].isdigit() or name[len(base)] == "_")


def test_the_math_form_of_a_name_reads_back():
    assert latex_name_reads_as(r"s_{3,12,\mathrm{end}}", "s3_12_end")
    assert latex_name_reads_as(r"\mathrm{start}", "start")
    assert latex_name_reads_as("x_{t}", "x_t") and not latex_name_reads_as("x_{t}", "xt")
    assert not latex_name_reads_as("s_{2a}", "s2_a")


LATEX_TOKEN = re.compile(r"\\[A-Za-z]+\s*|\\.|.", re.DOTALL)
LATEX_RULES = {r"\toprule", r"\midrule", r"\bottomrule"}


def latex_rows(body: str) -> list[list[str]]:
    """A tabular's body as rows of cells, read token by token: a row ends at ``\\\\`` (whatever
    follows it on the next line), a cell at ``&``, both outside braces and math only; the
    ``booktabs`` rules are left out."""
    rows, cells, cell, depth, math = [], [], "", 0, False
    tokens = LATEX_TOKEN.findall(body)
    for k, token in enumerate(tokens):
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
            assert depth >= 0
        elif token == "$":
            math = not math
        if token == r"\\" and depth == 0 and not math:
            rows.append([*cells, cell.strip()])
            cells, cell = [], ""
            following = "".join(tokens[k + 1:]).lstrip()
            assert not following.startswith(("[", "*")), following[:20]
        elif token == "&" and depth == 0 and not math:
            cells.append(cell.strip())
            cell = ""
        elif token.strip() not in LATEX_RULES:
            cell += token
    assert (depth, math, cells, cell.strip()) == (0, False, [], "")
    return rows


LATEX_MATH = re.compile(r"\$((?:[^$\\]|\\.)*)\$")
"""A formula: ``$``, then anything but an unescaped ``$`` (a name's ``$`` is ``\\$``), ``$``."""


def latex_math_name(cell: str) -> str:
    """The name of a cell that is one name in math, ``$...$``."""
    match = LATEX_MATH.fullmatch(cell)
    assert match, cell
    return match.group(1)


def read_latex_attained(text: str, analysis: dict) -> None:
    """The LaTeX ``eta_min`` line names the states :func:`shown_attaining` gives, in math, in
    the text report's layout (each name replaced by a placeholder first)."""
    names = LATEX_MATH.findall(text)
    placeholders = LATEX_MATH.sub(lambda m: f"N{names.index(m.group(1))}", text)
    expected = shown_attaining(analysis)
    states = [state for group in expected for state in group["states"]]
    assert len(names) == len(states)
    assert all(latex_name_reads_as(math, state) for math, state in zip(names, states, strict=True))
    assert read_attained(placeholders) == [
        {"layer": group["layer"],
         "states": [f"N{names.index(names[states.index(state)])}" for state in group["states"]]}
        for group in expected]


TABLE = re.compile(r"\\begin\{(tabularx?)\}(?:\{\\linewidth\})?\{([^\n]*)\}\n(.*?)\\end\{\1\}",
                   re.DOTALL)


def check_latex_report(analysis: dict, merged_only: bool = False) -> None:
    report = latex_report(analysis, merged_only=merged_only)
    for line in report.split("\n"):
        assert (line.isascii() and line.isprintable()) or line == "", line
        assert line.startswith(("%", r"\medskip", r"{\renewcommand{\arraystretch}", "$",
                                r"\noindent $"))\
            or line in ("", *LATEX_RULES) or line.endswith((r" \\", r"\end{tabular}}",
                                                           r"\end{tabularx}}")), line
    comment = report.split("\n")[0]
    assert latex_unescaped(comment.split(" Block MDP ", 1)[1].rsplit(" (horizon ", 1)[0]) \
        == ascii_visible(analysis["name"])
    tables = TABLE.findall(report)
    states, horizon = analysis["states"], analysis["horizon"]
    rewarded = "optimal_state_values" in analysis
    chunks = [min(STATE_ROWS, states - first) for first in range(0, states, STATE_ROWS)]
    sizes = [(horizon + 2, 6), (horizon + 1, 4), *((rows + 1, 3 + rewarded) for rows in chunks)]
    if "optimal_policy" in analysis:
        sizes.append((horizon + 1, 2))
    if "homing_policies" in analysis:
        sizes.append((states + 1, 2))
    rows = [latex_rows(body) for _, _, body in tables]
    widths = [len(re.sub(r">\{[^{}]*\}", "", columns)) for _, columns, _ in tables]
    assert [(len(table), width) for table, width in zip(rows, widths, strict=True)] == sizes
    assert all(len(row) == width for table, width in zip(rows, widths, strict=True)
               for row in table)
    layers = [row["layer"] for row in analysis["per_layer"] for _ in range(row["states"])]
    state_rows = [row for table in rows[2:2 + len(chunks)] for row in table[1:]]
    for row, layer, (state, eta) in zip(state_rows, layers, analysis["eta"].items(), strict=True):
        assert row[0] == str(layer) and latex_name_reads_as(latex_math_name(row[1]), state)
        assert row[2:] == [latex_number(eta), *([latex_number(
            analysis["optimal_state_values"][state])] if rewarded else [])]
    for row, blocks in zip(rows[1][1:], [[b for b in analysis["partitions"]["ki"]
                                           if b["layer"] == layer]
                                          for layer in range(1, horizon + 1)], strict=True):
        merged = [b for b in blocks if len(b["states"]) > 1]
        singletons = len(blocks) - len(merged)
        if merged_only:
            assert row[3].endswith(f"{singletons} singleton{'s' * (singletons != 1)}"
                                   if singletons else r"\}")
        else:
            assert row[3].count(r"\boldmath") == len(merged)
    if "homing_policies" in analysis:
        for row, state in zip(rows[-1][1:], analysis["homing_policies"], strict=True):
            assert latex_name_reads_as(latex_math_name(row[0]), state)
    last = report.split("\n")[-1]
    assert last.startswith(r"$\eta_{\min}$ is attained by ") and last.endswith(r".\par")
    read_latex_attained(last.removeprefix(r"$\eta_{\min}$ is attained by ")[:-5], analysis)


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(hostile_mdps())
def test_every_report_keeps_its_shape_and_reads_back_every_name(spec):
    mdp = from_spec(spec)
    analysis = analyze(mdp, policies=True)
    check_text_report(analysis)
    check_markdown_report(analysis)
    check_markdown_report(analysis, merged_only=True)
    check_latex_report(analysis)
    check_latex_report(analysis, merged_only=True)
    assert repr(uniform_policy(mdp)).isprintable()
    # beyond U+FFFF Python and JSON share no escape; no line break is there
    assert all(c.isprintable() or ord(c) > 0xFFFF for c in repr(mdp))
    assert to_spec(eval(repr(mdp), {"from_spec": from_spec})) == spec


def test_a_large_mdp_a_policy_and_a_cover_report_print_hostile_names_quoted():
    lock = relabel_states(combination_lock(horizon=20, actions=3, seed=0),
                          {"s1a": "A\neta_min = 1", "s1b": "x\u2028y", "s20c": "\x9b"})
    assert repr(lock).endswith(
        "layer 1: 'A\\neta_min = 1', 'x\\u2028y'; layer 2: s2a, s2b, s2c; ...; "
        "layer 20: s20a, s20b, '\\x9b'>")
    policy = repr(uniform_policy(lock))
    assert policy.isprintable()
    assert policy.startswith("<Policy on 'combolock-H20-K3-seed0': layer 1: 'A\\neta_min = 1' "
                             "-> {a1: 1/3, a2: 1/3, a3: 1/3}, 'x\\u2028y' -> {")
    renamed = relabel_states(lock, {"s2c": "\x85"})
    cover = repr(policy_cover_alpha(renamed, [homing_policies(renamed)["s20a"]]))
    assert cover.isprintable() and "states below 1: '\\x85' 0, s3c 0," in cover


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_name_prints_as_one_line_that_reads_back(name):
    text = name_text(name)
    assert len(text.splitlines()) == 1 and text.isprintable()
    assert text == name or ast.literal_eval(text) == name


@pytest.mark.parametrize(("name", "text"), [
    ("s2a", "s2a"), ("s2a+s2b", "s2a+s2b"), ("[2pt]", "[2pt]"), ("a b", "a b"),
    ("s1 ", "'s1 '"), (" s1", "' s1'"), ("'q", '"\'q"'), ("x->y", "'x->y'"),
    ("\u2028", "'\\u2028'"), ("\x1b[0m", "'\\x1b[0m'"), ("...", "'...'"),
    ("... (3 more)", "'... (3 more)'"), ("s..", "s.."),
])
def test_a_name_is_quoted_exactly_when_it_could_be_misread(name, text):
    """A space at either end would make ``s1 `` read as ``s1``; a leading quote as a quoted
    name."""
    assert name_text(name) == text


def test_a_cut_list_of_states_attaining_eta_min_reads_back_from_every_report():
    """More states attain eta_min than the reports list (the lock's 40 live states), named so
    that a plain reading would miscount or misplace them: ``...`` and ``... (30 more)`` look
    like the cut, ``layer 3: x`` like a layer, ``a, b`` like two states, ``\\n`` like a line."""
    names = {"s1a": "...", "s1b": "a, b", "s2a": "layer 3: x", "s5b": "... (30 more)",
             "s6a": "\n", "s3b": "x; layer 9: y"}
    lock = relabel_states(combination_lock(horizon=20, actions=2, seed=0), names)
    analysis = analyze(lock, policies=True)
    assert len(shown_attaining(analysis)) == 5  # layers 1-5: the cut falls after s5b
    check_text_report(analysis)
    check_markdown_report(analysis)
    check_latex_report(analysis)
    check_latex_report(analysis, merged_only=True)

""":func:`kinematic.analysis.analyze`'s result as tables to paste into a paper or a README
(``python -m kinematic analyze --markdown`` and ``--latex``).

Both give the per-layer table (layer, states, ``N_BD``, ``N_FD``, ``N_KD``, ``eta_min``, then a
row for the whole MDP), the three partitions layer by layer (``def:bki``, ``def:fki``,
``def:ki``; blocks of more than one state in bold), a summary line with ``eta_min``, the
partition sizes and ``V*`` when the MDP has rewards, a line naming the states that attain
``eta_min`` with their layers (:func:`kinematic.analysis.attained_text`: the first
:data:`kinematic.analysis.ETA_MIN_LISTED` and a count), and the policies when the analysis has
them. A state in that line is first written as the text report writes it
(:func:`kinematic.display.name_text`: quoted when it holds a separator such as ``, ``), so the
list reads back. Names are escaped for the target language, and each character of a name that
does not print as itself (``str.isprintable``: control characters, line breaks, tabs, ANSI
escapes, format characters) shown as Python writes it (``\\n``, ``\\x1b``, ``\\u2028``) so that
a row or a comment stays one line. A LaTeX row that would start with ``[`` or ``*`` (after
spaces) starts with ``{}``: after the ``\\\\`` ending the row before, LaTeX would read ``[2pt]``
as that row's spacing and ``*`` as its star.
Exact numbers are ``p/q`` in Markdown and ``\\frac{p}{q}`` in LaTeX, floats are rounded to
:data:`FLOAT_DIGITS` significant digits. The LaTeX uses no package beyond LaTeX itself
(``tabular``, ``\\hline``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kinematic.analysis import attained_text, tie_rule
from kinematic.display import name_text
from kinematic.numbers import number_text

__all__ = ["FLOAT_DIGITS", "latex_escape", "latex_number", "latex_report", "markdown_escape",
           "markdown_report"]

FLOAT_DIGITS = 10
"""Significant digits of float numbers in the tables: more than float mode's results are worth
(every eta is within ``1e-3 atol``, at most ``1e-6``, plus rounding), fewer than ``repr``'s 17,
which would print 0.95 as ``0.9500000000000001``."""

_KINDS = (("backward", "backward KI"), ("forward", "forward KI"), ("ki", "KI"))

_LATEX_SPECIAL = str.maketrans({
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "#": r"\#", "%": r"\%",
    "&": r"\&", "$": r"\$", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
})

_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>|~$#&"})

_ROW_OPTIONS = re.compile(r" *[\[*]")
"""The start of a LaTeX row that the ``\\\\`` ending the row before would read as its optional
spacing (``[2pt]``) or its star (spaces and the line end are skipped first)."""


def _visible(text: str) -> str:
    """``text`` with each character that does not print as itself (``str.isprintable``) as its
    Python escape (``\\n``, ``\\x1b``): a newline would split a Markdown row or end a LaTeX
    comment line, a carriage return end a LaTeX line, the others are unreadable or reorder the
    text around them (``\\u202e``).

    >>> print(_visible("s\\t1\\u2028\\x85"))
    s\\t1\\u2028\\x85
    """
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def latex_escape(text: str) -> str:
    """``text`` as LaTeX text on one line: every character LaTeX treats specially is escaped,
    and a control character or line break is shown as its Python escape (``\\n``).

    >>> print(latex_escape("s_1#&%{x}"))
    s\\_1\\#\\&\\%\\{x\\}
    >>> print(latex_escape("s\\n1"))
    s\\textbackslash{}n1
    """
    return _visible(text).translate(_LATEX_SPECIAL)


def markdown_escape(text: str) -> str:
    """``text`` as Markdown text, safe in a table cell: characters that would start emphasis,
    code, links, HTML, entities (``&lt;``) or math, or end a cell (``|``), are
    backslash-escaped, and a control character or line break is shown as its Python escape
    (``\\n``), which Markdown renders as it is.

    >>> print(markdown_escape("s_1|*x*"))
    s\\_1\\|\\*x\\*
    >>> print(markdown_escape("s\\n&lt;1"))
    s\\\\n\\&lt;1
    """
    return _visible(text).translate(_MARKDOWN_SPECIAL)


def _latex_math(value: str | float) -> str:
    if isinstance(value, str):
        sign = "-" if value.startswith("-") else ""
        numerator, _, denominator = value.lstrip("-").partition("/")
        return sign + (rf"\frac{{{numerator}}}{{{denominator}}}" if denominator else numerator)
    mantissa, _, exponent = _plain_number(value).partition("e")
    return f"{mantissa} \\times 10^{{{int(exponent)}}}" if exponent else mantissa


def _plain_number(value: str | float) -> str:
    """A number of :func:`analyze`'s result as Markdown text: ``"p/q"`` as it is, a float
    rounded to :data:`FLOAT_DIGITS` significant digits."""
    return number_text(value, FLOAT_DIGITS)


def latex_number(value: str | float) -> str:
    """A number of :func:`analyze`'s result in LaTeX math: ``"p/q"`` as ``\\frac{p}{q}``, a float
    in scientific notation as ``m \\times 10^{e}``.

    >>> print(latex_number("-3/4"), latex_number("1"), latex_number(2.5e-10))
    $-\\frac{3}{4}$ $1$ $2.5 \\times 10^{-10}$
    """
    return f"${_latex_math(value)}$"


def _blocks_by_layer(analysis: dict, kind: str) -> dict[int, list[list[str]]]:
    per_layer: dict[int, list[list[str]]] = {row["layer"]: [] for row in analysis["per_layer"]}
    for block in analysis["partitions"][kind]:
        per_layer[block["layer"]].append(block["states"])
    return per_layer


def _partition_cells(analysis: dict, escape: Callable[[str], str], open_: str, close: str,
                     bold: Callable[[str], str]) -> list[list[str]]:
    """One row per layer: the layer, then the blocks of each partition, merged ones in bold."""
    columns = [_blocks_by_layer(analysis, kind) for kind, _ in _KINDS]
    rows = []
    for row in analysis["per_layer"]:
        cells = [str(row["layer"])]
        for blocks in columns:
            sets = [open_ + ", ".join(escape(s) for s in block) + close
                    for block in blocks[row["layer"]]]
            cells.append(", ".join(bold(text) if len(block) > 1 else text
                                   for text, block in zip(sets, blocks[row["layer"]],
                                                          strict=True)))
        rows.append(cells)
    return rows


def _layer_rows(analysis: dict, number: Callable[[str | float], str]) -> list[list[str]]:
    rows = [[str(row["layer"]), str(row["states"]), str(row["n_bd"]), str(row["n_fd"]),
             str(row["n_kd"]), number(row["eta_min"])] for row in analysis["per_layer"]]
    rows.append(["all", str(analysis["states"]), str(analysis["n_bd"]), str(analysis["n_fd"]),
                 str(analysis["n_kd"]), number(analysis["eta_min"])])
    return rows


def _markdown_table(header: list[str], rows: list[list[str]], right: int) -> list[str]:
    """A table whose first ``right`` columns are right-aligned."""
    alignment = ["---:"] * right + ["---"] * (len(header) - right)
    return ["| " + " | ".join(cells) + " |" for cells in (header, alignment, *rows)]


def _summary(analysis: dict) -> list[tuple[str, str | float]]:
    """``(quantity, value)`` for eta_min, N_BD, N_FD, N_KD and V* when present."""
    pairs = [("eta_min", analysis["eta_min"])]
    pairs += [(f"N_{kind}", analysis["n_" + kind.lower()]) for kind in ("BD", "FD", "KD")]
    if "optimal_value" in analysis:
        pairs.append(("V*", analysis["optimal_value"]))
    return pairs


_MARKDOWN_QUANTITIES = {"V*": r"V\*"}
_LATEX_QUANTITIES = {"eta_min": r"\eta_{\min}", "N_BD": "N_{BD}", "N_FD": "N_{FD}",
                     "N_KD": "N_{KD}", "V*": "V^*"}


def markdown_report(analysis: dict) -> str:
    r""":func:`analyze`'s result as Markdown: a summary line, the per-layer table, the
    partitions table and, when present, the policies.

    >>> from kinematic import analyze, combination_lock
    >>> lock = analyze(combination_lock(horizon=3, actions=2, seed=0))
    >>> print(markdown_report(lock))  # doctest: +NORMALIZE_WHITESPACE
    **Block MDP combolock-H3-K2-seed0** (horizon 3, 8 states, exact arithmetic):
    eta_min = 1/2, N_BD = 5, N_FD = 6, N_KD = 7, V\* = 1
    <BLANKLINE>
    eta_min is attained by 6 states: layer 1: s1a, s1b; layer 2: s2a, s2b; layer 3: s3a, s3b
    <BLANKLINE>
    | layer | states | N_BD | N_FD | N_KD | eta_min |
    | ---: | ---: | ---: | ---: | ---: | ---: |
    | 1 | 2 | 1 | 2 | 2 | 1/2 |
    | 2 | 3 | 2 | 3 | 3 | 1/2 |
    | 3 | 3 | 2 | 1 | 2 | 1/2 |
    | all | 8 | 5 | 6 | 7 | 1/2 |
    <BLANKLINE>
    Blocks of the partitions (blocks of more than one state in bold):
    <BLANKLINE>
    | layer | backward KI | forward KI | KI |
    | ---: | --- | --- | --- |
    | 1 | **{s1a, s1b}** | {s1a}, {s1b} | {s1a}, {s1b} |
    | 2 | **{s2a, s2b}**, {s2c} | {s2a}, {s2b}, {s2c} | {s2a}, {s2b}, {s2c} |
    | 3 | **{s3a, s3b}**, {s3c} | **{s3a, s3b, s3c}** | **{s3a, s3b}**, {s3c} |
    """
    header = (f"**Block MDP {markdown_escape(analysis['name'])}** (horizon {analysis['horizon']}, "
              f"{analysis['states']} states, {analysis['mode']} arithmetic): "
              + ", ".join(f"{_MARKDOWN_QUANTITIES.get(quantity, quantity)} = "
                          f"{_plain_number(value)}"
                          for quantity, value in _summary(analysis)))
    if "eta_error" in analysis:
        header += (f"; every eta within {_plain_number(analysis['eta_error'])} of its exact "
                   "value")
    attained = attained_text(analysis["eta_min_states"],
                             lambda state: markdown_escape(name_text(state)))
    lines = [header, "", f"eta_min is attained by {attained}", ""]
    lines += _markdown_table(["layer", "states", "N_BD", "N_FD", "N_KD", "eta_min"],
                             _layer_rows(analysis, _plain_number), right=6)
    lines += ["", "Blocks of the partitions (blocks of more than one state in bold):", ""]
    lines += _markdown_table(["layer", *(label for _, label in _KINDS)],
                             _partition_cells(analysis, markdown_escape, "{", "}",
                                              lambda text: f"**{text}**"), right=1)
    if "optimal_policy" in analysis:
        lines += ["", f"An optimal policy ({markdown_escape(tie_rule(analysis['mode']))}):", ""]
        lines += _markdown_table(["layer", "decisions (observation -> action)"], [
            [str(layer["layer"]), ", ".join(f"{markdown_escape(x)} -> {markdown_escape(a)}"
                                            for x, a in layer["decisions"].items())]
            for layer in analysis["optimal_policy"]], right=1)
    if "homing_policies" in analysis:
        lines += ["", "Homing policies (the decisions of a deterministic policy reaching the "
                      "state with probability eta):", ""]
        lines += _markdown_table(["target state", "decisions (state -> action)"], [
            [markdown_escape(state), ", ".join(f"{markdown_escape(s)} -> {markdown_escape(a)}"
                                               for s, a in choices.items()) or "(start state)"]
            for state, choices in analysis["homing_policies"].items()], right=0)
    return "\n".join(lines)


def _tabular(columns: str, header: list[str], rows: list[list[str]],
             last_rows: list[list[str]] | None = None) -> list[str]:
    """A ``tabular`` environment; a row that starts with :data:`_ROW_OPTIONS` starts with
    ``{}``."""
    def line(cells: list[str]) -> str:
        first = "{}" + cells[0] if _ROW_OPTIONS.match(cells[0]) else cells[0]
        return " & ".join([first, *cells[1:]]) + r" \\"

    lines = [rf"\begin{{tabular}}{{{columns}}}", r"\hline", line(header), r"\hline"]
    lines += [line(cells) for cells in rows]
    if last_rows:
        lines += [r"\hline", *(line(cells) for cells in last_rows)]
    return [*lines, r"\hline", r"\end{tabular}"]


def latex_report(analysis: dict) -> str:
    r""":func:`analyze`'s result as LaTeX: ``tabular`` environments (per layer, partitions and,
    when present, policies) and a summary sentence, needing no package.

    >>> from kinematic import analyze, combination_lock
    >>> lock = analyze(combination_lock(horizon=3, actions=2, seed=0))
    >>> print(latex_report(lock))  # doctest: +NORMALIZE_WHITESPACE
    % python -m kinematic analyze: Block MDP combolock-H3-K2-seed0
    (horizon 3, 8 states, exact arithmetic)
    \begin{tabular}{rrrrrr}
    \hline
    layer & states & $N_{BD}$ & $N_{FD}$ & $N_{KD}$ & $\eta_{\min}$ \\
    \hline
    1 & 2 & 1 & 2 & 2 & $\frac{1}{2}$ \\
    2 & 3 & 2 & 3 & 3 & $\frac{1}{2}$ \\
    3 & 3 & 2 & 1 & 2 & $\frac{1}{2}$ \\
    \hline
    all & 8 & 5 & 6 & 7 & $\frac{1}{2}$ \\
    \hline
    \end{tabular}
    <BLANKLINE>
    % blocks of more than one state in bold
    \begin{tabular}{rlll}
    \hline
    layer & backward KI & forward KI & KI \\
    \hline
    1 & \textbf{\{s1a, s1b\}} & \{s1a\}, \{s1b\} & \{s1a\}, \{s1b\} \\
    2 & \textbf{\{s2a, s2b\}}, \{s2c\} & \{s2a\}, \{s2b\}, \{s2c\} & \{s2a\}, \{s2b\}, \{s2c\} \\
    3 & \textbf{\{s3a, s3b\}}, \{s3c\} & \textbf{\{s3a, s3b, s3c\}} &
    \textbf{\{s3a, s3b\}}, \{s3c\} \\
    \hline
    \end{tabular}
    <BLANKLINE>
    $\eta_{\min} = \frac{1}{2}$, $N_{BD} = 5$, $N_{FD} = 6$, $N_{KD} = 7$, $V^* = 1$.
    $\eta_{\min}$ is attained by 6 states: layer 1: s1a, s1b; layer 2: s2a, s2b; layer 3: s3a, s3b.
    """
    name = latex_escape(analysis["name"])
    lines = [f"% python -m kinematic analyze: Block MDP {name} (horizon {analysis['horizon']}, "
             f"{analysis['states']} states, {analysis['mode']} arithmetic)"]
    rows = _layer_rows(analysis, latex_number)
    lines += _tabular("rrrrrr", ["layer", "states", "$N_{BD}$", "$N_{FD}$", "$N_{KD}$",
                                 r"$\eta_{\min}$"], rows[:-1], rows[-1:])
    lines += ["", "% blocks of more than one state in bold"]
    lines += _tabular("rlll", ["layer", *(label for _, label in _KINDS)],
                      _partition_cells(analysis, latex_escape, r"\{", r"\}",
                                       lambda text: rf"\textbf{{{text}}}"))
    if "optimal_policy" in analysis:
        lines += ["", f"% an optimal policy; {tie_rule(analysis['mode'])}"]
        lines += _tabular("rl", ["layer", r"decisions (observation $\to$ action)"], [
            [str(layer["layer"]), ", ".join(f"{latex_escape(x)} $\\to$ {latex_escape(a)}"
                                            for x, a in layer["decisions"].items())]
            for layer in analysis["optimal_policy"]])
    if "homing_policies" in analysis:
        lines += ["", "% homing policies: the decisions of a deterministic policy reaching the "
                      "state with probability eta"]
        lines += _tabular("ll", ["target state", r"decisions (state $\to$ action)"], [
            [latex_escape(state), ", ".join(f"{latex_escape(s)} $\\to$ {latex_escape(a)}"
                                            for s, a in choices.items()) or "(start state)"]
            for state, choices in analysis["homing_policies"].items()])
    summary = ", ".join(f"${_LATEX_QUANTITIES[quantity]} = {_latex_math(value)}$"
                        for quantity, value in _summary(analysis))
    if "eta_error" in analysis:
        summary += (f"; every $\\eta$ within {latex_number(analysis['eta_error'])} of its "
                    "exact value")
    attained = attained_text(analysis["eta_min_states"],
                             lambda state: latex_escape(name_text(state)))
    return "\n".join([*lines, "", summary + ".", rf"$\eta_{{\min}}$ is attained by {attained}."])

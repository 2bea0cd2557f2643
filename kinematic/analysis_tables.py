""":func:`kinematic.analysis.analyze`'s result as tables to paste into a paper or a README
(``python -m kinematic analyze --markdown`` and ``--latex``).

Both give the per-layer table (layer, states, ``N_BD``, ``N_FD``, ``N_KD``, ``eta_min``, then a
row for the whole MDP), the three partitions layer by layer (``def:bki``, ``def:fki``,
``def:ki``; blocks of more than one state in bold; with ``merged_only`` only those blocks and a
count of the singletons, ``{s2a, s2b} and 1 singleton``, so that a row of a large MDP stays
short), a summary line with ``eta_min``, the partition sizes and ``V*`` when the MDP has rewards,
a line naming the states that attain ``eta_min`` with their layers
(:func:`kinematic.analysis.attained_text`: the first :data:`kinematic.analysis.ETA_MIN_LISTED`
and a count), and the policies when the analysis has them. Exact numbers are ``p/q`` in Markdown
and ``\\frac{p}{q}`` in LaTeX, floats are rounded to :data:`FLOAT_DIGITS` significant digits.
The analysis of an exogenous Block MDP adds a column ``endogenous`` to both tables (the number
of endogenous classes after ``N_KD``, the endogenous partition after KI), their total to the
summary and a line saying whether KI separates exogenous values
(:func:`kinematic.analysis.ki_separation_text`); other reports are unchanged.

Markdown: a name is escaped (:func:`markdown_escape`); in the ``eta_min`` line it is first
written as the text report writes it (:func:`kinematic.display.name_text`: quoted when it holds
a separator such as ``, ``), so the list reads back.

LaTeX (:func:`latex_report`) is meant to go into a paper as it is. Its second line says what it
needs, ``% needs \\usepackage{booktabs,tabularx,amsmath}`` (:data:`LATEX_PACKAGES`): its tables
have ``booktabs`` rules, the partitions and the policies are ``tabularx`` tables as wide as the
line whose cells wrap (so they fit the text or a column of two, however many blocks), and each
table is a paragraph of its own (not indented, after a ``\\medskip``, its rows stretched so
that fractions do not touch; no float). It adds a table of every state with its layer,
``eta(s)`` and, when the MDP has rewards, ``V*(s)``, in ``tabular`` environments of at most
:data:`STATE_ROWS` rows, so that a long one breaks across pages and columns without a package.
A state, observation or action name is math (:func:`latex_names`): ASCII letters, then
optionally a tail of letters and digits (starting with a digit, or after one ``_``; its parts
separated by single ``_``) are the letters with the tail as a subscript whose parts are
separated by commas, a single letter italic and a longer run upright: ``s2a`` is ``s_{2a}``,
``s1_0`` ``s_{1,0}``, ``s3_12_end`` ``s_{3,12,\\mathrm{end}}``, ``x_t`` ``x_{t}``, ``start``
``\\mathrm{start}``. Any other name (and two names that would read alike, ``s1`` and ``s_1``)
is text in math, ``\\text{...}``, escaped by :func:`latex_escape`: every character LaTeX treats
specially is escaped and every character other than printable ASCII is written as Python writes
it (``\\n``, ``\\x1b``, ``\\xe9``), so the output is ASCII, a row or a comment stays one line,
and it compiles whatever the name, under any font encoding; as every name is in ``$...$``, no
row starts with a name's ``[`` or ``*`` (which the ``\\\\`` ending the row before would read as
its spacing or its star). ``labels`` gives a name its own math (``{"s2a": r"s_{2,a}"}``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping

from kinematic.analysis import attained_text, ki_separation_text, tie_rule
from kinematic.display import name_text
from kinematic.lookup import unknown_name
from kinematic.numbers import number_text

__all__ = ["FLOAT_DIGITS", "LATEX_PACKAGES", "STATE_ROWS", "latex_escape", "latex_names",
           "latex_number", "latex_report", "markdown_escape", "markdown_report"]

FLOAT_DIGITS = 10
"""Significant digits of float numbers in the tables: more than float mode's results are worth
(every eta is within ``1e-3 atol``, at most ``1e-6``, plus rounding), fewer than ``repr``'s 17,
which would print 0.95 as ``0.9500000000000001``."""

LATEX_PACKAGES = ("booktabs", "tabularx", "amsmath")
"""What :func:`latex_report`'s tables need: ``booktabs`` for ``\\toprule``, ``\\midrule`` and
``\\bottomrule``, ``tabularx`` for the tables as wide as the line whose cells wrap (the
partitions, the policies), ``amsmath`` for ``\\text`` (names that are not math). In TeX Live:
``booktabs`` is in ``latex-recommended``, the others in ``latex-base`` (Debian:
``texlive-latex-recommended``, which depends on ``texlive-latex-base``)."""

STATE_ROWS = 40
"""Rows of each ``tabular`` of :func:`latex_report`'s table of states: a longer table is split
into several of this many rows, each with its header, which fit a page or a column of two."""

_WRAPPED = r">{\raggedright\arraybackslash}X"
"""A column that wraps, ragged right, in a ``tabularx`` as wide as the line (the text or, in a
two-column document, the column): the partitions and the policies."""

_ROW_STRETCH = 1.3
"""``\\arraystretch`` of the LaTeX tables: rows 30% taller than text lines, so that the
fractions (``\\frac{p}{q}``) of two rows do not touch."""

_KINDS = (("backward", "backward KI"), ("forward", "forward KI"), ("ki", "KI"))

_NARROW_GAP = "4pt"
"""``\\tabcolsep`` of the per-layer table of an exogenous Block MDP (LaTeX's default: 6pt): its
seven columns then fit a column of a two-column paper."""

_HYPHENATED = {"backward KI": r"back\-ward KI", "endogenous": r"endo\-genous"}
"""Headers of the partitions table of an exogenous Block MDP that may break: its four columns
of a two-column paper are narrower than ``backward`` and ``endogenous``."""

_LATEX_SPECIAL = str.maketrans({
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "#": r"\#", "%": r"\%",
    "&": r"\&", "$": r"\$", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
    "`": r"\textasciigrave{}", "'": r"\textquotesingle{}", '"': r'\texttt{"}',
})
"""LaTeX text for each character that does not print as itself: TeX's specials and the quotes
(TeX prints ``'`` and ``"`` curly, and joins ``````, ``''`` and ``!```` into other marks)."""

_LIGATURE = re.compile(r"-(?=-)|,(?=,)")
"""A character TeX would join with the next into a dash (``--``) or a low quote (``,,``)."""

_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>|~$#&"})

_MATH_NAME = re.compile(r"(?P<base>[A-Za-z]+)(?:_?(?P<tail>[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*))?")
"""A name written as math: letters, then optionally a subscript (:func:`latex_names`)."""

_WORD = re.compile(r"[A-Za-z]{2,}")


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
    """``text`` as LaTeX text on one line, in ASCII: every character LaTeX treats specially is
    escaped, quotes and the pairs TeX would join (``--``, ``,,``) print as typed, and every
    character other than printable ASCII (a control character, a line break,
    a letter such as ``\u00e9``) is shown as its Python escape (``\\n``, ``\\xe9``), which
    compiles under any font encoding.

    >>> print(latex_escape("s_1#&%{x}"))
    s\\_1\\#\\&\\%\\{x\\}
    >>> print(latex_escape("s\\n1\u00e9"))
    s\\textbackslash{}n1\\textbackslash{}xe9
    >>> print(latex_escape("s--1 'a'"))
    s-{}-1 \\textquotesingle{}a\\textquotesingle{}
    """
    escaped = "".join(c if c.isascii() and c.isprintable() else ascii(c)[1:-1]
                      for c in text).translate(_LATEX_SPECIAL)
    return _LIGATURE.sub(r"\g<0>{}", escaped)


def _math_name(name: str) -> str | None:
    """``name`` as math by :func:`latex_names`'s rule, or None if the rule does not apply."""
    match = _MATH_NAME.fullmatch(name)
    if match is None:
        return None
    base, tail = match["base"], match["tail"]
    text = base if len(base) == 1 else rf"\mathrm{{{base}}}"
    if tail is None:
        return text
    parts = (_WORD.sub(lambda word: rf"\mathrm{{{word.group()}}}", part)
             for part in tail.split("_"))
    return text + "_{" + ",".join(parts) + "}"


def latex_names(names: Iterable[str], labels: Mapping[str, str] | None = None) -> dict[str, str]:
    r"""Each of ``names`` (states, observations, actions) as LaTeX math, to go between ``$``:

    - a name made of a run of ASCII letters and optionally a tail of letters and digits that
      starts with a digit or follows one ``_`` (its parts separated by single ``_``) is the
      letters, then the tail as a subscript with its parts separated by commas; a single letter
      is italic (a variable), a longer run upright (``\mathrm``), in the tail too;
    - any other name, and names that would read alike (``s1`` and ``s_1``, both ``s_{1}``), is
      text: ``\text{...}`` (``amsmath``) around :func:`latex_escape`'s escaping;
    - ``labels`` maps a name to its own math, used as it is; the drawing functions' form with
      dollars (``"$s_{2,a}$"``) is read as the math between them, so one mapping serves the
      table and the figure. A label for a name not among ``names`` is refused
      (:class:`kinematic.UnknownName`), and one that is not a string or holds a ``$`` other
      than the two around it (:class:`ValueError`).

    >>> for name, math in latex_names(["s2a", "s1_0", "s3_12_end", "start", "x_t", "s2a.x0",
    ...                                "s 1", "a1"], labels={"a1": "a^{(1)}"}).items():
    ...     print(name, "->", math)
    s2a -> s_{2a}
    s1_0 -> s_{1,0}
    s3_12_end -> s_{3,12,\mathrm{end}}
    start -> \mathrm{start}
    x_t -> x_{t}
    s2a.x0 -> \text{s2a.x0}
    s 1 -> \text{s 1}
    a1 -> a^{(1)}
    >>> latex_names(["s2a"], labels={"s2a": "$s_{2,a}$"})
    {'s2a': 's_{2,a}'}
    >>> latex_names(["s1", "s_1", "s2"])
    {'s1': '\\text{s1}', 's_1': '\\text{s\\_1}', 's2': 's_{2}'}
    """
    math = {name: _math_name(name) for name in dict.fromkeys(names)}
    labels = labels or {}
    for name in labels:
        if name not in math:
            raise unknown_name("name", name, list(math), "labels")
    own = {name: _label_math(name, label) for name, label in labels.items()}
    alike = Counter(math.values())
    return {name: own[name] if name in own
            else text if text is not None and alike[text] == 1
            else rf"\text{{{latex_escape(name)}}}"
            for name, text in math.items()}


def _label_math(name: str, label: object) -> str:
    """A label of :func:`latex_names` as the math to put between dollars."""
    if not isinstance(label, str):
        raise ValueError(f"labels[{name!r}]: the math of a name is a string, got "
                         f"{type(label).__name__}")
    inner = label[1:-1] if len(label) >= 2 and label[0] == label[-1] == "$" else label
    if "$" in inner.replace(r"\$", ""):
        raise ValueError(f"labels[{name!r}]: {label!r} holds '$' inside: give the math alone "
                         "(or between one pair of dollars, as for the drawings)")
    return inner


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


def _kinds(analysis: dict) -> tuple[tuple[str, str], ...]:
    """The partitions of the tables: :data:`_KINDS`, and the endogenous partition of an
    exogenous Block MDP."""
    if "n_endogenous" in analysis:
        return (*_KINDS, ("endogenous", "endogenous"))
    return _KINDS


def _blocks_by_layer(analysis: dict, kind: str) -> dict[int, list[list[str]]]:
    per_layer: dict[int, list[list[str]]] = {row["layer"]: [] for row in analysis["per_layer"]}
    for block in analysis["partitions"][kind]:
        per_layer[block["layer"]].append(block["states"])
    return per_layer


def _with_singletons(merged: list[str], singletons: int) -> str:
    """A cell of the merged-only partitions table: ``{a, b}, {c, d} and 2 singletons``."""
    count = f"{singletons} singleton{'s' if singletons != 1 else ''}"
    if not singletons:
        return ", ".join(merged)
    return f"{', '.join(merged)} and {count}" if merged else count


def _partition_cells(analysis: dict, block_text: Callable[[list[str]], str],
                     bold: Callable[[str], str], merged_only: bool) -> list[list[str]]:
    """One row per layer: the layer, then the blocks of each partition (``block_text``), merged
    ones in ``bold``; with ``merged_only``, only those (not bold) and a count of the rest."""
    columns = [_blocks_by_layer(analysis, kind) for kind, _ in _kinds(analysis)]
    rows = []
    for row in analysis["per_layer"]:
        cells = [str(row["layer"])]
        for blocks in columns:
            layer = blocks[row["layer"]]
            if merged_only:
                merged = [block_text(block) for block in layer if len(block) > 1]
                cells.append(_with_singletons(merged, len(layer) - len(merged)))
            else:
                cells.append(", ".join(bold(block_text(block)) if len(block) > 1
                                       else block_text(block) for block in layer))
        rows.append(cells)
    return rows


def _partitions_note(merged_only: bool) -> str:
    if merged_only:
        return "blocks of more than one state; the others counted as singletons"
    return "blocks of more than one state in bold"


def _layer_rows(analysis: dict, number: Callable[[str | float], str]) -> list[list[str]]:
    """The per-layer table's rows and the row ``all`` (with a column ``endogenous`` after
    ``N_KD`` for an exogenous Block MDP)."""
    exogenous = "n_endogenous" in analysis
    rows = [[str(row["layer"]), str(row["states"]), str(row["n_bd"]), str(row["n_fd"]),
             str(row["n_kd"]), *([str(row["endogenous"])] if exogenous else []),
             number(row["eta_min"])] for row in analysis["per_layer"]]
    rows.append(["all", str(analysis["states"]), str(analysis["n_bd"]), str(analysis["n_fd"]),
                 str(analysis["n_kd"]), *([str(analysis["n_endogenous"])] if exogenous else []),
                 number(analysis["eta_min"])])
    return rows


def _layer_header(analysis: dict, quantities: list[str]) -> list[str]:
    """The per-layer table's header: ``quantities`` (``N_BD``, ``N_FD``, ``N_KD``, ``eta_min``
    as the table writes them) with ``endogenous`` before the last for an exogenous Block
    MDP."""
    if "n_endogenous" in analysis:
        quantities = [*quantities[:-1], "endogenous", quantities[-1]]
    return ["layer", "states", *quantities]


def _markdown_table(header: list[str], rows: list[list[str]], right: int) -> list[str]:
    """A table whose first ``right`` columns are right-aligned."""
    alignment = ["---:"] * right + ["---"] * (len(header) - right)
    return ["| " + " | ".join(cells) + " |" for cells in (header, alignment, *rows)]


def _summary(analysis: dict) -> list[tuple[str, str | float]]:
    """``(quantity, value)`` for eta_min, N_BD, N_FD, N_KD and V* when present."""
    pairs = [("eta_min", analysis["eta_min"])]
    pairs += [(f"N_{kind}", analysis["n_" + kind.lower()]) for kind in ("BD", "FD", "KD")]
    if "n_endogenous" in analysis:
        pairs.append(("endogenous classes", analysis["n_endogenous"]))
    if "optimal_value" in analysis:
        pairs.append(("V*", analysis["optimal_value"]))
    return pairs


_MARKDOWN_QUANTITIES = {"V*": r"V\*"}
_LATEX_QUANTITIES = {"eta_min": r"\eta_{\min}", "N_BD": r"\mathrm{N}_{\mathrm{BD}}",
                     "N_FD": r"\mathrm{N}_{\mathrm{FD}}", "N_KD": r"\mathrm{N}_{\mathrm{KD}}",
                     "endogenous classes": r"\text{endogenous classes}",
                     "V*": "V^*"}


def markdown_report(analysis: dict, merged_only: bool = False) -> str:
    r""":func:`analyze`'s result as Markdown: a summary line, the per-layer table, the
    partitions table (with ``merged_only``: only the blocks of more than one state, and a count
    of the singletons of each layer) and, when present, the policies.

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
    >>> print(markdown_report(lock, merged_only=True).split("\n\n")[-1])
    | layer | backward KI | forward KI | KI |
    | ---: | --- | --- | --- |
    | 1 | {s1a, s1b} | 2 singletons | 2 singletons |
    | 2 | {s2a, s2b} and 1 singleton | 3 singletons | 3 singletons |
    | 3 | {s3a, s3b} and 1 singleton | {s3a, s3b, s3c} | {s3a, s3b} and 1 singleton |
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
    if "ki_separates_exogenous" in analysis:
        separation = ki_separation_text(analysis["ki_separates_exogenous"],
                                        lambda state: markdown_escape(name_text(state)))
        lines += [separation, ""]
    header_cells = _layer_header(analysis, ["N_BD", "N_FD", "N_KD", "eta_min"])
    lines += _markdown_table(header_cells, _layer_rows(analysis, _plain_number),
                             right=len(header_cells))
    lines += ["", f"Blocks of the partitions ({_partitions_note(merged_only)}):", ""]
    lines += _markdown_table(
        ["layer", *(label for _, label in _kinds(analysis))],
        _partition_cells(analysis, lambda block: "{" + ", ".join(map(markdown_escape, block)) + "}",
                         lambda text: f"**{text}**", merged_only), right=1)
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


def _tabular(note: str, columns: str, header: list[str], rows: list[list[str]],
             last_rows: list[list[str]] | None = None, column_gap: str = "") -> list[str]:
    """A table as a paragraph of its own: a blank line, ``% note``, ``\\medskip``, then a
    ``tabular`` environment with ``booktabs`` rules (``last_rows`` after a ``\\midrule``), or,
    with a column :data:`_WRAPPED`, a ``tabularx`` as wide as the line; not indented, and in a
    group that stretches its rows by :data:`_ROW_STRETCH` (and sets ``\\tabcolsep`` to
    ``column_gap`` when given)."""
    def line(cells: list[str]) -> str:
        return " & ".join(cells) + r" \\"

    wide = _WRAPPED in columns
    environment = "tabularx" if wide else "tabular"
    gap = rf"\setlength{{\tabcolsep}}{{{column_gap}}}" if column_gap else ""
    begin = (rf"{{\renewcommand{{\arraystretch}}{{{_ROW_STRETCH}}}{gap}\noindent"
             rf"\begin{{{environment}}}" + (r"{\linewidth}" if wide else "") + f"{{{columns}}}")
    lines = ["", f"% {note}", r"\medskip", begin, r"\toprule", line(header), r"\midrule",
             *(line(cells) for cells in rows)]
    if last_rows:
        lines += [r"\midrule", *(line(cells) for cells in last_rows)]
    return [*lines, r"\bottomrule", rf"\end{{{environment}}}}}"]


def _report_names(analysis: dict) -> list[str]:
    """Every state, observation and action name :func:`latex_report` writes."""
    names = list(analysis["eta"])
    for layer in analysis.get("optimal_policy", []):
        for pair in layer["decisions"].items():
            names += pair
    for choices in analysis.get("homing_policies", {}).values():
        for pair in choices.items():
            names += pair
    return names


def _state_rows(analysis: dict, math: Callable[[str], str]) -> list[list[str]]:
    """A row per state: its layer, the state, ``eta(s)`` and ``V*(s)`` when the MDP has
    rewards."""
    layers = [row["layer"] for row in analysis["per_layer"] for _ in range(row["states"])]
    values = analysis.get("optimal_state_values")
    return [[str(layer), math(state), latex_number(value),
             *([latex_number(values[state])] if values is not None else [])]
            for layer, (state, value) in zip(layers, analysis["eta"].items(), strict=True)]


def latex_report(analysis: dict, merged_only: bool = False,
                 labels: Mapping[str, str] | None = None) -> str:
    r""":func:`analyze`'s result as LaTeX: ``tabular`` environments with ``booktabs`` rules (per
    layer, the partitions, every state, and when present the policies) and a summary sentence.
    Names are math (:func:`latex_names`; ``labels`` gives a name its own), the second line says
    which packages the tables need (:data:`LATEX_PACKAGES`); ``merged_only`` lists only the
    blocks of more than one state in the partitions table, and a count of the singletons of each
    layer. The table of states is split into ``tabular`` environments of :data:`STATE_ROWS`
    rows.

    >>> from kinematic import analyze, combination_lock
    >>> lock = analyze(combination_lock(horizon=2, actions=2, seed=0))
    >>> print(latex_report(lock))  # doctest: +NORMALIZE_WHITESPACE
    % python -m kinematic analyze: Block MDP combolock-H2-K2-seed0 (horizon 2, 5 states, exact
    arithmetic)
    % needs \usepackage{booktabs,tabularx,amsmath}
    <BLANKLINE>
    % per layer: the states, the numbers of blocks of the partitions, eta_min
    \medskip
    {\renewcommand{\arraystretch}{1.3}\noindent\begin{tabular}{rrrrrr}
    \toprule
    layer & states & $\mathrm{N}_{\mathrm{BD}}$ & $\mathrm{N}_{\mathrm{FD}}$
    & $\mathrm{N}_{\mathrm{KD}}$ & $\eta_{\min}$ \\
    \midrule
    1 & 2 & 1 & 1 & 1 & $\frac{1}{2}$ \\
    2 & 3 & 2 & 1 & 2 & $\frac{1}{2}$ \\
    \midrule
    all & 5 & 3 & 2 & 3 & $\frac{1}{2}$ \\
    \bottomrule
    \end{tabular}}
    <BLANKLINE>
    % blocks of more than one state in bold
    \medskip
    {\renewcommand{\arraystretch}{1.3}\noindent\begin{tabularx}{\linewidth}{r>{\raggedright\arraybackslash}X>{\raggedright\arraybackslash}X>{\raggedright\arraybackslash}X}
    \toprule
    layer & backward KI & forward KI & KI \\
    \midrule
    1 & {\bfseries\boldmath \{$s_{1a}$, $s_{1b}$\}} & {\bfseries\boldmath \{$s_{1a}$, $s_{1b}$\}}
    & {\bfseries\boldmath \{$s_{1a}$, $s_{1b}$\}} \\
    2 & {\bfseries\boldmath \{$s_{2a}$, $s_{2b}$\}}, \{$s_{2c}$\}
    & {\bfseries\boldmath \{$s_{2a}$, $s_{2b}$, $s_{2c}$\}}
    & {\bfseries\boldmath \{$s_{2a}$, $s_{2b}$\}}, \{$s_{2c}$\} \\
    \bottomrule
    \end{tabularx}}
    <BLANKLINE>
    % every state: its layer, eta(s) and V*(s), the optimal value from s on
    \medskip
    {\renewcommand{\arraystretch}{1.3}\noindent\begin{tabular}{rlrr}
    \toprule
    layer & state & $\eta(s)$ & $V^*(s)$ \\
    \midrule
    1 & $s_{1a}$ & $\frac{1}{2}$ & $1$ \\
    1 & $s_{1b}$ & $\frac{1}{2}$ & $1$ \\
    2 & $s_{2a}$ & $\frac{1}{2}$ & $1$ \\
    2 & $s_{2b}$ & $\frac{1}{2}$ & $1$ \\
    2 & $s_{2c}$ & $1$ & $0$ \\
    \bottomrule
    \end{tabular}}
    <BLANKLINE>
    \medskip
    \noindent $\eta_{\min} = \frac{1}{2}$, $\mathrm{N}_{\mathrm{BD}} = 3$,
    $\mathrm{N}_{\mathrm{FD}} = 2$, $\mathrm{N}_{\mathrm{KD}} = 3$, $V^* = 1$.
    $\eta_{\min}$ is attained by 4 states: layer 1: $s_{1a}$, $s_{1b}$; layer 2: $s_{2a}$,
    $s_{2b}$.\par
    """
    name = latex_escape(analysis["name"])
    math = latex_names(_report_names(analysis), labels).__getitem__

    def block_text(block: list[str]) -> str:
        return r"\{" + ", ".join(f"${math(state)}$" for state in block) + r"\}"

    def decisions(choices: dict[str, str]) -> str:
        return ", ".join(f"${{{math(x)} \\to {math(a)}}}$" for x, a in choices.items())

    lines = [f"% python -m kinematic analyze: Block MDP {name} (horizon {analysis['horizon']}, "
             f"{analysis['states']} states, {analysis['mode']} arithmetic)",
             rf"% needs \usepackage{{{','.join(LATEX_PACKAGES)}}}"]
    rows = _layer_rows(analysis, latex_number)
    exogenous = "n_endogenous" in analysis
    header = _layer_header(analysis, [r"$\mathrm{N}_{\mathrm{BD}}$", r"$\mathrm{N}_{\mathrm{FD}}$",
                                      r"$\mathrm{N}_{\mathrm{KD}}$", r"$\eta_{\min}$"])
    if exogenous:  # seven columns: narrower, to fit a column of a two-column paper
        header[-2] = r"\shortstack[r]{endo-\\genous}"
    lines += _tabular("per layer: the states, the numbers of blocks of the partitions"
                      + (", the endogenous classes" if exogenous else "") + ", eta_min",
                      "r" * len(header), header, rows[:-1], rows[-1:],
                      column_gap=_NARROW_GAP if exogenous else "")
    kinds = _kinds(analysis)
    lines += _tabular(_partitions_note(merged_only), "r" + _WRAPPED * len(kinds),
                      ["layer", *(_HYPHENATED.get(label, label) if exogenous else label
                                  for _, label in kinds)],
                      _partition_cells(analysis, block_text,
                                       lambda text: rf"{{\bfseries\boldmath {text}}}",
                                       merged_only))
    rewarded = "optimal_state_values" in analysis
    states = _state_rows(analysis, lambda state: f"${math(state)}$")
    for first in range(0, len(states), STATE_ROWS):
        lines += _tabular("every state: its layer, eta(s)"
                          + (" and V*(s), the optimal value from s on" if rewarded else ""),
                          "rlrr" if rewarded else "rlr",
                          ["layer", "state", r"$\eta(s)$", *([r"$V^*(s)$"] if rewarded else [])],
                          states[first:first + STATE_ROWS])
    if "optimal_policy" in analysis:
        lines += _tabular(f"an optimal policy; {tie_rule(analysis['mode'])}", "r" + _WRAPPED,
                          ["layer", r"decisions (observation $\to$ action)"],
                          [[str(layer["layer"]), decisions(layer["decisions"])]
                           for layer in analysis["optimal_policy"]])
    if "homing_policies" in analysis:
        lines += _tabular("homing policies: the decisions of a deterministic policy reaching "
                          "the state with probability eta", "l" + _WRAPPED,
                          ["target state", r"decisions (state $\to$ action)"],
                          [[f"${math(state)}$", decisions(choices) or "(start state)"]
                           for state, choices in analysis["homing_policies"].items()])
    summary = ", ".join(f"${_LATEX_QUANTITIES[quantity]} = {_latex_math(value)}$"
                        for quantity, value in _summary(analysis))
    if "eta_error" in analysis:
        summary += (f"; every $\\eta$ within {latex_number(analysis['eta_error'])} of its "
                    "exact value")
    attained = attained_text(analysis["eta_min_states"], lambda state: f"${math(state)}$")
    separation = ([ki_separation_text(analysis["ki_separates_exogenous"],
                                      lambda state: f"${math(state)}$") + "."]
                  if "ki_separates_exogenous" in analysis else [])
    closing = [rf"$\eta_{{\min}}$ is attained by {attained}.", *separation]
    closing[-1] += r"\par"
    return "\n".join([*lines, "", r"\medskip", r"\noindent " + summary + ".", *closing])

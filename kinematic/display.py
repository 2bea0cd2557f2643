"""How the toolkit's objects print: by state, observation and action names, exact numbers as
``p/q``, long contents cut with a count of what was left out.

A small :class:`~kinematic.model.BlockMDP` (up to :data:`SMALL_STATES` states) prints as
``from_spec({...})`` around its JSON spec: valid Python once ``from kinematic import from_spec``
(also how Hypothesis shows a generated MDP in a falsifying example; left unqualified, like numpy's
``array(...)``, so that Hypothesis's patch writes it as ``kinematic.from_spec`` or ``km.from_spec``
in a test module that imports ``kinematic`` under either name, and as it is after that import of
``from_spec``: docs/guide/checking-claims.md). The ``{...}`` is a spec that
``python -m kinematic analyze`` reads as it is; a float MDP whose tolerance is not the default
adds a second argument, ``from_spec({...}, atol=1e-06)``, which ``analyze`` takes as
``--atol 1e-06``. A larger MDP prints as one summary line. Policies, partitions, quotients and
cover reports print by names.

A name (of a state, observation, action or MDP) is written as itself when it reads unambiguously
in these one-line forms and in ``python -m kinematic analyze``'s text report, else as Python
writes it, quoted with escapes (:func:`name_text`): ``s2a`` stays ``s2a``, a name holding a
newline, a tab, another character that does not print as itself (``str.isprintable``: control
characters, ANSI escapes, the line separators U+0085 and U+2028), a separator of these forms
(``, ``, ``; ``, ``: ``, ``->``, ``<-``, ``{``, ``}``), a leading or trailing space, or
starting with a quote prints as ``'A\\neta_min = 1'``. So no name can forge a line or a field,
and each reads back (``ast.literal_eval`` of a quoted one).

>>> from kinematic import combination_lock, homing_policy
>>> lock = combination_lock(horizon=2, actions=2, seed=0)
>>> homing_policy(lock, "s2b")  # doctest: +NORMALIZE_WHITESPACE
<Policy on 'combolock-H2-K2-seed0': layer 1: s1a -> a2, s1b -> a2;
 layer 2: s2a -> a1, s2b -> a1, s2c -> a1>
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from kinematic.numbers import DEFAULT_ATOL, number_text

if TYPE_CHECKING:
    from kinematic.cover import CoverReport
    from kinematic.model import BlockMDP
    from kinematic.policies import Policy

__all__ = ["LISTED", "NAME_SEPARATORS", "SMALL_OBSERVATIONS", "SMALL_STATES", "PrintsAsRepr",
           "block_mdp_repr", "cover_report_repr", "listed", "name_text", "policy_repr"]

SMALL_STATES = 40
"""An MDP with at most this many states (and :data:`SMALL_OBSERVATIONS` observations) prints as
its spec; a larger one as a summary line."""
SMALL_OBSERVATIONS = 120
LISTED = 40
"""Entries (policy decisions, merged classes, states) a one-line form lists before ``...``."""


NAME_SEPARATORS = (", ", "; ", ": ", "->", "<-", "{", "}")
"""What separates names in the one-line forms (lists, ``state: value``, ``state -> action``,
``merged <- states``, blocks ``{s2a, s2b}``): a name holding one is quoted (:func:`name_text`)."""


def name_text(name: str) -> str:
    """``name`` as the toolkit's text prints it: unchanged when it is printable
    (``str.isprintable``), holds none of :data:`NAME_SEPARATORS`, neither starts nor ends with a
    space and starts neither with a quote nor with ``...`` (what :func:`listed` writes for the
    entries it leaves out); else its ``repr``, one quoted line that ``ast.literal_eval`` reads
    back.

    >>> name_text("s2a"), name_text("s2a+s2b"), name_text("[2pt]")
    ('s2a', 's2a+s2b', '[2pt]')
    >>> print(name_text("A\\neta_min = 1"), name_text("s1: 1/2"), name_text("\\x1b[31mred"))
    'A\\neta_min = 1' 's1: 1/2' '\\x1b[31mred'
    >>> name_text("... (3 more)")
    "'... (3 more)'"
    """
    plain = (name.isprintable() and not name.startswith((" ", "'", '"', "..."))
             and not name.endswith(" ") and not any(sep in name for sep in NAME_SEPARATORS))
    return name if plain else repr(name)


class PrintsAsRepr:
    """Mixin of the toolkit's objects: Hypothesis (in a falsifying example) and IPython print
    one as its ``repr`` does, not field by field as they print other dataclasses.

    >>> from hypothesis.vendor.pretty import pretty
    >>> from kinematic import combination_lock, ki_partition
    >>> partition = ki_partition(combination_lock(horizon=2, actions=2, seed=0))
    >>> isinstance(partition, PrintsAsRepr) and pretty(partition) == repr(partition)
    True
    """

    __slots__ = ()

    def _repr_pretty_(self, printer: object, cycle: bool) -> None:
        printer.text(repr(self))  # type: ignore[attr-defined]


def listed(items: Iterable[str], limit: int = LISTED, separator: str = ", ") -> str:
    """``items`` joined, the first ``limit`` of them and a count of the rest: how the toolkit
    names a set (of states, blocks, steps) in one line.

    >>> listed(["s2a", "s2b"])
    's2a, s2b'
    >>> listed(["s1", "s2", "s3", "s4", "s5"], 2)
    's1, s2, ... (3 more)'
    """
    items = list(items)
    shown = separator.join(items[:limit])
    if len(items) > limit:
        shown += f"{separator}... ({len(items) - limit:,} more)"
    return shown


def _printable_json(text: str) -> str:
    """JSON text with each character of the Basic Multilingual Plane that does not print as
    itself (U+2028, U+0085, U+009B, which JSON leaves as they are) as ``\\uXXXX``, read alike by
    JSON and Python; one beyond it (no line break is) stays: Python reads no escape of it as
    JSON does.

    >>> print(_printable_json('["s\\u2028", "\\x85"]'))
    ["s\\u2028", "\\u0085"]
    """
    return "".join(c if c.isprintable() or ord(c) > 0xFFFF else f"\\u{ord(c):04x}"
                   for c in text)


def block_mdp_repr(mdp: BlockMDP) -> str:
    """``from_spec({...})`` for a small MDP (``atol`` added when not the default; names holding
    characters that do not print as themselves written with escapes, :func:`_printable_json`),
    else a summary: name, mode, horizon, actions, and the states of the first and last layers
    (names as :func:`name_text` prints them)."""
    from kinematic.spec import to_spec  # spec imports model, which imports this module

    observations = sum(map(len, mdp.observations))
    if len(mdp.states) <= SMALL_STATES and observations <= SMALL_OBSERVATIONS:
        spec = _printable_json(json.dumps(to_spec(mdp), ensure_ascii=False))
        tolerance = "" if mdp.mode.exact or mdp.mode.atol == DEFAULT_ATOL else (
            f", atol={mdp.mode.atol!r}")
        return f"from_spec({spec}{tolerance})"
    mode = "exact" if mdp.mode.exact else f"float, atol {mdp.mode.atol:g}"
    widths = sorted(set(map(len, mdp.layers)))
    per_layer = (f"{widths[0]:,} per layer" if len(widths) == 1
                 else f"{widths[0]:,} to {widths[-1]:,} per layer")
    shown = [0, 1, mdp.horizon - 1] if mdp.horizon > 3 else range(mdp.horizon)
    layers = []
    for h in shown:
        if h == mdp.horizon - 1 and mdp.horizon > 3:
            layers.append("...")
        layers.append(f"layer {h + 1}: {listed(map(name_text, mdp.layers[h]), 5)}")
    return (f"<BlockMDP {mdp.name!r} ({mode}): horizon {mdp.horizon}, {len(mdp.states):,} "
            f"states ({per_layer}), {observations:,} observations, "
            f"{mdp.number_of_actions} actions {listed(map(name_text, mdp.actions), 5)}; "
            f"{'; '.join(layers)}>")


def _choice(actions: Sequence[str], row: np.ndarray) -> str:
    """An action distribution: the action itself when certain, else ``{a: p, ...}``."""
    positive = [(action, p) for action, p in zip(actions, row, strict=True) if p > 0]
    if len(positive) == 1 and positive[0][1] == 1:
        return name_text(positive[0][0])
    return "{" + ", ".join(f"{name_text(action)}: {number_text(p)}"
                           for action, p in positive) + "}"


def _decisions(mdp: BlockMDP, policy: Policy) -> Iterator[tuple[int, str]]:
    """``(h, "name -> choice")`` layer by layer, lazily: ``name`` is a state when all its
    observations act alike, else each of its observations."""
    for h, table in enumerate(policy.action_probabilities):
        owners = mdp.emission_state[h]
        order = np.argsort(owners, kind="stable")
        for i, emitted in enumerate(np.split(order, np.flatnonzero(np.diff(owners[order])) + 1)):
            if len({tuple(table[x]) for x in emitted}) == 1:
                yield h, (f"{name_text(mdp.layers[h][i])} -> "
                          f"{_choice(mdp.actions, table[emitted[0]])}")
            else:
                for x in emitted:
                    yield h, (f"{name_text(mdp.observations[h][x])} -> "
                              f"{_choice(mdp.actions, table[x])}")


def policy_repr(policy: Policy) -> str:
    """``layer h: name -> action, ...; layer h + 1: ...`` (:func:`_decisions`), the first
    :data:`LISTED` decisions."""
    mdp = policy.mdp
    if mdp is None:
        shapes = ", ".join(str(len(table)) for table in policy.action_probabilities)
        return (f"<Policy without its MDP: {len(policy.action_probabilities)} layers of "
                f"{shapes} observations; built with mdp=... it prints by names>")
    parts, previous = [], None
    for k, (h, decision) in enumerate(_decisions(mdp, policy)):
        if k == LISTED:
            total = sum(map(len, mdp.observations))
            parts.append(f", ... ({total:,} observations in all)")
            break
        if h == previous:
            parts.append(f", {decision}")
        else:
            parts.append(f"{'; ' if parts else ''}layer {h + 1}: {decision}")
        previous = h
    return f"<Policy on {mdp.name!r}: {''.join(parts)}>"


def cover_report_repr(report: CoverReport) -> str:
    """alpha, alpha per layer, and the states below 1, lowest first."""
    low = sorted(((alpha, state) for state, alpha in report.alpha_per_state.items()
                  if number_text(alpha) != "1"), key=lambda item: item[0])
    below = (f"states below 1: "
             f"{listed((f'{name_text(state)} {number_text(alpha)}' for alpha, state in low), 10)}"
             if low else "every state at 1")
    return (f"<CoverReport alpha {number_text(report.alpha)}; per layer "
            f"{listed(map(number_text, report.alpha_per_layer), 10)}; {below}>")

"""Every ```` ```python ```` block of ``docs/`` runs as written, in the order of its page:
``mkdocs build --strict`` checks the links, not that the examples still hold.

The blocks of a page run one after the other in one namespace, as a reader pastes them: a
session (``>>>`` lines) as a doctest whose outputs must match, any other block as plain code.
A block that cannot run here (minutes of training, a file the reader has and the repository does
not) carries the marker ``<!-- not run: <reason> -->`` on the line before its fence; the marked
blocks are counted (:data:`NOT_RUN`), so none is skipped silently.
"""

from __future__ import annotations

import doctest
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
FENCE = re.compile(r"^```python\n(.*?)^```$", re.MULTILINE | re.DOTALL)
NOT_RUN_MARKER = re.compile(r"<!-- not run: (\S.*?) -->\n\Z")
ANY_PYTHON_FENCE = re.compile(r"^\s*```\s*(py|pycon|python\S*|ipython\S*)\b.*$", re.MULTILINE)

NOT_RUN: dict[str, int] = {}
"""Page -> how many of its python blocks are marked not run (their reasons are in the page)."""


@dataclass(frozen=True)
class Block:
    """One ```` ```python ```` block: its code, the line of its first code line, and the reason
    it is not run (None when it runs)."""

    code: str
    line: int
    not_run: str | None


def blocks(page: Path) -> list[Block]:
    """The python blocks of ``page`` in order."""
    text = page.read_text()
    found = []
    for match in FENCE.finditer(text):
        marker = NOT_RUN_MARKER.search(text, 0, match.start())
        line = text.count("\n", 0, match.start(1)) + 1
        found.append(Block(match.group(1), line, marker.group(1) if marker else None))
    return found


PAGES = sorted(page for page in DOCS.rglob("*.md") if blocks(page))


def _id(page: Path) -> str:
    return page.relative_to(DOCS).as_posix()


def test_the_pages_with_blocks_are_found():
    """Control of the fence pattern: pages with sessions and with plain code."""
    assert {"getting-started.md", "guide/python.md", "guide/standard-environments.md",
            "guide/homer.md"} <= {_id(page) for page in PAGES}


def test_every_python_fence_is_a_block_that_runs_or_is_counted():
    """A fence the pattern misses (```py, ```pycon, an indented or unclosed ```python) would
    escape the test: every one in docs/ must be a block of :func:`blocks`."""
    for page in DOCS.rglob("*.md"):
        text = page.read_text()
        fences = ANY_PYTHON_FENCE.findall(text)
        assert len(fences) == len(blocks(page)), \
            f"{_id(page)}: {len(fences)} python-like fences, {len(blocks(page))} ```python blocks"


def test_not_run_blocks_are_the_counted_ones():
    """Marking a block not run is a visible decision: NOT_RUN lists the counts per page, and a
    marker must stand right before a python block (a stray one is an error)."""
    marked = {_id(page): sum(block.not_run is not None for block in blocks(page))
              for page in PAGES}
    assert {page: count for page, count in marked.items() if count} == NOT_RUN
    for page in DOCS.rglob("*.md"):
        markers = len(re.findall(r"^<!-- not run:", page.read_text(), re.MULTILINE))
        assert markers == marked.get(_id(page), 0), f"{_id(page)}: a marker before no block"


def test_a_marker_right_before_a_fence_marks_that_block_only(tmp_path):
    """Kills a marker read anywhere before a block (it would mark every later block too) and a
    block pattern that drops plain code or a block's line."""
    page = tmp_path / "page.md"
    page.write_text("# Page\n\n<!-- not run: trains for minutes -->\n```python\nslow()\n```\n\n"
                    "```python\n>>> 1 + 1\n2\n```\n<!-- not run: needs run/ -->\n\ntext\n"
                    "```python\nx = 1\n```\n")
    assert blocks(page) == [Block("slow()\n", 5, "trains for minutes"),
                            Block(">>> 1 + 1\n2\n", 9, None), Block("x = 1\n", 16, None)]


@pytest.mark.parametrize("page", PAGES, ids=_id)
def test_blocks_run_in_order(page: Path):
    pytest.importorskip("gymnasium")
    pytest.importorskip("torch")
    pytest.importorskip("matplotlib").use("Agg")
    namespace: dict[str, object] = {"__name__": "__docs__"}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for block in blocks(page):
        if block.not_run is not None:
            continue
        if re.search(r"^>>> ", block.code, re.MULTILINE):
            test = parser.get_doctest(block.code, namespace, page.name, str(page),
                                      block.line - 1)
            test.globs = namespace  # not DocTest's copy: the next blocks see this one's names
            runner.run(test, clear_globs=False)
            assert runner.summarize(verbose=False).failed == 0, \
                f"{_id(page)}, block at line {block.line}: see the failures above"
        else:
            try:  # padded so that a traceback names the page's own line numbers
                exec(compile("\n" * (block.line - 1) + block.code, str(page), "exec"), namespace)
            except Exception as error:
                error.add_note(f"{_id(page)}, block at line {block.line}")
                raise

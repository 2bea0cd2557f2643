"""The Python sessions of the documentation site (```` ```python ```` blocks of ``docs/``) run
as written: ``mkdocs build --strict`` checks the links, not that the examples still hold."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
SESSION = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
PAGES = sorted(page for page in DOCS.rglob("*.md")
               if any(">>>" in block for block in SESSION.findall(page.read_text())))


def test_some_pages_have_sessions():
    assert DOCS / "getting-started.md" in PAGES


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(DOCS).as_posix())
def test_sessions_run(page: Path):
    pytest.importorskip("matplotlib").use("Agg")
    source = "\n".join(SESSION.findall(page.read_text()))
    test = doctest.DocTestParser().get_doctest(source, {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0, f"{page}: see the failures above"

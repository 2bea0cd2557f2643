"""``tests/tools.py``: a missing program skips a test, or fails it where CI requires the tools."""

import pytest

from tests.tools import require_tool


def test_a_present_program_gives_its_path():
    assert require_tool("sh").endswith("/sh")


def test_a_missing_program_skips_the_test(monkeypatch):
    monkeypatch.setenv("PATH", "")
    monkeypatch.delenv("KINEMATIC_REQUIRE_TOOLS", raising=False)
    with pytest.raises(pytest.skip.Exception, match="pdflatex is not installed"):
        require_tool("pdflatex")


def test_a_missing_program_fails_the_test_where_the_tools_are_required(monkeypatch):
    monkeypatch.setenv("PATH", "")
    monkeypatch.setenv("KINEMATIC_REQUIRE_TOOLS", "1")
    with pytest.raises(pytest.fail.Exception, match="KINEMATIC_REQUIRE_TOOLS=1 requires it"):
        require_tool("pdflatex")

"""The rule of :func:`tests.tools.require_tool`: skip where a program is missing, fail instead
under ``KINEMATIC_REQUIRE_TOOLS=1``."""

import pytest

from tests.tools import require_tool

MISSING = "kinematic-no-such-program"


def test_a_program_on_the_path_is_found(monkeypatch):
    monkeypatch.setenv("KINEMATIC_REQUIRE_TOOLS", "1")
    assert require_tool("python3").endswith("python3")


def test_a_missing_program_skips(monkeypatch):
    monkeypatch.delenv("KINEMATIC_REQUIRE_TOOLS", raising=False)
    with pytest.raises(pytest.skip.Exception, match=f"{MISSING} is not installed"):
        require_tool(MISSING)


def test_a_missing_program_fails_when_tools_are_required(monkeypatch):
    monkeypatch.setenv("KINEMATIC_REQUIRE_TOOLS", "1")
    with pytest.raises(pytest.fail.Exception, match="KINEMATIC_REQUIRE_TOOLS=1 requires it"):
        require_tool(MISSING)

"""External programs a test needs (pdflatex, chromium): skipped where absent, unless
``KINEMATIC_REQUIRE_TOOLS=1`` (set by CI after installing them), where absent fails."""

import os
import shutil

import pytest


def require_tool(name: str) -> str:
    """The path of the program ``name``; when it is not on ``PATH``, the calling test is skipped
    with the reason, or fails when the environment variable ``KINEMATIC_REQUIRE_TOOLS`` is
    ``1``."""
    path = shutil.which(name)
    if path is not None:
        return path
    reason = f"{name} is not installed (not on PATH)"
    if os.environ.get("KINEMATIC_REQUIRE_TOOLS") == "1":
        pytest.fail(f"{reason}, and KINEMATIC_REQUIRE_TOOLS=1 requires it")
    pytest.skip(reason)

"""External programs some tests need (Chromium, pdflatex), found on ``PATH``.

On a user's machine without the program such a test is skipped, with the reason; CI installs
them and sets ``KINEMATIC_REQUIRE_TOOLS=1``, under which a missing program fails the test
instead, so no test is skipped there.
"""

from __future__ import annotations

import os
import shutil

import pytest

REQUIRE = "KINEMATIC_REQUIRE_TOOLS"


def require_tool(name: str) -> str:
    """The path of the program ``name``; skips the calling test when it is not on ``PATH``, or
    fails it when the environment sets ``KINEMATIC_REQUIRE_TOOLS=1``."""
    path = shutil.which(name)
    if path is not None:
        return path
    reason = f"{name} is not installed (not found on PATH)"
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(f"{reason}, and {REQUIRE}=1 requires it", pytrace=False)
    pytest.skip(reason)

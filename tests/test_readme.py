"""The README's first screen: `make demo`, `make test`, and a Python example that runs as shown,
printing the output printed under it and writing its drawing."""

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_first_screen_shows_the_two_commands_and_the_example():
    first_screen = "\n".join(README.read_text().splitlines()[:60])
    assert "make demo" in first_screen and "make test" in first_screen
    assert "```python" in first_screen and "savefig" in first_screen


def test_the_python_example_prints_what_the_readme_shows(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    text = README.read_text()
    example = re.search(r"```python\n(.*?)```\n+```\n(.*?)```", text, re.S)
    code, shown = example.group(1), example.group(2)
    assert len(code.splitlines()) <= 10
    monkeypatch.chdir(tmp_path)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(README), "exec"), {})
    assert printed.getvalue() == shown
    assert (tmp_path / "lock.png").read_bytes().startswith(b"\x89PNG")

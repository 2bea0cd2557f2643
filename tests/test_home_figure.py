"""``docs/draw_home_figure.py`` still draws the home page's picture: it runs on today's drawing
functions and gives a picture of the committed one's size (a stale picture of another MDP, or a
script the drawing functions broke, fails)."""

import importlib.util
import struct
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "docs" / "draw_home_figure.py"


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_script_draws_the_committed_picture(tmp_path):
    pytest.importorskip("matplotlib")
    spec = importlib.util.spec_from_file_location("draw_home_figure", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    drawn = module.draw(tmp_path / "picture.png")
    assert png_size(drawn) == png_size(module.PICTURE)

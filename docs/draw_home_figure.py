"""Draw the picture on the home page of the documentation site: the combination lock of the
getting-started session (horizon 3, two actions, seed 0) with its KI partition (``def:ki``),
drawn by the toolkit itself (:func:`kinematic.draw_block_mdp`, 6 inches wide, the states
written as the paper writes them).

Run ``python docs/draw_home_figure.py`` from the repository's root after a change to the
drawing functions; it rewrites ``docs/images/combination-lock-ki.png``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

from kinematic import combination_lock, draw_block_mdp, ki_partition

PICTURE = Path(__file__).resolve().parent / "images" / "combination-lock-ki.png"


def draw(path: Path = PICTURE) -> Path:
    """Write the picture to ``path`` (the same bytes for the same matplotlib: no date or version
    in the file)."""
    matplotlib.use("Agg")
    lock = combination_lock(horizon=3, actions=2, seed=0)
    names = {state: f"$s_{{{state[1:-1]},{state[-1]}}}$" for state in lock.states}
    drawing = draw_block_mdp(lock, ki_partition(lock), width=6.0, labels=names, edge_labels=True)
    drawing.axes.figure.savefig(path, dpi=140, bbox_inches="tight", metadata={"Software": None})
    return path


if __name__ == "__main__":
    print(draw(Path(sys.argv[1]) if len(sys.argv) > 1 else PICTURE))

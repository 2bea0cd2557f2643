"""The other two panels of the paper's Figure 3, drawn from a horizon sweep's records
(:mod:`homer.sweep`), one panel per lock variant.

- :func:`value_figure` (``fig:value-function-plot``): the return per episode through training at
  the largest horizon swept (``H = 100`` in the paper), relative to ``V*``, one curve per
  algorithm (the mean over its seeds); HOMER's curve follows its learned steps and its
  reward-sensitive PSDP, then its learned policy's value as the last plateau - the three phases
  the paper names.
- :func:`traces_figure` (``fig:traces``): the latent state visits during training of PPO, the
  best RND run and HOMER at that horizon, as three rows of ``H`` circles (``s_{h,a}``,
  ``s_{h,b}``, ``s_{h,c}``) whose fill opacity is proportional to ``ln(count + 1)``, normalised
  per panel.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from homer.sweep import algorithm_colour, variants_of
from kinematic.figures import new_figure

__all__ = ["traces_figure", "value_figure"]

GRID_POINTS = 600
"""Episode counts (geometrically spaced) at which the seeds' curves are averaged."""
TRACE_WIDTH = 14.0
"""Width in inches of a panel of :func:`traces_figure`, whatever ``H``."""


def _largest_horizon(records: list[dict], variant: str) -> int | None:
    horizons = [r["horizon"] for r in records
                if r["variant"] == variant and r["status"] == "done"]
    return max(horizons, default=None)


def _steps(record: dict, grid: np.ndarray, end: float | None) -> np.ndarray:
    """The record's return per episode relative to ``V*`` at each episode count of ``grid``:
    a point's mean holds over the episodes since the previous point; beyond the last point
    ``end`` (HOMER: its learned policy's value) or nothing (NaN)."""
    points = np.array(record["training_returns"], dtype=np.float64)
    index = np.searchsorted(points[:, 0], grid, side="left")
    values = np.append(points[:, 1], np.nan if end is None else end)[index]
    return values / record["optimal_value"]


def value_figure(records: list[dict]) -> Figure:
    """Figure ``fig:value-function-plot``: the mean return per episode (over seeds, relative to
    ``V*``) against the episodes of training (log scale) at each lock variant's largest horizon,
    one curve per algorithm with a return curve (runs reporting none are named under the
    panel); HOMER's ends with its learned policy's value, held to the right edge."""
    variants = variants_of(records) or ["paper"]
    figure = new_figure(figsize=(7 * len(variants), 4.5), layout="constrained")
    for column, variant in enumerate(variants, start=1):
        axes = figure.add_subplot(1, len(variants), column)
        horizon = _largest_horizon(records, variant)
        at = [r for r in records if r["variant"] == variant and r["horizon"] == horizon
              and r["status"] == "done"]
        algorithms = sorted({r["algorithm"] for r in at})
        drawn = [r for r in at if r["training_returns"]]
        if drawn:
            first = min(r["training_returns"][0][0] for r in drawn)
            last = max(r["training_returns"][-1][0] for r in drawn)
            homer_last = max((r["training_returns"][-1][0] for r in drawn
                              if r["algorithm"] == "homer"), default=0)
            end = max(last, 3 * homer_last)  # HOMER's last plateau shows
            grid = np.geomspace(max(first, 1), end, GRID_POINTS)
        for algorithm in algorithms:
            mine = [r for r in drawn if r["algorithm"] == algorithm]
            if not mine:
                continue
            curves = np.array([_steps(r, grid, r["value"] if algorithm == "homer" else None)
                               for r in mine])
            alive = ~np.isnan(curves).all(axis=0)
            mean = np.full(len(grid), np.nan)
            mean[alive] = np.nanmean(curves[:, alive], axis=0)
            axes.plot(grid, mean, color=algorithm_colour(algorithm, algorithms),
                      label=f"{algorithm} ({len(mine)} seed{'s' * (len(mine) > 1)})")
        axes.axhline(1.0, color="black", linestyle=":", linewidth=0.8)
        axes.axhline(0.5, color="grey", linestyle=":", linewidth=0.8)
        axes.set_xscale("log")
        axes.set_xlabel("episodes of training")
        axes.set_ylabel("return per episode / V*")
        title = f"{variant} lock, H = {horizon}" if horizon else f"{variant} lock: no run"
        axes.set_title(title + " (dotted: V* and V*/2)", fontsize=9)
        missing = [a for a in algorithms if not any(r["algorithm"] == a for r in drawn)]
        if missing:
            axes.text(0.0, -0.2, "no return curve: " + ", ".join(missing), fontsize=7,
                      transform=axes.transAxes)
        if axes.get_legend_handles_labels()[0]:
            axes.legend(fontsize=8)
    return figure


def _best(records: list[dict], algorithms: tuple[str, ...]) -> dict | None:
    """The run of ``algorithms`` with the highest final value relative to ``V*``."""
    runs = [r for r in records if r["algorithm"] in algorithms]
    return max(runs, key=lambda r: (r["value"] / r["optimal_value"], -r["seed"]), default=None)


TRACE_ROWS = ("a", "b", "c")
"""The rows of a trace panel, top to bottom: ``s_{h,a}``, ``s_{h,b}``, ``s_{h,c}``."""


def _trace(axes: Axes, record: dict, label: str, colour: str) -> None:
    """One panel of ``fig:traces``: the record's visits as three rows of ``H`` circles."""
    horizon, visits = record["horizon"], record["state_visits"]
    counts = np.array([[visits.get(f"s{h}{row}", 0) for h in range(1, horizon + 1)]
                       for row in TRACE_ROWS], dtype=np.float64)
    opacity = np.log(counts + 1)
    if opacity.max() > 0:
        opacity /= opacity.max()
    steps, rows = np.meshgrid(np.arange(1, horizon + 1), [2, 1, 0])
    drawn = ~((steps == 1) & (rows == 0))  # the lock has no s_(1,c)
    fills = [to_rgba(colour, alpha) for alpha in opacity[drawn]]
    diameter = min(14.0, 0.7 * 72 * (TRACE_WIDTH - 1.5) / horizon)  # points
    axes.scatter(steps[drawn], rows[drawn], s=diameter**2, c=fills, edgecolors="black",
                 linewidths=0.4)
    live = np.flatnonzero(counts[:2].sum(axis=0))
    reached = int(live[-1]) + 1 if live.size else 0
    axes.set_title(f"{label}: seed {record['seed']}, final value "
                   f"{record['value'] / record['optimal_value']:.2f} V*; visits s_(h,a|b) up to "
                   f"h = {reached} of {horizon}", fontsize=9, loc="left")
    axes.set_yticks([2, 1, 0], ["s_(h,a)", "s_(h,b)", "s_(h,c)"])
    axes.set_ylim(-0.7, 2.7)
    axes.set_xlim(0.3, horizon + 0.7)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    for side in ("top", "right", "left"):
        axes.spines[side].set_visible(False)


TRACED = (("PPO", ("ppo",)), ("best RND", ("ppo_rnd", "a2c_rnd")), ("HOMER", ("homer",)))
"""The panels of ``fig:traces`` and the algorithms each picks its run from."""


def traces_figure(records: list[dict]) -> Figure:
    """Figure ``fig:traces``: for each lock variant (at its largest horizon), three panels -
    PPO, the best RND run (PPO+RND or A2C+RND, the run with the highest final value) and
    HOMER, each its run of highest final value - of the latent state visits during training.
    A panel without a run says so."""
    variants = variants_of(records) or ["paper"]
    figure = new_figure(figsize=(TRACE_WIDTH, 1.9 * len(TRACED) * len(variants)),
                        layout="constrained")
    panel = 0
    for variant in variants:
        horizon = _largest_horizon(records, variant)
        at = [r for r in records if r["variant"] == variant and r["horizon"] == horizon
              and r["status"] == "done"]
        names = sorted({r["algorithm"] for r in records})
        for label, algorithms in TRACED:
            panel += 1
            axes = figure.add_subplot(len(TRACED) * len(variants), 1, panel)
            best = _best(at, algorithms)
            if best is None or not best["state_visits"]:
                what = "no run" if best is None else "no visit counts"
                axes.text(0.5, 0.5, f"{label} ({variant} lock, H = {horizon}): {what} of "
                          f"{' or '.join(algorithms)}", ha="center", va="center", fontsize=9,
                          transform=axes.transAxes)
                axes.set_axis_off()
                continue
            title = f"{label} ({best['algorithm']}, {variant} lock)"
            _trace(axes, best, title, algorithm_colour(best["algorithm"], names))
    figure.supxlabel("time step h (fill opacity ~ ln(visits + 1), normalised per panel)",
                     fontsize=9)
    return figure


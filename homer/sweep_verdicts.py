"""The horizon sweep against the paper's claims (``fig:horizon-plot``, Section 7 "Results"):
one verdict per (lock variant, algorithm, horizon), and what the cells still open would cost.

The claims, each at a budget of 10^7 episodes (:data:`PAPER_BUDGET`), solving meaning that the
median over seeds of the episodes needed to reach half of ``V*`` is within the budget:

- A2C and PPO solve only ``H <= 3`` (they fail for every ``H > 3``);
- PCID (the paper's DU) fails at every ``H``;
- A2C+RND and PPO+RND solve ``H <= 25`` and fail at 50 and 100 (no claim in between);
- HOMER solves every ``H``.

A run *reached* half of ``V*`` when its ``episodes_to_half`` is at most 10^7. It *missed* when
it did not and ran its full budget: PPO / A2C (+RND) runs that used at least 10^7 episodes,
and every finished HOMER or PCID run, which follow their own schedules (their schedule is
their full budget: they never use more episodes, whatever the sweep's ``--budget``). Other
runs are *open* (stopped at a budget below 10^7 without reaching it). A seed counts once,
whatever the budgets it ran at: reached if any of its runs reached, else missed if any missed,
else open; a seed whose task failed (and never finished) is open. Of a cell's ``n`` seeds,
``R`` reached and ``M`` missed: the cell is solved when ``R > n / 2`` (the
median over seeds, a run that never reaches counting as infinite, is then within 10^7), unsolved
when ``M >= n / 2`` (the median cannot be within 10^7 whatever the open runs would do), and not
settled otherwise. The verdict is "reproduced" when that outcome is the claim, "refuted (at the
full budget)" when it is the other one, "not settled (budget B < 10^7)" (or "(F failed)") or
"not run".

The projected cost of a cell without a settled outcome is the core-hours of 5 seeds at the
paper's budget, from the throughput measured in the records (:func:`projected_core_hours`) -
what ``homer sweep --executor ray --address ... --seeds 5 --budget 10000000`` would take.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from homer.config import DEFAULT_TORCH_THREADS
from homer.sweep import ALGORITHMS, LOCK_ACTIONS, OWN_SCHEDULES, variants_of
from kinematic.arguments import format_duration

__all__ = ["PAPER_BUDGET", "PAPER_HORIZONS", "PAPER_SEEDS", "CellVerdict",
           "paper_claim", "projected_core_hours", "sweep_verdicts", "verdict_grid",
           "verdict_table"]

PAPER_BUDGET = 10**7
"""Episodes each algorithm of ``fig:horizon-plot`` ran at most."""
PAPER_SEEDS = 5
"""Seeds per cell of the projected cost."""
PAPER_HORIZONS = (3, 6, 12, 25, 50, 100)
"""Horizons whose cells the verdicts always list (besides those swept)."""
SCHEDULE_EXPONENT = 1.1
"""``seconds ~ H^1.1`` of an own-schedule algorithm measured at one horizon only: HOMER's runs
took 76 - 86 s at H = 10 and 879 - 1,074 s at H = 100 on the development machine
(``benchmarks/results/homer_combolock.md``)."""


def paper_claim(algorithm: str, horizon: int) -> str | None:
    """``"solves"``, ``"fails"`` or ``None`` (no claim): the paper's claim about
    ``algorithm`` on the lock of horizon ``horizon`` (``fig:horizon-plot``).

    >>> [paper_claim("ppo", h) for h in (3, 6)], paper_claim("ppo_rnd", 30)
    (['solves', 'fails'], None)
    """
    if horizon not in PAPER_HORIZONS:  # the paper ran these only
        return None
    if algorithm == "homer":
        return "solves"
    if algorithm == "pcid":
        return "fails"
    if algorithm in ("ppo", "a2c"):
        return "solves" if horizon <= 3 else "fails"
    if algorithm in ("ppo_rnd", "a2c_rnd"):
        return "solves" if horizon <= 25 else "fails" if horizon >= 50 else None
    return None


def _outcome(record: dict) -> str:
    """``"reached"``, ``"missed"`` (at the full budget) or ``"open"`` (module docstring)."""
    reached = record["episodes_to_half"]
    if reached is not None and reached <= PAPER_BUDGET:
        return "reached"
    if record["algorithm"] in OWN_SCHEDULES or record["episodes"] >= PAPER_BUDGET:
        return "missed"
    return "open"


def _fit(points: list[tuple[int, float]], exponent: float | None, low: float, high: float
         ) -> tuple[float, float]:
    """``(log c, k)`` of ``y = c H^k`` through the per-horizon medians of ``points`` (least
    squares on logs), ``k`` kept in ``[low, high]``; with one horizon, ``k = exponent`` (or
    its bound nearest 0 when None)."""
    horizons = sorted({h for h, _ in points})
    medians = [math.log(statistics.median(y for g, y in points if g == h)) for h in horizons]
    logs = [math.log(h) for h in horizons]
    if len(horizons) == 1:
        slope = exponent if exponent is not None else min(max(0.0, low), high)
    else:
        slope = float(np.polyfit(logs, medians, 1)[0])
    slope = min(max(slope, low), high)
    return float(np.mean(medians) - slope * np.mean(logs)), slope


def projected_core_hours(records: list[dict], algorithm: str, horizon: int) -> float | None:
    """Core-hours of :data:`PAPER_SEEDS` runs of ``algorithm`` at ``horizon`` at the paper's
    budget (None: no finished run of ``algorithm`` with a positive time and episode count).

    PPO / A2C (+RND): the throughput of each finished run, ``episodes x H / seconds``
    environment steps per second, over all lock variants; their per-horizon medians fitted as
    ``c H^k`` with ``k <= 0`` (a longer lock is never assumed faster per step; ``k = 0`` from
    one horizon): ``5 x 10^7 x H / (c H^k)`` seconds. HOMER and PCID, which follow their own
    schedules: their seconds per run fitted as ``c H^k`` with ``k >= 1``
    (:data:`SCHEDULE_EXPONENT` from one horizon): ``5 x c H^k``. Each run holds
    ``DEFAULT_TORCH_THREADS`` cores (what the sweep asks Ray for).

    >>> runs = [{"algorithm": "ppo", "status": "done", "horizon": 10, "episodes": 1000,
    ...          "seconds": 10.0}]
    >>> round(projected_core_hours(runs, "ppo", 20), 3)  # 5 x 10^7 x 20 steps at 1,000 / s
    277.778
    """
    mine = [r for r in records if r["algorithm"] == algorithm and r["status"] == "done"
            and r["seconds"] > 0 and r["episodes"] > 0]
    if not mine:
        return None
    if algorithm in OWN_SCHEDULES:
        constant, slope = _fit([(r["horizon"], r["seconds"]) for r in mine],
                               SCHEDULE_EXPONENT, 1.0, math.inf)
        seconds = PAPER_SEEDS * math.exp(constant) * horizon ** slope
    else:
        constant, slope = _fit([(r["horizon"], r["episodes"] * r["horizon"] / r["seconds"])
                                for r in mine], None, -math.inf, 0.0)
        rate = math.exp(constant) * horizon ** slope
        seconds = PAPER_SEEDS * PAPER_BUDGET * horizon / rate
    return seconds * DEFAULT_TORCH_THREADS / 3600


@dataclass(frozen=True)
class CellVerdict:
    """The verdict of one (lock variant, algorithm, horizon) cell (module docstring)."""

    variant: str
    algorithm: str
    horizon: int
    claim: str | None
    """``"solves"``, ``"fails"`` or None (the paper claims nothing here)."""
    runs: int
    """Seeds with a finished run (each counted once, whatever its budgets)."""
    failed: int
    """Seeds whose task raised (twice) and never finished: open, not missed."""
    reached: int
    missed: int
    median_episodes: float | None
    """Median over the seeds of the episodes to half of ``V*``, a seed that did not get there
    within 10^7 (or whose task failed) counting as infinite (None: infinite, or no run)."""
    budgets: tuple[int, ...]
    """The budgets of the finished runs."""
    seconds: float
    """Wall-clock seconds of the finished runs, summed."""
    verdict: str
    settled: bool
    """Whether the runs decide the cell (solved, or unsolved at the full budget)."""
    projected_core_hours: float | None
    """Core-hours to settle an unsettled cell at the paper's budget (None: settled, or no
    throughput measured for the algorithm)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _seed_outcome(records: list[dict]) -> tuple[str, float]:
    """The outcome of one seed from its finished records (the same seed may have run at
    several budgets: HOMER and PCID ignore the budget, PPO / A2C follow the same course until
    the smaller budget ends) and its episodes to half of ``V*`` (infinite unless reached):
    reached if any of them reached, else missed if any missed, else open."""
    outcomes = [_outcome(r) for r in records]
    if "reached" in outcomes:
        return "reached", min(r["episodes_to_half"] for r, o in zip(records, outcomes,
                                                                    strict=True)
                              if o == "reached")
    return ("missed" if "missed" in outcomes else "open"), math.inf


def _verdict(claim: str | None, runs: int, failed: int, reached: int, missed: int,
             budgets: tuple[int, ...]) -> tuple[str, bool]:
    """The verdict's text and whether the cell is settled (a seed whose task failed could
    still reach or miss: it counts as open)."""
    if runs == 0:
        return "not run", False
    seeds = runs + failed
    outcome = ("solves" if 2 * reached > seeds else "fails" if 2 * missed >= seeds else None)
    if outcome is None:
        why = [f"{failed} failed"] if failed else []
        if reached + missed < runs:
            why.append(f"budget {min(budgets):,} < 10^7")
        return f"not settled ({'; '.join(why)})", False
    if claim is None:
        return f"no claim ({'solved' if outcome == 'solves' else 'not solved'})", True
    return ("reproduced" if outcome == claim else "refuted (at the full budget)"), True


def sweep_verdicts(records: list[dict], variants: list[str] | None = None) -> list[CellVerdict]:
    """A verdict for every cell: each lock variant of ``variants`` (default: those of the
    records) x every algorithm of :data:`ALGORITHMS` and of the records x the paper's horizons
    and those of the records."""
    variants = variants or variants_of(records)
    algorithms = [*ALGORITHMS, *sorted({r["algorithm"] for r in records} - set(ALGORITHMS))]
    horizons = sorted(set(PAPER_HORIZONS) | {r["horizon"] for r in records})
    cells = []
    for variant in variants:
        for algorithm in algorithms:
            for horizon in horizons:
                group = [r for r in records if (r["variant"], r["algorithm"], r["horizon"])
                         == (variant, algorithm, horizon)]
                done = [r for r in group if r["status"] == "done"]
                seeds = {r["seed"]: [d for d in done if d["seed"] == r["seed"]] for r in group}
                finished = [_seed_outcome(mine) for mine in seeds.values() if mine]
                failed = len(seeds) - len(finished)
                outcomes = [o for o, _ in finished]
                reached, missed = outcomes.count("reached"), outcomes.count("missed")
                budgets = tuple(sorted({r["budget"] for r in done}))
                claim = paper_claim(algorithm, horizon)
                verdict, settled = _verdict(claim, len(finished), failed, reached, missed,
                                            budgets)
                episodes = [e for _, e in finished] + [math.inf] * failed
                median = statistics.median(episodes) if episodes else math.inf
                cells.append(CellVerdict(
                    variant, algorithm, horizon, claim, len(finished), failed,
                    reached, missed, None if math.isinf(median) else float(median), budgets,
                    sum(r["seconds"] for r in done), verdict, settled,
                    None if settled else projected_core_hours(records, algorithm, horizon)))
    return cells


def _hours(hours: float) -> str:
    """``1,234.5``; two significant digits below 1 (``0.012``)."""
    return f"{hours:,.1f}" if hours >= 1 else f"{hours:.2g}"


def verdict_table(cells: list[CellVerdict]) -> str:
    """The verdicts as a Markdown table (``verdicts.md``), then the total projected cost.

    >>> cell = CellVerdict("paper", "ppo", 3, "solves", 5, 0, 4, 1, 2000.0, (10**7,), 60.0,
    ...                    "reproduced", True, None)
    >>> verdict_table([cell]).splitlines()[2].split(" | ")[4:]
    ['5 (4 reached, 1 missed)', '2,000', '10,000,000', '1 min', 'reproduced', '- |']
    """
    lines = ["| lock | algorithm | H | paper | runs | median episodes to 1/2 V* | budget | "
             "wall-clock | verdict | projected core-hours (5 seeds x 10^7 episodes) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for c in cells:
        runs = (f"{c.runs} ({c.reached} reached, {c.missed} missed)" if c.runs else "0")
        if c.failed:
            runs += f", {c.failed} failed"
        median = "-" if c.median_episodes is None else f"{c.median_episodes:,.0f}"
        budgets = ("-" if not c.runs else "own schedule" if c.algorithm in OWN_SCHEDULES
                   else ", ".join(f"{b:,}" for b in c.budgets))
        cost = ("-" if c.settled else "unknown (no run measured)"
                if c.projected_core_hours is None else _hours(c.projected_core_hours))
        lines.append(f"| {c.variant} | {c.algorithm} | {c.horizon} | {c.claim or 'no claim'} "
                     f"| {runs} | {median} | {budgets} | "
                     f"{format_duration(c.seconds) if c.runs else '-'} | {c.verdict} | {cost} |")
    open_cells = [c for c in cells if c.projected_core_hours is not None]
    unknown = sum(not c.settled and c.projected_core_hours is None for c in cells)
    total = _hours(sum(c.projected_core_hours or 0.0 for c in open_cells))
    lines.append("")
    lines.append(f"Open cells: {len(open_cells)}"
                 + (f", and {unknown} of unknown cost (no run of their algorithm measured); "
                    "projected cost of settling the former" if unknown
                    else "; projected cost of settling them")
                 + f" at the paper's budget: {total} core-hours ({PAPER_SEEDS} seeds x "
                 f"{PAPER_BUDGET:,} episodes per PPO / A2C run; HOMER and PCID on their own "
                 f"schedules), e.g. on a Ray cluster with `homer sweep --executor ray "
                 f"--address ... --seeds {PAPER_SEEDS} --budget {PAPER_BUDGET}`.")
    return "\n".join(lines)


def _cell_text(cell: CellVerdict) -> str:
    """One grid cell: the verdict's first word(s), then the evidence or the cost."""
    if not cell.runs:
        return ("not run" if cell.projected_core_hours is None
                else f"not run (~{_hours(cell.projected_core_hours)} core-h)")
    median = ("" if cell.median_episodes is None
              else f", median {cell.median_episodes:,.0f} episodes")
    evidence = (f"{cell.reached}/{cell.runs + cell.failed} reached{median}, "
                f"{format_duration(cell.seconds)}")
    if cell.settled:
        return f"{cell.verdict.split(' (')[0]} ({evidence})"
    budget = max(cell.budgets) if cell.budgets else 0
    return f"not settled ({evidence}; budget {budget:,})"


def verdict_grid(cells: list[CellVerdict]) -> str:
    """The verdicts as a compact Markdown grid: a row per lock variant and algorithm, a column
    per horizon; each cell reproduced / refuted / not settled / not run / no claim, with the
    seeds that reached half of ``V*``, the median episodes to it and the wall-clock (the
    projected core-hours where nothing ran).

    >>> cell = CellVerdict("paper", "ppo", 3, "solves", 5, 0, 4, 1, 2000.0, (10**7,), 60.0,
    ...                    "reproduced", True, None)
    >>> verdict_grid([cell]).splitlines()[2]
    '| paper | ppo | reproduced (4/5 reached, median 2,000 episodes, 1 min) |'
    """
    horizons = sorted({c.horizon for c in cells})
    rows: dict[tuple[str, str], dict[int, str]] = {}
    for c in cells:
        rows.setdefault((c.variant, c.algorithm), {})[c.horizon] = _cell_text(c)
    lines = [f"| lock (K = {LOCK_ACTIONS}) | algorithm | "
             + " | ".join(f"H = {h}" for h in horizons) + " |",
             "|---|---|" + "---|" * len(horizons)]
    for (variant, algorithm), texts in rows.items():
        lines.append(f"| {variant} | {algorithm} | "
                     + " | ".join(texts.get(h, "-") for h in horizons) + " |")
    return "\n".join(lines)

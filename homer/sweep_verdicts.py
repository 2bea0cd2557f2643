"""The horizon sweep against the paper's claims (``fig:horizon-plot``, Section 7 "Results"):
one verdict per (lock variant, algorithm, horizon), and what the cells still open would cost.

The claims, each at a budget of 10^7 episodes (:data:`PAPER_BUDGET`), solving meaning that the
median over seeds of the episodes needed to reach half of ``V*`` is within the budget:

- A2C and PPO solve only ``H <= 3`` (they fail for every ``H > 3``);
- PCID (the paper's DU) fails at every ``H``;
- A2C+RND and PPO+RND solve ``H <= 25`` and fail at 50 and 100 (no claim in between);
- HOMER solves every ``H``.

A run *reached* half of ``V*`` when its ``episodes_to_half`` is at most 10^7 (exactly 10^7
included). It *missed* when it did not and ran its full budget: PPO / A2C (+RND) runs that used
at least 10^7 episodes, and every finished HOMER or PCID run, which follow their own schedules
(their schedule is their full budget: they never use more episodes, whatever the sweep's
``--budget``). Other runs are *open* (stopped at a budget below 10^7 without reaching it). A
seed counts once, whatever the budgets it ran at: reached if any of its runs reached (its
episodes to half of ``V*`` those of its fastest reaching run), else missed if any missed, else
open; a seed whose task failed (and never finished) is open.

A verdict is judged on one encoding (``encoding``: the records of another never decide it; a
record written before encodings were named is of the orthonormal one) and per *configuration*:
the learning rate of PPO / A2C (+RND) and the intrinsic coefficient of RND
(:class:`homer.sweep.Configuration`; a record written before they were named ran with the
defaults of ``tab:aac-hyperparam`` / ``tab:ppo-hyperparam``, 10^-3 and 100). Of a
configuration's ``n`` seeds, ``R`` reached and ``M`` missed: it *solves* the cell when
``R > n / 2`` (the median over seeds, a run that never reaches counting as infinite, is then
within 10^7), it *fails* it when ``M >= n / 2`` (the median cannot be within 10^7 whatever the
open runs would do), and is not settled otherwise. The paper tuned the learning rate over
:data:`PAPER_LEARNING_RATES` and RND's coefficient over :data:`PAPER_INTRINSIC_COEFFICIENTS`
(``app:appendix-experiment``) and reports the best of its search, so:

- a claimed success is "reproduced" when any configuration solves the cell; "refuted" only when
  every configuration of the paper's search (3 learning rates; for RND x 4 coefficients: 12;
  HOMER: its one) fails it, each over at least 3 finished seeds, on the authors' encoding;
- a claimed failure is "refuted" when a configuration of the paper's search solves it over at
  least 3 finished seeds, on the authors' encoding (the paper's best would then have solved
  it); "reproduced" when the default configuration fails it and no configuration solves it;
- otherwise "not reproduced (C; N seeds, budget B)" when the runs of configuration C (the
  default where it ran) show something else than the claim without refuting it (a claimed
  success not reached by most seeds within budget B, or a claimed failure solved by a
  configuration outside the search or over fewer than 3 seeds); "not settled (C: ...)" when
  failed tasks, or a claimed failure's budget below 10^7 (or its default configuration not
  run), leave it open; "not run"; and "no
  claim (solved / not solved with C)" where the paper claims nothing.

The projected cost of a cell without a settled outcome is the core-hours of 5 seeds of one
configuration at the paper's budget, from the throughput measured in the records
(:func:`projected_core_hours`) - what ``homer sweep --executor ray --address ... --seeds 5
--budget 10000000`` would take.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np

from homer.config import DEFAULT_TORCH_THREADS
from homer.sweep import (
    ALGORITHMS,
    DEFAULT_INTRINSIC_COEFFICIENT,
    DEFAULT_LEARNING_RATE,
    LOCK_ACTIONS,
    OWN_SCHEDULES,
    Configuration,
    configuration_of,
    encoding_of,
    tuned,
    variants_of,
)
from kinematic.arguments import format_duration

__all__ = ["PAPER_BUDGET", "PAPER_HORIZONS", "PAPER_INTRINSIC_COEFFICIENTS",
           "PAPER_LEARNING_RATES", "PAPER_SEEDS", "CellVerdict", "ConfigurationRuns",
           "default_configuration", "paper_claim", "paper_search", "projected_core_hours",
           "sweep_verdicts", "verdict_grid", "verdict_legend", "verdict_table"]

PAPER_BUDGET = 10**7
"""Episodes each algorithm of ``fig:horizon-plot`` ran at most."""
PAPER_SEEDS = 5
"""Seeds per cell of the projected cost."""
PAPER_HORIZONS = (3, 6, 12, 25, 50, 100)
"""Horizons whose cells the verdicts always list (besides those swept)."""
PAPER_LEARNING_RATES = (0.01, 0.001, 0.0001)
"""The learning rates the paper tuned PPO and A2C (+RND) over (``app:appendix-experiment``,
"Learning Details": "tuned learning rates over {0.01, 0.001, 0.0001}"; the tables
``tab:aac-hyperparam`` and ``tab:ppo-hyperparam`` list the chosen 0.001)."""
PAPER_INTRINSIC_COEFFICIENTS = (1.0, 10.0, 100.0, 500.0)
"""The intrinsic reward coefficients of the paper's search for RND (``app:appendix-experiment``:
"an initial search over {1, 10, 100, 500} for H in {6, 12, 25} for A2C+RND", 100 then used for
every run of A2C+RND and PPO+RND: the tables list 100)."""
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


def paper_search(algorithm: str, encoding: str) -> list[Configuration]:
    """The configurations of the paper's hyperparameter search for ``algorithm``
    (``app:appendix-experiment``): every learning rate of :data:`PAPER_LEARNING_RATES`, and for
    RND every coefficient of :data:`PAPER_INTRINSIC_COEFFICIENTS`; HOMER and PCID, the one
    configuration of their own schedules.

    >>> len(paper_search("ppo_rnd", "authors")), [str(c) for c in paper_search("homer", "authors")]
    (12, ["authors' encoding"])
    """
    learning_rate, coefficient = tuned(algorithm)
    return [Configuration(encoding, rate, value)
            for rate in (PAPER_LEARNING_RATES if learning_rate else [None])
            for value in (PAPER_INTRINSIC_COEFFICIENTS if coefficient else [None])]


def default_configuration(algorithm: str, encoding: str) -> Configuration:
    """The configuration of ``tab:aac-hyperparam`` / ``tab:ppo-hyperparam`` (learning rate
    10^-3, coefficient 100) on ``encoding``."""
    learning_rate, coefficient = tuned(algorithm)
    return Configuration(encoding, DEFAULT_LEARNING_RATE if learning_rate else None,
                         DEFAULT_INTRINSIC_COEFFICIENT if coefficient else None)


@dataclass(frozen=True)
class ConfigurationRuns:
    """The runs of one configuration in one cell (module docstring)."""

    configuration: Configuration
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

    @property
    def outcome(self) -> str | None:
        """``"solves"`` (most seeds reached), ``"fails"`` (at least half missed at the full
        budget) or None (not settled: open or failed seeds could still go either way)."""
        seeds = self.runs + self.failed
        if 2 * self.reached > seeds:
            return "solves"
        return "fails" if self.runs and 2 * self.missed >= seeds else None


@dataclass(frozen=True)
class CellVerdict:
    """The verdict of one (lock variant, algorithm, horizon) cell on one encoding (module
    docstring)."""

    variant: str
    algorithm: str
    horizon: int
    claim: str | None
    """``"solves"``, ``"fails"`` or None (the paper claims nothing here)."""
    configurations: tuple[ConfigurationRuns, ...]
    """The runs of each configuration run in the cell, the default first."""
    basis: ConfigurationRuns | None
    """The configuration the verdict names (None: nothing ran)."""
    verdict: str
    settled: bool
    """Whether the runs decide the cell: reproduced, refuted, or the outcome of a cell the
    paper makes no claim about."""
    projected_core_hours: float | None
    """Core-hours to settle an unsettled cell at the paper's budget, for one configuration
    (None: settled, or no throughput measured for the algorithm)."""

    @property
    def seconds(self) -> float:
        """Wall-clock seconds of the cell's finished runs, every configuration summed."""
        return sum(c.seconds for c in self.configurations)


def _seed_outcome(records: list[dict]) -> tuple[str, float]:
    """The outcome of one seed from its finished records (the same seed may have run at
    several budgets: HOMER and PCID ignore the budget, PPO / A2C follow the same course until
    the smaller budget ends) and its episodes to half of ``V*`` (infinite unless reached):
    reached if any of them reached (at its fastest), else missed if any missed, else open."""
    outcomes = [_outcome(r) for r in records]
    if "reached" in outcomes:
        return "reached", min(r["episodes_to_half"] for r, o in zip(records, outcomes,
                                                                    strict=True)
                              if o == "reached")
    return ("missed" if "missed" in outcomes else "open"), math.inf


def _configuration_runs(configuration: Configuration, group: list[dict]) -> ConfigurationRuns:
    """The runs of ``configuration`` among ``group`` (one cell's records of it)."""
    done = [r for r in group if r["status"] == "done"]
    seeds = {r["seed"]: [d for d in done if d["seed"] == r["seed"]] for r in group}
    finished = [_seed_outcome(mine) for mine in seeds.values() if mine]
    failed = len(seeds) - len(finished)
    outcomes = [o for o, _ in finished]
    median = statistics.median([e for _, e in finished] + [math.inf] * failed)  # >= 1 seed
    return ConfigurationRuns(configuration, len(finished), failed, outcomes.count("reached"),
                             outcomes.count("missed"),
                             None if math.isinf(median) else float(median),
                             tuple(sorted({r["budget"] for r in done})),
                             sum(r["seconds"] for r in done))


def _open_reason(runs: ConfigurationRuns) -> str:
    """Why ``runs`` settle nothing: failed seeds, or a budget below 10^7."""
    why = [f"{runs.failed} failed"] if runs.failed else []
    if runs.reached + runs.missed < runs.runs:
        why.append(f"budget {min(runs.budgets):,} < 10^7")
    return f"not settled ({runs.configuration}: {'; '.join(why)})"


def _not_reproduced(runs: ConfigurationRuns) -> str:
    """``"not reproduced (lr 0.001, ..., authors' encoding; 3 seeds, budget 200,000)"``."""
    budget = ("own schedule" if runs.configuration.learning_rate is None
              else f"budget {max(runs.budgets):,}")
    return (f"not reproduced ({runs.configuration}; "
            f"{_plural(runs.runs + runs.failed, 'seed')}, {budget})")


def _verdict(algorithm: str, claim: str | None, encoding: str,
             runs: dict[Configuration, ConfigurationRuns]
             ) -> tuple[str, ConfigurationRuns | None, bool]:
    """The verdict's text, the configuration it names and whether it is settled (module
    docstring): from the runs of each configuration of one cell, the default first."""
    if not any(r.runs for r in runs.values()):
        failed = next((r for r in runs.values() if r.failed), None)
        return ("not run", None, False) if failed is None else (_open_reason(failed), failed,
                                                                 False)
    default = runs.get(default_configuration(algorithm, encoding))
    search = paper_search(algorithm, encoding) if encoding == "authors" else []
    solving = sorted((r for r in runs.values() if r.outcome == "solves"),
                     key=lambda r: (r is not default, r.median_episodes or math.inf))
    if claim is None:
        if solving:
            return f"no claim (solved with {solving[0].configuration})", solving[0], True
        basis = next(r for r in runs.values() if r.runs)  # the default first (when it ran)
        if basis.outcome == "fails":
            return f"no claim (not solved with {basis.configuration})", basis, True
        return _open_reason(basis), basis, False
    if claim == "solves":
        if solving:
            return f"reproduced ({solving[0].configuration})", solving[0], True
        searched = [runs.get(c) for c in search]
        if search and all(r is not None and r.runs >= 3 and r.outcome == "fails"
                          for r in searched):
            return ("refuted (every configuration of the paper's search, >= 3 seeds each, "
                    "at the full budget)", default, True)
    else:
        refuting = [r for r in solving if r.configuration in search and r.runs >= 3]
        if refuting:
            return (f"refuted ({refuting[0].configuration}, of the paper's search, solves at "
                    f">= 3 seeds)", refuting[0], True)
        if solving:
            return _not_reproduced(solving[0]), solving[0], False
        if default is not None and default.outcome == "fails":
            return f"reproduced ({default.configuration})", default, True
    basis = next(r for r in runs.values() if r.runs)  # the default first (when it ran)
    could_reach = 2 * (basis.reached + basis.failed) > basis.runs + basis.failed
    if claim == "solves" and not could_reach:
        return _not_reproduced(basis), basis, False
    if basis.outcome == "fails":  # a claimed failure, of another configuration than the default
        return f"not settled ({basis.configuration} fails; the default not run)", basis, False
    return _open_reason(basis), basis, False


def sweep_verdicts(records: list[dict], variants: list[str] | None = None,
                   encoding: str = "authors") -> list[CellVerdict]:
    """A verdict for every cell, judged on the records of ``encoding`` only (an old record
    without one is of the orthonormal encoding: :func:`homer.sweep.encoding_of`): each lock
    variant of ``variants`` (default: those of all the records) x every algorithm of
    :data:`ALGORITHMS` and of the records x the paper's horizons and those of the records."""
    variants = variants or variants_of(records)
    records = [r for r in records if encoding_of(r) == encoding]
    algorithms = [*ALGORITHMS, *sorted({r["algorithm"] for r in records} - set(ALGORITHMS))]
    horizons = sorted(set(PAPER_HORIZONS) | {r["horizon"] for r in records})
    cells = []
    for variant in variants:
        for algorithm in algorithms:
            default = default_configuration(algorithm, encoding)
            for horizon in horizons:
                group = [r for r in records if (r["variant"], r["algorithm"], r["horizon"])
                         == (variant, algorithm, horizon)]
                configurations = sorted({configuration_of(r) for r in group},
                                        key=lambda c: (c != default, c.sort_key()))
                runs = {c: _configuration_runs(c, [r for r in group
                                                   if configuration_of(r) == c])
                        for c in configurations}
                claim = paper_claim(algorithm, horizon)
                verdict, basis, settled = _verdict(algorithm, claim, encoding, runs)
                cells.append(CellVerdict(
                    variant, algorithm, horizon, claim, tuple(runs.values()), basis, verdict,
                    settled,
                    None if settled else projected_core_hours(records, algorithm, horizon)))
    return cells


def _hours(hours: float) -> str:
    """``1,234.5``; two significant digits below 1 (``0.012``)."""
    return f"{hours:,.1f}" if hours >= 1 else f"{hours:.2g}"


def _plural(count: int, noun: str) -> str:
    """``"1 seed"``, ``"3 seeds"``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def verdict_table(cells: list[CellVerdict]) -> str:
    """The verdicts as a Markdown table (``verdicts.md``): the runs of every configuration of
    each cell, then the total projected cost.

    >>> runs = ConfigurationRuns(Configuration("authors", 0.001, None), 5, 0, 4, 1, 2000.0,
    ...                          (10**7,), 60.0)
    >>> cell = CellVerdict("paper", "ppo", 3, "solves", (runs,), runs,
    ...                    "reproduced (lr 0.001, authors' encoding)", True, None)
    >>> verdict_table([cell]).splitlines()[2].split(" | ")[4:]
    ["lr 0.001, authors' encoding: 5 (4 reached, 1 missed), median 2,000, budget 10,000,000", \
'1 min', "reproduced (lr 0.001, authors' encoding)", '- |']
    """
    lines = ["| lock | algorithm | H | paper | runs per configuration (seeds; median episodes "
             "to 1/2 V*; budget) | wall-clock | verdict | projected core-hours (5 seeds x "
             "10^7 episodes) |",
             "|---|---|---|---|---|---|---|---|"]
    for c in cells:
        shown = []
        for r in c.configurations:
            runs = f"{r.runs} ({r.reached} reached, {r.missed} missed)" if r.runs else "0"
            if r.failed:
                runs += f", {r.failed} failed"
            median = "" if r.median_episodes is None else f", median {r.median_episodes:,.0f}"
            budgets = ("" if not r.runs else ", own schedule" if c.algorithm in OWN_SCHEDULES
                       else ", budget " + ", ".join(f"{b:,}" for b in r.budgets))
            shown.append(f"{r.configuration}: {runs}{median}{budgets}")
        cost = ("-" if c.settled else "unknown (no run measured)"
                if c.projected_core_hours is None else _hours(c.projected_core_hours))
        lines.append(f"| {c.variant} | {c.algorithm} | {c.horizon} | {c.claim or 'no claim'} "
                     f"| {'; '.join(shown) or '-'} | "
                     f"{format_duration(c.seconds) if c.configurations else '-'} | "
                     f"{c.verdict} | {cost} |")
    open_cells = [c for c in cells if c.projected_core_hours is not None]
    unknown = sum(not c.settled and c.projected_core_hours is None for c in cells)
    total = _hours(sum(c.projected_core_hours or 0.0 for c in open_cells))
    lines.append("")
    lines.append(f"Open cells: {len(open_cells)}"
                 + (f", and {unknown} of unknown cost (no run of their algorithm measured); "
                    "projected cost of settling the former" if unknown
                    else "; projected cost of settling them")
                 + f" at the paper's budget: {total} core-hours ({PAPER_SEEDS} seeds x "
                 f"{PAPER_BUDGET:,} episodes per PPO / A2C run, one configuration; HOMER and "
                 f"PCID on their own schedules), e.g. on a Ray cluster with `homer sweep "
                 f"--executor ray --address ... --seeds {PAPER_SEEDS} --budget {PAPER_BUDGET}`.")
    return "\n".join(lines)


def _cell_text(cell: CellVerdict) -> str:
    """One grid cell: the verdict (naming its configuration), then the evidence of that
    configuration (seeds reached, median episodes) and the cell's wall-clock, or the cost."""
    if cell.basis is None:
        return ("not run" if cell.projected_core_hours is None
                else f"not run (~{_hours(cell.projected_core_hours)} core-h)")
    basis = cell.basis
    median = ("" if basis.median_episodes is None
              else f", median {basis.median_episodes:,.0f} episodes")
    others = len(cell.configurations) - 1
    more = f"; {_plural(others, 'other configuration')} run" if others else ""
    return (f"{cell.verdict}: {basis.reached}/{_plural(basis.runs + basis.failed, 'seed')} "
            f"reached{median}{more}, {format_duration(cell.seconds)}")


def verdict_legend(encoding: str = "authors") -> str:
    """What the grid's words mean: the paragraph printed with the grid of ``encoding``."""
    rates = ", ".join(f"{r:g}" for r in PAPER_LEARNING_RATES)
    coefficients = ", ".join(f"{c:g}" for c in PAPER_INTRINSIC_COEFFICIENTS)
    judged = ("the authors' encoding (+-1 Hadamard matrix)" if encoding == "authors"
              else f"the {encoding} encoding (records without an encoding are of it)")
    caveat = ("" if encoding == "authors" else " No verdict of this encoding is \"refuted\": "
              "the paper's claims are of the authors' encoding.")
    return (
        f"Verdicts of the runs of {judged} against the paper's claims (fig:horizon-plot), one "
        "cell per lock, algorithm and horizon; a configuration is a learning rate (PPO / A2C "
        "(+RND)) and an intrinsic coefficient (RND), the default lr 0.001, coefficient 100 "
        f"(tab:aac-hyperparam, tab:ppo-hyperparam); the paper's search: lr in {{{rates}}}, "
        f"coefficient in {{{coefficients}}}. A seed reached when its exact value reached half "
        "of V* within 10^7 episodes; a configuration solves a cell when most of its seeds "
        "reached, and fails it when at least half missed at the full budget (10^7 episodes; "
        "HOMER's and PCID's own schedules). \"reproduced (C)\": configuration C agrees with "
        "the claim (a claimed success: any configuration solves, as the paper reports the best "
        "of its search; a claimed failure: the default fails and no configuration solves). "
        "\"refuted\": a claimed success fails for every configuration of the search, each "
        "over >= 3 seeds at the full budget; a claimed failure is solved by a configuration of "
        "the search over >= 3 seeds. \"not reproduced (C; N seeds, budget B)\": C, the default "
        "where it ran, did not show the claim with these runs, and they do not refute it. "
        "\"not settled\": failed tasks, a budget below 10^7 or the default not run leave the "
        "outcome open. \"not run\": no run (with the projected core-hours of 5 seeds at 10^7 "
        "episodes where known). Each cell: the verdict, the seeds of the configuration it "
        "names that reached half of V*, their median episodes to it, and the wall-clock of all "
        f"the cell's runs.{caveat}")


def verdict_grid(cells: list[CellVerdict]) -> str:
    """The verdicts as a compact Markdown grid: a row per lock variant and algorithm, a column
    per horizon; each cell's verdict naming its configuration, with that configuration's seeds
    that reached half of ``V*``, the median episodes to it and the cell's wall-clock (the
    projected core-hours where nothing ran); :func:`verdict_legend` says what they mean.

    >>> runs = ConfigurationRuns(Configuration("authors", 0.001, None), 5, 0, 4, 1, 2000.0,
    ...                          (10**7,), 60.0)
    >>> cell = CellVerdict("paper", "ppo", 3, "solves", (runs,), runs,
    ...                    "reproduced (lr 0.001, authors' encoding)", True, None)
    >>> verdict_grid([cell]).splitlines()[2]
    "| paper | ppo | reproduced (lr 0.001, authors' encoding): 4/5 seeds reached, median \
2,000 episodes, 1 min |"
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

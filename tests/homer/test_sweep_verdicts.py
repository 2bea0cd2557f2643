"""The verdicts of a sweep against the paper's claims (fig:horizon-plot): each claim type at the
full and at a partial budget, HOMER and PCID on their own schedules, and the projected cost of
the open cells from the throughput in the records."""

import math

import pytest

from homer.config import DEFAULT_TORCH_THREADS
from homer.sweep_verdicts import (
    PAPER_BUDGET,
    PAPER_HORIZONS,
    PAPER_INTRINSIC_COEFFICIENTS,
    PAPER_LEARNING_RATES,
    SCHEDULE_EXPONENT,
    default_configuration,
    paper_claim,
    projected_core_hours,
    sweep_verdicts,
    verdict_grid,
    verdict_legend,
    verdict_table,
)


def run(algorithm: str, horizon: int, seed: int, reached: int | None, episodes: int,
        budget: int = PAPER_BUDGET, seconds: float = 10.0, variant: str = "paper",
        status: str = "done", **configuration) -> dict:
    """A record as the sweep writes it (the authors' encoding, the default learning rate and
    coefficient unless ``configuration`` says otherwise; a field given as DROP is left out, as
    in a record written before it existed)."""
    record = {"algorithm": algorithm, "variant": variant, "horizon": horizon, "seed": seed,
              "budget": budget, "out": "x", "status": status, "encoding": "authors",
              "learning_rate": 1e-3, "intrinsic_coefficient": 100.0, **configuration}
    if status == "done":
        record.update(value=0.0, optimal_value=1.0, episodes=episodes,
                      episodes_to_half=reached, seconds=seconds, training_returns=[],
                      state_visits={})
    return {name: value for name, value in record.items() if value is not DROP}


DROP = object()


def cell(records: list[dict], algorithm: str, horizon: int, variant: str = "paper",
         encoding: str = "authors"):
    [found] = [c for c in sweep_verdicts(records, [variant], encoding)
               if (c.algorithm, c.horizon) == (algorithm, horizon)]
    return found


def counts(verdict) -> tuple[int, int, int]:
    """(finished seeds, reached, missed) of the configuration the verdict names."""
    return verdict.basis.runs, verdict.basis.reached, verdict.basis.missed


DEFAULT = "lr 0.001, coefficient 100, authors' encoding"
REFUTED = "refuted (every configuration of the paper's search, >= 3 seeds each, at the full budget)"


def test_the_paper_s_claims():
    assert [paper_claim("ppo", h) for h in (3, 6, 100)] == ["solves", "fails", "fails"]
    assert [paper_claim("a2c", h) for h in (3, 6)] == ["solves", "fails"]
    assert [paper_claim("ppo_rnd", h) for h in (25, 50, 100)] == ["solves", "fails", "fails"]
    assert [paper_claim("a2c_rnd", h) for h in (3, 50)] == ["solves", "fails"]
    assert {paper_claim("homer", h) for h in (3, 100)} == {"solves"}
    assert {paper_claim("pcid", h) for h in (3, 100)} == {"fails"}
    assert paper_claim("dqn", 3) is None
    # the paper ran H in {3, 6, 12, 25, 50, 100} only: nothing is claimed between them
    assert {paper_claim(a, h) for a in ("homer", "ppo", "ppo_rnd", "pcid")
            for h in (1, 2, 4, 26, 49, 1000)} == {None}


def test_a_claimed_success_is_reproduced_when_most_runs_reach_half_within_the_budget():
    records = [run("ppo", 3, s, e, 10**6) for s, e in enumerate([100, 300, 200, None, None])]
    verdict = cell(records, "ppo", 3)
    assert verdict.verdict == "reproduced (lr 0.001, authors' encoding)" and verdict.settled
    assert counts(verdict) == (5, 3, 0)
    assert verdict.basis.median_episodes == 300  # median of 100, 200, 300, inf, inf
    assert verdict.projected_core_hours is None
    two = [run("ppo", 3, s, e, 10**6) for s, e in enumerate([100, 300, None, None, None])]
    assert cell(two, "ppo", 3).basis.median_episodes is None  # the median is infinite


def test_a_run_reaching_half_exactly_at_the_paper_s_budget_reached():
    records = [run("ppo_rnd", 25, s, PAPER_BUDGET, PAPER_BUDGET) for s in range(3)]
    verdict = cell(records, "ppo_rnd", 25)
    assert verdict.verdict == f"reproduced ({DEFAULT})"
    assert counts(verdict) == (3, 3, 0)
    assert verdict.basis.median_episodes == PAPER_BUDGET


def test_a_claimed_success_missed_at_a_partial_budget_is_not_reproduced_with_that_budget():
    records = [run("ppo_rnd", 25, s, None, 10**6, budget=10**6) for s in range(5)]
    verdict = cell(records, "ppo_rnd", 25)
    assert verdict.verdict == f"not reproduced ({DEFAULT}; 5 seeds, budget 1,000,000)"
    assert not verdict.settled and verdict.projected_core_hours is not None


def test_a_claimed_success_missed_by_the_default_only_is_not_reproduced_never_refuted():
    # the default fails at the full budget on 5 seeds: the paper's search has 11 more
    records = [run("ppo_rnd", 25, s, None, PAPER_BUDGET) for s in range(5)]
    verdict = cell(records, "ppo_rnd", 25)
    assert verdict.verdict == f"not reproduced ({DEFAULT}; 5 seeds, budget 10,000,000)"
    assert not verdict.settled


def search_runs(algorithm: str, horizon: int, seeds: int, **changes) -> list[dict]:
    """Every configuration of the paper's search missing at the full budget on ``seeds``
    seeds (``changes``: configuration -> reached episodes of its seeds instead)."""
    rates = PAPER_LEARNING_RATES
    coefficients = PAPER_INTRINSIC_COEFFICIENTS if algorithm.endswith("_rnd") else (100.0,)
    return [run(algorithm, horizon, s, changes.get(f"{rate:g}-{c:g}"), PAPER_BUDGET,
                learning_rate=rate, intrinsic_coefficient=c)
            for rate in rates for c in coefficients for s in range(seeds)]


def test_a_claimed_success_failing_every_configuration_of_the_search_at_3_seeds_is_refuted():
    records = search_runs("ppo_rnd", 25, 3)
    assert len(records) == 3 * 4 * 3
    verdict = cell(records, "ppo_rnd", 25)
    assert verdict.verdict == REFUTED and verdict.settled
    assert len(verdict.configurations) == 12
    assert verdict.configurations[0].configuration == default_configuration("ppo_rnd",
                                                                            "authors")
    assert [str(c.configuration)[:-19] for c in verdict.configurations[1:4]] == [
        "lr 0.0001, coefficient 1", "lr 0.0001, coefficient 10", "lr 0.0001, coefficient 100"]
    assert str(verdict.configurations[-1].configuration)[:-19] == "lr 0.01, coefficient 500"
    assert cell(search_runs("a2c", 3, 3), "a2c", 3).verdict == REFUTED  # 3 learning rates
    late = [run("a2c", 3, s, PAPER_BUDGET + 1, 10**8, budget=10**8, learning_rate=rate)
            for rate in PAPER_LEARNING_RATES for s in range(3)]
    assert cell(late, "a2c", 3).verdict == REFUTED  # beyond 10^7


def test_two_seeds_or_a_configuration_missing_from_the_search_do_not_refute():
    two = cell(search_runs("ppo_rnd", 25, 2), "ppo_rnd", 25)
    assert two.verdict == f"not reproduced ({DEFAULT}; 2 seeds, budget 10,000,000)"
    records = [r for r in search_runs("ppo_rnd", 25, 3)
               if (r["learning_rate"], r["intrinsic_coefficient"]) != (0.01, 500.0)]
    assert cell(records, "ppo_rnd", 25).verdict.startswith("not reproduced (")
    partial = search_runs("a2c", 3, 3)
    partial[-1] = run("a2c", 3, 2, None, PAPER_BUDGET - 1, budget=PAPER_BUDGET - 1,
                      learning_rate=1e-4)  # one seed of one rate open: 2 of 3 missed
    assert cell(partial, "a2c", 3).verdict == REFUTED  # still at least half missed
    partial[-2] = run("a2c", 3, 1, None, 10, budget=10, learning_rate=1e-4)
    assert cell(partial, "a2c", 3).verdict.startswith("not reproduced (")


def test_a_claimed_success_is_reproduced_by_any_configuration_named():
    records = search_runs("ppo_rnd", 25, 3, **{"0.0001-10": 5000})
    verdict = cell(records, "ppo_rnd", 25)
    assert verdict.verdict == ("reproduced (lr 0.0001, coefficient 10, authors' encoding)")
    assert counts(verdict) == (3, 3, 0) and verdict.basis.median_episodes == 5000
    # the default first when it solves too; else the fastest solving one
    both = search_runs("ppo_rnd", 25, 3, **{"0.0001-10": 5000, "0.001-100": 9000})
    assert cell(both, "ppo_rnd", 25).verdict == f"reproduced ({DEFAULT})"
    fast = search_runs("ppo_rnd", 25, 3, **{"0.0001-10": 5000, "0.01-1": 4000})
    assert cell(fast, "ppo_rnd", 25).verdict == (
        "reproduced (lr 0.01, coefficient 1, authors' encoding)")


def test_a_claimed_failure_is_reproduced_only_by_runs_at_the_full_budget():
    full = [run("ppo", 50, s, None, PAPER_BUDGET) for s in range(5)]
    assert cell(full, "ppo", 50).verdict == "reproduced (lr 0.001, authors' encoding)"
    partial = [run("ppo", 50, s, None, PAPER_BUDGET - 1, budget=PAPER_BUDGET - 1)
               for s in range(5)]
    assert cell(partial, "ppo", 50).verdict == (
        "not settled (lr 0.001, authors' encoding: budget 9,999,999 < 10^7)")
    mixed = full[:2] + partial[2:]  # 2 of 5 at the full budget: the others could still reach
    assert cell(mixed, "ppo", 50).verdict.startswith("not settled")
    even = full[:2] + partial[2:4]  # 2 of 4 missed at the full budget: the median is infinite
    assert cell(even, "ppo", 50).verdict == "reproduced (lr 0.001, authors' encoding)"


def test_a_claimed_failure_is_refuted_when_a_searched_configuration_solves_at_3_seeds():
    records = [run("a2c", 12, s, 5000, 5000, budget=10**5) for s in range(3)]
    verdict = cell(records, "a2c", 12)
    assert verdict.verdict == ("refuted (lr 0.001, authors' encoding, of the paper's search, "
                               "solves at >= 3 seeds)") and verdict.settled
    other = [run("a2c", 12, s, None, PAPER_BUDGET) for s in range(3)]  # the default fails
    other += [run("a2c", 12, s, 5000, 5000, learning_rate=0.01) for s in range(3)]
    assert cell(other, "a2c", 12).verdict.startswith("refuted (lr 0.01, authors' encoding")
    two = [run("a2c", 12, s, 5000, 5000, budget=10**5) for s in range(2)]
    assert cell(two, "a2c", 12).verdict == (
        "not reproduced (lr 0.001, authors' encoding; 2 seeds, budget 100,000)")
    outside = other[:3] + [run("a2c", 12, s, 5000, 5000, learning_rate=0.05) for s in range(3)]
    assert cell(outside, "a2c", 12).verdict == (
        "not reproduced (lr 0.05, authors' encoding; 3 seeds, budget 10,000,000)")


def test_homer_and_pcid_are_judged_on_their_own_schedules():
    homer = [run("homer", 100, s, None, 30_000, budget=5) for s in range(3)]
    assert cell(homer, "homer", 100).verdict == REFUTED  # their search: one configuration
    assert cell(homer, "homer", 100).basis.missed == 3
    assert cell(homer[:2], "homer", 100).verdict == (
        "not reproduced (authors' encoding; 2 seeds, own schedule)")
    pcid = [run("pcid", 6, s, None, 2000, budget=5) for s in range(5)]
    assert cell(pcid, "pcid", 6).verdict == "reproduced (authors' encoding)"
    solved = [run("homer", 6, s, 4000, 4000, budget=5) for s in range(5)]
    assert cell(solved, "homer", 6).verdict == "reproduced (authors' encoding)"
    assert ": 5 (5 reached, 0 missed), median 4,000, own schedule |" in verdict_table(
        [cell(solved, "homer", 6)])


def test_an_orthonormal_record_never_decides_a_verdict_of_the_authors_encoding():
    # the old records (no encoding: orthonormal) refute nothing of the authors' encoding
    old = [run(a, 6, s, None, PAPER_BUDGET, encoding=DROP, learning_rate=DROP,
               intrinsic_coefficient=DROP) for a in ("homer", "pcid") for s in range(3)]
    old += [run("ppo", 6, s, 100, 100, encoding="orthonormal") for s in range(3)]
    assert {cell(old, a, 6).verdict for a in ("homer", "pcid", "ppo")} == {"not run"}
    # judged on their own encoding, where nothing is refuted
    assert cell(old, "homer", 6, encoding="orthonormal").verdict == (
        "not reproduced (orthonormal encoding; 3 seeds, own schedule)")
    assert cell(old, "pcid", 6, encoding="orthonormal").verdict == (
        "reproduced (orthonormal encoding)")
    assert cell(old, "ppo", 6, encoding="orthonormal").verdict == (
        "not reproduced (lr 0.001, orthonormal encoding; 3 seeds, budget 10,000,000)")
    mixed = old + [run("homer", 6, s, 4000, 4000) for s in range(3)]
    assert cell(mixed, "homer", 6).verdict == "reproduced (authors' encoding)"
    assert cell(mixed, "homer", 6).basis.runs == 3  # not the orthonormal seeds


def test_a_record_without_a_learning_rate_or_coefficient_ran_with_the_defaults():
    old = [run("ppo_rnd", 6, s, 4000, 4000, learning_rate=DROP, intrinsic_coefficient=DROP)
           for s in range(3)]
    new = [run("ppo_rnd", 6, s, 9000, 9000) for s in (3, 4)]
    verdict = cell(old + new, "ppo_rnd", 6)
    assert verdict.verdict == f"reproduced ({DEFAULT})"
    assert len(verdict.configurations) == 1 and counts(verdict) == (5, 5, 0)


def test_cells_not_run_and_without_a_claim_are_listed():
    records = [run("ppo_rnd", 30, s, 100, 100) for s in range(3)]
    records.append(run("ppo_rnd", 30, 3, None, 0, status="failed"))
    cells = sweep_verdicts(records, ["paper", "released"])
    assert {(c.variant, c.horizon) for c in cells if c.algorithm == "pcid"} == {
        (v, h) for v in ("paper", "released") for h in (*PAPER_HORIZONS, 30)}
    assert cell(records, "ppo_rnd", 30).verdict == f"no claim (solved with {DEFAULT})"
    assert cell(records, "ppo_rnd", 30).basis.failed == 1
    assert cell(records, "ppo_rnd", 30, "released").verdict == "not run"
    assert cell(records, "ppo_rnd", 100).verdict == "not run"
    missed = [run("ppo_rnd", 30, s, None, PAPER_BUDGET) for s in range(3)]
    assert cell(missed, "ppo_rnd", 30).verdict == f"no claim (not solved with {DEFAULT})"
    short = [run("ppo_rnd", 30, s, None, 10, budget=10) for s in range(3)]
    assert cell(short, "ppo_rnd", 30).verdict == f"not settled ({DEFAULT}: budget 10 < 10^7)"
    failed = [run("ppo", 3, s, None, 0, status="failed") for s in range(2)]
    assert cell(failed, "ppo", 3).verdict == "not settled (lr 0.001, authors' encoding: 2 failed)"


def test_the_projected_cost_of_ppo_is_five_seeds_at_the_paper_s_budget_at_measured_rates():
    # 1,000 steps/s at H = 10 and 500 at H = 20: rate 10^4 / H, extrapolated
    records = [run("ppo", 10, 0, None, 1000, seconds=10.0),
               run("ppo", 20, 0, None, 1000, seconds=40.0, variant="released")]
    for horizon in (10, 40, 100):
        rate = 10**4 / horizon
        expected = 5 * PAPER_BUDGET * horizon / rate * DEFAULT_TORCH_THREADS / 3600
        assert projected_core_hours(records, "ppo", horizon) == pytest.approx(expected)


def test_a_longer_lock_is_never_projected_faster_per_step():
    # 1,000 steps/s at H = 10, 4,000 at H = 20: the slope is held at 0 (their geometric mean)
    records = [run("a2c", 10, 0, None, 1000, seconds=10.0),
               run("a2c", 20, 0, None, 4000, seconds=20.0)]
    expected = 5 * PAPER_BUDGET * 100 / 2000 * DEFAULT_TORCH_THREADS / 3600
    assert projected_core_hours(records, "a2c", 100) == pytest.approx(expected)
    one = [run("a2c", 10, s, None, 1000, seconds=seconds) for s, seconds in
           enumerate((5.0, 10.0, 100.0))]  # one horizon: its median rate, constant per step
    assert projected_core_hours(one, "a2c", 50) == pytest.approx(
        5 * PAPER_BUDGET * 50 / 1000 * DEFAULT_TORCH_THREADS / 3600)


def test_own_schedules_are_projected_from_their_seconds_per_run():
    homer = [run("homer", 5, 0, 100, 100, seconds=10.0)]
    assert projected_core_hours(homer, "homer", 10) == pytest.approx(  # H^1.1, one horizon
        5 * 10.0 * 2**SCHEDULE_EXPONENT * DEFAULT_TORCH_THREADS / 3600)
    assert SCHEDULE_EXPONENT == 1.1
    flat = [run("pcid", 4, 0, None, 100, seconds=10.0), run("pcid", 16, 0, None, 100,
                                                          seconds=20.0)]
    assert projected_core_hours(flat, "pcid", 64) == pytest.approx(  # at least linear in H
        5 * math.sqrt(10 * 20) * 64 / 8 * DEFAULT_TORCH_THREADS / 3600)


def test_the_table_shows_each_open_cell_s_cost_and_their_total():
    records = [run("ppo", 10, 0, None, 1000, budget=1000, seconds=10.0)]
    cells = [c for c in sweep_verdicts(records) if c.algorithm in ("ppo", "a2c")]
    table = verdict_table(cells)
    [row] = [line for line in table.splitlines() if line.startswith("| paper | ppo | 10 |")]
    expected = 5 * PAPER_BUDGET * 10 / 1000 * DEFAULT_TORCH_THREADS / 3600
    assert row == ("| paper | ppo | 10 | no claim | lr 0.001, authors' encoding: 1 (0 reached, 0 "
                   "missed), budget 1,000 | 10 s | not settled (lr 0.001, authors' encoding: "
                   f"budget 1,000 < 10^7) | {expected:,.1f} |")
    assert "| paper | a2c | 3 | solves | - | - | not run | unknown (no run measured) |" in table
    total = sum(c.projected_core_hours or 0 for c in cells)
    unknown = sum(c.verdict == "not run" for c in cells if c.algorithm == "a2c")
    assert unknown == len(PAPER_HORIZONS) + 1  # and H = 10
    assert table.splitlines()[-1].startswith(
        f"Open cells: {sum(c.projected_core_hours is not None for c in cells)}, and {unknown} "
        f"of unknown cost (no run of their algorithm measured); projected cost of settling the "
        f"former at the paper's budget: {total:,.1f} core-hours")


def test_a_seed_run_at_two_budgets_counts_once():
    # seeds 0 and 1 reached early in a short sweep; the full sweep of 5 seeds: 0 and 1 again,
    # 2, 3, 4 missed at 10^7. Per seed 2 of 5 reached: PPO does not solve H = 3 (counting
    # each record, 4 of 7 "reached" would call it solved)
    records = [run("ppo", 3, s, 1000, 10**5, budget=10**5) for s in (0, 1)]
    records += [run("ppo", 3, s, 1000 if s < 2 else None, PAPER_BUDGET) for s in range(5)]
    verdict = cell(records, "ppo", 3)
    assert counts(verdict) == (5, 2, 3)
    assert verdict.verdict == "not reproduced (lr 0.001, authors' encoding; 5 seeds, budget " \
                              "10,000,000)"
    assert verdict.basis.median_episodes is None
    # the same HOMER run recorded under two budgets (it ignores the budget) is one seed
    homer = [run("homer", 6, 0, 4000, 4000, budget=b) for b in (5, 10)]
    homer += [run("homer", 6, s, None, 4000, budget=5) for s in (1, 2)]
    assert (cell(homer, "homer", 6).basis.runs, cell(homer, "homer", 6).verdict) == (
        3, REFUTED)  # 1 of 3 seeds reached: the median is infinite


def test_a_seed_s_episodes_to_half_are_its_fastest_reaching_run_s():
    # each seed ran at two budgets (evaluated every budget / 20 episodes): reached at 1,000
    # in the short run, at 10,000 in the long one; and seed 2 missed in the short one only
    records = [run("ppo", 3, s, 10_000, 10_000) for s in range(3)]
    records += [run("ppo", 3, s, 1000, 1000, budget=20_000) for s in (0, 1)]
    records.append(run("ppo", 3, 2, None, 20_000, budget=20_000))
    verdict = cell(records, "ppo", 3)
    assert counts(verdict) == (3, 3, 0)
    assert verdict.basis.median_episodes == 1000  # 1,000, 1,000, 10,000


def test_a_seed_whose_task_failed_leaves_its_cell_open():
    # 1 run reached, 2 seeds' tasks raised: the median over the 3 seeds is not known
    records = [run("ppo", 3, 0, 1000, PAPER_BUDGET)]
    records += [run("ppo", 3, s, None, 0, status="failed") for s in (1, 2)]
    verdict = cell(records, "ppo", 3)
    assert (verdict.basis.runs, verdict.basis.failed, verdict.basis.reached) == (1, 2, 1)
    assert not verdict.settled
    assert verdict.verdict == "not settled (lr 0.001, authors' encoding: 2 failed)"
    # a seed that failed once and then finished is not a failure
    records.append(run("ppo", 3, 1, 1000, PAPER_BUDGET))
    verdict = cell(records, "ppo", 3)
    assert (verdict.basis.runs, verdict.basis.failed, verdict.verdict) == (
        2, 1, "reproduced (lr 0.001, authors' encoding)")


def test_an_open_cell_says_every_reason_and_counts_its_failed_seeds():
    # 1 reached, 1 missed at the full budget, 1 failed: the failed seed decides
    records = [run("ppo", 3, 0, 1000, PAPER_BUDGET), run("ppo", 3, 1, None, PAPER_BUDGET),
               run("ppo", 3, 2, None, 0, status="failed")]
    assert cell(records, "ppo", 3).verdict == (
        "not settled (lr 0.001, authors' encoding: 1 failed)")
    short = [run("ppo", 50, 0, None, 10, budget=10), run("ppo", 50, 1, None, 0, status="failed")]
    assert cell(short, "ppo", 50).verdict == (
        "not settled (lr 0.001, authors' encoding: 1 failed; budget 10 < 10^7)")
    # 3 missed and 1 failed: the failed one cannot make a majority; 4 seeds named
    missed = [run("ppo", 3, s, None, PAPER_BUDGET) for s in range(3)]
    missed.append(run("ppo", 3, 3, None, 0, status="failed"))
    assert cell(missed, "ppo", 3).verdict == (
        "not reproduced (lr 0.001, authors' encoding; 4 seeds, budget 10,000,000)")


def test_a_claimed_failure_of_another_configuration_than_the_default_is_not_settled():
    records = [run("a2c", 12, s, None, PAPER_BUDGET, learning_rate=0.01) for s in range(3)]
    assert cell(records, "a2c", 12).verdict == (
        "not settled (lr 0.01, authors' encoding fails; the default not run)")


def test_the_legend_says_what_each_verdict_means_and_the_paper_s_search():
    assert verdict_legend() == (
        "Verdicts of the runs of the authors' encoding (+-1 Hadamard matrix) against the "
        "paper's claims (fig:horizon-plot), one cell per lock, algorithm and horizon; a "
        "configuration is a learning rate (PPO / A2C (+RND)) and an intrinsic coefficient "
        "(RND), the default lr 0.001, coefficient 100 (tab:aac-hyperparam, tab:ppo-hyperparam); "
        "the paper's search: lr in {0.01, 0.001, 0.0001}, coefficient in {1, 10, 100, 500}. A "
        "seed reached when its exact value reached half of V* within 10^7 episodes; a "
        "configuration solves a cell when most of its seeds reached, and fails it when at "
        "least half missed at the full budget (10^7 episodes; HOMER's and PCID's own "
        "schedules). \"reproduced (C)\": configuration C agrees with the claim (a claimed "
        "success: any configuration solves, as the paper reports the best of its search; a "
        "claimed failure: the default fails and no configuration solves). \"refuted\": a "
        "claimed success fails for every configuration of the search, each over >= 3 seeds at "
        "the full budget; a claimed failure is solved by a configuration of the search over "
        ">= 3 seeds. \"not reproduced (C; N seeds, budget B)\": C, the default where it ran, "
        "did not show the claim with these runs, and they do not refute it. \"not settled\": "
        "failed tasks, a budget below 10^7 or the default not run leave the outcome open. \"not "
        "run\": no run (with the projected core-hours of 5 seeds at 10^7 episodes where known). "
        "Each cell: the verdict, the seeds of the configuration it names that reached half of "
        "V*, their median episodes to it, and the wall-clock of all the cell's runs.")
    orthonormal = verdict_legend("orthonormal")
    assert orthonormal.startswith(
        "Verdicts of the runs of the orthonormal encoding (records without an encoding are of "
        "it) against the paper's claims")
    assert orthonormal.endswith(
        "the cell's runs. No verdict of this encoding is \"refuted\": the paper's claims are of "
        "the authors' encoding.")


def grid_row(records: list[dict], algorithm: str) -> list[str]:
    """The grid's cells of ``algorithm`` on the paper's lock, H = 3, 6, 12, 25, 50, 100."""
    [row] = [line for line in verdict_grid(sweep_verdicts(records, ["paper"])).splitlines()
             if line.startswith(f"| paper | {algorithm} |")]
    return row.split(" | ")[2:]


def test_each_grid_cell_names_its_configuration_seeds_median_and_other_configurations():
    records = [run("ppo_rnd", 3, s, e, 10**5, seconds=30.0) for s, e in enumerate([100, 300])]
    records += [run("ppo_rnd", 3, s, None, 10**5, seconds=30.0, learning_rate=lr)
                for s in range(3) for lr in (0.01, 0.0001)]
    records += [run("ppo_rnd", 6, s, None, 10**5, 10**5, seconds=60.0) for s in range(3)]
    records.append(run("ppo_rnd", 6, 3, None, 0, status="failed"))
    cells = grid_row(records, "ppo_rnd")
    assert cells[0] == (f"reproduced ({DEFAULT}): 2/2 seeds reached, median 200 episodes; 2 "
                        "other configurations run, 4 min")
    assert cells[1] == (f"not reproduced ({DEFAULT}; 4 seeds, budget 100,000): 0/4 seeds "
                        "reached, 3 min")
    one = [run("ppo_rnd", 3, 0, 100, 10**5), run("ppo_rnd", 3, 0, None, 10**5,
                                                learning_rate=0.01)]
    assert grid_row(one, "ppo_rnd")[0] == (
        f"reproduced ({DEFAULT}): 1/1 seed reached, median 100 episodes; 1 other "
        "configuration run, 20 s")
    # not run: with the projected cost where a run of the algorithm was measured
    assert cells[2].startswith("not run (~") and cells[2].endswith(" core-h)")
    assert grid_row(records, "a2c")[0] == "not run"


def test_hours_are_shown_to_a_tenth_from_one_hour_on():
    from homer.sweep_verdicts import _hours

    assert [_hours(h) for h in (0.012, 0.99, 1, 1.05, 1234.5)] == [
        "0.012", "0.99", "1.0", "1.1", "1,234.5"]


def test_the_table_lists_every_configuration_of_a_cell():
    records = [run("ppo", 3, 0, 100, 10**5, budget=10**5, seconds=60.0),
               run("ppo", 3, 0, 200, 10**6, budget=10**6, seconds=60.0),
               run("ppo", 3, 2, 150, 10**6, budget=10**6, seconds=60.0),
               run("ppo", 3, 1, None, 0, status="failed"),
               run("ppo", 3, 0, None, 10**5, budget=10**5, learning_rate=0.01, seconds=60.0),
               run("ppo", 3, 0, None, 0, status="failed", learning_rate=0.0001),
               run("ppo", 6, 0, None, 10**5, budget=10**5, seconds=60.0),
               run("homer", 3, 0, 700, 700, budget=5, seconds=60.0)]
    cells = [c for c in sweep_verdicts(records) if (c.algorithm, c.horizon) in (
        ("homer", 3), ("ppo", 3), ("ppo", 6), ("pcid", 3), ("pcid", 6))]
    lines = verdict_table(cells).splitlines()
    assert lines[:2] == [
        "| lock | algorithm | H | paper | runs per configuration (seeds; median episodes to "
        "1/2 V*; budget) | wall-clock | verdict | projected core-hours (5 seeds x 10^7 "
        "episodes) |", "|---|---|---|---|---|---|---|---|"]
    assert lines[2] == ("| paper | homer | 3 | solves | authors' encoding: 1 (1 reached, 0 "
                        "missed), median 700, own schedule | 1 min | reproduced (authors' "
                        "encoding) | - |")
    assert lines[3] == (
        "| paper | ppo | 3 | solves | lr 0.001, authors' encoding: 2 (2 reached, 0 missed), 1 "
        "failed, median 150, budget 100,000, 1,000,000; lr 0.0001, authors' encoding: 0, 1 "
        "failed; lr 0.01, authors' encoding: 1 (0 reached, 0 missed), budget 100,000 | 4 min "
        "| reproduced (lr 0.001, authors' encoding) | - |")
    cost = cells[2].projected_core_hours
    assert lines[4] == (
        "| paper | ppo | 6 | fails | lr 0.001, authors' encoding: 1 (0 reached, 0 missed), "
        "budget 100,000 | 1 min | not settled (lr 0.001, authors' encoding: budget 100,000 < "
        f"10^7) | {cost:,.1f} |")
    assert lines[5:7] == ["| paper | pcid | 3 | fails | - | - | not run | unknown (no run "
                          "measured) |", "| paper | pcid | 6 | fails | - | - | not run | unknown "
                          "(no run measured) |"]
    assert lines[7] == ""
    assert lines[8].startswith(f"Open cells: 1, and 2 of unknown cost (no run of their algorithm "
                               f"measured); projected cost of settling the former at the "
                               f"paper's budget: {cost:,.1f} core-hours (5 seeds x ")
    assert verdict_table(cells[2:3]).splitlines()[-1].startswith(
        f"Open cells: 1; projected cost of settling them at the paper's budget: {cost:,.1f} "
        "core-hours")


def test_the_grid_has_a_column_per_horizon_and_a_dash_where_a_row_has_no_cell():
    one = run("ppo", 3, 0, 100, 10**5)
    cells = [c for c in sweep_verdicts([one, run("homer", 6, 0, 700, 700)])
             if (c.algorithm, c.horizon) in (("ppo", 3), ("homer", 6))]
    lines = verdict_grid(cells).splitlines()
    assert lines[:2] == ["| lock (K = 10) | algorithm | H = 3 | H = 6 |", "|---|---|---|---|"]
    assert lines[2] == ("| paper | homer | - | reproduced (authors' encoding): 1/1 seed reached, "
                        "median 700 episodes, 10 s |")
    assert lines[3].startswith("| paper | ppo | reproduced (lr 0.001, authors' encoding): ")
    assert lines[3].endswith(" | - |")


def test_which_verdicts_are_settled():
    def settled(records, algorithm, horizon):
        verdict = cell(records, algorithm, horizon)
        return verdict.verdict.split(" (")[0], verdict.settled

    solved = [run("ppo", 30, s, 100, 100) for s in range(3)]
    missed = [run("ppo", 30, s, None, PAPER_BUDGET) for s in range(3)]
    assert settled(solved, "ppo", 30) == ("no claim", True)
    assert settled(missed, "ppo", 30) == ("no claim", True)
    assert settled([run("ppo", 30, 0, None, 0, status="failed")], "ppo", 30) == (
        "not settled", False)
    two = [run("a2c", 12, s, 5000, 5000) for s in range(2)]  # a claimed failure solved twice
    assert settled(two, "a2c", 12) == ("not reproduced", False)
    assert settled([run("a2c", 12, s, None, PAPER_BUDGET) for s in range(3)], "a2c", 12) == (
        "reproduced", True)
    other = [run("a2c", 12, s, None, PAPER_BUDGET, learning_rate=0.01) for s in range(3)]
    assert settled(other, "a2c", 12) == ("not settled", False)


def test_a_claimed_success_is_open_exactly_while_failed_seeds_could_make_a_majority():
    # 1 of 2 reached, none failed: the median is infinite, whatever more budget would do
    half = [run("ppo", 3, 0, 100, PAPER_BUDGET), run("ppo", 3, 1, None, PAPER_BUDGET)]
    assert cell(half, "ppo", 3).verdict == (
        "not reproduced (lr 0.001, authors' encoding; 2 seeds, budget 10,000,000)")
    # 2 missed and 1 failed: the failed seed cannot make a majority of 3
    failed = [run("ppo", 3, s, None, PAPER_BUDGET) for s in range(2)]
    failed.append(run("ppo", 3, 2, None, 0, status="failed"))
    assert cell(failed, "ppo", 3).verdict == (
        "not reproduced (lr 0.001, authors' encoding; 3 seeds, budget 10,000,000)")
    # 1 reached, 1 missed, 1 failed: it could
    assert cell([*half, failed[2]], "ppo", 3).verdict == (
        "not settled (lr 0.001, authors' encoding: 1 failed)")
    # no claim, the default's seeds all failed: another configuration is the basis
    others = [run("ppo", 30, 0, None, 0, status="failed"),
              run("ppo", 30, 0, None, 10, budget=10, learning_rate=0.01)]
    assert cell(others, "ppo", 30).verdict == (
        "not settled (lr 0.01, authors' encoding: budget 10 < 10^7)")


def test_runs_without_time_or_episodes_measure_no_throughput():
    runs = [run("ppo", 10, 0, None, 1000, seconds=0.5)]  # under a second counts
    assert projected_core_hours(runs, "ppo", 10) == pytest.approx(
        5 * PAPER_BUDGET * 10 / (1000 * 10 / 0.5) * DEFAULT_TORCH_THREADS / 3600)
    assert projected_core_hours([run("ppo", 10, 0, None, 0)], "ppo", 10) is None
    one = [run("ppo", 10, 0, None, 1, seconds=0.001)]  # one episode counts
    assert projected_core_hours(one, "ppo", 10) == pytest.approx(
        5 * PAPER_BUDGET * 10 / (10 / 0.001) * DEFAULT_TORCH_THREADS / 3600)

"""The figures of a sweep: fig:horizon-plot, fig:value-function-plot and fig:traces, one panel
(or set of panels) per lock variant, drawn from records of fake runs."""

import numpy as np
import pytest

from homer.sweep import horizon_figure, sweep_table
from homer.sweep_figures import traces_figure, value_figure


def record(algorithm: str, horizon: int, seed: int = 0, variant: str = "paper",
           value: float = 0.0, optimal: float = 1.0, curve=None, visits=None) -> dict:
    return {"algorithm": algorithm, "variant": variant, "horizon": horizon, "seed": seed,
            "budget": 100, "out": "x", "status": "done", "value": value,
            "optimal_value": optimal, "episodes": 100, "episodes_to_half": None,
            "seconds": 1.0, "training_returns": [[100, 0.0]] if curve is None else curve,
            "state_visits": {} if visits is None else visits}


def labelled_lines(axes) -> dict[str, object]:
    return {line.get_label(): line for line in axes.get_lines()
            if not line.get_label().startswith("_")}


def test_the_horizon_figure_has_a_panel_per_lock_variant():
    records = [record("ppo", 3, variant=v) for v in ("released", "paper")]
    figure = horizon_figure(records)
    assert [a.get_title().split(" lock")[0] for a in figure.axes] == ["paper", "released"]


def test_the_value_figure_draws_one_curve_per_algorithm_at_the_largest_horizon():
    records = [
        record("ppo", 10, seed, curve=[[100, 0.0], [1000, 0.5 * seed]]) for seed in (0, 1)]
    records += [record("ppo", 3, curve=[[10, 9.0]]),  # not the largest horizon: not drawn
                record("homer", 10, value=0.9, curve=[[50, 0.1], [80, 0.3]]),
                record("pcid", 10, curve=[]),
                record("ppo", 10, variant="released", optimal=4.0, curve=[[10, 2.0]])]
    figure = value_figure(records)
    paper, released = figure.axes
    assert paper.get_title().startswith("paper lock, H = 10")
    lines = labelled_lines(paper)
    assert sorted(lines) == ["homer (1 seed)", "ppo (2 seeds)"]
    texts = [t.get_text() for t in paper.texts]
    assert texts == ["no return curve: pcid"]
    x, y = lines["ppo (2 seeds)"].get_data()
    assert x[0] == 50 and x[-1] == 1000  # from the first point drawn to the last
    late = x > 100
    assert np.allclose(y[late], 0.25)  # the mean of the seeds' 0.0 and 0.5
    assert np.isnan(y[x > 1000]).all()
    hx, hy = lines["homer (1 seed)"].get_data()
    assert hy[hx <= 50] == pytest.approx(0.1) and hy[(hx > 50) & (hx <= 80)] == pytest.approx(0.3)
    assert hy[hx > 80] == pytest.approx(0.9)  # its learned policy's value, to the right edge
    assert hx[-1] == 1000
    [(_, ry)] = [line.get_data() for line in labelled_lines(released).values()]
    assert ry == pytest.approx(0.5)  # relative to V* = 4
    assert paper.get_xscale() == "log"


def test_homer_s_last_plateau_shows_when_it_is_the_only_curve():
    figure = value_figure([record("homer", 5, value=1.0, curve=[[200, 0.2]])])
    [(x, y)] = [line.get_data() for line in labelled_lines(figure.axes[0]).values()]
    assert x[-1] == 600 and y[-1] == 1.0


def test_traces_show_ppo_the_best_rnd_run_and_homer_per_variant():
    visits = {"s1a": 99, "s1b": 0, "s2a": 9, "s2c": 1}
    records = [record("ppo", 2, visits=visits),
               record("ppo_rnd", 2, value=0.2, visits={"s1a": 1}),
               record("a2c_rnd", 2, seed=3, value=0.7, visits={"s1b": 1}),
               record("a2c_rnd", 2, seed=4, value=0.5, visits={"s1a": 1}),
               record("homer", 1, value=1.0, visits={"s1a": 5}),  # not the largest horizon
               record("ppo", 2, variant="released", visits=visits)]
    figure = traces_figure(records)
    assert len(figure.axes) == 6
    titles = [a.get_title(loc="left") for a in figure.axes]
    assert titles[0].startswith("PPO (ppo, paper lock): seed 0")
    assert titles[1].startswith("best RND (a2c_rnd, paper lock): seed 3, final value 0.70 V*")
    assert [t.get_text() for t in figure.axes[2].texts] == [
        "HOMER (paper lock, H = 2): no run of homer"]
    [circles] = figure.axes[0].collections
    assert len(circles.get_offsets()) == 5  # s1a, s1b, s2a, s2b, s2c (no s1c)
    alphas = circles.get_facecolors()[:, 3]
    steps = circles.get_offsets()[:, 0]
    rows = circles.get_offsets()[:, 1]
    by_state = {(int(h), int(r)): a for h, r, a in zip(steps, rows, alphas, strict=True)}
    assert by_state[(1, 2)] == pytest.approx(1.0)  # s1a: the most visited
    assert by_state[(2, 2)] == pytest.approx(np.log(10) / np.log(100))  # s2a
    assert by_state[(2, 0)] == pytest.approx(np.log(2) / np.log(100))  # s2c
    assert by_state[(1, 1)] == 0 and by_state[(2, 1)] == 0
    assert "visits s_(h,a|b) up to h = 2 of 2" in titles[0]
    assert titles[3].startswith("PPO (ppo, released lock)")


def test_the_median_episodes_count_a_seed_that_never_reached_as_infinite():
    # 3 of 5 seeds reach half of V* (100, 200, 300 episodes), 2 never: the median over the
    # seeds is the third smallest, 300 - not 200, the median of the three that reached
    runs = [{**record("ppo", 3, seed=s), "episodes_to_half": e}
            for s, e in enumerate([100, 200, 300, None, None])]
    [line] = horizon_figure(runs).axes[0].get_lines()
    assert list(line.get_ydata()) == [300]
    assert sweep_table(runs).splitlines()[1].split()[8] == "300"  # after "reached / runs"
    # 2 of 5: no median within the budget, whatever the two that reached
    runs[2]["episodes_to_half"] = None
    assert sweep_table(runs).splitlines()[1].split()[8] == "-"


def test_a_cell_not_reached_is_marked_at_the_episodes_its_runs_used():
    # HOMER and PCID ignore the sweep's budget (100 here): HOMER's miss after 5,000 episodes of
    # its own schedule is marked at 5,000, PPO's at its budget
    runs = [{**record("homer", 3), "episodes": 5000}, record("ppo", 3)]
    axes = horizon_figure(runs).axes[0]
    marks = {c.get_label(): c.get_offsets()[0][1] for c in axes.collections}
    assert marks == {"homer": 5000, "ppo": 100}

"""Where eta_min is attained: ``analyze``'s ``eta_min_states``, ``eta_min_states(mdp)`` and the
line of each report, on the combination lock (ties over layers), on FrozenLake unrolled to
H = 10 (one terminal copy: the goal at step 7, checked against gymnasium's table directly), in
float mode (ties within atol) and with more states than the reports list."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kinematic import analyze, combination_lock, eta, eta_min, eta_min_states, from_spec
from kinematic.analysis import ETA_MIN_LISTED, attained_text, format_report
from kinematic.analysis_tables import latex_report, markdown_report
from kinematic.cli import main


def test_the_lock_attains_eta_min_at_both_live_states_of_every_layer():
    """Kills: naming one state of a tie, 0-based layers, naming the dead states (eta 1)."""
    lock = combination_lock(horizon=3, actions=2, seed=0)
    analysis = analyze(lock)
    expected = [{"layer": h, "states": [f"s{h}a", f"s{h}b"]} for h in (1, 2, 3)]
    assert analysis["eta_min_states"] == expected == eta_min_states(lock)
    assert ("eta_min attained by 6 states: layer 1: s1a, s1b; layer 2: s2a, s2b; layer 3: s3a, "
            "s3b") in format_report(analysis).split("\n")
    assert ("eta_min is attained by 6 states: layer 1: s1a, s1b; layer 2: s2a, s2b; layer 3: "
            "s3a, s3b") in markdown_report(analysis).split("\n")
    assert latex_report(analysis).endswith(
        r"$\eta_{\min}$ is attained by 6 states: layer 1: $s_{1a}$, $s_{1b}$; layer 2: $s_{2a}$, "
        r"$s_{2b}$; layer 3: $s_{3a}$, $s_{3b}$.\par")


def test_a_long_list_is_cut_after_the_first_states_with_a_count():
    lock = combination_lock(horizon=20, actions=2, seed=0)
    analysis = analyze(lock)
    assert sum(len(group["states"]) for group in analysis["eta_min_states"]) == 40
    assert ETA_MIN_LISTED == 10
    line = ("eta_min attained by 40 states: layer 1: s1a, s1b; layer 2: s2a, s2b; layer 3: s3a, "
            "s3b; layer 4: s4a, s4b; layer 5: s5a, s5b, ... (30 more)")
    assert line in format_report(analysis).split("\n")
    assert attained_text([{"layer": 2, "states": ["x"] * 1234}], limit=1) == (
        "1,234 states: layer 2: x, ... (1,233 more)")


FLOAT_SPEC = {"name": "near ties", "horizon": 1, "actions": ["a"], "layers": [["p", "q", "r"]],
              "start": {"p": 0.3, "q": 0.3000001, "r": 0.3999999}, "transitions": {}}


@pytest.mark.parametrize(("atol", "named"), [(1e-6, ["p", "q"]), (1e-8, ["p"])])
def test_float_mode_names_every_state_within_atol_of_the_smallest(atol, named):
    """Float mode compares computed values within atol: an exact tie that rounding splits is
    still a tie. Kills ``==`` in float mode (atol 1e-6 names q) and a tolerance that ignores
    atol (1e-8 does not)."""
    mdp = from_spec(FLOAT_SPEC, atol=atol)
    assert analyze(mdp)["eta_min_states"] == [{"layer": 1, "states": named}]


gymnasium = pytest.importorskip("gymnasium")


def fewest_moves_to_goal(table: dict, start: int, goal: int, moves: int) -> Fraction:
    """``max_pi P(enter goal within moves)`` on gymnasium's table itself (not the unrolled MDP):
    backward induction over the table's states, probabilities read as fractions."""
    value = {state: Fraction(0) for state in table}
    for _ in range(moves):
        value = {state: max(sum((Fraction(p).limit_denominator(1000)
                                 * (1 if next_state == goal and terminated
                                    else 0 if terminated else value[next_state])
                                 for p, next_state, _, terminated in outcomes), Fraction(0))
                            for outcomes in table[state].values())
                 for state in table}
    return value[start]


def test_frozenlake_h10_attains_eta_min_at_the_goal_reached_in_the_fewest_moves(tmp_path,
                                                                               capsys):
    """FrozenLake 4x4, slippery, H = 10: eta_min = 1/243 at ``s7_15_end``, being at the goal
    (cell 15) at step 7, i.e. having entered it in 6 moves, the fewest that can; every cell
    away from the goal and the holes has eta >= 1/81."""
    from kinematic import from_gymnasium

    env = gymnasium.make("FrozenLake-v1")
    mdp = from_gymnasium(env, horizon=10)
    analysis = analyze(mdp)
    assert Fraction(analysis["eta_min"]) == Fraction(1, 243) == eta_min(mdp)
    assert analysis["eta_min_states"] == [{"layer": 7, "states": ["s7_15_end"]}]
    table = env.unwrapped.P
    assert fewest_moves_to_goal(table, 0, 15, 5) == 0
    assert fewest_moves_to_goal(table, 0, 15, 6) == Fraction(1, 243)
    holes_and_goal = {5, 7, 11, 12, 15}
    assert min(value for layer, values in zip(mdp.layers, eta(mdp), strict=True)
               for state, value in zip(layer, values, strict=True)
               if int(state.split("_")[1]) not in holes_and_goal) == Fraction(1, 81)
    spec = tmp_path / "lake.json"
    assert main(["family", "gymnasium", "--env", "FrozenLake-v1", "--horizon", "10", "--out",
                 str(spec)]) == 0
    assert main(["analyze", str(spec)]) == 0
    lines = capsys.readouterr().out.split("\n")
    assert lines[1:3] == ["eta_min = 1/243", "eta_min attained by 1 state: layer 7: s7_15_end"]

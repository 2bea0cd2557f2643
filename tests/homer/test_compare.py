"""The comparison of learned artefacts with the exact answers, on artefacts built by hand.

With a noiseless encoder every encoding of an observation is the same vector, so linear
abstractions and policies that read the one-hot coordinates back act deterministically, and the
reported numbers are known exactly (dyadic, so float equality is exact)."""

import json
import re

import numpy as np
import pytest
from matplotlib.image import imread

from homer.artefacts import load_run
from homer.cli import main
from homer.compare import (
    ABSTRACTION_NAMES,
    SUMMARY_LEGEND,
    compare_run,
    format_summary,
)
from homer.evaluate import compare_classes
from homer.plots import (
    alpha_figure,
    confusion_figure,
    dynamics_figure,
    save_figure,
    visitation_figure,
)
from kinematic.homing import homing_policy_choices
from tests.homer.handmade import abstraction, lock, perfect_artefacts, policy

SAMPLES = 8


def test_a_perfect_run_has_no_errors_full_cover_and_optimal_value():
    mdp = lock()
    report = compare_run(perfect_artefacts(mdp), samples=SAMPLES, transitions=400)
    assert [s["step"] for s in report.steps] == [1, 2, 3, 4]
    assert [s["wrong_merges"] for s in report.steps] == [0, 0, 0, 0]
    assert [s["splits"] for s in report.steps] == [0, 0, 0, 0]
    assert [s["alpha_min"] for s in report.steps] == [1.0, 1.0, 1.0, 1.0]
    assert report.value == report.optimal_value == 1.0
    assert report.policy_standard_error == 0.0
    for layer in report.abstractions.values():
        for comparison in layer.values():
            assert comparison.purity == 1.0 and comparison.adjusted_rand_index == 1.0
            assert comparison.misassigned == 0.0
    ki = report.abstractions[2]["ki"]
    assert ki.confusion.tolist() == [[SAMPLES, 0, 0], [0, SAMPLES, 0], [0, 0, SAMPLES]]
    document = report.to_json()
    assert document["steps_with_wrong_merges"] == 0 and document["alpha_min"] == 1.0
    # Recovered dynamics: each learned class matched to its own canonical state.
    dynamics = report.dynamics[3]
    assert sorted(dynamics.matched_from.values()) == ["s2a", "s2b", "s2c"]
    assert sorted(dynamics.matched_to.values()) == ["s3a", "s3b", "s3c"]
    assert dynamics.total_variation_mean < 0.15
    # Expected visits while learning: 100 episodes per step, start uniform over s1a, s1b.
    assert report.visitation_counts[0].tolist() == [150.0, 150.0]


def test_a_known_wrong_merge_is_counted_once():
    mdp = lock()
    artefacts = perfect_artefacts(mdp)
    forward = {**artefacts.forward, 1: abstraction(mdp, [0, 0, 1])}  # s2a, s2b together
    report = compare_run(perfect_artefacts(mdp, forward=forward), samples=SAMPLES,
                         transitions=400)
    assert [s["wrong_merges"] for s in report.steps] == [0, 1, 0, 0]
    ki = report.abstractions[2]["ki"]
    assert ki.confusion.tolist() == [[SAMPLES, SAMPLES, 0], [0, 0, SAMPLES]]
    assert ki.purity == 2 / 3 and ki.adjusted_rand_index < 1
    assert report.abstractions[2]["forward"].wrong_merges == 1
    assert report.abstractions[2]["backward"].wrong_merges == 0
    assert report.to_json()["steps_with_wrong_merges"] == 1
    assert report.to_json()["steps_with_wrong_merges_by_abstraction"] == {
        "backward": 0, "forward": 1, "ki": 1}
    rows = table(format_summary(report))
    assert rows["phi-bar = (phi_F, phi_B) vs KI"][:3] == ["1 of 4 (step 2)", "1", "0 of 4"]
    assert rows["phi_B vs backward KI"][:3] == ["0 of 3", "0", "0 of 3"]
    assert rows["phi_F vs forward KI"][:3] == ["1 of 3 (step 2)", "1", "0 of 3"]
    assert ki.merged == [[0, 1]] and ki.merged_blocks() == [[["s2a"], ["s2b"]]]
    assert [line for line in format_summary(report).splitlines() if "merges:" in line] == [
        "  phi-bar = (phi_F, phi_B) vs KI merges: step 2 {s2a} + {s2b}",
        "  phi_F vs forward KI merges: step 2 {s2a} + {s2b}"]


def table(summary: str) -> dict[str, list[str]]:
    """The summary's abstraction table: row name -> its cells."""
    lines = [line.strip() for line in summary.splitlines()]
    start = lines.index(next(line for line in lines if line.startswith("learned vs exact")))
    return {cells[0]: cells[1:] for cells in (re.split(" {3,}", line) for line in lines[start + 1:])
            if cells[0] in ABSTRACTION_NAMES.values()}


def test_the_summary_defines_once_what_its_abstraction_table_counts():
    summary = format_summary(compare_run(perfect_artefacts(lock()), samples=SAMPLES,
                                         transitions=200))
    for line in SUMMARY_LEGEND:
        assert summary.count(line) == 1
    assert [line.split(":")[0].strip() for line in SUMMARY_LEGEND[1:4]] == [
        "wrong merge", "split", "misassigned"]


def test_the_summary_shows_the_largest_misassigned_share_and_its_step():
    """An observation whose encodings fall 5 / 3 into two classes is no split (it is assigned
    to the first), but its 3 encodings are misassigned: 3 of the step's 24."""
    mdp = lock()
    report = compare_run(perfect_artefacts(mdp), samples=SAMPLES, transitions=200)
    ids = np.repeat(np.arange(3), SAMPLES)
    learned = np.array([0] * 5 + [1] * 3 + [0] * SAMPLES + [1] * SAMPLES)
    report.abstractions[3]["backward"] = compare_classes(
        mdp, 3, "backward", [["s3a", "s3b"], ["s3c"]], ids, learned)
    assert table(format_summary(report))["phi_B vs backward KI"] == [
        "0 of 3", "0", "0 of 3", "0.125 (step 3)"]


def test_the_summary_names_the_smallest_alpha_after_the_first_step():
    mdp = lock()
    artefacts = perfect_artefacts(mdp)
    perfect = format_summary(compare_run(artefacts, samples=SAMPLES, transitions=200))
    assert "policy cover: alpha 1.000 at each of steps 2-4 (step 1 needs no policy)" \
        in perfect.splitlines()
    covers = list(artefacts.covers)
    covers[2] = [policy(mdp, homing_policy_choices(mdp, "s3c"), 2)]
    missing = format_summary(compare_run(perfect_artefacts(mdp, covers=covers),
                                         samples=SAMPLES, transitions=200))
    assert "policy cover: smallest alpha 0.000 at step 3 of steps 2-4 (step 1 needs no " \
           "policy)" in missing.splitlines()


def test_the_summary_says_what_the_standard_error_of_the_policy_is():
    summary = format_summary(compare_run(perfect_artefacts(lock()), samples=SAMPLES,
                                         transitions=200))
    assert "+-" not in summary
    assert summary.splitlines()[-3:] == [
        "learned policy: value 1.000 vs optimal 1.000",
        "  exact, given its action probabilities at the latent observations, each the share of "
        "the 8",
        "  encodings of an observation on which it takes the action (largest standard error: "
        "0.000)"]


def test_a_split_is_not_a_wrong_merge():
    mdp = lock()
    backward = {**perfect_artefacts(mdp).backward, 3: abstraction(mdp, [0, 1, 2])}
    report = compare_run(perfect_artefacts(mdp, backward=backward), samples=SAMPLES,
                         transitions=400)
    last = report.steps[3]
    assert (last["wrong_merges"], last["splits"]) == (0, 1)  # s4a + s4b over two classes


def test_a_cover_that_misses_a_state_has_alpha_zero_there():
    mdp = lock()
    artefacts = perfect_artefacts(mdp)
    covers = list(artefacts.covers)
    covers[2] = [policy(mdp, homing_policy_choices(mdp, "s3c"), 2)]
    report = compare_run(perfect_artefacts(mdp, covers=covers), samples=SAMPLES,
                         transitions=400)
    step = report.steps[2]
    assert step["alpha_per_state"] == {"s3a": 0.0, "s3b": 0.0, "s3c": 1.0}
    assert step["alpha_min"] == 0.0 and report.alpha_min == 0.0
    assert [s["alpha_min"] for s in report.steps] == [1.0, 1.0, 0.0, 1.0]


def test_a_run_without_policy_reports_no_value():
    mdp = lock()
    report = compare_run(perfect_artefacts(mdp, policy=None), samples=SAMPLES, transitions=200)
    assert report.value is None
    assert format_summary(report).splitlines()[-1] == (
        "learned policy: none (the run stopped before the reward-sensitive PSDP)")


def test_bad_sample_sizes_are_rejected():
    with pytest.raises(ValueError, match="samples must be an int >= 1, got 0"):
        compare_run(perfect_artefacts(lock()), samples=0)
    with pytest.raises(ValueError, match="transitions must be positive, got 0"):
        compare_run(perfect_artefacts(lock()), transitions=0)


def test_plots_open_as_images(tmp_path):
    mdp = lock()
    artefacts = perfect_artefacts(mdp, forward={**perfect_artefacts(mdp).forward,
                                                1: abstraction(mdp, [0, 0, 1])})
    report = compare_run(artefacts, samples=SAMPLES, transitions=400)
    figures = {"visitation": visitation_figure(report, mdp),
               "dynamics": dynamics_figure(report, mdp), "alpha": alpha_figure(report),
               "confusion": confusion_figure(report)}
    for name, figure in figures.items():
        png, svg = save_figure(figure, tmp_path / name)
        assert imread(png).shape[0] > 100
        assert svg.read_text().lstrip().startswith("<?xml")
    # The wrong merge is drawn in red in the dynamics graph.
    colours = [tuple(c) for c in figures["dynamics"].axes[0].collections[0].get_facecolor()]
    assert len(set(colours)) == 2


def test_load_run_rejects_a_directory_without_checkpoint(tmp_path):
    with pytest.raises(FileNotFoundError, match="checkpoint"):
        load_run(tmp_path)


def test_compare_command_on_a_real_run(tmp_path, capsys):
    """``homer run`` then ``homer compare`` in this process (``python -m homer run`` as a
    subprocess is tested in test_homer.py; three fresh interpreters importing torch cost ~20 s)."""
    run = tmp_path / "run"
    assert main(["run", "--env", "combolock", "--horizon", "3", "--actions", "3", "--out",
                 str(run), "--json", "--transitions", "300", "--max-epochs", "10",
                 "--min-epochs", "10"]) == 0
    capsys.readouterr()
    assert main(["compare", str(run), "--json", "--samples", "50", "--transitions", "300"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(report) >= {"steps", "steps_with_wrong_merges", "alpha_min", "value",
                           "optimal_value"}
    assert [s["step"] for s in report["steps"]] == [1, 2, 3]
    for step in report["steps"]:
        assert set(step) >= {"step", "wrong_merges", "splits", "alpha_min"}
    assert json.loads((run / "compare" / "report.json").read_text())["mdp"] == report["mdp"]
    assert all((run / "compare" / f"{name}.png").exists()
               for name in ("visitation", "dynamics", "alpha", "confusion"))
    assert main(["compare", str(tmp_path)]) == 2
    assert "checkpoint.pt" in capsys.readouterr().err

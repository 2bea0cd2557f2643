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
    compare_run,
    format_summary,
    summary_legend,
)
from homer.encoders import HadamardNoise
from homer.evaluate import compare_classes, exact_partitions
from homer.plots import (
    alpha_figure,
    confusion_figure,
    dynamics_figure,
    save_figure,
    visitation_figure,
)
from homer.run_directory import CHECKPOINT, read_checkpoint_fields, save_checkpoint
from kinematic.homing import homing_policy_choices
from tests.homer.handmade import (
    abstraction,
    leaking_abstraction,
    lock,
    perfect_artefacts,
    policy,
)
from tests.homer.test_run_directory import RUN

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
    assert [(p.first, p.second, p.rate) for p in ki.merges] == [(0, 1, 1.0)]
    lines = format_summary(report).splitlines()
    start = lines.index("  phi-bar = (phi_F, phi_B) vs KI wrong merges:")
    assert lines[start:start + 4] == [
        "  phi-bar = (phi_F, phi_B) vs KI wrong merges:",
        "    step 2: 100.0% of s2a's encodings in a learned class holding 100.0% of s2b's "
        "(standard error 0.0%)",
        "  phi_F vs forward KI wrong merges:",
        "    step 2: 100.0% of s2a's encodings in a learned class holding 100.0% of s2b's "
        "(standard error 0.0%)"]


def table(summary: str) -> dict[str, list[str]]:
    """The summary's abstraction table: row name -> its cells."""
    lines = [line.strip() for line in summary.splitlines()]
    start = lines.index(next(line for line in lines if line.startswith("learned vs exact")))
    return {cells[0]: cells[1:] for cells in (re.split(" {3,}", line) for line in lines[start + 1:])
            if cells[0] in ABSTRACTION_NAMES.values()}


def test_the_summary_defines_once_what_its_abstraction_table_counts():
    summary = format_summary(compare_run(perfect_artefacts(lock()), samples=SAMPLES,
                                         transitions=200))
    for line in summary_legend(0.05):
        assert summary.count(line) == 1
    defined = [line.split(":")[0].strip() for line in summary_legend(0.05) if ":" in line]
    assert defined[:4] == ["wrong merge", "merge rate of exact classes C, D", "split",
                           "misassigned"]


def test_the_summary_shows_the_largest_misassigned_share_and_its_step():
    """An observation whose encodings fall 5 / 3 into two classes is no split (it is assigned
    to the first), but its 3 encodings are misassigned: 3 of the step's 24. Those 3 are in
    s3c's class: 3 of the 16 encodings of {s3a, s3b}, a wrong merge the majority rule missed."""
    mdp = lock()
    report = compare_run(perfect_artefacts(mdp), samples=SAMPLES, transitions=200)
    ids = np.repeat(np.arange(3), SAMPLES)
    learned = np.array([0] * 5 + [1] * 3 + [0] * SAMPLES + [1] * SAMPLES)
    report.abstractions[3]["backward"] = compare_classes(
        mdp, 3, "backward", [["s3a", "s3b"], ["s3c"]], ids, learned)
    assert table(format_summary(report))["phi_B vs backward KI"] == [
        "1 of 3 (step 3)", "1", "0 of 3", "0.125 (step 3)"]
    assert report.abstractions[3]["backward"].majority_wrong_merges == 0
    assert report.abstractions[3]["backward"].merge_rates[0].rate == 3 / 16


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


def leaking_run(share: float):
    """A perfect run of :func:`lock` under the default noise, but for phi_B of step 4 (phi-bar
    there): a ``share`` of s4c's encodings (in expectation) falls into the class of {s4a,
    s4b}, its exact backward-KI and KI classes."""
    mdp = lock()
    noisy = HadamardNoise()
    backward = {**perfect_artefacts(mdp).backward,
                3: leaking_abstraction(mdp, 3, [0, 1], [2], share, noisy)}
    return perfect_artefacts(mdp, encoder=noisy, backward=backward)


def test_compare_names_a_planted_40_percent_leak_as_a_wrong_merge():
    """The rule before merge rates saw no wrong merge here (s4c's majority stays in its own
    class)."""
    report = compare_run(leaking_run(0.4), samples=500, transitions=100)
    assert [s["wrong_merges"] for s in report.steps] == [0, 0, 0, 1]
    for kind in ("ki", "backward"):
        comparison = report.abstractions[4][kind]
        assert comparison.majority_wrong_merges == 0
        (merge,) = comparison.merges
        leak = merge.worst
        assert comparison.exact_classes[leak.source] == ["s4c"]
        assert comparison.exact_classes[leak.target] == ["s4a", "s4b"]
        assert leak.encodings == 500 and abs(leak.rate - 0.4) <= leak.standard_error
    lines = format_summary(report).splitlines()
    assert lines[lines.index("  phi-bar = (phi_F, phi_B) vs KI wrong merges:") + 1] == (
        f"    step 4: {leak.rate:.1%} of s4c's encodings in a learned class holding "
        f"{leak.target_share:.1%} of {{s4a, s4b}}'s (standard error {leak.standard_error:.1%})")
    assert table(format_summary(report))["phi_B vs backward KI"][:2] == ["1 of 3 (step 4)", "1"]
    document = report.to_json()
    assert document["merge_threshold"] == 0.05 and document["steps_with_wrong_merges"] == 1
    (pair,) = document["steps"][3]["abstractions"]["ki"]["merge_rates"]
    assert (pair["rate"], pair["standard_error"]) == (leak.rate, leak.standard_error)


def test_compare_lets_a_1_percent_leak_pass_unless_the_threshold_is_lower():
    report = compare_run(leaking_run(0.01), samples=500, transitions=100)
    assert [s["wrong_merges"] for s in report.steps] == [0, 0, 0, 0]
    (pair,) = report.abstractions[4]["ki"].merge_rates
    assert 0 < pair.rate <= 0.01 + 2 * pair.worst.standard_error
    strict = compare_run(leaking_run(0.01), samples=500, transitions=100,
                         merge_threshold=pair.rate / 2)
    assert [s["wrong_merges"] for s in strict.steps] == [0, 0, 0, 1]
    assert strict.merge_threshold == strict.to_json()["merge_threshold"] == pair.rate / 2
    assert f"merge rate above {pair.rate / 2} (merge_threshold=...)" in format_summary(strict)


def test_compare_command_names_a_leak_planted_in_a_run_directory(tmp_path, capsys):
    """``homer run``, then phi_B of the last step replaced in the checkpoint by one sending
    40% of s3c's encodings to the class of {s3a, s3b}: ``homer compare`` names the merge."""
    run = tmp_path / "run"
    assert main([*RUN, "--out", str(run)]) == 0
    capsys.readouterr()
    artefacts = load_run(run)
    mdp = artefacts.mdp
    assert exact_partitions(mdp)["ki"].blocks(3) == [["s3a", "s3b"], ["s3c"]]
    emitted = [mdp.layers[2][s] for s in mdp.emission_state[2]]
    kept = [o for o, state in enumerate(emitted) if state != "s3c"]
    state = read_checkpoint_fields(run / CHECKPOINT)
    width = len(state["backward"][2][1])
    planted = leaking_abstraction(mdp, 2, kept, [emitted.index("s3c")], 0.4, artefacts.encoder,
                                  width)
    state["backward"][2] = (planted.weight, planted.bias)
    save_checkpoint(run / CHECKPOINT, state)
    arguments = ["compare", str(run), "--samples", "500", "--transitions", "100"]
    assert main([*arguments, "--json"]) == 0
    document = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert document["merge_threshold"] == 0.05 and document["steps"][2]["wrong_merges"] == 1
    (pair,) = document["steps"][2]["abstractions"]["ki"]["merge_rates"]
    assert abs(pair["rate"] - 0.4) <= 2 * pair["standard_error"]
    assert main([*arguments, "--merge-threshold", "0.1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[lines.index("  phi-bar = (phi_F, phi_B) vs KI wrong merges:") + 1] == (
        f"    step 3: {pair['rate']:.1%} of s3c's encodings in a learned class holding "
        f"{pair['leaks'][1]['target_share']:.1%} of {{s3a, s3b}}'s (standard error "
        f"{pair['standard_error']:.1%})")
    assert ("  wrong merge: a pair of exact classes with a merge rate above 0.1 "
            "(--merge-threshold);") in lines

"""``homer compare --against endogenous`` (``compare_run(..., endogenous=...)``): a run's phi-bar
scored against the endogenous partition of an exogenous Block MDP too, the factorisation from
an exogenous ``--spec`` or recorded by the run (``recorded_factorisation``: a run of ``--env
combolock --exogenous-bits``, rebuilt from its name and accepted only when it is the run's
MDP, spec for spec).

On the exogenous lock (H = 4, K = 3, one bit flipping with probability 1/10) a run whose
abstractions ignore the bit - HOMER at the endogenous capacity - merges the bit's two values
in every KI class, and against the endogenous partition only s4a with s4b on the last step,
where phi-bar is phi_B alone and backward KI joins them."""

import json
from pathlib import Path

import pytest

from homer.cli import main
from homer.compare import compare_run, format_summary, recorded_factorisation
from kinematic.exogenous import endogenous_partition
from kinematic.exogenous_spec import to_compact_exogenous_spec
from kinematic.families import (
    combination_lock,
    combination_lock_optimal_choices,
    exogenous_combination_lock,
)
from kinematic.spec import dumps_spec, from_spec, to_spec
from tests.homer.handmade import abstraction, perfect_artefacts, policy

MODEL = exogenous_combination_lock(4, 3, 0, bits=1)
MDP = MODEL.mdp
SAMPLES = 8


def endogenous_run(with_bit: bool = False):
    """Hand-made artefacts on :data:`MODEL`: phi_B = {a, b} | {c} and phi_F = a | b | c of the
    lock (the endogenous capacity, 2 and 3 classes), each class split by the bit when
    ``with_bit`` (KI's classes, 4 and 6); the optimal policy of the lock on every bit value."""
    def classes(letters: list[int]) -> list[int]:  # observations s{h}x|0, s{h}x|1, ...
        return [2 * c + bit if with_bit else c for c in letters for bit in (0, 1)]

    backward = {h: abstraction(MDP, classes([0, 0, 1])) for h in range(1, 4)}
    forward = {0: abstraction(MDP, classes([0, 1]))}
    forward.update({h: abstraction(MDP, classes([0, 1, 2])) for h in (1, 2)})
    choices = {f"{state}|{bit}": action
               for state, action in combination_lock_optimal_choices(4, 3, 0).items()
               for bit in "01"}
    return perfect_artefacts(MDP, backward=backward, forward=forward,
                             policy=policy(MDP, choices, 4))


def test_phi_bar_at_the_endogenous_capacity_merges_ki_classes_and_one_endogenous_pair():
    """Kills: phi-bar scored against KI (or the lifted lock's partition) as if it were the
    endogenous one, phi_B alone scored where phi-bar is the pair, the row left out."""
    report = compare_run(endogenous_run(), samples=SAMPLES, transitions=200,
                         endogenous=endogenous_partition(MODEL))
    endogenous = {h: layer["endogenous"] for h, layer in report.abstractions.items()}
    assert [endogenous[h].wrong_merges for h in (1, 2, 3, 4)] == [0, 0, 0, 1]
    assert [endogenous[h].splits for h in (1, 2, 3, 4)] == [0, 0, 0, 0]
    (merge,) = endogenous[4].merges
    assert sorted(map(tuple, (endogenous[4].exact_classes[merge.first],
                              endogenous[4].exact_classes[merge.second]))) == [
        ("s4a|0", "s4a|1"), ("s4b|0", "s4b|1")]
    assert [report.abstractions[h]["ki"].wrong_merges for h in (1, 2, 3, 4)] == [2, 3, 3, 2]
    assert report.value == report.optimal_value == 1.0
    document = report.to_json()
    assert document["against"] == ["endogenous"]
    assert document["steps_with_wrong_merges_by_abstraction"] == {
        "backward": 3, "forward": 3, "ki": 4, "endogenous": 1}
    assert document["steps"][3]["abstractions"]["endogenous"]["wrong_merges"] == 1
    summary = format_summary(report)
    [row] = [line for line in summary.splitlines()
             if line.startswith("  phi-bar vs endogenous ") and not line.endswith(":")]
    assert row.split()[3:8] == ["1", "of", "4", "(step", "4)"]
    assert "  the row against the endogenous partition: a wrong merge joins two endogenous " \
        "states" in summary


def test_phi_bar_with_the_bit_splits_every_endogenous_class_it_can_and_merges_none():
    """KI's capacity: no KI merge, and against the endogenous partition each class with two
    values of the bit kept apart is a split (step 4: {s4a, s4b} of backward KI split by the
    bit, s4a and s4b still together)."""
    report = compare_run(endogenous_run(with_bit=True), samples=SAMPLES, transitions=200,
                         endogenous=endogenous_partition(MODEL))
    assert [report.abstractions[h]["ki"].wrong_merges for h in (1, 2, 3, 4)] == [0, 0, 0, 0]
    assert [report.abstractions[h]["endogenous"].splits for h in (1, 2, 3, 4)] == [2, 3, 3, 3]
    assert [report.abstractions[h]["endogenous"].wrong_merges for h in (1, 2, 3, 4)] == [
        0, 0, 0, 1]


def test_without_it_the_report_is_as_before():
    report = compare_run(endogenous_run(), samples=SAMPLES, transitions=200)
    assert [sorted(layer) for layer in report.abstractions.values()] == [
        ["forward", "ki"], ["backward", "forward", "ki"], ["backward", "forward", "ki"],
        ["backward", "ki"]]
    document = report.to_json()
    assert document["against"] == []
    assert set(document["steps_with_wrong_merges_by_abstraction"]) == {"backward", "forward",
                                                                       "ki"}
    assert "endogenous" not in format_summary(report)


def test_a_partition_of_another_mdp_is_refused():
    other = exogenous_combination_lock(3, 3, 0, bits=1)
    with pytest.raises(ValueError, match=r"^endogenous: a partition of the states of "):
        compare_run(endogenous_run(), samples=SAMPLES, transitions=200,
                    endogenous=endogenous_partition(other))


@pytest.mark.parametrize("flip", ["1/10", "1/2", "0"])
def test_the_recorded_factorisation_is_the_lock_the_run_was_built_from(flip):
    model = exogenous_combination_lock(3, 2, 5, bits=2, flip=flip, variant="released")
    assert recorded_factorisation(model.mdp).parts == model.parts


@pytest.mark.parametrize(("mdp", "why"), [
    (combination_lock(3, 2, 0), "its name is not that of an exogenous lock, "
                                "combolock-H...-exo...-flip..."),
    # the name of the flip-1/2 lock on the flip-1/10 lock's transitions: not what it says
    (from_spec({**to_spec(exogenous_combination_lock(3, 2, 0, bits=1).mdp),
                "name": "combolock-H3-K2-seed0-exo1-flip1/2"}),
     "it is not the exogenous lock its name describes"),
    (from_spec({**to_spec(exogenous_combination_lock(3, 2, 0, bits=1).mdp),
                "name": "combolock-H4-K2-seed0-exo1-flip1/10"}),
     "it is not the exogenous lock its name describes"),
])
def test_a_run_of_any_other_mdp_records_no_factorisation(mdp, why):
    """Kills reading the factorisation off a name without checking the MDP (the renamed
    locks), or off the state names."""
    with pytest.raises(ValueError) as refusal:
        recorded_factorisation(mdp)
    assert str(refusal.value) == (
        f"--against endogenous: the run's MDP {mdp.name!r} was not made by 'homer run --env "
        f"combolock --exogenous-bits' ({why}), so the run records no factorisation; give the "
        "MDP's exogenous spec with --spec ('endogenous' and 'exogenous', or a Block MDP with "
        "its 'factorisation': docs/guide/spec-format.md)")


TINY = ["--transitions", "300", "--max-transitions", "300", "--max-epochs", "5",
        "--min-epochs", "5", "--psdp-samples", "200", "--eval-samples", "100",
        "--evaluation-episodes", "100"]
COMPARE = ["--samples", "20", "--transitions", "100", "--json"]


@pytest.fixture(scope="module")
def noisy_run(tmp_path_factory) -> Path:
    """``homer run --env combolock --exogenous-bits 1`` (H = 3, K = 2), a few seconds, and
    beside it the lock's exogenous spec, its plain spec and another lock's exogenous spec."""
    directory = tmp_path_factory.mktemp("noisy")
    assert main(["run", "--env", "combolock", "--horizon", "3", "--actions", "2",
                 "--exogenous-bits", "1", "--allow-small-capacity", "--out",
                 str(directory / "run"), "--json",
                 *TINY]) == 0
    lock = exogenous_combination_lock(3, 2, 0, bits=1)
    (directory / "exogenous.json").write_text(json.dumps(to_compact_exogenous_spec(lock)))
    (directory / "plain.json").write_text(dumps_spec(lock.mdp))
    (directory / "iid.json").write_text(json.dumps(to_compact_exogenous_spec(
        exogenous_combination_lock(3, 2, 0, bits=1, flip="1/2"))))
    return directory


def compare(capsys, directory: Path, *arguments: str) -> tuple[int, str, str]:
    code = main(["compare", str(directory / "run"), "--out", str(directory / "compare"),
                 *COMPARE, *arguments])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_line_reads_the_factorisation_the_run_records(capsys, noisy_run):
    code, out, err = compare(capsys, noisy_run, "--against", "endogenous")
    assert code == 0, err
    document = json.loads(out.strip().splitlines()[-1])
    assert document["against"] == ["endogenous"]
    assert document["steps"][0]["abstractions"]["endogenous"]["exact_classes"] == [
        ["s1a|0", "s1a|1"], ["s1b|0", "s1b|1"]]
    summary = (noisy_run / "compare" / "summary.txt").read_text()
    assert "\n  phi-bar vs endogenous " in summary
    # the same partition from the exogenous spec: the same scores
    code, out, err = compare(capsys, noisy_run, "--against", "endogenous", "--spec",
                             str(noisy_run / "exogenous.json"))
    assert code == 0, err
    assert json.loads(out.strip().splitlines()[-1])["steps"] == document["steps"]
    # without the flag: the same, since the run records its factorisation - also beside a
    # spec of the run's MDP that declares none (a run of a plain lock: test above, none)
    for spec in ((), ("--spec", str(noisy_run / "plain.json"))):
        code, out, err = compare(capsys, noisy_run, *spec)
        assert code == 0, err
        assert json.loads(out.strip().splitlines()[-1])["steps"] == document["steps"]


def test_a_spec_without_factorisation_or_of_another_mdp_is_refused(capsys, noisy_run):
    plain = noisy_run / "plain.json"
    code, out, err = compare(capsys, noisy_run, "--against", "endogenous", "--spec", str(plain))
    assert (code, out) == (2, "")
    assert err == (f"error: --against endogenous: --spec {plain} declares no factorisation, "
                   "so it has no endogenous partition; give the spec of an exogenous Block MDP "
                   "('endogenous' and 'exogenous', or a Block MDP with its 'factorisation': "
                   "docs/guide/spec-format.md)\n")
    code, out, err = compare(capsys, noisy_run, "--against", "endogenous", "--spec",
                             str(noisy_run / "iid.json"))
    assert (code, out) == (2, "")
    assert err == (f"error: {noisy_run / 'run' / 'checkpoint.pt'}: the run's MDP is "
                   "'combolock-H3-K2-seed0-exo1-flip1/10', not "
                   f"'combolock-H3-K2-seed0-exo1-flip1/2' (--spec {noisy_run / 'iid.json'})\n")

"""``homer evaluate --against endogenous`` and ``exact_partitions(mdp, endogenous)``: an
abstraction scored against the endogenous partition of an exogenous Block MDP too. The noisy lock
(one bit flipping with probability 1/10) separates KI classes by the bit, so an abstraction that
keeps only the endogenous state merges KI classes at every step and no endogenous ones, and the
oracle (every latent state its own class) splits every endogenous class."""

import json
from pathlib import Path

import numpy as np
import pytest

from homer.cli import main
from homer.encoders import HadamardNoise
from homer.evaluate import evaluate_abstraction, exact_partitions
from homer.reference_learners import reference_abstraction
from kinematic import (
    combination_lock,
    dumps_exogenous_spec,
    dumps_spec,
    endogenous_partition,
    exogenous_block_mdp,
    exogenous_chain,
    ki_partition,
)

FLIP = exogenous_chain(["0", "1"], {"0": "1/2", "1": "1/2"},
                       {"0": {"0": "9/10", "1": "1/10"}, "1": {"0": "1/10", "1": "9/10"}},
                       horizon=3)
MODEL = exogenous_block_mdp(combination_lock(3, 2, seed=0), FLIP, name="noisy")
MDP = MODEL.mdp

PHI = '''
import numpy as np
from homer.encoders import HadamardNoise


def endogenous(observations, step, mdp):
    """The endogenous state of each observation: its state's name before the '|'."""
    states = np.asarray(mdp.emission_state[step - 1])[HadamardNoise().decode(mdp, observations,
                                                                              step)]
    names = sorted({name.split("|")[0] for name in mdp.layers[step - 1]})
    return np.array([names.index(mdp.layers[step - 1][s].split("|")[0]) for s in states])
'''


def test_the_endogenous_abstraction_merges_ki_classes_but_no_endogenous_ones():
    partitions = exact_partitions(MDP, endogenous_partition(MODEL))
    assert list(partitions) == ["backward", "forward", "ki", "endogenous"]

    def phi(vectors, step):
        states = np.asarray(MDP.emission_state[step - 1])[HadamardNoise().decode(MDP, vectors,
                                                                                 step)]
        labels = partitions["endogenous"].labels[step - 1]
        return labels[states]

    report = evaluate_abstraction(MDP, phi, samples=20, partitions=partitions)
    assert report.steps_with_wrong_merges("endogenous") == []
    assert report.steps_with_wrong_merges("ki") == [1, 2, 3]
    assert report.to_json()["steps_with_wrong_merges"] == {
        "backward": 2, "forward": 2, "ki": 3, "endogenous": 0}
    assert "endogenous none" in repr(report)
    oracle = evaluate_abstraction(MDP, reference_abstraction("oracle", MDP), samples=20,
                                  partitions=partitions)
    assert [step["endogenous"].splits for step in oracle.steps] == [2, 3, 3]
    assert oracle.steps_with_wrong_merges("endogenous") == []


def test_without_it_the_report_is_as_before():
    report = evaluate_abstraction(MDP, reference_abstraction("oracle", MDP), samples=20)
    assert all(set(step) == {"backward", "forward", "ki"} for step in report.steps)
    assert "endogenous" not in report.to_json()["steps_with_wrong_merges"]
    assert "endogenous" not in repr(report)


def test_a_partition_of_another_kind_is_refused_as_the_endogenous_one():
    with pytest.raises(ValueError, match=r"^endogenous: a partition of kind 'endogenous' "
                                         r"\(kinematic.endogenous_partition\), got kind 'ki'$"):
        exact_partitions(MDP, ki_partition(MDP))


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "noisy.json").write_text(dumps_exogenous_spec(MODEL))
    (tmp_path / "plain.json").write_text(dumps_spec(MDP))
    (tmp_path / "phi.py").write_text(PHI)
    return tmp_path


def evaluate(capsys, files: Path, spec: str, *arguments: str) -> tuple[int, str, str]:
    code = main(["evaluate", "--spec", str(files / spec), "--samples", "20",
                 "--abstraction", f"{files / 'phi.py'}:endogenous", *arguments])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_line_scores_against_the_endogenous_partition(capsys, files):
    code, out, err = evaluate(capsys, files, "noisy.json", "--against", "endogenous")
    assert code == 0, err
    rows = {line.split("   ")[0].strip(): line for line in out.splitlines()
            if line.startswith("  phi vs ") and not line.endswith("wrong merges:")}
    assert list(rows) == ["phi vs KI", "phi vs backward KI", "phi vs forward KI",
                          "phi vs endogenous"]
    assert rows["phi vs endogenous"].split()[3:6] == ["0", "of", "3"]
    assert rows["phi vs KI"].split()[3:10] == ["3", "of", "3", "(steps", "1,", "2,", "3)"]
    code, out, err = evaluate(capsys, files, "noisy.json", "--against", "endogenous", "--json")
    document = json.loads(out)
    assert document["steps_with_wrong_merges"]["endogenous"] == 0
    assert document["steps"][0]["abstractions"]["endogenous"]["exact_classes"] == [
        ["s1a|0", "s1a|1"], ["s1b|0", "s1b|1"]]
    # without the flag: the same, since the spec declares a factorisation; a spec that declares
    # none is scored against the KI partitions only
    assert evaluate(capsys, files, "noisy.json", "--json")[1] == out
    code, out, err = evaluate(capsys, files, "plain.json", "--json")
    assert code == 0 and "endogenous" not in json.loads(out)["steps_with_wrong_merges"]


def test_against_endogenous_needs_a_spec_that_declares_a_factorisation(capsys, files):
    code, out, err = evaluate(capsys, files, "plain.json", "--against", "endogenous")
    assert code == 2 and out == ""
    assert err == (f"error: --against endogenous: --spec {files / 'plain.json'} declares no "
                   "factorisation, so it has no endogenous partition; give the spec of an "
                   "exogenous Block MDP ('endogenous' and 'exogenous', or a Block MDP with its "
                   "'factorisation': docs/guide/spec-format.md)\n")


def test_the_flag_takes_only_the_partitions_it_adds(capsys, files):
    with pytest.raises(SystemExit) as exit_info:
        evaluate(capsys, files, "noisy.json", "--against", "ki")
    assert exit_info.value.code == 2
    assert "argument --against: invalid choice: 'ki' (choose from 'endogenous')" in \
        capsys.readouterr().err


def test_the_summary_says_what_the_endogenous_row_counts_only_when_it_has_one(capsys, files):
    legend = "  the row against the endogenous partition: a wrong merge joins two endogenous"
    code, out, _ = evaluate(capsys, files, "noisy.json")
    assert code == 0 and legend in out
    code, out, _ = evaluate(capsys, files, "plain.json")
    assert code == 0 and legend not in out and "phi vs endogenous" not in out

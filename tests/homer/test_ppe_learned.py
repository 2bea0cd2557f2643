"""PPE learned (homer/ppe.py): Intrepid's path ids, its greedy elimination and decoder, the
open-loop cover, a small lock learned to its kept paths, and the kept-paths clause of
homer/learned_objectives.py's as_predicted."""

from fractions import Fraction

import numpy as np
import pytest

from homer.encoders import HadamardNoise
from homer.learned_objectives import as_predicted
from homer.ppe import (
    PPESettings,
    cover_policies,
    decode,
    elimination_threshold,
    extended_paths,
    learn_ppe,
    merge_paths,
    path_gaps,
)
from homer.process_state import process_state
from kinematic import Partition, combination_lock, exogenous_combination_lock, policy_cover_alpha
from kinematic.counterexamples.ppe import exact_ppe


def test_path_ids_count_the_kept_paths_in_order_not_their_old_ids():
    """Intrepid's ``prev_id * K + action_id`` with ``prev_id`` the position in the kept list:
    after path 1 of step 1 was merged away, the kept paths 0 and 2 become 0..K-1 and K..2K-1.
    Kills ids built from the old ids (2 * K + a) or with N_prev in place of K."""
    paths = extended_paths([(0,), (2,)], 3)
    assert paths == {0: (0, 0), 1: (0, 1), 2: (0, 2), 3: (2, 0), 4: (2, 1), 5: (2, 2)}
    assert extended_paths([()], 2) == {0: (0,), 1: (1,)}


def test_the_threshold_divides_by_the_kept_paths_of_the_previous_step():
    """5 / (8 K N_prev): kills N (the paths of this step, K N_prev) in place of N_prev."""
    assert elimination_threshold(2, 3) == pytest.approx(5 / 48)
    assert elimination_threshold(10, 1) == pytest.approx(1 / 16)


def test_gaps_are_the_summed_absolute_differences_of_the_columns():
    rng = np.random.default_rng(0)
    p = rng.random((7, 4))
    gaps = path_gaps(p)
    for i in range(4):
        for j in range(4):
            assert gaps[i, j] == pytest.approx(sum(abs(p[r, i] - p[r, j]) for r in range(7)))


def test_the_elimination_is_greedy_in_id_order_and_not_transitive():
    """0 ~ 1 and 1 ~ 2 but 0 !~ 2: 1 joins 0 and 2 stays (a transitive closure merges all
    three); 3 ~ 0 joins 0 too; a gap equal to the threshold does not merge (Intrepid's
    strict ``sim < elim_param``)."""
    gaps = np.array([[0.0, 0.1, 0.5, 0.1, 0.9],
                     [0.1, 0.0, 0.1, 0.5, 0.9],
                     [0.5, 0.1, 0.0, 0.5, 0.2],
                     [0.1, 0.5, 0.5, 0.0, 0.9],
                     [0.9, 0.9, 0.2, 0.9, 0.0]])
    assert merge_paths(gaps, 0.2) == {0: (0, 1, 3), 2: (2,), 4: (4,)}
    assert merge_paths(gaps, 0.2 + 1e-9) == {0: (0, 1, 3), 2: (2, 4)}


def test_the_decoder_picks_the_most_probable_kept_path_the_first_on_a_tie():
    """Kills an argmax over all paths (id 1 is not kept) and a tie to the last id."""
    probabilities = np.array([[0.1, 0.6, 0.3], [0.4, 0.2, 0.4], [0.2, 0.1, 0.7]])
    np.testing.assert_array_equal(decode(probabilities, [0, 2]), [2, 0, 2])


def test_the_cover_follows_each_path_then_acts_uniformly():
    lock = combination_lock(3, 2, seed=6)  # u = (a1, a2, a2), v = (a1, a2, a1)
    policies = cover_policies(lock, [[("a1",), ("a2",)], [("a1", "a2")]])
    assert len(policies) == 4
    path = policies[3].action_probabilities
    assert path[0].tolist() == [[Fraction(1), Fraction(0)]] * 2
    assert path[1].tolist() == [[Fraction(0), Fraction(1)]] * 3
    assert path[2].tolist() == [[Fraction(1, 2), Fraction(1, 2)]] * 3
    # a1 then a2 reaches the live states of layer 3 surely; without that path, a1 then a
    # uniform action reaches them half as often as a homing policy
    assert policy_cover_alpha(lock, policies).alpha_per_layer == (1, 1, 1)
    assert policy_cover_alpha(lock, policies[:3]).alpha_per_layer == (1, 1, Fraction(1, 2))


def _learned(seed: int):
    noisy = exogenous_combination_lock(2, 2, seed=seed, bits=1)
    with process_state(1):
        return noisy, learn_ppe(noisy.mdp, HadamardNoise(layout="exogenous-bits"),
                                num_samples=200, seed=0, settings=PPESettings(max_epochs=30))


def test_a_small_lock_is_learned_to_its_kept_paths():
    """Seed 0: a2 leads from both start states to a live state, a1 to the dead one (exact gap
    1 against the threshold 5/16): both kept, and the decoder tells the dead states from the
    live ones. Seed 1: from the uniform start each action reaches the live states with 1/2
    (exact gap 0): one path kept. Kills a reversed comparison and an untrained classifier."""
    noisy, learned = _learned(0)
    assert learned.kept_paths() == [[("a1",), ("a2",)]]
    assert learned.steps[0].gaps[0, 1] > 0.8
    encoder = HadamardNoise(layout="exogenous-bits")
    names = noisy.mdp.observations[1]
    classes = learned.phi(encoder.encode(noisy.mdp, 1, np.arange(len(names)),
                                         np.random.default_rng(0)), 2)
    assert dict(zip(names, classes.tolist(), strict=True)) == {
        "s2a|0": 1, "s2a|1": 1, "s2b|0": 1, "s2b|1": 1, "s2c|0": 0, "s2c|1": 0}
    assert learned.phi(np.zeros((3, encoder.dimension(noisy.mdp)), np.float32), 1).tolist() == [
        0, 0, 0]
    _, merged = _learned(1)
    assert merged.kept_paths() == [[("a1",)]]


def test_too_few_samples_for_the_paths_are_refused():
    noisy = exogenous_combination_lock(2, 3, seed=0, bits=1)
    with pytest.raises(ValueError, match="num_samples 2 is too few to roll out each of the 3"):
        learn_ppe(noisy.mdp, HadamardNoise(layout="exogenous-bits"), 2, seed=0)


def test_a_ppe_row_is_as_predicted_only_with_the_predicted_kept_paths():
    lock = exogenous_combination_lock(2, 2, seed=0, bits=1).mdp
    counts = [{x: {"0": 10} for x in lock.observations[0]},
              {x: {"1" if x.startswith("s2c") else "0": 10} for x in lock.observations[1]}]
    row = {"merge_threshold": 0.05, "capacity": [1, 2], "counts": counts,
           "kept_paths": [[["a1"], ["a2"]]]}
    alive = Partition.from_labels(lock, {s: s[2] == "c" for s in lock.states})
    assert as_predicted(lock, row, alive, [[("a1",), ("a2",)]])
    assert not as_predicted(lock, row, alive, [[("a1",)]])
    with pytest.raises(ValueError, match="kept_paths"):
        as_predicted(lock, row, alive)


def test_the_command_writes_a_record_and_the_table(tmp_path, capsys):
    """``homer objectives``: the record and table.md written, the table printed; an unknown
    objective and a file in place of --out refused before any learning, naming the flag or
    the file."""
    import json

    from homer.cli import main

    out = tmp_path / "runs"
    assert main(["objectives", "--out", str(out), "--objective", "ppe_path_prediction",
                 "--horizon", "2",
                 "--exogenous-bits", "1", "--num-samples", "40", "--samples", "5"]) == 0
    printed = capsys.readouterr().out
    record = json.loads((out / "ppe_path_prediction.json").read_text())
    assert record["kept_paths"] == [[["a1"], ["a2"]]]  # seed 0: a2 live surely, a1 dead
    assert record["cover_alpha"] == "1" and len(record["counts"]) == 2
    assert "| ppe_path_prediction | 2 | 2 of 2 |" in printed
    assert "| ppe_path_prediction | 2 | 2 of 2 |" in (out / "table.md").read_text()
    assert main(["objectives", "--out", str(out), "--objective", "ppe_path_prediction",
                 "--objective", "musik"]) == 2
    assert "--objective: unknown objective 'musik'" in capsys.readouterr().err
    assert main(["objectives", "--out", str(out), "--objective", "ppe"]) == 2
    assert ("--objective: unknown objective 'ppe' (the objectives are 'multistep_inverse', "
            "'ppe_path_prediction')" in capsys.readouterr().err)
    (tmp_path / "file").write_text("")
    assert main(["objectives", "--out", str(tmp_path / "file")]) == 2
    assert "file: cannot write there" in capsys.readouterr().err


def test_each_row_is_judged_against_its_objectives_exact_solution():
    """``exact_prediction``: MusIK's every-gap multi-step inverse merges a with b and drops the
    bits on the exogenous lock, PPE keeps the exact kept paths; ``judge`` calls a row that puts
    c with a "not as predicted" (a merge of two predicted classes) and the exact one "as
    predicted"."""
    from homer.learned_objectives import exact_prediction, judge

    noisy = exogenous_combination_lock(3, 2, seed=0, bits=1)
    partition, kept = exact_prediction(noisy, "multistep_inverse")
    assert kept is None and partition.blocks(1) == [list(noisy.mdp.layers[0])]
    assert partition.blocks(3) == [["s3a|0", "s3a|1", "s3b|0", "s3b|1"], ["s3c|0", "s3c|1"]]
    _, ppe_kept = exact_prediction(noisy, "ppe_path_prediction")
    assert ppe_kept == [[("a1",)], [("a1", "a1")]]

    def row(label):
        return {"objective": "multistep_inverse", "merge_threshold": 0.05, "capacity": [1, 2, 2],
                "counts": [{x: {str(label(x)): 10} for x in layer}
                           for layer in noisy.mdp.observations]}

    exact = judge(noisy, row(lambda x: int(x[2] == "c" and x[1] != "1")))
    assert exact["as_predicted"] and exact["classes"][2] == partition.blocks(3)
    assert not judge(noisy, row(lambda x: int(x[2] == "b")))["as_predicted"]


def test_a_ppe_row_that_decodes_as_the_exact_decoder_is_as_predicted_step_by_step():
    """PPE's learned abstraction is its decoder (argmax over the kept paths), so the prediction
    is the exact decoder's, not the classifier's finer level sets: on this lock the kept path
    of step 3 is one, and a row decoding everything to it is as predicted there (it was called
    not as predicted when judged against the level sets). Verdicts are per step: a wrong kept
    path fails its own step only."""
    from homer.learned_objectives import exact_prediction, judge

    noisy = exogenous_combination_lock(3, 3, seed=1, bits=1)
    partition, kept = exact_prediction(noisy, "ppe_path_prediction")
    assert [len(partition.blocks(h)) for h in (1, 2, 3)] == [1, 2, 1]
    ppe = exact_ppe(noisy.mdp)
    counts = [{x: {"0": 10} for x in noisy.mdp.observations[0]}] + [
        {x: {str(label): 10} for x, label in zip(noisy.mdp.observations[h],
                                                 ppe.step(h).decoder_labels, strict=True)}
        for h in (1, 2)]
    row = {"objective": "ppe_path_prediction", "merge_threshold": 0.05, "capacity": [1, 2, 1],
           "counts": counts, "kept_paths": [[list(p) for p in step] for step in kept]}
    assert judge(noisy, row)["steps"] == [True, True, True]
    row["kept_paths"][1] = [["a3", "a3"]]
    assert judge(noisy, row)["steps"] == [True, True, False]
    assert not judge(noisy, row)["as_predicted"]


def test_the_command_learns_on_a_users_spec(tmp_path, capsys):
    """``homer objectives --spec``: any exact spec, scored against KI (and the endogenous
    partition when the spec declares a factorisation) and judged against the exact solution;
    the lock's flags and a float spec refused naming them."""
    import json

    from homer.cli import main
    from kinematic.cli import main as kinematic_main

    plain, noisy = tmp_path / "lock.json", tmp_path / "noisy.json"
    assert kinematic_main(["family", "combolock", "--horizon", "3", "--actions", "2", "--seed",
                           "1", "--out", str(plain)]) == 0
    assert kinematic_main(["family", "combolock", "--horizon", "3", "--actions", "2", "--seed",
                           "1", "--exogenous-bits", "1", "--out", str(noisy)]) == 0
    capsys.readouterr()
    small = ["--objective", "ppe_path_prediction", "--num-samples", "60", "--samples", "5"]
    assert main(["objectives", "--out", str(tmp_path / "a"), "--spec", str(plain), *small]) == 0
    printed = capsys.readouterr().out
    record = json.loads((tmp_path / "a" / "ppe_path_prediction.json").read_text())
    assert record["mdp"] == "combolock-H3-K2-seed1"
    assert "endogenous" not in record["steps"][1]["scores"]
    assert "| ppe_path_prediction | 2 | " in printed
    assert " | - | - | " in printed  # no endogenous columns
    assert record["prediction"]["kept_paths"] is not None
    assert main(["objectives", "--out", str(tmp_path / "b"), "--spec", str(noisy), *small]) == 0
    record = json.loads((tmp_path / "b" / "ppe_path_prediction.json").read_text())
    assert record["steps"][1]["scores"]["endogenous"]["exact_classes"] == 3
    capsys.readouterr()
    assert main(["objectives", "--out", str(tmp_path / "c"), "--spec", str(plain),
                 "--exogenous-bits", "1"]) == 2
    assert capsys.readouterr().err == (
        "error: --exogenous-bits sets the exogenous lock; with --spec the spec is the MDP\n")
    floats = tmp_path / "floats.json"
    floats.write_text(json.dumps({"name": "floats", "horizon": 2, "actions": ["a"],
                                  "layers": [["s"], ["t"]], "start": {"s": 1.0},
                                  "transitions": {"s": {"a": {"t": 1.0}}}}))
    assert main(["objectives", "--out", str(tmp_path / "d"), "--spec", str(floats)]) == 2
    assert "floats.json: a probability is a float" in capsys.readouterr().err
    assert not (tmp_path / "c").exists() and not (tmp_path / "d").exists()

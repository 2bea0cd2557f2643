"""The sample-size calculator (``alg:learn_homing_policy``, ``alg:oracle-exp``)."""

import json
import math

import pytest

from proofs_checks.cli import main
from proofs_checks.sample_sizes import exp_oracle_sample_sizes, homer_sample_sizes


def test_homer_sizes_follow_the_formulas():
    sizes = homer_sample_sizes(abstract_states=2, horizon=3, actions=2, eta=0.5, epsilon=0.5,
                               delta=0.1, log_policies=1.0, log_abstractions=2.0)
    # n_reg = 2^6 2^3 / 0.5^3 (2^2 * 2 + 2 + ln(3 / 0.1))
    assert sizes.n_reg == math.ceil(64 * 8 / 0.125 * (8 + 2 + math.log(30)))
    assert sizes.n_psdp == math.ceil(16 * 9 * 2 / 0.25 * (1 + math.log(10)))
    assert sizes.n_eval == math.ceil(4 * 9 * 2 / 0.25 * (1 + math.log(10)))


def test_exp_oracle_sizes_use_the_proof_constants():
    sizes = exp_oracle_sample_sizes(abstract_states=2, horizon=2, actions=2, eta=0.5,
                                    epsilon=0.25, delta=0.1, log_policies=math.log(4))
    log_term = math.log(2 * 4 / (0.1 / (2 * 2 * 4)))
    assert sizes.n_psdp == math.ceil(256 * 16 * 4 * 2 * log_term / 0.25)
    assert sizes.n_eval == math.ceil(64 * 4 * 4 * 2 * log_term / 0.0625)
    assert sizes.n_reg is None


def test_bad_parameters_are_named():
    with pytest.raises(ValueError, match=r"eta must lie in \(0, 1\]"):
        homer_sample_sizes(2, 3, 2, eta=1.5, epsilon=0.1, delta=0.1, log_policies=1,
                           log_abstractions=1)


def test_cli(capsys):
    assert main(["sample-sizes", "-N", "3", "--horizon", "100", "--actions", "10", "--eta",
                 "0.5", "--log-policies", "50", "--log-abstractions", "50", "--json"]) == 0
    homer, oracle = json.loads(capsys.readouterr().out)
    assert homer["n_reg"] > 0 and homer["n_psdp"] > 0 and oracle["n_reg"] is None
    assert oracle["n_psdp"] > homer["n_psdp"]  # explicit constants 256 and ln(2 N H^2 ...)
    with pytest.raises(SystemExit) as stop:
        main(["sample-sizes", "-N", "3", "--horizon", "100", "--actions", "10", "--eta", "2",
              "--log-policies", "5", "--log-abstractions", "5"])
    assert stop.value.code == 2
    assert "argument --eta: must be a finite number in (0, 1], got '2'" in capsys.readouterr().err

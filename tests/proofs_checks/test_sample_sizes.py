"""The sample-size calculator (``alg:learn_homing_policy``, ``alg:oracle-exp``)."""

import json
import math

import pytest

from proofs_checks.cli import main
from proofs_checks.sample_sizes import PARAMETERS, exp_oracle_sample_sizes, homer_sample_sizes


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
    with pytest.raises(ValueError, match=r"^eta must be a finite number in \[1e-30, 1\], got 1.5$"):
        homer_sample_sizes(2, 3, 2, eta=1.5, epsilon=0.1, delta=0.1, log_policies=1,
                           log_abstractions=1)
    with pytest.raises(ValueError,
                       match=r"^log_policies must be a finite number in \(0, 1e\+100\]"):
        exp_oracle_sample_sizes(2, 3, 2, eta=0.5, epsilon=0.1, delta=0.1, log_policies=0.0)


def test_every_size_is_finite_at_the_ends_of_the_parameter_ranges():
    """The largest sizes the ranges allow are finite: a range widened too far (eta down to
    1e-200), or ``ln(h / delta)`` with a subnormal delta, would overflow and fail in ``ceil``."""
    largest = {name: PARAMETERS[name].high for name in
               ("abstract_states", "horizon", "actions", "log_policies")}
    largest |= {"eta": PARAMETERS["eta"].low, "epsilon": PARAMETERS["epsilon"].low,
                "delta": 5e-324}
    homer = homer_sample_sizes(**largest, log_abstractions=PARAMETERS["log_abstractions"].high)
    oracle = exp_oracle_sample_sizes(**largest)
    assert 1e243 < homer.n_reg < 1e246 and 1e203 < oracle.n_psdp < 1e206


@pytest.mark.parametrize("flag, value", [
    ("--eta", "1e-200"), ("--epsilon", "1e-200"), ("--log-policies", "1e308"),
    ("--log-abstractions", "1e308"), ("--abstract-states/-N", str(10**200)),
    ("--horizon", str(10**200)), ("--actions", "1000001"), ("--delta", "0"),
])
def test_sample_size_flags_out_of_range_exit_2_naming_the_flag(flag, value, capsys):
    arguments = {"-N": "3", "--horizon": "10", "--actions": "2", "--eta": "0.1",
                 "--log-policies": "5", "--log-abstractions": "5"}
    arguments[flag.split("/")[-1]] = value
    with pytest.raises(SystemExit) as stop:
        main(["sample-sizes", *(item for pair in arguments.items() for item in pair)])
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert captured.err.splitlines()[-1].startswith(
        f"python -m proofs_checks sample-sizes: error: argument {flag}: must be ")


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
    assert ("argument --eta: must be a finite number in [1e-30, 1], got '2'"
            in capsys.readouterr().err)

"""``python -m proofs_checks [--examples N] [--json | --markdown] [--only LABEL ...]`` runs the
registry on generated instances; with ``--spec FILE``, every claim that applies to the Block MDP
of that spec runs on it (:mod:`proofs_checks.given_mdp`); ``python -m proofs_checks
sample-sizes ...`` prints the sample sizes of HOMER and ExpOracle.

This module only parses: its imports are light, so ``--help`` and argument errors answer
before the registry and Hypothesis load (``tests/test_cli_startup.py``); the work is in
:mod:`proofs_checks.commands`, imported once the arguments are valid."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from kinematic.arguments import WorkCount
from kinematic.cli import CommandParser, DefaultsHelpFormatter, interruptible
from proofs_checks.sample_sizes import PARAMETERS

__all__ = ["EXAMPLES", "main"]

EXAMPLES = WorkCount(high=100_000, seconds_per_unit=3.0, unit="example of every claim")
"""``--examples``: about 3 s of CPU per example when every claim runs (``--examples 40`` took
116 s on the 2-core development machine, 104 s of it ``thm:exp-oracle``'s trials), so the bound
is about 3.5 days; ``--only`` runs a share of that."""


def _sample_sizes_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="python -m proofs_checks sample-sizes",
        description="Sample sizes of alg:learn_homing_policy and alg:oracle-exp.",
        formatter_class=DefaultsHelpFormatter,
    )
    parser.add_argument("--abstract-states", "-N", type=PARAMETERS["abstract_states"],
                        required=True, help="N, at least N_KD")
    parser.add_argument("--horizon", type=PARAMETERS["horizon"], required=True, help="H")
    parser.add_argument("--actions", type=PARAMETERS["actions"], required=True,
                        help="K, the number of actions")
    parser.add_argument("--eta", type=PARAMETERS["eta"], required=True,
                        help="eta <= eta_min")
    parser.add_argument("--epsilon", type=PARAMETERS["epsilon"], default=0.1,
                        help="epsilon, the suboptimality allowed to the returned policy")
    parser.add_argument("--delta", type=PARAMETERS["delta"], default=0.1,
                        help="delta, the failure probability")
    parser.add_argument("--log-policies", type=PARAMETERS["log_policies"], required=True,
                        help="ln |Pi|")
    parser.add_argument("--log-abstractions", type=PARAMETERS["log_abstractions"],
                        required=True, help="ln |Phi_N|")
    parser.add_argument("--json", action="store_true", help="print one JSON list")
    return parser


def _parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="python -m proofs_checks",
        description="Check every registered claim of the paper, with its negative control, on "
                    "generated instances, or (--spec) every claim that applies to one Block MDP. "
                    "Subcommand: sample-sizes.",
        formatter_class=DefaultsHelpFormatter,
    )
    parser.add_argument("--examples", type=EXAMPLES, default=100,
                        help="instances per claim (sampling-heavy claims run a share of it), at "
                             f"most {EXAMPLES.high}")
    parser.add_argument("--spec", metavar="FILE",
                        help="check the Block MDP of this JSON spec (docs/guide/spec-format.md) "
                             "and instances derived from it instead of generated ones: a claim "
                             "whose hypothesis it breaks is reported not applicable, a claim "
                             "not about one MDP skipped, one too large for its exact "
                             "computation refused (default: generated instances)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true",
                        help="print one JSON list at the end instead of a line per claim")
    output.add_argument("--markdown", action="store_true",
                        help="print the table of claims (docs/claims.md) and the coverage line "
                             "at the end instead of a line per claim")
    parser.add_argument("--only", nargs="+", metavar="LABEL",
                        help="run only these labels (default: every claim)")
    return parser


@interruptible
def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 on invalid input, 130 on Ctrl-C)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["sample-sizes"]:
        sizes = _sample_sizes_parser().parse_args(argv[1:])
        from proofs_checks import commands  # after parsing: see the module's docstring

        return commands.sample_sizes(sizes)
    args = _parser().parse_args(argv)
    from proofs_checks import commands

    return commands.check_claims(args)

"""``python -m proofs_checks [--examples N] [--json | --markdown] [--only LABEL ...]`` runs the
registry on generated instances; with ``--spec FILE``, every claim that applies to the Block MDP
of that spec runs on it (:mod:`proofs_checks.given_mdp`); ``python -m proofs_checks
sample-sizes ...`` prints the sample sizes of HOMER and ExpOracle."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from kinematic.arguments import WorkCount
from kinematic.cli import DefaultsHelpFormatter, interruptible
from kinematic.display import name_text
from kinematic.hypothesis_files import hypothesis_files_in_user_cache
from kinematic.json_input import display_path
from kinematic.model import BlockMDP
from kinematic.spec import load_spec
from proofs_checks.given_mdp import check_claim
from proofs_checks.planning import DELTA
from proofs_checks.reference_labels import RESULT_KINDS, label_index
from proofs_checks.registry import ClaimReport, all_claims, run_claim
from proofs_checks.sample_sizes import PARAMETERS, exp_oracle_sample_sizes, homer_sample_sizes

__all__ = ["EXAMPLES", "coverage_line", "main", "markdown_table"]

EXAMPLES = WorkCount(high=100_000, seconds_per_unit=3.0, unit="example of every claim")
"""``--examples``: about 3 s of CPU per example when every claim runs (``--examples 40`` took
116 s on the 2-core development machine, 104 s of it ``thm:exp-oracle``'s trials), so the bound
is about 3.5 days; ``--only`` runs a share of that."""


def _print_line(report: ClaimReport) -> None:
    if report.status != "checked":
        print(f"{report.label:<40} {report.status}: {report.reason}", flush=True)
        return
    caught = {"caught": "yes", "MISSED": "NO", "not applicable": "n/a"}[report.control_verdict]
    print(f"{report.label:<40} {report.instances:>9} {report.violations:>10} "
          f"{caught:>8} {report.seconds:>8.1f}  {report.statement}", flush=True)
    if report.observed_failure_rate is not None:
        print(f"{'':<40} observed failure rate {report.observed_failure_rate:.3f} "
              f"over the trials (delta = {DELTA})")
    if report.violations:
        print("  violation witness: " + json.dumps(report.witness))
    if report.control_not_applicable is not None:
        print(f"  {report.control_not_applicable}")


def _summary(reports: Sequence[ClaimReport]) -> str:
    line = (f"{len(reports)} claims, {sum(r.violations for r in reports)} violated, "
            f"{sum(r.control_verdict == 'MISSED' for r in reports)} negative controls missed")
    statuses = [r.status for r in reports]
    if statuses.count("checked") == len(statuses):
        return line
    counts = ", ".join(f"{statuses.count(s)} {s}" for s in
                       ("checked", "not applicable", "skipped", "refused"))
    controls = sum(r.status == "checked" and r.control_verdict == "not applicable"
                   for r in reports)
    return f"{line} ({counts}; {controls} negative controls not applicable on this MDP)"


def _run(args: argparse.Namespace, mdp: BlockMDP | None) -> int:
    claims = all_claims()
    if args.only:
        known = {c.label for c in claims}
        unknown = [label for label in args.only if label not in known]
        if unknown:
            print(f"error: unknown label {unknown[0]!r}; known: {', '.join(sorted(known))}",
                  file=sys.stderr)
            return 2
        claims = [c for c in claims if c.label in args.only]
    reports = []
    for claim in claims:
        report = (run_claim(claim, args.examples) if mdp is None
                  else check_claim(claim, mdp, args.examples))
        reports.append(report)
        if not (args.json or args.markdown):
            _print_line(report)
    if args.json:
        print(json.dumps([r.as_json() for r in reports]))
    if args.markdown:
        print(markdown_table(reports))
    if not (args.json or args.markdown):
        print(_summary(reports))
    return 1 if any(r.failed for r in reports) else 0


def coverage_line(reports: Sequence[ClaimReport]) -> str:
    """How many results of the reference's label index the reports cover."""
    index = label_index()
    checked = {r.label for r in reports}
    labelled = [e for e in index.values() if e.kind in RESULT_KINDS and e.in_source]
    others = [e for e in index.values() if e not in labelled]
    return (f"{sum(e.label in checked for e in labelled)} of {len(labelled)} labelled results "
            f"({', '.join(RESULT_KINDS)}) and {sum(e.label in checked for e in others)} of "
            f"{len(others)} unlabelled or section-level results checked")


def markdown_table(reports: Sequence[ClaimReport]) -> str:
    """The table of docs/claims.md: one row per claim, then the coverage line."""
    index = label_index()
    rows = ["| label | statement | instances | violations | control | seconds |",
            "|---|---|---|---|---|---|"]
    for r in reports:
        statement = (index[r.label].statement if r.label in index else r.statement)
        control = (f"{r.control_verdict}: {r.negative_control}"
                   if r.control_not_applicable is None else r.control_not_applicable)
        outcome = str(r.violations) if r.status == "checked" else f"{r.status}: {r.reason}"
        cells = [f"`{r.label}`", statement, str(r.instances), outcome, control,
                 f"{r.seconds:.1f}"]
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join([*rows, "", coverage_line(reports)])


def _sample_sizes(args: argparse.Namespace) -> int:
    homer = homer_sample_sizes(args.abstract_states, args.horizon, args.actions, args.eta,
                               args.epsilon, args.delta, args.log_policies,
                               args.log_abstractions)
    oracle = exp_oracle_sample_sizes(args.abstract_states, args.horizon, args.actions, args.eta,
                                     args.epsilon, args.delta, args.log_policies)
    if args.json:
        print(json.dumps([homer.as_json(), oracle.as_json()]))
        return 0
    for sizes in (homer, oracle):
        print(f"{sizes.algorithm}  [{sizes.constants}]")
        if sizes.n_reg is not None:
            print(f"  n_reg  = {sizes.n_reg:.3e}")
        print(f"  n_psdp = {sizes.n_psdp:.3e}")
        print(f"  n_eval = {sizes.n_eval:.3e}")
    return 0


@interruptible
def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 on invalid input, 130 on Ctrl-C)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["sample-sizes"]:
        parser = argparse.ArgumentParser(
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
        try:
            return _sample_sizes(parser.parse_args(argv[1:]))
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    parser = argparse.ArgumentParser(
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
    args = parser.parse_args(argv)
    mdp = None
    if args.spec is not None:
        try:
            mdp = load_spec(args.spec)
        except ValueError as error:
            print(f"error: --spec: {error}", file=sys.stderr)
            return 2
    if not (args.json or args.markdown):
        if mdp is not None:
            print(f"Block MDP {name_text(mdp.name)} from {display_path(args.spec)}: the claims "
                  "that apply to it, on it and on instances derived from it")
        print(f"{'label':<40} {'instances':>9} {'violations':>10} {'negative':>8} "
              f"{'seconds':>8}  statement")
    with hypothesis_files_in_user_cache():
        return _run(args, mdp)

"""What ``python -m proofs_checks`` does once :mod:`proofs_checks.cli` has parsed its
arguments: run the claims of the registry (generated instances, or ``--spec``'s Block MDP), or
print the sample sizes. This module imports the registry (every claim, Hypothesis), which
``--help`` and argument errors never do; it also holds the Markdown table of the claims
(``docs/claims.md``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from kinematic.display import name_text
from kinematic.exogenous import ExogenousBlockMDP
from kinematic.exogenous_spec import load_with_factorisation
from kinematic.hypothesis_files import hypothesis_files_in_user_cache
from kinematic.json_input import display_path
from kinematic.lookup import closest_names, unknown_name
from kinematic.model import BlockMDP
from proofs_checks.given_mdp import check_claim
from proofs_checks.planning import DELTA
from proofs_checks.reference_labels import (
    BEYOND_THE_PAPER,
    BEYOND_THE_PAPER_TOPICS,
    REFERENCE_LABELS,
    RESULT_KINDS,
    label_index,
)
from proofs_checks.registry import Claim, ClaimReport, all_claims, run_claim
from proofs_checks.sample_sizes import exp_oracle_sample_sizes, homer_sample_sizes

__all__ = ["check_claims", "coverage_line", "markdown_table", "sample_sizes"]


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


def check_claims(args: argparse.Namespace) -> int:
    """The claims of ``args.only`` (default: all) on ``args.examples`` generated instances, or
    on ``args.spec``'s Block MDP and instances derived from it; a line per claim, JSON or the
    Markdown table, then exit status 1 if a claim failed, 2 on invalid input."""
    claims = all_claims()
    if args.only:
        known = [claim.label for claim in claims]
        unknown = [label for label in args.only if label not in known]
        if unknown:
            hint = ("" if closest_names(unknown[0], known)
                    else f" (the labels: {', '.join(sorted(known))})")
            print(f"error: --only: {unknown_name('label', unknown[0], known)}{hint}",
                  file=sys.stderr)
            return 2
        claims = [claim for claim in claims if claim.label in args.only]
    mdp, model = None, None
    if args.spec is not None:
        try:
            mdp, model = load_with_factorisation(args.spec)
        except ValueError as error:
            print(f"error: --spec: {error}", file=sys.stderr)
            return 2
    if not (args.json or args.markdown):
        if mdp is not None:
            print(f"Block MDP {name_text(mdp.name)} from {display_path(args.spec)}: the claims "
                  "that apply to it, on it and on instances derived from it")
            print("  (an instance: the MDP with the policies, covers, priors or abstractions a "
                  "claim quantifies over drawn for it, up to --examples per claim, or a copy "
                  "transformed as the claim says, e.g. a state split into KI halves)")
        print(f"{'label':<40} {'instances':>9} {'violations':>10} {'negative':>8} "
              f"{'seconds':>8}  statement")
    with hypothesis_files_in_user_cache():
        return _run(args, claims, mdp, model)


def _run(args: argparse.Namespace, claims: Sequence[Claim], mdp: BlockMDP | None,
         model: ExogenousBlockMDP | None) -> int:
    reports = []
    for claim in claims:
        report = (run_claim(claim, args.examples) if mdp is None
                  else check_claim(claim, mdp, args.examples, model=model))
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
    """How many results of the reference's label index, and of those beyond the paper, the
    reports cover."""
    checked = {r.label for r in reports}
    labelled = [e for e in REFERENCE_LABELS if e.kind in RESULT_KINDS and e.in_source]
    others = [e for e in REFERENCE_LABELS if e not in labelled]
    return (f"{sum(e.label in checked for e in labelled)} of {len(labelled)} labelled results "
            f"({', '.join(RESULT_KINDS)}) and {sum(e.label in checked for e in others)} of "
            f"{len(others)} unlabelled or section-level results checked; "
            f"{sum(e.label in checked for e in BEYOND_THE_PAPER)} of {len(BEYOND_THE_PAPER)} "
            f"results beyond the paper ({', '.join(f'{t}:' for t in BEYOND_THE_PAPER_TOPICS)})")


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


def sample_sizes(args: argparse.Namespace) -> int:
    """``sample-sizes``: HOMER's and ExpOracle's sample sizes for the parsed parameters;
    exit status 2 with one line on standard error if they are inconsistent."""
    try:
        return _print_sample_sizes(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def _print_sample_sizes(args: argparse.Namespace) -> int:
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

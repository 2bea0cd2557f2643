"""Command line: ``python -m kinematic analyze SPEC.json [--json] [--policies]`` and
``python -m kinematic family combolock|figure2 ...`` (writes a spec).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from kinematic.analysis import analyze, format_report
from kinematic.errors import AmbiguousTolerance, InvalidBlockMDP
from kinematic.families import combination_lock, figure2_canonical, figure2_split
from kinematic.numbers import DEFAULT_ATOL
from kinematic.spec import dumps_spec, load_spec

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m kinematic",
        description="Exact ground truth of small Block MDPs (Misra et al., Sections 2-3).",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    analyze_cmd = commands.add_parser(
        "analyze", help="eta, eta_min, KI partitions and canonical form of a JSON spec"
    )
    analyze_cmd.add_argument("spec", type=Path, help="a Block MDP JSON spec (see DESIGN.md)")
    analyze_cmd.add_argument("--json", action="store_true", help="print one JSON object")
    analyze_cmd.add_argument(
        "--policies", action="store_true", help="include a homing policy for every state"
    )
    analyze_cmd.add_argument(
        "--atol", type=float, default=DEFAULT_ATOL, help="tolerance of float-mode specs"
    )

    family_cmd = commands.add_parser("family", help="write the spec of a named Block MDP")
    family_cmd.add_argument("family", choices=["combolock", "figure2"])
    family_cmd.add_argument("--horizon", type=int, default=10, help="combolock: H")
    family_cmd.add_argument("--actions", type=int, default=10, help="combolock: K")
    family_cmd.add_argument("--seed", type=int, default=0, help="combolock: seed of u, v")
    family_cmd.add_argument(
        "--split", action="store_true", help="figure2: the split (non-canonical) MDP"
    )
    family_cmd.add_argument("--out", type=Path, help="file to write (default: standard output)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 on invalid input)."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "analyze":
            result = analyze(load_spec(args.spec, atol=args.atol), policies=args.policies)
            print(json.dumps(result) if args.json else format_report(result))
            return 0
        if args.family == "combolock":
            mdp = combination_lock(args.horizon, args.actions, args.seed)
        else:
            mdp = figure2_split() if args.split else figure2_canonical()
        text = dumps_spec(mdp) + "\n"
        if args.out:
            args.out.write_text(text)
        else:
            sys.stdout.write(text)
        return 0
    except (InvalidBlockMDP, AmbiguousTolerance, ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2

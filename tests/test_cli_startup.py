"""``--help`` and argument errors of ``python -m homer``, ``python -m kinematic`` and
``python -m proofs_checks`` answer before any heavy library is imported: each program parses
its arguments with a parser module of light imports and imports its commands afterwards.

Guarded without timing: a fresh Python runs every subcommand's ``--help`` and argument errors
through the program's ``main`` and prints which heavy modules it imported. A top-level import
of one of them put back into a parser module (or into a module it imports) fails here.
Measured times: ``benchmarks/cli_startup.py``."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from homer import cli as homer_cli
from kinematic import cli as kinematic_cli
from proofs_checks import cli as proofs_checks_cli

ROOT = Path(__file__).parents[1]

HEAVY = ("torch", "sklearn", "matplotlib", "gymnasium", "hypothesis", "networkx", "PIL",
         "pandas", "ray", "stable_baselines3", "scipy.stats", "scipy.optimize")
"""Modules none of the three programs may import to answer ``--help`` or an argument error:
each takes 0.1 - 2 s to import (torch 1.4 s, scikit-learn 0.5 s, matplotlib 0.4 s, scipy.stats
0.3 s). ``gymnasium`` is the exception for ``homer`` alone: ``import homer`` registers the
lock's environment with it (:mod:`homer`), 0.14 s."""

ALLOWED = {"homer": {"gymnasium"}, "kinematic": set(), "proofs_checks": set()}


def subcommands(parser: argparse.ArgumentParser) -> list[str]:
    """The subcommands of ``parser`` (none for a parser without any)."""
    return [name for action in parser._actions
            if isinstance(action, argparse._SubParsersAction) for name in action.choices]


def command_lines(program: str) -> list[list[str]]:
    """``--help`` and argument errors of every subcommand of ``program``, from its parser."""
    if program == "proofs_checks":  # no subparsers: sample-sizes has a parser of its own
        return [["--help"], ["--examples", "0"], ["--no-such-option"],
                ["sample-sizes", "--help"], ["sample-sizes", "--horizon", "-1"],
                ["sample-sizes", "--no-such-option"]]
    parser = {"homer": homer_cli, "kinematic": kinematic_cli}[program]._parser()
    lines = [["--help"], ["no-such-command"]]
    for name in subcommands(parser):
        lines += [[name, "--help"], [name, "--no-such-option"]]
    if program == "homer":
        lines += [["run", "--hidden", "-3"], ["run", "--env", "combolock", "--encoding", "x"],
                  ["sweep", "--seeds", "0", "--out", "o"], ["evaluate", "--samples", "0"]]
    else:
        lines += [["analyze", "spec.json", "--atol", "-1"], ["family", "nothing"],
                  ["find-counterexample", "--objective", "pcid_target", "--threshold", "2"]]
    return lines


def imported_after(program: str, lines: list[list[str]]) -> tuple[list[int], list[str]]:
    """A fresh Python runs ``program``'s ``main`` on each of ``lines``: their exit statuses and
    the heavy modules imported by then."""
    code = (
        "import json, sys\n"
        f"from {program}.cli import main\n"
        "statuses = []\n"
        f"for argv in {json.dumps(lines)}:\n"
        "    try:\n"
        "        statuses.append(main(argv))\n"
        "    except SystemExit as stop:\n"
        "        statuses.append(stop.code)\n"
        f"heavy = {HEAVY!r}\n"
        "print(json.dumps([statuses, sorted(m for m in sys.modules\n"
        "                  if any(m == h or m.startswith(h + '.') for h in heavy))]))\n")
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    finished = subprocess.run([sys.executable, "-c", code], env=environment, cwd=ROOT,
                              capture_output=True, text=True, check=True)
    statuses, modules = json.loads(finished.stdout.splitlines()[-1])
    return statuses, modules


@pytest.mark.no_mutants
@pytest.mark.parametrize("program", ["homer", "kinematic", "proofs_checks"])
def test_help_and_argument_errors_import_no_heavy_library(program):
    lines = command_lines(program)
    statuses, modules = imported_after(program, lines)
    assert statuses == [0 if "--help" in argv else 2 for argv in lines]  # all answered
    top_levels = {module.split(".")[0] for module in modules}
    assert top_levels <= ALLOWED[program], sorted(top_levels - ALLOWED[program])
    assert not {"scipy.stats", "scipy.optimize"} & set(modules)


def test_every_subcommand_is_covered():
    """The lists above come from the parsers: a new subcommand is checked without a change
    here (and the parsers have the subcommands the documentation names)."""
    assert subcommands(homer_cli._parser()) == ["run", "compare", "evaluate", "sweep",
                                                "counterexamples", "objectives"]
    assert subcommands(kinematic_cli._parser()) == ["analyze", "family", "counterexamples",
                                                    "objectives", "find-counterexample"]
    # proofs_checks: one parser for the claims, one for its only subcommand, sample-sizes
    assert subcommands(proofs_checks_cli._parser()) == []
    assert proofs_checks_cli._sample_sizes_parser().prog.endswith(" sample-sizes")

"""Command line: ``python -m kinematic analyze SPEC.json [--json | --markdown | --latex]
[--merged-only] [--policies] [--eta-error E]``,
``python -m kinematic family combolock|figure2|gymnasium ...`` (writes a spec),
``python -m kinematic counterexamples [--json]`` (Section 5),
``python -m kinematic objectives SPEC.json [--objective NAME ...] [--json]`` (every objective's
exact abstraction against backward KI, KI and the endogenous partition) and
``python -m kinematic find-counterexample --objective inverse_dynamics|pcid_target``.

This module only parses: its imports are light, so ``--help`` and argument errors answer
before anything heavy loads (``tests/test_cli_startup.py``); the commands' work is in
:mod:`kinematic.commands`, imported once the arguments are valid.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import os
import sys
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn, Protocol

from kinematic.arguments import WorkCount, at_least, nonnegative, random_seed, tolerance
from kinematic.families import LOCK_VARIANTS
from kinematic.gymnasium_family import env_argument
from kinematic.numbers import DEFAULT_ATOL, parse_exact

__all__ = ["MAX_EXAMPLES", "USAGE_LINES", "CommandLine", "CommandParser", "DefaultsHelpFormatter",
           "flip_probability", "interruptible", "main"]

MAX_EXAMPLES = WorkCount(high=1_000_000, seconds_per_unit=0.02, unit="generated MDP")
"""``find-counterexample --max-examples``: about 20 ms per generated MDP (1,000 took 19 s with
``--objective inverse_dynamics``), so the bound is about 6 hours."""


class DefaultsHelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` that ends an option's help with ``(default: ...)``, except where that would
    read badly: flags (off unless given), options whose default is None (their help says what
    happens without them) and help that already names its default."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if (action.default is None or action.default is False
                or "default" in (action.help or "")):
            return action.help
        return super()._get_help_string(action)


USAGE_LINES = 3
"""The longest usage a command-line error still prints in full."""


class CommandParser(argparse.ArgumentParser):
    """The parser of ``python -m kinematic``, ``homer`` and ``proofs_checks`` and their
    subcommands: an argument error prints the usage as argparse does when it fits in
    :data:`USAGE_LINES` lines, else a one-line usage pointing to ``--help``, so that the error
    is not the last of 30 lines of options; a subcommand's unknown flag is its subcommand's
    error, not the program's; a flag that is not one gets the closest flags as suggestions.

    >>> import contextlib, io
    >>> parser = CommandParser(prog="demo")
    >>> for flag in ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"):
    ...     _ = parser.add_argument(f"--{flag}-with-a-long-name", type=int, metavar="N")
    >>> stderr = io.StringIO()
    >>> with contextlib.redirect_stderr(stderr), contextlib.suppress(SystemExit):
    ...     parser.parse_args(["--beta-with-a-long-name", "x"])
    >>> print(stderr.getvalue(), end="")
    usage: demo [options]  (demo --help lists them)
    demo: error: argument --beta-with-a-long-name: invalid int value: 'x'
    >>> with contextlib.redirect_stderr(io.StringIO()) as stderr, contextlib.suppress(SystemExit):
    ...     parser.parse_args(["--zeta-with-a-lng-name", "1"])
    >>> print(stderr.getvalue().splitlines()[-1].replace(" (", "\\n("))
    demo: error: unrecognized arguments: --zeta-with-a-lng-name 1
    (did you mean --zeta-with-a-long-name for --zeta-with-a-lng-name?)
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._given: list[str] = []  # the arguments this parser was given, for suggestions

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None
                         ) -> tuple[argparse.Namespace, list[str]]:
        self._given = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            chosen = self._chosen(parsed)
            chosen._given = [*chosen._given, *extras]
            chosen.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def _chosen(self, parsed: argparse.Namespace) -> CommandParser:
        """The subcommand's parser that parsed ``parsed`` (this one when it has none)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = action.choices.get(str(getattr(parsed, action.dest, "")))
                if isinstance(chosen, CommandParser):
                    return chosen._chosen(parsed)
        return self

    def _suggestions(self) -> str:
        """`` (did you mean --flag for --flg?)``: for each given flag that is none of this
        parser's, the closest of its flags."""
        if any(isinstance(a, argparse._SubParsersAction) for a in self._actions):
            return ""  # the subcommand's flags are its own
        known = list(self._option_string_actions)
        hints = []
        for given in dict.fromkeys(self._given):
            flag = given.split("=", 1)[0]
            if flag.startswith("--") and flag not in known:
                hints += [f"{close} for {flag}"
                          for close in difflib.get_close_matches(flag, known, n=1, cutoff=0.6)]
        return f" (did you mean {', '.join(hints)}?)" if hints else ""

    def error(self, message: str) -> NoReturn:
        usage = self.format_usage()
        if usage.count("\n") > USAGE_LINES:
            positionals = "".join(f" {action.metavar or action.dest}"
                                  for action in self._get_positional_actions())
            usage = f"usage: {self.prog} [options]{positionals}  ({self.prog} --help lists them)\n"
        self.exit(2, f"{usage}{self.prog}: error: {message}{self._suggestions()}\n")


LOCK_VARIANT_HELP = (
    "combolock: its rewards - paper: the paper's text, 1 for the last good action, "
    "V* = 1; released: the authors' released code, 5 for the last good action, -1/(H-1) for "
    "each good action before it, the anti-shaped reward also at the last step, V* = 4 "
    "(default: paper)")
"""``--help`` of ``--lock-variant`` (:func:`kinematic.families.combination_lock`'s ``variant``),
shared by every command that builds the lock."""

EXOGENOUS_BITS_HELP = (
    "combolock: add K exogenous noise bits, each flipping with probability --flip at every "
    "step whatever the action (the temporal diabolical lock of microsoft/Intrepid); states "
    "and observations are then named like s2a|0101")
"""``--help`` of ``--exogenous-bits`` (:func:`kinematic.families.exogenous_combination_lock`'s
``bits``), shared by every command that builds the lock."""

FLIP_HELP = ("with --exogenous-bits: the probability that each bit flips at a step, exact "
             "('1/10' or '0.1') in [0, 1]; 1/2 makes the bits i.i.d. (default: 1/10, "
             "Intrepid's exo_flip_prob)")
"""``--help`` of ``--flip``."""


def flip_probability(text: str) -> Fraction:
    """argparse ``type=`` of ``--flip``: an exact number in [0, 1] (``"1/10"``, ``"0.1"``), read
    under the guards of spec numbers (:func:`kinematic.numbers.parse_exact`).

    >>> flip_probability("0.1")
    Fraction(1, 10)
    """
    try:
        value = parse_exact(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be a probability in [0, 1], got {text!r}")
    return value


def _threshold(text: str) -> Fraction:
    """argparse ``type=`` of ``--threshold``: an exact number in (0, 1] (``"1/2"``, ``"0.25"``),
    read under the guards of spec numbers (:func:`kinematic.numbers.parse_exact`)."""
    try:
        value = parse_exact(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1] (alpha lies in [0, 1]), "
                                         f"got {text!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="python -m kinematic",
        description="Exact ground truth of small Block MDPs (Misra et al., Sections 2-3).",
        formatter_class=DefaultsHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)

    analyze_cmd = commands.add_parser(
        "analyze", help="eta, eta_min, KI partitions, canonical form and V* of a JSON spec",
        description="Every exact quantity of Sections 2-3 for the Block MDP of a JSON spec: "
                    "eta and eta_min, the backward, forward and full KI partitions, the "
                    "canonical form and, when the spec has rewards, the optimal value V*; "
                    "for an exogenous Block MDP's spec, its endogenous partition too.",
        formatter_class=DefaultsHelpFormatter,
    )
    analyze_cmd.add_argument(
        "spec", type=Path,
        help="a Block MDP as a JSON file: name, horizon, actions, layers, start, transitions, "
             "optional emissions and rewards; or an exogenous Block MDP: 'endogenous' (such a "
             "spec) and 'exogenous' (values, start, transitions), or a spec with its "
             "'factorisation' (docs/guide/spec-format.md; 'python -m kinematic family' writes "
             "examples)")
    output = analyze_cmd.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true",
                        help="print one JSON object (blocks with their layer, numbers 'p/q')")
    output.add_argument("--markdown", action="store_true",
                        help="print Markdown tables: per layer, the partitions, the policies")
    output.add_argument("--latex", action="store_true",
                        help="print the same as LaTeX tables, and one of every state with eta "
                             "and V* (booktabs, tabularx, amsmath; names as math, exact numbers "
                             "as \\frac{p}{q})")
    analyze_cmd.add_argument(
        "--merged-only", action="store_true",
        help="with --markdown or --latex: the partitions table lists only the blocks of more "
             "than one state, and counts the singletons of each layer")
    analyze_cmd.add_argument(
        "--policies", action="store_true",
        help="include a deterministic homing policy for every state and, when the spec has "
             "rewards, an optimal policy (ties go to the action listed first in the spec)"
    )
    analyze_cmd.add_argument(
        "--atol", type=tolerance(), default=DEFAULT_ATOL,
        help=f"tolerance of float-mode specs: {tolerance().describe()}"
    )
    analyze_cmd.add_argument(
        "--eta-error", type=nonnegative(), default=None,
        help="float-mode specs: bound on the error of every eta (default: 1e-3 atol); a larger "
             "one ends inductions sooner (random MDPs of width 1000: 33 instead of 43 steps per "
             "target with atol / 2)"
    )

    family_cmd = commands.add_parser("family", help="write the spec of a named Block MDP",
                                     formatter_class=DefaultsHelpFormatter)
    family_cmd.add_argument("family", choices=["combolock", "figure2", "gymnasium"],
                            help="combolock: the combination lock of the paper's experiments; "
                                 "figure2: the canonical MDP of Figure 2 (--split: the split "
                                 "one); gymnasium: a gymnasium environment with a finite "
                                 "transition table (--env), unrolled to --horizon layers")
    family_cmd.add_argument("--horizon", type=at_least(1), default=10,
                            help="combolock, gymnasium: H")
    family_cmd.add_argument("--actions", type=at_least(2), default=10, help="combolock: K")
    family_cmd.add_argument("--seed", type=random_seed(), default=None,
                            help="combolock: seed of u, v (default: 0); gymnasium: seed of a "
                                 "random FrozenLake map (--env-arg map_name=null), which "
                                 "needs one")
    family_cmd.add_argument("--lock-variant", choices=LOCK_VARIANTS, default=None,
                            help=LOCK_VARIANT_HELP)
    family_cmd.add_argument("--exogenous-bits", type=at_least(1), default=None, metavar="K",
                            help=EXOGENOUS_BITS_HELP + " (default: none)")
    family_cmd.add_argument("--flip", type=flip_probability, default=None, metavar="P",
                            help=FLIP_HELP)
    family_cmd.add_argument(
        "--split", action="store_true", help="figure2: the split (non-canonical) MDP"
    )
    family_cmd.add_argument("--env", help="gymnasium: the environment id (FrozenLake-v1, "
                                          "FrozenLake8x8-v1, CliffWalking-v1, Taxi-v4)")
    family_cmd.add_argument("--env-arg", action="append", default=[], type=env_argument,
                            metavar="KEY=VALUE",
                            help="gymnasium: a keyword argument of gymnasium.make, the value "
                                 "read as JSON if it is JSON, else as text "
                                 "(is_slippery=false, map_name=8x8), each KEY once; "
                                 "repeatable (default: none)")
    family_cmd.add_argument("--allow-import", action="store_true",
                            help="gymnasium: accept an --env of the form module:id, for which "
                                 "gymnasium imports the module (from the working directory "
                                 "first) and runs its code")
    family_cmd.add_argument("--numbers", choices=["auto", "exact", "float"], default="auto",
                            help="gymnasium: exact rationals, floats, or exact when every "
                                 "number of the table is a simple fraction (default: auto)")
    family_cmd.add_argument("--out", type=Path,
                            help="file to write (default: standard output)")

    counter_cmd = commands.add_parser(
        "counterexamples", help="check the Section 5 counterexamples (exit 1 if one fails)",
        formatter_class=DefaultsHelpFormatter,
    )
    counter_cmd.add_argument("--json", action="store_true", help="print one JSON list")

    objectives_cmd = commands.add_parser(
        "objectives", help="solve the representation objectives (Section 5's and after) exactly "
        "on a spec and compare each with backward KI, KI and the endogenous partition",
        description="Solve each representation objective exactly on every layer from 2 of an "
                    "exact spec - its coarsest abstraction attaining the Bayes-optimal loss - "
                    "and compare it with backward KI, KI and, when the spec declares a "
                    "factorisation, the endogenous partition. Prints a Markdown table (a | in a "
                    "state name escaped), a legend and each objective's title and citation; "
                    "--json prints the same as one object.",
        formatter_class=DefaultsHelpFormatter,
    )
    objectives_cmd.add_argument("spec", type=Path, help="an exact kinematic JSON spec (one "
                                "declaring a factorisation adds the endogenous column)")
    objectives_cmd.add_argument("--objective", action="append", metavar="NAME",
                                help="an objective to solve (repeat for several; default: "
                                     "every one: inverse_dynamics, pcid_target, "
                                     "multistep_inverse_k2, multistep_inverse, "
                                     "ppe_path_prediction, forward_modelling, temporal_contrast, "
                                     "action_forward, ac_state, acdf)")
    objectives_cmd.add_argument("--blocks", action="store_true",
                                help="list every objective's classes on every layer under the "
                                     "table (always in --json)")
    objectives_cmd.add_argument("--json", action="store_true", help="print one JSON object")

    find_cmd = commands.add_parser(
        "find-counterexample", help="search for a minimal counterexample to an objective",
        formatter_class=DefaultsHelpFormatter,
    )
    find_cmd.add_argument("--objective", choices=["inverse_dynamics", "pcid_target"],
                          required=True, help="the representation-learning objective to refute")
    find_cmd.add_argument("--threshold", type=_threshold, default=Fraction(1, 2),
                          help="alpha below this is a failure: 'p/q' or a decimal in (0, 1]")
    find_cmd.add_argument("--max-examples", type=MAX_EXAMPLES, default=3000,
                          help=f"MDPs to generate, at most {MAX_EXAMPLES.high}")
    find_cmd.add_argument("--non-trivial", action="store_true",
                          help="count only failures where the objective learned something "
                               "(two classes on the failing layer, and a non-uniform posterior "
                               "on it and on every learned layer before it)")
    find_cmd.add_argument("--robust", action="store_true",
                          help="count only failures that hold with PSDP ties broken in every "
                               "state's favour (not only against it)")
    find_cmd.add_argument("--out", type=Path,
                          help="write the found spec here (default: only printed)")
    find_cmd.add_argument("--record", type=Path,
                          help="write the whole finding (spec, alphas, search time) here, as "
                               "stored in kinematic/counterexamples/found/ (default: not "
                               "written)")
    find_cmd.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


class CommandLine(Protocol):
    """A command line's ``main``: parses ``argv`` (``sys.argv[1:]`` when None), returns the
    exit status."""

    def __call__(self, argv: Sequence[str] | None = None) -> int: ...


def interruptible(command: CommandLine) -> CommandLine:
    """``command``, a command line's ``main``, ending on Ctrl-C with exit status 130 and one
    line on standard error instead of a traceback, and quietly with status 141 (a shell's
    SIGPIPE) when the reader of its output went away (``... | head``)."""
    @functools.wraps(command)
    def main(argv: Sequence[str] | None = None) -> int:
        try:
            return command(argv)
        except KeyboardInterrupt:
            print("error: interrupted before the command finished; rerun it to start again",
                  file=sys.stderr)
            return 130
        except BrokenPipeError:
            # Python flushes standard output again at exit: point it at /dev/null first.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 141
    return main


@interruptible
def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 on invalid input, 130 on Ctrl-C)."""
    args = _parser().parse_args(argv)
    from kinematic.commands import run_command  # after parsing: see the module's docstring

    return run_command(args)

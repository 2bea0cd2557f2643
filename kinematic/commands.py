"""What the subcommands of ``python -m kinematic`` do, once :mod:`kinematic.cli` has parsed
their arguments: this module imports what the work needs (the analysis, Hypothesis for the
counterexample search), which ``--help`` and argument errors never do."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from kinematic.analysis import analyze, format_report
from kinematic.analysis_tables import latex_report, markdown_report
from kinematic.errors import AmbiguousTolerance, InvalidBlockMDP
from kinematic.exogenous_spec import load_with_factorisation, to_compact_exogenous_spec
from kinematic.families import (
    combination_lock,
    exogenous_combination_lock,
    figure2_canonical,
    figure2_split,
)
from kinematic.gymnasium_family import gymnasium_family
from kinematic.hypothesis_files import hypothesis_files_in_user_cache
from kinematic.json_input import display_path
from kinematic.spec import dumps_spec

__all__ = ["run_command"]

_TABLES: dict[str, Callable[..., str]] = {"markdown": markdown_report, "latex": latex_report}
"""``analyze``'s output flags that print tables, which ``--merged-only`` applies to."""

_REPORTS: dict[str, Callable[[dict], str]] = {"json": json.dumps, **_TABLES}
"""``analyze``'s output flags and what they print; no flag prints :func:`format_report`."""


@contextmanager
def _warnings_as_lines(prefix: str) -> Iterator[None]:
    """Each warning as one line ``warning: <prefix><message>`` on standard error."""
    with warnings.catch_warnings():
        warnings.showwarning = lambda message, *_: print(
            f"warning: {prefix}{message}", file=sys.stderr, flush=True)
        yield


def _counterexamples(as_json: bool) -> int:
    from kinematic.counterexamples import all_counterexamples

    results = all_counterexamples()
    if as_json:
        print(json.dumps([r.as_json() for r in results]))
    else:
        for result in results:
            print(result)
    return 0 if all(r.holds for r in results) else 1


def _objectives(args: argparse.Namespace) -> int:
    from kinematic.counterexamples.objectives_table import objectives_table

    mdp, factorisation = load_with_factorisation(args.spec)
    if not mdp.mode.exact:
        raise ValueError(f"{display_path(args.spec)}: a probability is a float (the spec is read "
                         "in float mode); the exact objectives compare probabilities for "
                         "equality: write every one as a string such as \"1/3\"")
    table = objectives_table(factorisation or mdp, args.objective)
    print(json.dumps(table.as_json()) if args.json
          else table.markdown(blocks=args.blocks, legend=True))
    return 0


def _find(args: argparse.Namespace) -> int:
    from kinematic.counterexamples.search import find_counterexample

    with hypothesis_files_in_user_cache():
        found = find_counterexample(args.objective, args.threshold, args.max_examples,
                                    non_trivial=args.non_trivial, robust=args.robust)
    if found is None:
        print(f"no counterexample found in {args.max_examples} examples", file=sys.stderr)
        return 1
    if args.out:
        args.out.write_text(json.dumps(found.spec, indent=1) + "\n")
    if args.record:
        args.record.write_text(json.dumps(found.as_json(), indent=1) + "\n")
    if args.json:
        print(json.dumps(found.as_json()))
    else:
        print(f"found in {found.seconds:.1f} s: {found.states} states, {found.layers} layers; "
              f"worst-case alpha per layer {found.worst_case_alpha} (backward KI: "
              f"{found.backward_ki_alpha})")
        print(json.dumps(found.spec))
    return 0


def _analyze(args: argparse.Namespace) -> int:
    if args.merged_only and not any(getattr(args, flag) for flag in _TABLES):
        raise ValueError("--merged-only applies to --markdown and --latex only")
    mdp, factorisation = load_with_factorisation(args.spec, atol=args.atol)
    spec = display_path(args.spec)
    with _warnings_as_lines(f"{spec}: "):  # one line on stderr, then the work
        try:
            result = analyze(mdp if factorisation is None else factorisation,
                             policies=args.policies, eta_error=args.eta_error)
        except AmbiguousTolerance as error:
            raise AmbiguousTolerance(f"{spec}: {error}") from None
    chosen = [flag for flag in _REPORTS if getattr(args, flag)]
    if args.merged_only:
        print(_TABLES[chosen[0]](result, merged_only=True))
    else:
        print(_REPORTS[chosen[0]](result) if chosen else format_report(result))
    return 0


def _family(args: argparse.Namespace) -> int:
    for flag, value in (("--lock-variant", args.lock_variant),
                        ("--exogenous-bits", args.exogenous_bits), ("--flip", args.flip)):
        if value is not None and args.family != "combolock":
            raise ValueError(f"{flag} applies to family combolock only, not to "
                             f"family {args.family}")
    if args.flip is not None and args.exogenous_bits is None:
        raise ValueError("--flip applies with --exogenous-bits only (the probability that each "
                         "exogenous bit flips)")
    if args.family == "combolock":
        seed, variant = 0 if args.seed is None else args.seed, args.lock_variant or "paper"
        if args.exogenous_bits is not None:  # the compact form: the lock and the chain
            model = exogenous_combination_lock(
                args.horizon, args.actions, seed, args.exogenous_bits,
                "1/10" if args.flip is None else args.flip, variant=variant)
            return _write(args, json.dumps(to_compact_exogenous_spec(model), indent=1) + "\n")
        mdp = combination_lock(args.horizon, args.actions, seed, variant=variant)
    elif args.family == "gymnasium":
        with _warnings_as_lines(""):
            mdp = gymnasium_family(args)
    else:
        mdp = figure2_split() if args.split else figure2_canonical()
    return _write(args, dumps_spec(mdp) + "\n")


def _write(args: argparse.Namespace, text: str) -> int:
    """``family``'s spec to ``--out`` or standard output."""
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def run_command(args: argparse.Namespace) -> int:
    """Run the parsed command ``args.command``; its exit status (2 with one line on standard
    error for invalid input)."""
    try:
        if args.command == "counterexamples":
            return _counterexamples(args.json)
        if args.command == "find-counterexample":
            return _find(args)
        if args.command == "objectives":
            return _objectives(args)
        if args.command == "analyze":
            return _analyze(args)
        return _family(args)
    except BrokenPipeError:
        raise  # the reader went away: not an input error (kinematic.cli.interruptible)
    except (InvalidBlockMDP, AmbiguousTolerance, ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2

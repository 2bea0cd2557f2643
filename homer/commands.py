"""What the subcommands of ``python -m homer`` do, once :mod:`homer.cli` has parsed their
arguments: ``run``, ``compare``, ``evaluate``, ``sweep``, ``counterexamples`` and
``objectives`` (each
:data:`COMMANDS` entry takes the parsed arguments and returns the exit status), and what a
Ctrl-C left of each (:func:`after_interrupt`). This module imports scikit-learn and matplotlib,
which ``--help`` and argument errors never need; the modules that need torch (HOMER, its run
directories and what reads them) are imported by the commands that use them, so that ``homer
evaluate`` runs without torch."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import fields
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from threadpoolctl import threadpool_limits
from tqdm import tqdm

from homer.config import DEFAULT_TORCH_THREADS, HomerConfig
from homer.encoders import HadamardNoise
from homer.evaluate import Abstraction, evaluate_abstraction, exact_partitions
from homer.plots import (
    alpha_figure,
    confusion_figure,
    dynamics_figure,
    save_figure,
    visitation_figure,
)
from homer.policy_evaluation import evaluate_policies
from homer.reference_learners import REFERENCE_LEARNERS, default_capacity, reference_abstraction
from homer.safe_files import UnsafePathError, check_own_path, write_atomically
from homer.settings import OBJECTIVES_LOCK
from homer.summary import Evaluation, format_evaluation
from homer.sweep import (
    RECORDS,
    configuration_of,
    finished_records,
    horizon_figure,
    run_sweep,
    sweep_table,
)
from homer.sweep_figures import traces_figure, value_figure
from homer.sweep_verdicts import sweep_verdicts, verdict_grid, verdict_legend, verdict_table
from homer.user_code import flag_text, load_abstraction, load_policies
from kinematic.errors import InvalidBlockMDP, TooLarge, UnknownName
from kinematic.exogenous import ExogenousBlockMDP, endogenous_partition
from kinematic.exogenous_spec import load_with_factorisation
from kinematic.families import combination_lock, exogenous_combination_lock
from kinematic.json_input import display_path
from kinematic.lookup import find, unknown_name
from kinematic.model import BlockMDP
from kinematic.partition import Partition
from kinematic.spec import load_spec

if TYPE_CHECKING:
    from homer.compare import ComparisonReport

__all__ = ["COMMANDS", "COUNTEREXAMPLE_OUTPUTS", "EVALUATE_OUTPUTS", "OBJECTIVES_TABLE",
           "SWEEP_OUTPUTS", "after_interrupt", "show_warning"]

SWEEP_FIGURES = ("horizon", "value", "traces")
"""The figures of ``homer sweep`` (``fig:horizon-plot``, ``fig:value-function-plot``,
``fig:traces``), PNG and SVG."""
SWEEP_OUTPUTS = ("table.txt", "verdicts.md",
                 *(f"{figure}.{kind}" for figure in SWEEP_FIGURES for kind in ("png", "svg")))
"""The files ``homer sweep`` writes beside its records (checked before the sweep runs)."""
EVALUATE_PLOTS = ("confusion", "alpha")
"""The figures of ``homer evaluate --out`` (alpha only with ``--policies``), PNG and SVG."""
EVALUATE_OUTPUTS = ("report.json", "summary.txt",
                    *(f"{plot}.{kind}" for plot in EVALUATE_PLOTS for kind in ("png", "svg")))
"""The files ``homer evaluate --out`` writes (checked before the evaluation)."""
COUNTEREXAMPLE_OUTPUTS = ("table.txt", "table.json")
"""The files ``homer counterexamples`` writes beside its runs (checked before they run)."""
OBJECTIVES_TABLE = "table.md"
"""The table ``homer objectives`` writes beside its records (``<objective>.json``)."""



def show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                 file: TextIO | None = None, line: str | None = None) -> None:
    """``warnings.showwarning`` of every command: one line ``warning: <message>`` on standard
    error, and the command goes on; a progress bar on screen is cleared first and drawn again
    below the line (``tqdm.write``), so the line never runs into it."""
    tqdm.write(f"warning: {message}", file=sys.stderr)


def _cannot_write(error: OSError | ValueError, where: Path) -> int:
    """Print the one-line error of a failed write (naming the file, else ``where``); exit
    status 2."""
    if isinstance(error, OSError):
        message = f"{error.filename or where}: cannot write there ({error.strerror or error})"
    else:  # a symbolic link or a directory where a file is written
        message = str(error)
    print(f"error: {message}", file=sys.stderr)
    return 2


def _write_comparison(out: Path, report: ComparisonReport, mdp: BlockMDP,
                      summary: str) -> dict[str, Any]:
    """Write the plots, ``report.json`` and ``summary.txt`` into ``out``; the report's JSON
    document (with the plots' paths)."""
    from homer.run_directory import COMPARE_PLOTS

    out.mkdir(parents=True, exist_ok=True)
    figures = {"visitation": visitation_figure(report, mdp),
               "dynamics": dynamics_figure(report, mdp), "alpha": alpha_figure(report),
               "confusion": confusion_figure(report)}
    paths = [str(p) for name in COMPARE_PLOTS for p in save_figure(figures[name], out / name)]
    document = {**report.to_json(), "plots": paths}
    write_atomically(out / "report.json", json.dumps(document, indent=1))
    write_atomically(out / "summary.txt", summary + "\n")
    return document


def _compared_spec(args: argparse.Namespace
                   ) -> tuple[BlockMDP | None, ExogenousBlockMDP | None]:
    """``homer compare --spec``'s Block MDP (None without: the run's ``mdp.json``) and the
    factorisation the spec declares (None without ``--spec``: the run's recorded one is read
    once the run is loaded); with ``--against endogenous`` a spec that declares none is
    refused."""
    if args.spec is None:
        return None, None
    return _spec_and_factorisation(args)


def _spec_and_factorisation(args: argparse.Namespace
                            ) -> tuple[BlockMDP, ExogenousBlockMDP | None]:
    """``--spec``'s Block MDP and the factorisation it declares (None if it declares none; with
    ``--against endogenous`` that is refused, naming both flags)."""
    mdp, factorisation = load_with_factorisation(args.spec)
    if args.against is not None and factorisation is None:
        raise ValueError(
            f"--against {args.against}: --spec {display_path(args.spec)} declares no "
            "factorisation, so it has no endogenous partition; give the spec of an exogenous "
            "Block MDP ('endogenous' and 'exogenous', or a Block MDP with its 'factorisation': "
            "docs/guide/spec-format.md)")
    return mdp, factorisation


def _recorded(mdp: BlockMDP, required: bool) -> ExogenousBlockMDP | None:
    """The factorisation a run of ``homer run --env combolock --exogenous-bits`` records
    (:func:`homer.compare.recorded_factorisation`); for any other run None, or, when
    ``--against endogenous`` asked for it, the ``ValueError`` saying why there is none."""
    from homer.compare import recorded_factorisation

    try:
        return recorded_factorisation(mdp)
    except ValueError:
        if required:
            raise
        return None


def _compare(args: argparse.Namespace) -> int:
    """``homer compare``: the run directory and the output directory are checked before the
    comparison (no symbolic links where files are expected, ``--out`` not a file); if writing
    fails, the comparison is still printed before the error."""
    from homer.artefacts import load_run
    from homer.compare import compare_run, format_summary
    from homer.process_state import process_state
    from homer.run_directory import COMPARE_DIRECTORY, check_compare_outputs, check_run_directory

    out = args.out or args.run_dir / COMPARE_DIRECTORY
    try:
        check_run_directory(args.run_dir)
        check_compare_outputs(out)
        mdp, factorisation = _compared_spec(args)
        artefacts = load_run(args.run_dir, mdp, f"--spec {display_path(args.spec)}")
        if factorisation is None:
            factorisation = _recorded(artefacts.mdp, required=args.against is not None)
        with process_state(DEFAULT_TORCH_THREADS):  # the threads of a run
            report = compare_run(artefacts, args.samples, args.transitions, args.seed,
                                 progress=lambda steps: tqdm(steps, desc="comparing",
                                                             unit="step", disable=args.json),
                                 merge_threshold=args.merge_threshold,
                                 endogenous=None if factorisation is None
                                 else endogenous_partition(factorisation))
    except (InvalidBlockMDP, FileNotFoundError, ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    summary = format_summary(report)
    try:
        document = _write_comparison(out, report, artefacts.mdp, summary)
    except (OSError, ValueError) as error:
        print(json.dumps(report.to_json()) if args.json else summary)  # computed: not lost
        return _cannot_write(error, out)
    if args.json:
        print(json.dumps(document))
    else:
        print(summary)
        print("report: " + str(out / "report.json"))
        print("plots: " + ", ".join(p for p in document["plots"] if p.endswith(".png")))
    return 0


def _evaluate_abstraction(args: argparse.Namespace, mdp: BlockMDP, encoder: HadamardNoise,
                          ki: Partition) -> tuple[Abstraction, int | None]:
    """``--abstraction``: a reference learner by name (with its capacity) or the user's
    function."""
    if ":" not in args.abstraction and not args.abstraction.endswith(".py"):
        name = args.abstraction
        try:
            find(REFERENCE_LEARNERS, name, "reference learner", "--abstraction")
        except UnknownName as error:
            raise UnknownName(f"{error}; or give your own function as MODULE:FUNCTION or "
                              "path/to/file.py:FUNCTION") from None
        if name == "oracle" and args.capacity is not None:
            raise ValueError("--capacity: the oracle has no capacity (it gives every latent "
                             "state its own class)")
        capacity = None if name == "oracle" else args.capacity or default_capacity(mdp, ki)
        return reference_abstraction(name, mdp, encoder, capacity, args.seed), capacity
    if args.capacity is not None:
        raise ValueError(f"--capacity applies to the reference learners random, kmeans and "
                         f"pca-kmeans, not to {flag_text('--abstraction', args.abstraction)}")
    return load_abstraction(args.abstraction, "--abstraction", mdp), None


def _evaluated_spec(args: argparse.Namespace) -> tuple[BlockMDP, Partition | None]:
    """``--spec``'s Block MDP and the endogenous partition of the factorisation it declares
    (:mod:`kinematic.exogenous_spec`; None if it declares none, refused under ``--against
    endogenous``)."""
    mdp, factorisation = _spec_and_factorisation(args)
    return mdp, None if factorisation is None else endogenous_partition(factorisation)


def _write_evaluation(out: Path, evaluation: Evaluation, summary: str) -> dict[str, Any]:
    """Write the plots, ``report.json`` and ``summary.txt`` into ``out``; the report's JSON
    document (with the plots' paths)."""
    out.mkdir(parents=True, exist_ok=True)
    figures = {"confusion": confusion_figure(evaluation.report, learned="phi")}
    if evaluation.cover is not None:
        figures["alpha"] = alpha_figure(evaluation.cover, label="the given policies")
    paths = [str(p) for name, figure in figures.items() for p in save_figure(figure, out / name)]
    if evaluation.cover is None:  # an earlier run's plot of its policies would stay beside
        for stale in (out / "alpha.png", out / "alpha.svg"):
            if stale.is_file() and not stale.is_symlink():
                stale.unlink()
    document = {**evaluation.to_json(), "plots": paths}
    write_atomically(out / "report.json", json.dumps(document, indent=1))
    write_atomically(out / "summary.txt", summary + "\n")
    return document


def _evaluate(args: argparse.Namespace) -> int:
    """``homer evaluate``: the output directory is checked before any work (not a file, no
    symbolic link or directory where a file of ``EVALUATE_OUTPUTS`` goes); if writing fails,
    the evaluation is still printed before the error. numpy's BLAS computes with the threads
    of a run (:data:`homer.config.DEFAULT_TORCH_THREADS`), as ``homer compare`` does; torch is
    not imported, so :func:`homer.process_state.process_state` is not used."""
    try:
        if args.out is not None:
            if args.out.exists() and not args.out.is_dir():
                raise UnsafePathError(f"--out {args.out} is a file, not a directory")
            for name in EVALUATE_OUTPUTS:
                check_own_path(args.out / name)
        mdp, endogenous = _evaluated_spec(args)
        encoder = HadamardNoise(args.noise_variance, args.encoding, args.layout)
        with threadpool_limits(limits=DEFAULT_TORCH_THREADS):  # the threads of a run
            partitions = exact_partitions(mdp, endogenous)
            phi, capacity = _evaluate_abstraction(args, mdp, encoder, partitions["ki"])
            policies = (None if args.policies is None
                        else load_policies(args.policies, "--policies", mdp))
            report = evaluate_abstraction(mdp, phi, encoder, args.samples, args.seed,
                                          name=flag_text("--abstraction", args.abstraction),
                                          partitions=partitions,
                                          merge_threshold=args.merge_threshold)
            cover = (None if policies is None
                     else evaluate_policies(mdp, policies, encoder, args.samples, args.seed))
    except (InvalidBlockMDP, ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    evaluation = Evaluation(args.abstraction, capacity, report, cover, args.policies)
    summary = format_evaluation(evaluation)
    document = evaluation.to_json()
    if args.out is not None:
        try:
            document = _write_evaluation(args.out, evaluation, summary)
        except (OSError, ValueError) as error:
            print(json.dumps(document) if args.json else summary)  # computed: not lost
            return _cannot_write(error, args.out)
    if args.json:
        print(json.dumps(document))
        return 0
    print(summary)
    if args.out is not None:
        print("report: " + str(args.out / "report.json"))
        print("plots: " + ", ".join(p for p in document["plots"] if p.endswith(".png")))
    return 0


def _sweep(args: argparse.Namespace) -> int:
    """``homer sweep``: runs the missing tasks, prints the table and the verdicts against the
    paper, and writes them (``table.txt``, ``verdicts.md``) and the figures
    (:data:`SWEEP_FIGURES`) into ``--out``. The table and the figures are of this command's
    tasks; the verdicts judge every finished task of ``--out`` (each seed once) and this
    command's failed ones."""
    def report(record: dict) -> None:
        outcome = (f"value {record['value']:.3f}, {record['episodes']} episodes"
                   if record["status"] == "done"
                   else "FAILED twice:\n" + record["error"])
        print(f"{record['algorithm']} {record['variant']} H={record['horizon']} "
              f"seed={record['seed']} ({configuration_of(record)}): {outcome}", flush=True)

    try:
        for name in SWEEP_OUTPUTS:
            check_own_path(args.out / name)
        records = run_sweep(args.algorithms.split(","), args.horizons, args.seeds,
                            args.budget, args.out, args.executor, args.address, args.workers,
                            on_record=report, variants=args.lock_variants,
                            encoding=args.encoding, learning_rates=args.learning_rates,
                            intrinsic_coefficients=args.intrinsic_coefficients)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    table = sweep_table(records)
    judged = [*finished_records(args.out), *(r for r in records if r["status"] == "failed")]
    cells = sweep_verdicts(judged, args.lock_variants, args.encoding)
    grid, verdicts = verdict_grid(cells), verdict_table(cells)
    legend = verdict_legend(args.encoding)
    print(table)
    print()
    print(legend)
    print()
    print(grid)
    print()
    print(verdicts.splitlines()[-1])  # the open cells and their projected cost
    print(f"every cell in detail: {args.out / 'verdicts.md'}")
    figures = {"horizon": horizon_figure, "value": value_figure, "traces": traces_figure}
    try:
        write_atomically(args.out / "table.txt", table + "\n")
        write_atomically(args.out / "verdicts.md", f"{legend}\n\n{grid}\n\n{verdicts}\n")
        paths = [save_figure(figures[name](records), args.out / name)[0]
                 for name in SWEEP_FIGURES]
    except (OSError, ValueError) as error:
        return _cannot_write(error, args.out)
    print("plots: " + ", ".join(map(str, paths)))
    return 1 if any(r["status"] == "failed" for r in records) else 0


def _counterexamples(args: argparse.Namespace) -> int:
    from homer.counterexamples import as_predicted, counterexample_table, run_counterexamples

    names = None if args.cases is None else args.cases.split(",")
    try:
        for name in COUNTEREXAMPLE_OUTPUTS:
            check_own_path(args.out / name)
        base = HomerConfig(transitions=args.transitions, max_transitions=args.transitions)
        rows = run_counterexamples(
            args.out, base, seed=args.seed, names=names,
            progress=lambda line: None if args.json else print(line, flush=True))
    except TooLarge as error:  # names HomerConfig's flags, of which this command has one
        print(f"error: {error} (here --transitions {args.transitions} sets both transitions "
              "and max_transitions)", file=sys.stderr)
        return 2
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    table = counterexample_table(rows)
    print(json.dumps(rows) if args.json else table)
    try:
        write_atomically(args.out / "table.txt", table + "\n")
        write_atomically(args.out / "table.json", json.dumps(rows, indent=1) + "\n")
    except (OSError, ValueError) as error:
        return _cannot_write(error, args.out)
    return 0 if all(as_predicted(row) for row in rows) else 1


def _objectives(args: argparse.Namespace) -> int:
    from homer.learned_objectives import (
        LEARNED_OBJECTIVES,
        objectives_table,
        run_objectives,
        run_objectives_on,
    )

    objectives = list(dict.fromkeys(args.objective or LEARNED_OBJECTIVES))
    unknown = [name for name in objectives if name not in LEARNED_OBJECTIVES]
    if unknown:
        print(f"error: {unknown_name('objective', unknown[0], LEARNED_OBJECTIVES, '--objective')}",
              file=sys.stderr)
        return 2
    lock_flags = {"horizon": "--horizon", "actions": "--actions",
                  "exogenous_bits": "--exogenous-bits", "flip": "--flip",
                  "lock_seed": "--lock-seed"}
    model = None
    if args.spec is not None:
        given = [flag for name, flag in lock_flags.items() if getattr(args, name) is not None]
        if given:
            print(f"error: {given[0]} sets the exogenous lock; with --spec the spec is the MDP",
                  file=sys.stderr)
            return 2
        try:
            mdp, factorisation = load_with_factorisation(args.spec)
        except (InvalidBlockMDP, ValueError, OSError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        if not mdp.mode.exact:
            print(f"error: --spec {display_path(args.spec)}: a probability is a float (the spec "
                  "is read in float mode); the learned rows are judged against exact solutions: "
                  "write every probability as a string such as \"1/3\"", file=sys.stderr)
            return 2
        model = factorisation or mdp
    lock: dict[str, Any] = {name: default if getattr(args, name) is None else getattr(args, name)
                            for name, default in OBJECTIVES_LOCK.items()}
    lock["flip"] = Fraction(str(lock["flip"]))
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # a file where the directory goes
        return _cannot_write(error, args.out)
    try:
        for name in [OBJECTIVES_TABLE, *(f"{objective}.json" for objective in objectives)]:
            check_own_path(args.out / name)
        rows = []
        for objective in objectives:
            if not args.json:
                print(f"{objective}: learning ...", flush=True)
            settings = {"episodes": args.episodes, "num_samples": args.num_samples,
                        "capacity": args.capacity, "samples": args.samples,
                        "merge_threshold": args.merge_threshold}
            [row] = (run_objectives_on(model, args.seed, [objective], **settings)
                     if model is not None else
                     run_objectives(lock["horizon"], lock["actions"], lock["exogenous_bits"],
                                    lock["flip"], args.seed, args.lock_seed, [objective],
                                    **settings))
            rows.append(row)
            write_atomically(args.out / f"{objective}.json", json.dumps(row, indent=1) + "\n")
            if not args.json:
                print(f"{objective}: {row['seconds']} s; {args.out / (objective + '.json')}",
                      flush=True)
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    table = objectives_table(rows)
    try:
        write_atomically(args.out / OBJECTIVES_TABLE, table + "\n")
    except (OSError, ValueError) as error:
        return _cannot_write(error, args.out)
    print(json.dumps(rows) if args.json else table)
    return 0


def _run(args: argparse.Namespace) -> int:
    from homer.algorithm import run_homer

    try:
        config = HomerConfig(**{f.name: getattr(args, f.name) for f in fields(HomerConfig)})
        bits = args.exogenous_bits
        layout = args.layout or ("one-hot" if bits is None else "exogenous-bits")
        encoder = HadamardNoise(args.noise_variance, args.encoding, layout)
        if args.flip is not None and bits is None:
            raise ValueError("--flip applies with --exogenous-bits only (the probability that "
                             "each exogenous bit flips)")
        if args.env:
            lock_seed = args.seed if args.lock_seed is None else args.lock_seed
            variant = args.lock_variant or "paper"
            # before building a lock that cannot run
            encoder.check_fits(3 + (bits or 0) if layout == "exogenous-bits"
                               else 3 * 2 ** (bits or 0), args.horizon)
            mdp = (combination_lock(args.horizon, args.actions, lock_seed, variant=variant)
                   if bits is None else exogenous_combination_lock(
                       args.horizon, args.actions, lock_seed, bits,
                       "1/10" if args.flip is None else args.flip, variant).mdp)
        elif args.lock_variant is not None:
            raise ValueError("--lock-variant applies to --env combolock only; a --spec file "
                             "holds its own rewards")
        elif bits is not None:
            raise ValueError("--exogenous-bits applies to --env combolock only; a --spec file "
                             "holds its own MDP")
        else:
            mdp = load_spec(args.spec)
        result = run_homer(mdp, args.out, config, seed=args.seed,
                           encoder=encoder, sample_rewards=not args.expected_rewards,
                           resume=args.resume, force=args.force, progress=not args.json)
    except (InvalidBlockMDP, FileExistsError, ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    summary = result.summary()
    if args.json:
        print(json.dumps(summary))
    else:
        # The value is a sample mean (it can exceed the optimum); compare computes it exactly.
        print(f"HOMER on {display_path(mdp.name)}: value {summary['value']:.3f} estimated over "
              f"{config.evaluation_episodes:,} evaluation episodes (optimal "
              f"{summary['optimal_value']:.3f}; exact: homer compare), {summary['episodes']:,} "
              f"learning episodes, {summary['seconds']:.1f} s; artefacts in "
              f"{summary['run_dir']}")
    return 0


def after_interrupt(args: argparse.Namespace) -> str:
    """What a Ctrl-C left of the command's work, and how to go on (only ``run``'s answer
    imports its run directory's module, and with it torch)."""
    if args.command == "run":
        from homer.run_directory import CHECKPOINT

        instead = " instead of --force" if args.force else ""
        if not (args.out / CHECKPOINT).is_file():
            return (f"no time step was completed yet: rerun the same command with "
                    f"--resume{instead} to start again in {args.out}")
        return (f"the time steps completed so far are saved in {args.out} ({CHECKPOINT}): "
                f"rerun the same command with --resume{instead} to continue")
    if args.command == "sweep":
        return (f"the finished runs are kept in {args.out / RECORDS}: rerun the same command "
                "to run the others")
    if args.command == "objectives":
        return (f"the records of the objectives finished are in {args.out}; rerun the same "
                "command to learn them all again")
    if args.command == "counterexamples":
        return (f"the table was not written; rerun the same command (its runs in {args.out} "
                "start afresh)")
    return "the report was not written (or not completely); rerun the same command"



COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "run": _run, "compare": _compare, "evaluate": _evaluate, "sweep": _sweep,
    "counterexamples": _counterexamples, "objectives": _objectives}
"""Each subcommand's work: parsed arguments -> exit status."""

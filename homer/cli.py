"""``python -m homer run ...``: HOMER on the combination lock or on any spec, with rich
observations (the hyperparameter flags are generated from :class:`homer.config.HomerConfig`);
``python -m homer compare RUN_DIR``: the run against the exact answers (:mod:`homer.compare`),
written to ``RUN_DIR/compare`` as ``report.json``, ``summary.txt`` and the plots;
``python -m homer evaluate --spec SPEC --abstraction ...``: any abstraction (a reference
learner, or the user's ``phi(observations, step)``) and policy cover against the exact answers
of a spec (:mod:`homer.evaluate`, :mod:`homer.summary`); ``python -m homer sweep ...``: the
horizon sweep of the baselines and HOMER (:mod:`homer.sweep`);
``python -m homer counterexamples --out DIR``: Section 5's failing objectives and HOMER on the
same MDPs against the exact truth (:mod:`homer.counterexamples`); ``run --objective`` runs one
of those objectives alone (:mod:`homer.objectives`); ``python -m homer objectives --out DIR``:
the multi-step inverse objective and PPE learned on the exogenous lock and scored against KI
and the endogenous partition (:mod:`homer.learned_objectives`).

This module only parses: it imports no torch, scikit-learn or matplotlib (only the settings'
definitions: :mod:`homer.config`, :mod:`homer.settings`, :mod:`homer.encoders`), so ``--help``
and argument errors answer in a fraction of a second (``tests/test_cli_startup.py``,
``benchmarks/cli_startup.py``). The commands' work is in :mod:`homer.commands`, imported once
the arguments are valid; within it, the modules that need torch (HOMER, its run directories and
what reads them) are imported by the commands that use them, so that ``homer evaluate`` runs
without torch."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import fields
from pathlib import Path

from homer.config import OBJECTIVES, RANGES, HomerConfig
from homer.encoders import DEFAULT_NOISE_VARIANCE, ENCODINGS, LAYOUTS
from homer.settings import (
    DEFAULT_INTRINSIC_COEFFICIENT,
    DEFAULT_LEARNING_RATE,
    EVALUATE_AGAINST,
    LEARNED_OBJECTIVES,
    MERGE_THRESHOLD,
    MERGE_THRESHOLDS,
    MULTISTEP_EPISODES,
    OBJECTIVES_LOCK,
    PPE_SAMPLES,
    REFERENCE_CAPACITY,
    REFERENCE_LEARNERS,
)
from homer.wording import command_line_wording, flag_of
from kinematic.arguments import NumberRange, at_least, nonnegative, positive, random_seed
from kinematic.cli import (
    EXOGENOUS_BITS_HELP,
    FLIP_HELP,
    LOCK_VARIANT_HELP,
    CommandParser,
    DefaultsHelpFormatter,
    flip_probability,
)
from kinematic.families import LOCK_VARIANTS

__all__ = ["MAX_BUDGET", "MAX_SEEDS", "MAX_WORKERS", "main"]

MAX_SEEDS = 1000
"""Most seeds of a sweep: 200 times the paper's 5 (a sweep's tasks are listed, and run,
before anything else: a typo of a few zeros would fill the memory with tasks first)."""
MAX_BUDGET = 10**9
"""Most episodes of one PPO / A2C run: 100 times the paper's 10^7."""
MAX_WORKERS = 64
"""Most processes of the local executor (each imports torch and HOMER: 343 MiB resident
before any work, measured on the development machine)."""


def _output_path(text: str) -> Path:
    """argparse type of ``--out``: a non-empty path (``''`` would write into the working
    directory)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"must be a non-empty path, got {text!r}")
    return Path(text)


def _horizons(text: str) -> list[int]:
    """argparse type of ``--horizons``: ``'3,6,12'`` -> ``[3, 6, 12]``."""
    return [at_least(1)(part) for part in text.split(",")]


MERGE_THRESHOLD_HELP = ("a pair of exact classes C, D is a wrong merge when its merge rate - "
                        "the largest share of both C's and D's encodings that one learned class "
                        "holds - exceeds it; " + MERGE_THRESHOLDS.describe())

ENCODING_HELP = ("the observation encoder's matrix: authors (the +-1 Sylvester Hadamard matrix "
                 "of the paper's footnote and the authors' code; noise on the m + H + 1 "
                 "one-hot coordinates) or orthonormal (the same matrix divided by sqrt(d), noise "
                 "on m + H coordinates: every run written before encodings were named)")


LAYOUT_HELP = ("what the vector before the matrix holds: one-hot (a coordinate per observation "
               "of a layer) or exogenous-bits (observations named like s2a|0101: the one-hot "
               "of s2a among the layer's endogenous observations, then the bits as "
               "coordinates, as Intrepid's exogenous lock)")


def _numbers(check: NumberRange[float], what: str) -> Callable[[str], list[float]]:
    """argparse type of a comma list of numbers each within ``check``: ``'0.01,0.001'`` ->
    ``[0.01, 0.001]``; an error names the value (``what``: e.g. ``'learning rate'``)."""
    def parse(text: str) -> list[float]:
        values = []
        for part in text.split(","):
            try:
                values.append(check(part))
            except argparse.ArgumentTypeError as error:
                raise argparse.ArgumentTypeError(f"{what} {part!r}: {error}") from None
        return values
    return parse


def _lock_variants(text: str) -> list[str]:
    """argparse type of ``--lock-variants``: ``'paper,released'`` -> ``['paper', 'released']``."""
    variants = text.split(",")
    unknown = [v for v in variants if v not in LOCK_VARIANTS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown lock variant {unknown[0]!r}; known: "
                                         f"{', '.join(LOCK_VARIANTS)}")
    return variants


def _parser() -> argparse.ArgumentParser:
    parser = CommandParser(prog="python -m homer",
                                     description="HOMER on rich-observation Block MDPs.")
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name: str, text: str, description: str | None = None
                ) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=text, description=description,
                                   formatter_class=DefaultsHelpFormatter)

    run = command("run", "run HOMER and write its artefacts to --out")
    source = run.add_mutually_exclusive_group(required=True)
    source.add_argument("--env", choices=["combolock"], help="the diabolical combination lock")
    source.add_argument("--spec", type=Path, help="a kinematic JSON spec")
    run.add_argument("--horizon", type=at_least(1), default=10, help="combolock: H")
    run.add_argument("--actions", type=at_least(2), default=10, help="combolock: K")
    run.add_argument("--lock-seed", type=random_seed(), default=None,
                     help="combolock: seed of the good actions (default: the value "
                          "of --seed)")
    run.add_argument("--lock-variant", choices=LOCK_VARIANTS, default=None,
                     help=LOCK_VARIANT_HELP)
    run.add_argument("--exogenous-bits", type=at_least(1), default=None, metavar="K",
                     help=EXOGENOUS_BITS_HELP + ", and the rich observations carry the bits "
                          "as K coordinates beside the endogenous one-hot (--layout "
                          "exogenous-bits) (default: none)")
    run.add_argument("--flip", type=flip_probability, default=None, metavar="P", help=FLIP_HELP)
    run.add_argument("--seed", type=random_seed(), default=0, help="seed of the run")
    run.add_argument("--noise-variance", type=nonnegative(),
                     default=DEFAULT_NOISE_VARIANCE,
                     help="variance of the Gaussian noise of the encoder")
    run.add_argument("--encoding", choices=ENCODINGS, default="authors", help=ENCODING_HELP)
    run.add_argument("--layout", choices=LAYOUTS, default=None,
                     help=LAYOUT_HELP + " (default: exogenous-bits with --exogenous-bits, else "
                                        "one-hot)")
    run.add_argument("--expected-rewards", action="store_true",
                     help="give the agent each reward's expected value instead of drawing "
                          "stochastic rewards from their distribution")
    run.add_argument("--out", type=_output_path, required=True, help="run directory")
    reuse = run.add_mutually_exclusive_group()
    reuse.add_argument("--resume", action="store_true", help="continue a stopped run in --out")
    reuse.add_argument("--force", action="store_true",
                       help="replace the run in --out (its artefacts are deleted)")
    run.add_argument("--json", action="store_true", help="last line: one JSON summary")
    compare = command("compare", "compare a run with the exact answers")
    compare.add_argument("run_dir", type=Path, help="directory written by 'run'")
    compare.add_argument("--spec", type=Path, default=None,
                         help="the run's MDP (default: RUN_DIR/mdp.json)")
    compare.add_argument("--samples", type=at_least(1), default=500,
                         help="encodings per latent observation")
    compare.add_argument("--transitions", type=at_least(1), default=2000,
                         help="transitions per step for the recovered dynamics")
    compare.add_argument("--seed", type=random_seed(), default=0,
                         help="seed of the sampling")
    compare.add_argument("--merge-threshold", type=MERGE_THRESHOLDS, default=MERGE_THRESHOLD,
                         help=MERGE_THRESHOLD_HELP)
    compare.add_argument("--against", choices=EVALUATE_AGAINST, default=None,
                         help="also score phi-bar against this exact partition: endogenous, "
                              "the endogenous partition of an exogenous Block MDP, whose "
                              "factorisation --spec declares or, without --spec, the run "
                              "records (a run of --env combolock --exogenous-bits); refused "
                              "when there is none (default: endogenous whenever there is one, "
                              "else the KI partitions only)")
    compare.add_argument("--out", type=_output_path, default=None,
                         help="directory of the report and the plots (default: "
                              "RUN_DIR/compare)")
    compare.add_argument("--json", action="store_true", help="last line: report.json")
    evaluate = command(
        "evaluate", "score any abstraction (and policy cover) against the exact answers of a "
                    "spec, without a HOMER run",
        "Score a state abstraction phi(observations, step) -> classes - a reference learner, or "
        "a function of yours - on fresh encodings of every latent observation of --spec: its "
        "wrong merges and splits against the exact backward-KI, forward-KI and KI partitions, "
        "and its pairwise agreement with the latent states; with --policies, a policy cover's "
        "alpha against eta and each policy's exact value against V*. No HOMER run and no torch "
        "needed. From Python the same is homer.evaluate.evaluate_abstraction(mdp, phi) and "
        "homer.policy_evaluation.evaluate_policies(mdp, policies), torch-free too.")
    evaluate.add_argument("--spec", type=Path, required=True, help="a kinematic JSON spec")
    evaluate.add_argument("--abstraction", required=True, metavar="NAME|MODULE:FUNCTION",
                          help="a reference learner (" + ", ".join(REFERENCE_LEARNERS) + ") or "
                               "MODULE:FUNCTION / path/to/file.py:FUNCTION, a function "
                               "phi(observations, step) -> classes (also given the --spec "
                               "MDP as mdp= if it has a parameter mdp)")
    evaluate.add_argument("--policies", default=None, metavar="MODULE:NAME",
                          help="MODULE:NAME / path/to/file.py:NAME: a list of policies "
                               "pi(observations, step) -> actions, a dict step -> list, or a "
                               "function of the BlockMDP returning one (default: no cover "
                               "scored)")
    evaluate.add_argument("--capacity", type=REFERENCE_CAPACITY, default=None,
                          help="classes of the reference learners random, kmeans and "
                               "pca-kmeans, " + REFERENCE_CAPACITY.describe() + " (default: the "
                               "most KI classes of a step)")
    evaluate.add_argument("--samples", type=at_least(1), default=500,
                          help="encodings per latent observation")
    evaluate.add_argument("--seed", type=random_seed(), default=0,
                          help="seed of the encodings and of the reference learners")
    evaluate.add_argument("--merge-threshold", type=MERGE_THRESHOLDS, default=MERGE_THRESHOLD,
                          help=MERGE_THRESHOLD_HELP)
    evaluate.add_argument("--against", choices=EVALUATE_AGAINST, default=None,
                          help="also score against this exact partition: endogenous, the "
                               "endogenous partition of an exogenous Block MDP, whose --spec "
                               "declares the factorisation; refused when it declares none "
                               "(default: endogenous whenever --spec declares one, else the KI "
                               "partitions only)")
    evaluate.add_argument("--noise-variance", type=nonnegative(),
                          default=DEFAULT_NOISE_VARIANCE,
                          help="variance of the Gaussian noise of the encoder")
    evaluate.add_argument("--encoding", choices=ENCODINGS, default="authors",
                          help=ENCODING_HELP)
    evaluate.add_argument("--layout", choices=LAYOUTS, default="one-hot", help=LAYOUT_HELP)
    evaluate.add_argument("--json", action="store_true",
                          help="print report.json instead of the summary")
    evaluate.add_argument("--out", type=_output_path, default=None, metavar="DIR",
                          help="directory for summary.txt, report.json and the plots (default: "
                               "nothing written)")
    sweep = command("sweep", "algorithms x horizons x seeds on the lock")
    sweep.add_argument("--algorithms", default="homer,ppo,ppo_rnd,a2c,a2c_rnd,pcid",
                       help="comma-separated algorithms")
    sweep.add_argument("--horizons", type=_horizons, default="3,6,12,25,50,100",
                       help="comma-separated horizons, each an int >= 1")
    sweep.add_argument("--lock-variants", type=_lock_variants, default="paper",
                       help="comma-separated locks: paper (Section 7's, V* = 1) and/or "
                            "released (the authors' released code: final reward 5, step "
                            "penalty -1/(H-1), V* = 4)")
    sweep.add_argument("--seeds", type=NumberRange(int, low=1, high=MAX_SEEDS), default=5,
                       help=f"seeds 0 .. SEEDS-1 (at most {MAX_SEEDS:,}; the paper: 5)")
    sweep.add_argument("--budget", type=NumberRange(int, low=1, high=MAX_BUDGET),
                       default=100_000, help=f"episodes per PPO / A2C run (at most "
                                             f"{MAX_BUDGET:,}; the paper: 10^7)")
    sweep.add_argument("--encoding", choices=ENCODINGS, default="authors",
                       help=ENCODING_HELP + "; the verdicts judge the records of this encoding")
    sweep.add_argument("--learning-rates", type=_numbers(positive(), "learning rate"),
                       default=str(DEFAULT_LEARNING_RATE),
                       help="comma-separated learning rates of PPO / A2C (+RND), each a task "
                            "(tab:ppo-hyperparam's; the paper's search: 0.01,0.001,0.0001)")
    sweep.add_argument("--intrinsic-coefficients",
                       type=_numbers(nonnegative(), "intrinsic coefficient"),
                       default=f"{DEFAULT_INTRINSIC_COEFFICIENT:g}",
                       help="comma-separated intrinsic reward coefficients of the RND "
                            "algorithms only, each a task with each learning rate (the "
                            "paper's search: 1,10,100,500)")
    sweep.add_argument("--out", type=_output_path, required=True, help="sweep directory")
    sweep.add_argument("--executor", choices=["ray", "local"], default="ray",
                       help="where the runs go: a Ray cluster or local processes")
    sweep.add_argument("--address", default=None,
                       help="Ray cluster: auto or HOST:PORT (default: a local Ray instance)")
    sweep.add_argument("--workers", type=NumberRange(int, low=1, high=MAX_WORKERS), default=2,
                       help=f"local executor: processes (at most {MAX_WORKERS}; each imports "
                            "torch)")
    counter = command(
        "counterexamples",
        "Section 5 learned: each failing objective and HOMER on the same MDPs, both compared "
        "with the exact truth (exit 1 if a row is not as predicted)")
    counter.add_argument("--out", type=_output_path, required=True,
                         help="directory for the runs (one subdirectory each; replaced)")
    counter.add_argument("--cases", default=None,
                         help="comma-separated names (default: all, with the stored finder "
                              "instances)")
    counter.add_argument("--seed", type=random_seed(), default=0, help="seed of every run")
    counter.add_argument("--transitions", type=at_least(1), default=HomerConfig().transitions,
                         help="real transitions per step of every run (one round each)")
    counter.add_argument("--json", action="store_true",
                         help="last line: the table as one JSON list")
    learned = command(
        "objectives",
        "the multi-step inverse objective and PPE learned on the exogenous lock (or a spec), "
        "scored against KI and the endogenous partition and judged against their exact solution",
        "Learn the multi-step inverse objective (MusIK / AC-State: the action a_{t-k} predicted "
        "from x_{t-k} and phi(x_t), uniformly random episodes) and PPE (Efroni et al.: open-loop "
        "paths, a classifier of the path id, path elimination) on rich observations of the "
        "exogenous combination lock or of --spec, one torch thread, score each learned "
        "abstraction as homer evaluate --against endogenous does, and judge it step by step "
        "against the objective's exact solution. Writes one JSON record per objective and "
        "table.md into --out.")
    learned.add_argument("--out", type=_output_path, required=True,
                         help="directory of the records (one JSON file per objective, e.g. "
                              "ppe_path_prediction.json, and table.md)")
    learned.add_argument("--seed", type=random_seed(), default=0, help="seed of the learning")
    learned.add_argument("--spec", type=Path, default=None,
                         help="an exact kinematic JSON spec to learn on; one declaring a "
                              "factorisation adds its endogenous partition (default: the "
                              "exogenous lock of the next five flags)")
    learned.add_argument("--lock-seed", type=random_seed(), default=None,
                         help="seed of the lock's good actions (default: the value of --seed)")
    lock = OBJECTIVES_LOCK
    learned.add_argument("--horizon", type=at_least(2), default=None,
                         help=f"the lock's H (default: {lock['horizon']})")
    learned.add_argument("--actions", type=at_least(2), default=None,
                         help=f"the lock's K (default: {lock['actions']})")
    learned.add_argument("--exogenous-bits", type=at_least(1), default=None, metavar="BITS",
                         help="the lock's exogenous noise bits, each flipping with probability "
                              "--flip at every step whatever the action (microsoft/Intrepid's "
                              f"temporal diabolical lock) (default: {lock['exogenous_bits']})")
    learned.add_argument("--flip", type=flip_probability, default=None, metavar="P",
                         help="the probability that each bit flips at a step, exact ('1/10' or "
                              "'0.1') in [0, 1]; 1/2 makes the bits i.i.d. (Intrepid's "
                              f"exo_flip_prob is 1/10) (default: {lock['flip']})")
    learned.add_argument("--objective", action="append", metavar="NAME",
                         help="an objective to learn, named as python -m kinematic "
                              "objectives names it; repeat for several (default: every one: "
                              + ", ".join(LEARNED_OBJECTIVES) + ")")
    learned.add_argument("--episodes", type=at_least(1), default=MULTISTEP_EPISODES,
                         help="multistep_inverse: episodes of the uniformly random policy")
    learned.add_argument("--capacity", type=at_least(1), default=None,
                         help="multistep_inverse: classes of the bottleneck at every layer "
                              "(default: the endogenous partition's blocks of each layer)")
    learned.add_argument("--num-samples", type=at_least(1), default=PPE_SAMPLES,
                         help="ppe: rollouts per step, split evenly over the paths "
                              "(Intrepid's encoder_training_num_samples)")
    learned.add_argument("--samples", type=at_least(1), default=500,
                         help="evaluation encodings per latent observation")
    learned.add_argument("--merge-threshold", type=MERGE_THRESHOLDS, default=MERGE_THRESHOLD,
                         help=MERGE_THRESHOLD_HELP)
    learned.add_argument("--json", action="store_true",
                         help="print the records as one JSON list instead of the table")
    helps = {name: text.rstrip(".").replace("%", "%%")  # argparse formats help with %
             for name, text in HomerConfig.field_help().items()}
    for item in fields(HomerConfig):
        flag, text = flag_of(item.name), helps[item.name]
        if item.name == "objective":
            run.add_argument(flag, choices=OBJECTIVES, default=item.default, help=text)
        elif item.name == "allow_small_capacity":
            run.add_argument(flag, action="store_true", help=text)
        else:
            run.add_argument(flag, type=RANGES[item.name], default=item.default,
                             help=f"{text}; {RANGES[item.name].describe()}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 on invalid input, 130 on Ctrl-C)."""
    args = _parser().parse_args(argv)
    from homer import commands  # after parsing: see the module's docstring

    try:
        with command_line_wording(), warnings.catch_warnings():
            warnings.showwarning = commands.show_warning
            return commands.COMMANDS[args.command](args)
    except KeyboardInterrupt:  # one line, no traceback; 130 as a shell reports SIGINT
        print(f"error: interrupted; {commands.after_interrupt(args)}", file=sys.stderr)
        return 130

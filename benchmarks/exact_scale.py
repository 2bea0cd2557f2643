"""Scale of the exact core: eta, the KI partitions and the canonical form against baselines.

For random sparse layered MDPs in float mode (H=100; widths 10, 100, 300; 10 actions; 5
successors per state-action pair) and the diabolical combination lock (H=100, K=10, in exact
rationals and in float mode), measure time and peak memory of

- eta for every state (batched backward induction, ``eta(mdp)``),
- the backward, forward and KI partitions (hashing / sorted projections),
- the canonical form (the three partitions, then the merge),

each against a straightforward baseline run in the same process:

- eta: one full backward induction per target state, with the same sparse matrices; and, in a
  second row, ``eta(mdp, s)`` for every s, which also stops once a value column is
  constant (the shortcut of ``eta(mdp)``); for width 300 both run on every 10th state
  of each layer and are extrapolated x10 (marked "~");
- partitions: all pairs of states of a layer compared in the max norm (``scipy.spatial``
  ``cdist``, Chebyshev) followed by connected components, i.e. quadratic in the width;
- canonical form: the baseline partitions followed by the same merge.

A random exact MDP (``--exact-width``, default 100: H=100, 10 actions, 5 successors,
probabilities k/100) runs the exact analysis - eta exactly for every state
(``kinematic.certified_induction``), the partitions, the canonical form - and the analyze
command end to end, against baselines extrapolated from samples (one full ``Fraction``
induction per target would take days; see :func:`run_exact_case`).

"total" is eta plus the canonical form (which includes the partitions). Two cases have 10^6
states. H=1000, width 1000 (``--million``) runs the whole float analysis - eta for every state
within ``atol / 2`` (:data:`MILLION_ETA_ERROR`), the partitions, the canonical form - in a fresh
process whose peak resident memory is its memory column; its baselines are extrapolated ("~"):
eta from 50 full per-target inductions (seconds per induction step times the steps of all
targets), the partitions from all pairs of 100 random states of three layers. H=100, width 10^4
(``--large-width``) runs the partitions and the canonical form only, against the same
extrapolated all-pairs baseline.

Timing runs first without tracing; peak memory is measured in a second run under
``tracemalloc`` (numpy reports its buffers to it), except for the H=1000 case (peak resident
memory, above). Run: ``python benchmarks/exact_scale.py [--note TEXT] [--results FILE]``; the
table of phases is printed and written, dated, into this script's section of a Markdown page
(``results_page.py``; default ``benchmarks/results/exact_scale.md``, whose notes around that
section are written by hand and left as they are).
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import shlex
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from machine import machine  # beside this script (run as a script)
from results_page import ResultsPage  # beside this script
from scipy.sparse.csgraph import connected_components
from scipy.spatial.distance import cdist

from kinematic.canonical import canonical_form
from kinematic.families import combination_lock, random_exact_mdp, random_sparse_mdp
from kinematic.homing import eta
from kinematic.inseparability import (
    Partition,
    backward_ki_partition,
    forward_ki_partition,
    ki_partition,
)
from kinematic.model import BlockMDP, with_float_numbers
from kinematic.numbers import DEFAULT_ATOL
from kinematic.spec import dumps_spec


def timed(function: Callable[[], object]) -> tuple[object, float]:
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


def peak_mib(function: Callable[[], object]) -> float:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def plain_induction(mdp: BlockMDP, state: str) -> object:
    """eta(state) by one full backward induction, without the constant-column shortcut."""
    h, i = mdp.state_location[state]
    if h == 0:
        return mdp.start[i]
    values = mdp.mode.zeros((mdp.width(h), 1))
    values[i, 0] = mdp.mode.scalar(1)
    for t in range(h - 1, -1, -1):
        product = np.asarray(mdp.action_major_transitions[t] @ values)
        values = product.reshape(mdp.number_of_actions, mdp.width(t), 1).max(axis=0)
    return (mdp.start @ values)[0]


def baseline_eta(mdp: BlockMDP, stride: int, single_target: Callable) -> float:
    """Seconds for one backward induction per target (every ``stride``-th state, scaled up)."""
    start = time.perf_counter()
    for layer in mdp.layers:
        for state in layer[::stride]:
            single_target(mdp, state)
    elapsed = time.perf_counter() - start
    sampled = sum(len(layer[::stride]) for layer in mdp.layers)
    return elapsed * len(mdp.states) / sampled


def _pairwise_labels(vectors: np.ndarray, mdp: BlockMDP) -> np.ndarray:
    if mdp.mode.exact:
        n = len(vectors)
        adjacency = np.array(
            [[all(vectors[i] == vectors[j]) for j in range(n)] for i in range(n)], dtype=float
        )
    else:
        adjacency = (cdist(vectors, vectors, metric="chebyshev") <= mdp.mode.atol).astype(float)
    return connected_components(sp.csr_array(adjacency), directed=False)[1]


def baseline_partitions(mdp: BlockMDP) -> Partition:
    """Backward, forward and KI partitions by comparing all pairs of states of each layer."""
    backward, forward = [], []
    for h in range(mdp.horizon):
        if h == 0:
            backward.append(np.zeros(mdp.width(0), dtype=np.intp))
        else:
            matrix = mdp.transitions[h - 1]
            dense = matrix.toarray() if sp.issparse(matrix) else matrix
            columns = dense.T / dense.T.sum(axis=1)[:, None]
            backward.append(_pairwise_labels(columns, mdp))
        if h == mdp.horizon - 1:
            forward.append(np.zeros(mdp.width(h), dtype=np.intp))
        else:
            rows = mdp.transition_tensor(h).reshape(mdp.width(h), -1)
            forward.append(_pairwise_labels(rows, mdp))
    backward_p = Partition("backward", mdp.layers, tuple(backward))
    forward_p = Partition("forward", mdp.layers, tuple(forward))
    return ki_partition(mdp, backward_p, forward_p)


def fast_partitions(mdp: BlockMDP) -> Partition:
    backward = backward_ki_partition(mdp)
    forward = forward_ki_partition(mdp)
    return ki_partition(mdp, backward, forward)


def end_to_end_seconds(mdp: BlockMDP) -> float:
    """Wall time of ``python -m kinematic analyze SPEC --json`` (process start to JSON on
    stdout) for ``mdp`` written as a JSON spec."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "spec.json"
        path.write_text(dumps_spec(mdp, indent=None))
        command = [sys.executable, "-m", "kinematic", "analyze", str(path), "--json"]
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start


def run_case(name: str, mdp: BlockMDP, eta_stride: int, end_to_end: bool = False) -> list[tuple]:
    """The rows of one MDP; with ``end_to_end`` also the analyze command's wall time against
    the per-target eta baseline (the end-to-end comparison of the results file)."""
    # warm the cached action-major matrices so that neither side pays for them
    _ = mdp.action_major_transitions
    _, eta_seconds = timed(lambda: eta(mdp))
    partition, partition_seconds = timed(lambda: fast_partitions(mdp))
    _, merge_seconds = timed(lambda: canonical_form(mdp, partition))

    eta_baseline = baseline_eta(mdp, eta_stride, plain_induction)
    shortcut_baseline = baseline_eta(mdp, eta_stride, eta)
    slow_partition, partition_baseline = timed(lambda: baseline_partitions(mdp))
    if slow_partition.blocks() != partition.blocks():
        raise AssertionError(f"{name}: baseline and fast KI partitions differ")
    _, merge_baseline = timed(lambda: canonical_form(mdp, slow_partition))

    peaks = {
        "eta": peak_mib(lambda: eta(mdp)),
        "partitions": peak_mib(lambda: fast_partitions(mdp)),
        "canonical": peak_mib(lambda: canonical_form(mdp)),
    }
    approximate = "~" if eta_stride > 1 else ""
    canonical_seconds = partition_seconds + merge_seconds
    canonical_baseline = partition_baseline + merge_baseline
    rows = [
        (name, "eta (all states)", eta_seconds, peaks["eta"], eta_baseline, approximate),
        (name, "eta vs shortcut baseline", eta_seconds, peaks["eta"], shortcut_baseline,
         approximate),
        (name, "partitions (B, F, KI)", partition_seconds, peaks["partitions"],
         partition_baseline, ""),
        (name, "canonical form", canonical_seconds, peaks["canonical"], canonical_baseline, ""),
        (name, "total (eta + canonical)", eta_seconds + canonical_seconds, max(peaks.values()),
         eta_baseline + canonical_baseline, approximate),
    ]
    if end_to_end:  # the process's memory is not traced: nan in the memory column
        rows.insert(0, (name, "end to end (analyze CLI)", end_to_end_seconds(mdp),
                        float("nan"), eta_baseline, approximate))
    return rows


def sampled_baseline_partitions(mdp: BlockMDP, layers: list[int], sample: int,
                                rng: np.random.Generator) -> float:
    """Seconds of the all-pairs partitions, extrapolated: ``sample`` random states of each of
    ``layers`` compared pairwise (backward and forward rows, as :func:`baseline_partitions`),
    scaled by ``(width / sample)^2`` (the pairs) and ``horizon / len(layers)``."""
    start = time.perf_counter()
    for h in layers:
        chosen = np.sort(rng.choice(mdp.width(h), size=sample, replace=False))
        matrix, actions = mdp.transitions[h - 1], mdp.number_of_actions
        incoming = (matrix.T[chosen] if mdp.mode.exact else
                    sp.csr_array(matrix.T)[chosen].toarray())
        _pairwise_labels(incoming / incoming.sum(axis=1)[:, None], mdp)
        rows = (chosen[:, None] * actions + np.arange(actions)).reshape(-1)
        outgoing = mdp.transitions[h][rows]
        outgoing = (outgoing if mdp.mode.exact else outgoing.toarray()).reshape(sample, -1)
        _pairwise_labels(outgoing, mdp)
    elapsed = time.perf_counter() - start
    return elapsed * (mdp.width(layers[0]) / sample) ** 2 * mdp.horizon / len(layers)


def random_case(horizon: int, width: int) -> tuple[str, BlockMDP, float]:
    """The benchmark's random MDP of this size (10 actions, 5 successors, seed 0): its row name,
    the MDP and the seconds it took to build."""
    mdp, build_seconds = timed(
        lambda: random_sparse_mdp(horizon, width, actions=10, successors=5, seed=0))
    return f"random H={horizon} W={width} A=10 (float)", mdp, build_seconds


def three_layer_partition_baseline(mdp: BlockMDP) -> float:
    """:func:`sampled_baseline_partitions` of 100 random states of layers 2, H/2 and H-1."""
    return sampled_baseline_partitions(mdp, [1, mdp.horizon // 2, mdp.horizon - 2], 100,
                                       np.random.default_rng(0))


def run_large_case(horizon: int, width: int) -> list[tuple]:
    """Partitions and canonical form only, against the extrapolated all-pairs baseline."""
    name, mdp, build_seconds = random_case(horizon, width)
    print(f"built {name} in {build_seconds:.1f} s", flush=True)
    partition, partition_seconds = timed(lambda: fast_partitions(mdp))
    _, merge_seconds = timed(lambda: canonical_form(mdp, partition))
    peaks = {"partitions": peak_mib(lambda: fast_partitions(mdp)),
             "canonical": peak_mib(lambda: canonical_form(mdp))}
    baseline = three_layer_partition_baseline(mdp)
    return [
        (name, "partitions (B, F, KI)", partition_seconds, peaks["partitions"], baseline, "~"),
        (name, "canonical form", partition_seconds + merge_seconds, peaks["canonical"],
         baseline, "~"),
    ]


MILLION_ETA_ERROR = DEFAULT_ATOL / 2
"""The error bound of every eta in the million-state case: within ``atol / 2`` of the exact
value (the stopping rule of ``kinematic.float_induction``), so two etas that ``atol``
judges equal stay within ``2 atol``. The default (``1e-3 atol``) needs 31% more induction steps
(43 instead of 33 per target of a width-1,000 layer)."""


def sampled_baseline_eta(mdp: BlockMDP, layers: int, per_layer: int) -> float:
    """Seconds of one full backward induction per target, extrapolated: ``per_layer`` evenly
    spaced targets in each of ``layers`` evenly spaced layers; the seconds per induction step
    they measure times the steps of all targets, ``sum_h width_h * h``."""
    steps = 0
    start = time.perf_counter()
    for h in np.linspace(1, mdp.horizon - 1, layers).astype(int):
        for i in np.linspace(0, mdp.width(h) - 1, per_layer).astype(int):
            plain_induction(mdp, mdp.layers[h][i])
            steps += h
    seconds_per_step = (time.perf_counter() - start) / steps
    return seconds_per_step * sum(mdp.width(h) * h for h in range(mdp.horizon))


def sampled_analysis_rows(name: str, mdp: BlockMDP, eta: Callable[[], object],
                          memory: Callable[[], float], eta_layers: int,
                          eta_per_layer: int) -> list[tuple]:
    """The rows eta (``eta()`` timed), partitions, canonical form and total of ``mdp``, against
    baselines extrapolated ("~") from samples: eta from :func:`sampled_baseline_eta` with
    ``eta_layers`` x ``eta_per_layer`` targets, the partitions from
    :func:`three_layer_partition_baseline`; the memory column is ``memory()`` right after the
    analysis (before the baselines)."""
    _, eta_seconds = timed(eta)
    print(f"eta for all {len(mdp.states)} states in {eta_seconds:.1f} s", flush=True)
    partition, partition_seconds = timed(lambda: fast_partitions(mdp))
    _, merge_seconds = timed(lambda: canonical_form(mdp, partition))
    peak = memory()
    eta_baseline = sampled_baseline_eta(mdp, eta_layers, eta_per_layer)
    partition_baseline = three_layer_partition_baseline(mdp)
    canonical_seconds = partition_seconds + merge_seconds
    return [
        (name, "eta (all states)", eta_seconds, peak, eta_baseline, "~"),
        (name, "partitions (B, F, KI)", partition_seconds, peak, partition_baseline, "~"),
        (name, "canonical form", canonical_seconds, peak, partition_baseline, "~"),
        (name, "total (eta + canonical)", eta_seconds + canonical_seconds, peak,
         eta_baseline + partition_baseline, "~"),
    ]


def million_case_rows(horizon: int, width: int) -> list[tuple]:
    """eta for all states (within :data:`MILLION_ETA_ERROR`), the partitions and the canonical
    form of a ``horizon x width`` random MDP; the memory column is this process's peak resident
    MiB after the analysis (building included, the small baselines after it not)."""
    name, mdp, build_seconds = random_case(horizon, width)
    _, matrix_seconds = timed(lambda: mdp.action_major_transitions)
    print(f"built {name} in {build_seconds + matrix_seconds:.1f} s", flush=True)
    rows = sampled_analysis_rows(
        name, mdp, lambda: eta(mdp, error=MILLION_ETA_ERROR),
        lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        eta_layers=10, eta_per_layer=5)
    _, _, analysis_seconds, peak, baseline, _ = rows[-1]
    return [*rows, (name, "total incl. building",
                    analysis_seconds + build_seconds + matrix_seconds, peak, baseline, "~")]


def run_exact_case(horizon: int, width: int) -> list[tuple]:
    """The exact analysis of a random exact MDP (``random_exact_mdp``: 10 actions, 5
    successors, probabilities k/100, seed 0): eta for every state exactly, the partitions and
    the canonical form, against baselines extrapolated ("~") from samples: eta from one full
    ``Fraction`` induction per target for one target in layers 2 and H (seconds per step times
    all targets' steps), the partitions from all pairs of 100 states of three layers. The end
    to end row is ``python -m kinematic analyze SPEC --json`` (reading the spec and writing the
    JSON included) against the same baselines. No memory column (not traced: nan)."""
    mdp, build_seconds = timed(
        lambda: random_exact_mdp(horizon, width, actions=10, successors=5, seed=0))
    name = f"random H={horizon} W={width} A=10 (exact)"
    print(f"built {name} in {build_seconds:.1f} s", flush=True)
    rows = sampled_analysis_rows(name, mdp, lambda: eta(mdp),
                                 lambda: float("nan"), eta_layers=2, eta_per_layer=1)
    *_, peak, baseline, _ = rows[-1]
    return [(name, "end to end (analyze CLI)", end_to_end_seconds(mdp), peak, baseline, "~"),
            *rows]


def run_million_case(horizon: int, width: int) -> list[tuple]:
    """:func:`million_case_rows` in a fresh process, so that its peak resident memory is the
    analysis's own (the memory column of these rows: the whole case, building included)."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(million_case_rows, horizon, width).result()


RESULTS = Path(__file__).parent / "results" / "exact_scale.md"


def write_results(page: ResultsPage, started: datetime, note: str, rows: list[tuple]) -> None:
    """Writes this run's section of ``page``: command, date, machine, one row per case and
    phase."""
    text = [
        f"`python benchmarks/exact_scale.py {shlex.join(sys.argv[1:])}`, "
        f"{started:%Y-%m-%d %H:%M} UTC, {machine(('numpy', 'scipy'))}. Also running: {note}.",
        "",
        "Seconds of each phase against its baseline in the same process (\"~\": extrapolated "
        "from a sample); peak memory traced by tracemalloc, resident for the H = 1000 case.",
        "",
        "| case | phase | seconds | peak MiB | baseline seconds | ratio |",
        "|---|---|---|---|---|---|",
    ]
    for name, phase, seconds, peak, baseline, approximate in rows:
        ratio = format(baseline / seconds, ".1f") + "x" if seconds > 0 else "inf"
        text.append(f"| {name} | {phase} | {seconds:.3f} | {peak:.1f} | "
                    f"{approximate}{baseline:.3f} | {approximate}{ratio} |")
    page.write(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--widths", default="10,100,300", help="random MDP widths")
    parser.add_argument("--horizon", type=int, default=100)
    parser.add_argument("--large-width", type=int, default=10_000,
                        help="width of the partitions-only case (0: skip it)")
    parser.add_argument("--million", default="1000x1000",
                        help="HxW of the full float analysis at scale ('': skip it)")
    parser.add_argument("--exact-width", type=int, default=100,
                        help="width of the random exact case (0: skip it)")
    parser.add_argument("--note", default="not recorded", help="what else ran meanwhile")
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="the Markdown page whose marked section is written")
    args = parser.parse_args()
    page = ResultsPage.read(args.results, "benchmarks/exact_scale.py", "Scale of the exact core")
    started = datetime.now(UTC)
    print(f"machine: {machine(('numpy', 'scipy'))}")
    rows = []
    if args.exact_width:
        rows += run_exact_case(args.horizon, args.exact_width)
    if args.million:
        horizon, width = (int(n) for n in args.million.split("x"))
        rows += run_million_case(horizon, width)
    if args.large_width:
        rows += run_large_case(args.horizon, args.large_width)
    for width in (int(w) for w in args.widths.split(",") if w):
        label, mdp, _ = random_case(args.horizon, width)
        rows += run_case(label, mdp, eta_stride=10 if width >= 300 else 1,
                         end_to_end=width == 100)
        print(f"done: {label}", flush=True)
    lock = combination_lock(args.horizon, 10, seed=0)
    rows += run_case(f"combolock H={args.horizon} K=10 (exact)", lock, eta_stride=1,
                     end_to_end=True)
    rows += run_case(
        f"combolock H={args.horizon} K=10 (float)", with_float_numbers(lock), eta_stride=1
    )
    header = (
        f"{'case':<34} {'phase':<24} {'seconds':>9} {'peak MiB':>9} {'baseline s':>11} "
        f"{'ratio':>8}"
    )
    print(header)
    print("-" * len(header))
    for name, phase, seconds, peak, baseline, approximate in rows:
        ratio = format(baseline / seconds, ".1f") + "x" if seconds > 0 else "inf"
        print(
            f"{name:<34} {phase:<24} {seconds:>9.3f} {peak:>9.1f} "
            f"{approximate + format(baseline, '.3f'):>11} {approximate + ratio:>8}"
        )
    write_results(page, started, args.note, rows)
    print(f"written: {args.results}")


if __name__ == "__main__":
    main()

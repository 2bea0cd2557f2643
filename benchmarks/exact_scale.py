"""Scale of the exact core (issue: "Exact core", item 10; issue "Speed where users feel it").

For random sparse layered MDPs in float mode (H=100; widths 10, 100, 300; 10 actions; 5
successors per state-action pair) and the diabolical combination lock (H=100, K=10, in exact
rationals and in float mode), measure time and peak memory of

- eta for every state (batched backward induction, ``maximum_visitation``),
- the backward, forward and KI partitions (hashing / sorted projections),
- the canonical form (the three partitions, then the merge),

each against a straightforward baseline run in the same process:

- eta: one full backward induction per target state, with the same sparse matrices; and, in a
  second row, ``max_visitation(mdp, s)`` for every s, which also stops once a value column is
  constant (the shortcut of ``maximum_visitation``); for width 300 both run on every 10th state
  of each layer and are extrapolated x10 (marked "~");
- partitions: all pairs of states of a layer compared in the max norm (``scipy.spatial``
  ``cdist``, Chebyshev) followed by connected components, i.e. quadratic in the width;
- canonical form: the baseline partitions followed by the same merge.

"total" is eta plus the canonical form (which includes the partitions). A last case, width
10^4 (10^6 states), runs the partitions and the canonical form only, against the all-pairs
baseline extrapolated from 100 random states of three layers ("~").

Timing runs first without tracing; peak memory is measured in a second run under
``tracemalloc`` (numpy reports its buffers to it). Run: ``python benchmarks/exact_scale.py``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import tracemalloc
from collections.abc import Callable

import numpy as np
import scipy
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.spatial.distance import cdist

from kinematic.canonical import canonical_form
from kinematic.families import combination_lock, random_sparse_mdp
from kinematic.homing import max_visitation, maximum_visitation
from kinematic.inseparability import (
    Partition,
    backward_ki_partition,
    forward_ki_partition,
    ki_partition,
)
from kinematic.model import BlockMDP, with_float_numbers


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


def run_case(name: str, mdp: BlockMDP, eta_stride: int) -> list[tuple]:
    # warm the cached action-major matrices so that neither side pays for them
    _ = mdp.action_major_transitions
    _, eta_seconds = timed(lambda: maximum_visitation(mdp))
    partition, partition_seconds = timed(lambda: fast_partitions(mdp))
    _, merge_seconds = timed(lambda: canonical_form(mdp, partition))

    eta_baseline = baseline_eta(mdp, eta_stride, plain_induction)
    shortcut_baseline = baseline_eta(mdp, eta_stride, max_visitation)
    slow_partition, partition_baseline = timed(lambda: baseline_partitions(mdp))
    if slow_partition.blocks() != partition.blocks():
        raise AssertionError(f"{name}: baseline and fast KI partitions differ")
    _, merge_baseline = timed(lambda: canonical_form(mdp, slow_partition))

    peaks = {
        "eta": peak_mib(lambda: maximum_visitation(mdp)),
        "partitions": peak_mib(lambda: fast_partitions(mdp)),
        "canonical": peak_mib(lambda: canonical_form(mdp)),
    }
    approximate = "~" if eta_stride > 1 else ""
    canonical_seconds = partition_seconds + merge_seconds
    canonical_baseline = partition_baseline + merge_baseline
    return [
        (name, "eta (all states)", eta_seconds, peaks["eta"], eta_baseline, approximate),
        (name, "eta vs shortcut baseline", eta_seconds, peaks["eta"], shortcut_baseline,
         approximate),
        (name, "partitions (B, F, KI)", partition_seconds, peaks["partitions"],
         partition_baseline, ""),
        (name, "canonical form", canonical_seconds, peaks["canonical"], canonical_baseline, ""),
        (name, "total (eta + canonical)", eta_seconds + canonical_seconds, max(peaks.values()),
         eta_baseline + canonical_baseline, approximate),
    ]


def sampled_baseline_partitions(mdp: BlockMDP, layers: list[int], sample: int,
                                rng: np.random.Generator) -> float:
    """Seconds of the all-pairs partitions, extrapolated: ``sample`` random states of each of
    ``layers`` compared pairwise (backward and forward rows, as :func:`baseline_partitions`),
    scaled by ``(width / sample)^2`` (the pairs) and ``horizon / len(layers)``."""
    start = time.perf_counter()
    for h in layers:
        chosen = np.sort(rng.choice(mdp.width(h), size=sample, replace=False))
        incoming = sp.csr_array(mdp.transitions[h - 1].T)[chosen].toarray()
        _pairwise_labels(incoming / incoming.sum(axis=1)[:, None], mdp)
        actions = mdp.number_of_actions
        rows = (chosen[:, None] * actions + np.arange(actions)).reshape(-1)
        outgoing = mdp.transitions[h][rows].toarray().reshape(sample, -1)
        _pairwise_labels(outgoing, mdp)
    elapsed = time.perf_counter() - start
    return elapsed * (mdp.width(layers[0]) / sample) ** 2 * mdp.horizon / len(layers)


def run_large_case(horizon: int, width: int) -> list[tuple]:
    """Partitions and canonical form only (eta for all 10^6 states is out of reach: ``sum_h
    h * nnz * width`` multiply-adds), against the extrapolated all-pairs baseline."""
    name = f"random H={horizon} W={width} A=10 (float)"
    mdp, build_seconds = timed(
        lambda: random_sparse_mdp(horizon, width, actions=10, successors=5, seed=0))
    print(f"built {name} in {build_seconds:.1f} s", flush=True)
    partition, partition_seconds = timed(lambda: fast_partitions(mdp))
    _, merge_seconds = timed(lambda: canonical_form(mdp, partition))
    peaks = {"partitions": peak_mib(lambda: fast_partitions(mdp)),
             "canonical": peak_mib(lambda: canonical_form(mdp))}
    baseline = sampled_baseline_partitions(mdp, [1, horizon // 2, horizon - 2], 100,
                                           np.random.default_rng(0))
    return [
        (name, "partitions (B, F, KI)", partition_seconds, peaks["partitions"], baseline, "~"),
        (name, "canonical form", partition_seconds + merge_seconds, peaks["canonical"],
         baseline, "~"),
    ]


def machine() -> str:
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as info:
            model = next(line.split(":", 1)[1].strip() for line in info if "model name" in line)
    except (OSError, StopIteration):
        pass
    return (
        f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numpy {np.__version__}, scipy {scipy.__version__}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--widths", default="10,100,300", help="random MDP widths")
    parser.add_argument("--horizon", type=int, default=100)
    parser.add_argument("--large-width", type=int, default=10_000,
                        help="width of the partitions-only case (0: skip it)")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    rows = []
    if args.large_width:
        rows += run_large_case(args.horizon, args.large_width)
    for width in (int(w) for w in args.widths.split(",") if w):
        mdp = random_sparse_mdp(args.horizon, width, actions=10, successors=5, seed=0)
        label = f"random H={args.horizon} W={width} A=10 (float)"
        rows += run_case(label, mdp, eta_stride=10 if width >= 300 else 1)
        print(f"done: {label}", flush=True)
    lock = combination_lock(args.horizon, 10, seed=0)
    rows += run_case(f"combolock H={args.horizon} K=10 (exact)", lock, eta_stride=1)
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


if __name__ == "__main__":
    main()

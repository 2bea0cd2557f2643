"""torch's intra-op threads: one per process by default.

On the 2-core development machine a torch process with its default threads (one per core) slows
down several times as soon as any other process is busy (an H = 5 HOMER run: 43 s alone, 195 s
next to one busy process; with one thread 40 s and 43 s). HOMER and the baselines therefore set
one intra-op thread at the start of a run (``torch_threads`` of their configurations, the
``--torch-threads`` flag of ``python -m homer run``); several runs then share a machine, one per
core, without slowing each other down. numpy's BLAS (OpenBLAS, two threads by default here) gets
the same limit through ``threadpoolctl``: HOMER's encoder and regressions are numpy products.
"""

from __future__ import annotations

import torch
from threadpoolctl import threadpool_limits

from homer.config import DEFAULT_TORCH_THREADS
from kinematic.arguments import at_least

__all__ = ["DEFAULT_TORCH_THREADS", "use_torch_threads"]


def use_torch_threads(threads: int) -> None:
    """Set torch's intra-op thread count of this process, and the thread pools of numpy's BLAS
    and OpenMP libraries, to ``threads`` (a positive int).

    >>> use_torch_threads(1); torch.get_num_threads()
    1
    """
    at_least(1).check(threads, "torch_threads")
    torch.set_num_threads(threads)
    threadpool_limits(limits=threads)

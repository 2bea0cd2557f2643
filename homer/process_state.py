"""What a run changes in its process - the thread pools and the global random generators - set
for the duration of the run and restored after it (:func:`process_state`).

On the 2-core development machine a torch process with its default threads (one per core) slows
down several times as soon as any other process is busy (an H = 5 HOMER run: 43 s alone, 195 s
next to one busy process; with one thread 40 s and 43 s). HOMER and the baselines therefore run
with one intra-op thread (``torch_threads`` of their configurations, the ``--torch-threads`` flag
of ``python -m homer run``); several runs then share a machine, one per core, without slowing
each other down. numpy's BLAS (OpenBLAS, two threads by default here) gets the same limit
through ``threadpoolctl``: HOMER's encoder and regressions are numpy products. The commands
that score what was learned keep to the same count: ``homer counterexamples`` compares each run
inside that run's :func:`process_state`, ``homer compare`` inside
``process_state(DEFAULT_TORCH_THREADS)`` (:data:`homer.config.DEFAULT_TORCH_THREADS`), and
``homer evaluate``, which imports no torch, limits numpy's BLAS alone to ``DEFAULT_TORCH_THREADS``
(the sweep's workers do nothing heavy outside a run).

HOMER seeds torch's global generator (the Gumbel-softmax noise of its models draws from it) and
stable-baselines3 seeds Python's, numpy's and torch's global generators; a run inside
:func:`process_state` leaves them as they were, so a notebook or a test that runs HOMER, or the
sweep's worker between two tasks, keeps its own thread counts and random streams.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from kinematic.arguments import at_least

__all__ = ["process_state"]


@contextmanager
def process_state(threads: int) -> Iterator[None]:
    """For the duration of the ``with`` block: torch's intra-op threads and the thread pools of
    the BLAS and OpenMP libraries set to ``threads`` (a positive int); afterwards - also after
    an exception - those thread counts and the states of torch's, numpy's and Python's global
    random generators as they were before.

    >>> before = torch.get_num_threads()
    >>> with process_state(1):
    ...     torch.get_num_threads()
    ...     _ = torch.manual_seed(0)
    1
    >>> torch.get_num_threads() == before
    True
    """
    at_least(1).check(threads, "torch_threads")
    torch_threads = torch.get_num_threads()
    python_random, numpy_random = random.getstate(), np.random.get_state()
    with torch.random.fork_rng(devices=[]), threadpool_limits(limits=threads):
        torch.set_num_threads(threads)
        try:
            yield
        finally:
            torch.set_num_threads(torch_threads)
            random.setstate(python_random)
            np.random.set_state(numpy_random)

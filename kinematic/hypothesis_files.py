"""Where Hypothesis keeps its files when a command line drives it (``python -m proofs_checks``,
``python -m kinematic find-counterexample``), not the test suite.

Both searches run with ``database=None``, but Hypothesis still caches what it learns about the
source (``constants/``) and the Unicode tables in its home directory, ``.hypothesis/`` in the
working directory by default: a command run anywhere would leave that directory behind. Here it
goes to the user's cache directory instead (``$XDG_CACHE_HOME/kinematic/hypothesis``, else
``~/.cache/kinematic/hypothesis``), unless ``HYPOTHESIS_STORAGE_DIRECTORY`` chooses a place.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from hypothesis.configuration import set_hypothesis_home_dir, storage_directory

__all__ = ["hypothesis_files_in_user_cache", "user_cache_directory"]


def user_cache_directory() -> Path:
    """``$XDG_CACHE_HOME/kinematic`` or ``~/.cache/kinematic``; ``RuntimeError`` when there is
    no home directory to find."""
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "kinematic"


@contextlib.contextmanager
def hypothesis_files_in_user_cache() -> Iterator[Path]:
    """Point Hypothesis's home directory at the user's cache for the block (a temporary directory,
    deleted after, when there is no home directory), and yield it; the home directory in force
    before (a caller's choice, or Hypothesis's default) is restored after.
    ``HYPOTHESIS_STORAGE_DIRECTORY``, when set, is left in charge."""
    chosen = os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY")
    if chosen:
        yield Path(chosen)
        return
    with contextlib.ExitStack() as stack:
        try:
            directory = user_cache_directory() / "hypothesis"
        except RuntimeError:
            directory = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        stack.callback(set_hypothesis_home_dir,
                       storage_directory(intent_to_write=False).home_directory)
        set_hypothesis_home_dir(directory)
        yield directory

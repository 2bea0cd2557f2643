"""One line describing the machine a benchmark ran on, for its results file."""

from __future__ import annotations

import importlib
import os
import platform


def machine(packages: tuple[str, ...] = ("numpy",), note: str = "") -> str:
    """CPU model, cores (and ``note`` on them), Python and the versions of ``packages``.

    >>> machine(("numpy",)).count("numpy")
    1
    """
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            model = next(line.split(":", 1)[1].strip() for line in info if "model name" in line)
    except (OSError, StopIteration):
        pass
    versions = ", ".join(f"{name} {importlib.import_module(name).__version__}"
                         for name in packages)
    cores = f"{os.cpu_count()} cores" + (f" ({note})" if note else "")
    return f"{model}, {cores}, Python {platform.python_version()}, {versions}"

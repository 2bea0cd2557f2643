"""Refusing requests that cannot fit the machine, with an estimate, before any work is done.

A horizon of 10^8 or 10^8 actions typed by mistake should fail at once with the memory it would
need, not run until the machine swaps.
"""

from __future__ import annotations

import os

from kinematic.errors import TooLarge

__all__ = ["check_memory", "format_bytes", "physical_memory"]


def physical_memory() -> int:
    """Bytes of physical memory of this machine."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def format_bytes(count: float) -> str:
    """``1536`` -> ``'1.5 KiB'``; binary units up to PiB."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if count < 1024:
            return f"{count:.1f} {unit}" if unit != "B" else f"{count:.0f} B"
        count /= 1024
    return f"{count:.1f} PiB"


def check_memory(needed: float, request: str) -> None:
    """Raise :class:`TooLarge` when ``needed`` bytes exceed this machine's physical memory.

    ``request`` names what was asked for, e.g. ``"combination_lock(horizon=10**8, actions=10)"``.
    """
    available = physical_memory()
    if needed > available:
        raise TooLarge(f"{request} would need about {format_bytes(needed)} of memory; this "
                       f"machine has {format_bytes(available)}")

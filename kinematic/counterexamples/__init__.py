"""The counterexamples of Section 5 ("Can We Use Existing State Abstraction Oracles?"), computed
exactly, and a Hypothesis-based finder for new ones (:mod:`kinematic.counterexamples.search`).

Each module checks an example rebuilt from the text (the figures are not in the source; the MDPs
are in :mod:`kinematic.counterexamples.mdps`) and returns :class:`Counterexample` records: the
claim, whether it holds, and the exact numbers behind it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Counterexample", "all_counterexamples"]


@dataclass(frozen=True)
class Counterexample:
    """One checked statement: ``name`` (curiosity, pcid_target, pcid_model_based, autoencoder,
    bisimulation), the ``claim`` in words, whether it ``holds``, and its exact ``numbers``
    (``"p/q"`` strings)."""

    name: str
    claim: str
    holds: bool
    numbers: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "claim": self.claim, "holds": self.holds,
                "numbers": self.numbers}

    def __str__(self) -> str:
        """The claim as ``python -m kinematic counterexamples`` prints it: ``[holds] name:
        claim`` (``[FAILS]`` when it does not hold), then one line per number, its value as
        JSON.

        >>> print(Counterexample("toy", "eta(s2) = 1/2", True, {"eta(s2)": "1/2"}))
        [holds] toy: eta(s2) = 1/2
            eta(s2): "1/2"
        """
        lines = [f"[{'holds' if self.holds else 'FAILS'}] {self.name}: {self.claim}"]
        lines += [f"    {key}: {json.dumps(value)}" for key, value in self.numbers.items()]
        return "\n".join(lines)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython (a cell's value) and Hypothesis print it as :meth:`__str__` does."""
        printer.text(str(self))


def all_counterexamples() -> list[Counterexample]:
    """Every claim of Section 5, checked (the PCID chain for H = 2..12)."""
    from kinematic.counterexamples import autoencoder, bisimulation, curiosity, pcid

    return [
        curiosity.curiosity_claim(),
        pcid.pcid_target_claim(),
        pcid.pcid_model_based_claim(),
        autoencoder.autoencoder_claim(),
        bisimulation.bisimulation_claim(),
    ]

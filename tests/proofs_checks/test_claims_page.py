"""docs/claims.md is a title, one sentence, then exactly what ``python -m proofs_checks
--examples 30 --markdown`` prints: the rows of the registered claims in order, with the
statements of the label index and the negative controls of the registry, and the coverage line.

Running every claim at 30 examples takes minutes, so the test takes each row's measured numbers
(instances, violations, control caught, seconds) from the page and rebuilds the rest from the
registry: a claim added, removed, reworded or given another control makes it fail. The page's
verdicts (no violation, control caught) are compared with a fresh run of every claim (at fewer
examples) by ``test_claim_holds_and_its_negative_control_is_caught`` in ``test_registry.py``,
with :func:`page_verdicts` (that test runs every claim anyway). Regenerate the page with
``python -m proofs_checks --examples 30 --markdown`` under its first three lines."""

import re
from pathlib import Path

from proofs_checks.commands import markdown_table
from proofs_checks.registry import ClaimReport, all_claims

PAGE = Path(__file__).resolve().parents[2] / "docs" / "claims.md"
UNESCAPED_BAR = re.compile(r"(?<!\\)\|")


def measured(row: str) -> tuple[str, int, int, bool, float]:
    """A row's label and the numbers a run measured: instances, violations, the control's
    verdict and the seconds."""
    cells = [cell.strip() for cell in UNESCAPED_BAR.split(row)[1:-1]]
    label, instances, violations, control, seconds = (cells[0], *cells[2:])
    return (label.strip("`"), int(instances), int(violations), control.startswith("caught: "),
            float(seconds))


def test_the_claims_page_is_the_markdown_table_of_the_registry():
    title, blank, sentence, blank_too, *table = PAGE.read_text().splitlines()
    assert title.startswith("# ") and blank == blank_too == ""
    assert "`python -m proofs_checks --examples 30 --markdown`" in sentence
    rows = [measured(line) for line in table[2:] if line.startswith("| `")]
    claims = all_claims()
    assert [row[0] for row in rows] == [claim.label for claim in claims]
    reports = [ClaimReport(claim.label, claim.statement, instances, violations, None,
                           claim.negative_control, caught, None, seconds)
               for claim, (_, instances, violations, caught, seconds) in zip(claims, rows,
                                                                             strict=True)]
    assert "\n".join(table) == markdown_table(reports)


def page_verdicts() -> dict[str, tuple[bool, bool]]:
    """Label -> the page's verdicts: (the claim held: 0 violations, its control was caught)."""
    rows = [measured(line) for line in PAGE.read_text().splitlines() if line.startswith("| `")]
    return {label: (violations == 0, caught) for label, _, violations, caught, _ in rows}

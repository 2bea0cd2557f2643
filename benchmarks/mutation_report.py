"""Per-module score of the last ``mutmut run`` (``make mutants``), read from mutmut's result
files ``mutants/kinematic/*.py.meta``: killed, survived, not run, and the surviving mutants by
name (``mutmut show NAME`` prints the change).

Exit codes recorded by mutmut: ``1`` the tests failed (killed), ``0`` they passed (survived),
``None`` not run yet; anything else (timeouts, crashes, type-check errors) counts as killed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def module_scores(root: Path) -> list[dict]:
    rows = []
    for meta in sorted((root / "mutants" / "kinematic").glob("*.py.meta")):
        try:
            codes = json.loads(meta.read_text())["exit_code_by_key"]
        except (OSError, ValueError, KeyError) as error:
            raise SystemExit(f"error: {meta}: not a mutmut result file ({error})") from None
        survived = sorted(name for name, code in codes.items() if code == 0)
        pending = sum(code is None for code in codes.values())
        killed = len(codes) - len(survived) - pending
        tested = killed + len(survived)
        rows.append({"module": meta.name.removesuffix(".meta"), "mutants": len(codes),
                     "killed": killed, "survived": survived, "not_run": pending,
                     "score": killed / tested if tested else None})
    return rows


def main() -> int:
    rows = module_scores(Path.cwd())
    if not rows:
        print("no mutmut results under mutants/: run `make mutants` first", file=sys.stderr)
        return 2
    print("| module | mutants | killed | survived | not run | killed / tested |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        score = "-" if row["score"] is None else f"{100 * row['score']:.1f}%"
        print(f"| {row['module']} | {row['mutants']} | {row['killed']} | "
              f"{len(row['survived'])} | {row['not_run']} | {score} |")
    for row in rows:
        for name in row["survived"]:
            print(f"survived: {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

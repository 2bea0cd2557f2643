"""Per-module score of the last ``mutmut run`` (``make mutants``), read from mutmut's result
files ``mutants/kinematic/*.py.meta``, ``mutants/homer/*.py.meta`` and
``mutants/homer/baselines/*.py.meta`` (the packages in ``PACKAGES`` and their subpackages).

Exit codes recorded by mutmut: ``1`` and ``3`` the tests failed (killed), ``0`` they passed
(survived), ``None`` not run yet, ``33`` / ``5`` no test covers the mutant; the SIGXCPU codes
(``-24``, ``24``, ``152``, ``255``, ``36``) are timeouts: the tests ran over 30 times their time on
the unmutated code, which counts as detected (listed apart). A survivor is *equivalent* when it
is listed in :mod:`mutation_equivalents` with the reason it cannot change a result; every other
survivor counts against the score::

    score = (killed + timeouts) / (killed + timeouts + survivors that are not equivalent)

Prints the table of the modules with at least one result (a run restricted by ``MUTATE``
leaves the others unrun), then every survivor with its classification; survivors without one
are listed as ``UNCLASSIFIED``, and classified names that no longer survive as ``STALE``
(mutmut renumbers mutants when the code changes, and a function may be gone): a name is stale
when its module has results and the name is not a mutant of it or was judged and killed; the
mutants of a module not run yet say nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from mutation_equivalents import EQUIVALENT, LIVE  # beside this script (run as a script)

KILLED = {1, 3}
SURVIVED = {0}
NO_TESTS = {5, 33}
TIMEOUT = {-24, 24, 152, 255, 36}
TARGET = 0.9
PACKAGES = ("kinematic", "homer")


@dataclass
class ModuleScore:
    module: str
    mutants: int = 0
    killed: int = 0
    timeouts: int = 0
    not_run: int = 0
    no_tests: int = 0
    other: int = 0
    survivors: list[str] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    """Every mutant of the module, run or not."""
    judged: set[str] = field(default_factory=set)
    """The mutants with a result."""

    @property
    def equivalent(self) -> list[str]:
        return [name for name in self.survivors if name in EQUIVALENT]

    @property
    def live(self) -> list[str]:
        """Survivors not shown to be equivalent."""
        return [name for name in self.survivors if name not in EQUIVALENT]

    @property
    def prefix(self) -> str:
        """The start of its mutants' names: ``kinematic.model.`` for ``kinematic/model.py``."""
        return self.module.removesuffix(".py").replace("/", ".") + "."

    @property
    def score(self) -> float | None:
        detected = self.killed + self.timeouts
        tested = detected + len(self.live)
        return detected / tested if tested else None


def module_scores(root: Path) -> list[ModuleScore]:
    """One row per module of ``PACKAGES`` that mutmut made mutants of."""
    rows = []
    metas = [meta for package in PACKAGES
             for meta in sorted((root / "mutants" / package).rglob("*.py.meta"))]
    for meta in metas:
        try:
            codes = json.loads(meta.read_text())["exit_code_by_key"]
        except (OSError, ValueError, KeyError) as error:
            raise SystemExit(f"error: {meta}: not a mutmut result file ({error})") from None
        module = meta.relative_to(root / "mutants").as_posix().removesuffix(".meta")
        row = ModuleScore(module, mutants=len(codes), names=set(codes),
                          judged={name for name, code in codes.items() if code is not None})
        for name, code in sorted(codes.items()):
            if code is None:
                row.not_run += 1
            elif code in KILLED:
                row.killed += 1
            elif code in TIMEOUT:
                row.timeouts += 1
            elif code in SURVIVED:
                row.survivors.append(name)
            elif code in NO_TESTS:
                row.no_tests += 1
            else:
                row.other += 1
        rows.append(row)
    return rows


def stale(rows: list[ModuleScore]) -> list[str]:
    """Classified names that no longer survive: in modules with results, or in modules no
    longer mutated."""
    names = []
    for name in sorted(set(EQUIVALENT) | set(LIVE)):
        row = next((row for row in rows if name.startswith(row.prefix)), None)
        if row is None:  # a module no longer mutated
            names.append(name)
            continue
        if not row.judged or name in row.survivors:
            continue
        if name not in row.names or name in row.judged:
            names.append(name)
    return names


def table(rows: list[ModuleScore]) -> str:
    lines = ["| module | mutants | killed | timeouts | survived | equivalent | not run | score |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        score = "-" if row.score is None else f"{100 * row.score:.1f}%"
        lines.append(f"| {row.module} | {row.mutants} | {row.killed} | {row.timeouts} | "
                     f"{len(row.survivors)} | {len(row.equivalent)} | "
                     f"{row.not_run + row.no_tests + row.other} | {score} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="holds mutants/")
    parser.add_argument("--markdown", action="store_true", help="survivors as a markdown list")
    args = parser.parse_args(argv)
    every = module_scores(args.root)
    rows = [row for row in every if row.judged]
    if not rows:
        print("no mutmut results under mutants/: run `make mutants` first", file=sys.stderr)
        return 2
    print(table(rows))
    unrun = [row.module for row in every if not row.judged]
    if unrun:
        print(f"\nnot run: {', '.join(unrun)}")
    print()
    for row in rows:
        for name in row.survivors:
            if name in EQUIVALENT:
                change, reason = EQUIVALENT[name]
                verdict = f"equivalent: `{change}`: {reason}"
            else:
                verdict = "live: " + LIVE.get(name, "UNCLASSIFIED (`mutmut show` it)")
            print(f"- `{name}`: {verdict}" if args.markdown else f"survived: {name}: {verdict}")
    for name in stale(every):
        print(f"STALE: {name} is classified but did not survive this run")
    below = [row.module for row in rows if row.score is not None and row.score < TARGET]
    incomplete = [row.module for row in rows if row.not_run]
    print(f"\ntarget {TARGET:.0%} per module: "
          + ("met" if not below and not incomplete else
             f"not met (below: {below or 'none'}; not finished: {incomplete or 'none'})"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The section of a results page that a benchmark script writes, between two marker lines.

A page under ``benchmarks/results/`` holds what its script generates (the command, date and
machine of the run, the tables) and notes written by hand around it. The script writes only
the lines between its :func:`markers` (HTML comments naming it, invisible on the rendered
page) and keeps the rest of the page byte for byte. :meth:`ResultsPage.read` reads the page
before the run, which may take hours, and exits naming the page if a marker is missing; a page
not written yet gets a title.

``exact_scale.py``, ``exogenous_lock.py``, ``homer_combolock.py``, ``homer_sharing.py``,
``horizon_sweep.py``, ``lock_abstractions.py``, ``learned_objectives.py`` and
``objectives_table.py`` write sections. ``learner_scores.py`` and ``standard_envs.py`` write
their whole page: every line of ``learner_scores.md`` and ``standard_envs.md`` is generated
(the former from all stored cells), and nothing on them is written by hand.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path


def markers(script: str) -> tuple[str, str]:
    """The lines that open and close the section written by ``script`` (its path in the
    repository).

    >>> markers("benchmarks/exact_scale.py")[1]
    '<!-- end of the section written by benchmarks/exact_scale.py -->'
    """
    return (f"<!-- written by {script}: each run replaces this section -->",
            f"<!-- end of the section written by {script} -->")


@dataclass(frozen=True)
class ResultsPage:
    """The page ``path`` around the section of ``script``: the text ``before`` its opening
    marker and ``after`` its closing one."""

    path: Path
    script: str
    before: str
    after: str

    @classmethod
    def read(cls, path: Path, script: str, title: str) -> ResultsPage:
        """The page ``path`` as it is now; a page not written yet is ``# title`` alone. Exits
        naming the page unless each marker of ``script`` is on it once, in order.

        >>> page = ResultsPage.read(Path("/nonexistent/page.md"), "bench.py", "A title")
        >>> page.before, page.after
        ('# A title\\n\\n', '')
        """
        if not path.exists():
            return cls(path, script, f"# {title}\n\n", "")
        text = path.read_text()
        begin, end = markers(script)
        problems = [f"{line!r} is missing" if text.count(line) == 0 else
                    f"{line!r} appears {text.count(line)} times"
                    for line in (begin, end) if text.count(line) != 1]
        if not problems and text.index(end) < text.index(begin):
            problems.append(f"{end!r} comes before {begin!r}")
        if problems:
            sys.exit(f"{path}: no section of {script} to write ({'; '.join(problems)}); "
                     "give another page with --results")
        before, _, rest = text.partition(begin)
        return cls(path, script, before, rest.partition(end)[2])

    def write(self, lines: list[str]) -> None:
        """Writes the page: the text before, then the markers around ``lines``, then the text
        after.

        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "page.md"
        >>> ResultsPage.read(path, "bench.py", "A title").write(["| a |", "|---|", "| 1 |"])
        >>> print(path.read_text(), end="")
        # A title
        <BLANKLINE>
        <!-- written by bench.py: each run replaces this section -->
        <BLANKLINE>
        | a |
        |---|
        | 1 |
        <BLANKLINE>
        <!-- end of the section written by bench.py -->
        """
        begin, end = markers(self.script)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(self.before + "\n".join([begin, "", *lines, "", end])
                             + (self.after or "\n"))

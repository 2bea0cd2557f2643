"""The files a release carries agree with the code and with each other: CITATION.cff's version is
``kinematic.__version__`` and its release date the changelog's for that version, the changelog
keeps an Unreleased section on top, and the paper is cited alike in CITATION.cff and the README.
A release that bumps ``__version__`` and forgets one of them fails here."""

import re
from pathlib import Path

import pytest

import kinematic

ROOT = Path(__file__).resolve().parents[1]
VERSION_HEADING = re.compile(r"^## (\S+)(?: - (\d{4}-\d{2}-\d{2}))?$", re.MULTILINE)
"""A version's heading, ``## 0.1.0 - 2026-11-27`` (no brackets: the project has no public
address to link them to, and unlinked brackets print as they are)."""


@pytest.fixture(scope="module")
def citation() -> dict:
    yaml = pytest.importorskip("yaml")
    return yaml.safe_load((ROOT / "CITATION.cff").read_text())


def test_the_citation_is_of_this_version_and_its_authors_are_the_licence_holders(citation):
    assert citation["cff-version"] == "1.2.0"
    assert (citation["title"], citation["version"]) == ("kinematic", kinematic.__version__)
    assert citation["authors"] == [{"name": "The kinematic contributors"}]
    assert "Copyright (c) 2026 The kinematic contributors" in (ROOT / "LICENSE").read_text()
    assert citation["license"] == "MIT"


def test_the_changelog_has_unreleased_then_this_version_released_on_the_citations_date(citation):
    headings = VERSION_HEADING.findall((ROOT / "CHANGELOG.md").read_text())
    assert headings[0] == ("Unreleased", "")
    released = dict(headings[1:])
    assert kinematic.__version__ in released
    assert released[kinematic.__version__] == str(citation["date-released"])


def _bibtex_entries() -> dict[str, dict[str, str]]:
    """The README's BibTeX entries by key, their fields by name."""
    text = re.search(r"```bibtex\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)
    entries = re.findall(r"^@\w+\{(\w+),\n(.*?)^\}", text.group(1), re.MULTILINE | re.DOTALL)
    return {key: dict(re.findall(r"^\s*(\w+)\s*=\s*\{(.*?)\},?$", body,
                                 re.MULTILINE | re.DOTALL)) for key, body in entries}


def test_the_readme_cites_the_toolkit_of_this_version(citation):
    toolkit = _bibtex_entries()["kinematic"]
    assert toolkit["version"] == kinematic.__version__ == citation["version"]
    assert toolkit["year"] == str(citation["date-released"])[:4]
    assert toolkit["author"] == "{The kinematic contributors}"


def test_the_readme_cites_the_paper_as_the_citation_file_does(citation):
    [paper] = citation["references"]
    fields = _bibtex_entries()["misra2020kinematic"]
    authors = " and ".join(f"{a['family-names']}, {a['given-names']}" for a in paper["authors"])
    assert " ".join(fields["title"].split()) == " ".join(paper["title"].split())
    assert (fields["author"], fields["year"], fields["volume"], fields["pages"]) == (
        authors, str(paper["year"]), str(paper["volume"]), f"{paper['start']}--{paper['end']}")
    assert fields["url"] == paper["url"]
    assert f"arXiv:{fields['eprint']}" in [i["value"] for i in paper["identifiers"]]

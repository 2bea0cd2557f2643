"""MkDocs hooks of the documentation site (``hooks:`` in ``mkdocs.yml``).

``on_files`` adds what lives outside ``docs/`` without copying it: the notebooks
(``notebooks/*.ipynb``, rendered by mkdocs-jupyter from their stored outputs), the benchmark
results (``benchmarks/results/*.md``, and the figures they show from a subdirectory) and one API
page per public module of the three packages
(``reference/kinematic/model.md`` holds ``::: kinematic.model``; a package's ``__init__`` is its
directory's ``index.md``). A module whose name, or whose package's name, starts with ``_`` is
private and gets no page; so does ``__main__``.

Then the nav of ``mkdocs.yml`` may name pages by glob: an entry whose path holds a ``*`` becomes
the list of the pages it matches (``fnmatch``, so ``*`` also crosses ``/``), sorted by path with
a directory's ``index.md`` first; ``{title: pattern}`` becomes a section of that title. New
modules, notebooks and result files so appear in the nav without editing it; a pattern that
matches no page is an error.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import CombinedEvent, event_priority
from mkdocs.structure.files import File, Files

PACKAGES = ("kinematic", "proofs_checks", "homer")
OUTSIDE_DOCS = ("notebooks/*.ipynb", "benchmarks/results/*.md", "benchmarks/results/*/*.png")


def _repo_root(config: MkDocsConfig) -> Path:
    return Path(config.config_file_path).parent


def _api_pages(config: MkDocsConfig, package: str) -> list[File]:
    """One generated page per public module of ``package``, titled by its path in the package
    (the nav lists the pages under the package's name)."""
    root = _repo_root(config)
    pages = []
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if any(part.startswith("_") for part in parts if part != "__init__"):
            continue
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        uri = "reference/" + "/".join(parts).replace("__init__", "index") + ".md"
        title = module.partition(".")[2] or module
        content = f"---\ntitle: {title}\n---\n\n# `{module}`\n\n::: {module}\n"
        pages.append(File.generated(config, uri, content=content))
    return pages


@event_priority(50)  # before mkdocs-jupyter's on_files, which takes the notebooks as pages
def _add_files(files: Files, config: MkDocsConfig) -> Files:
    root = _repo_root(config)
    for pattern in OUTSIDE_DOCS:
        for path in sorted(root.glob(pattern)):
            uri = path.relative_to(root).as_posix()
            files.append(File(uri, str(root), config.site_dir, config.use_directory_urls))
    for package in PACKAGES:
        for page in _api_pages(config, package):
            files.append(page)
    return files


@event_priority(-50)  # after every plugin's on_files: the final set of pages
def _expand_nav(files: Files, config: MkDocsConfig) -> None:
    config.nav = _expand(config.nav, [file.src_uri for file in files.documentation_pages()])


on_files = CombinedEvent(_add_files, _expand_nav)


def _expand(nav: Any, uris: list[str]) -> Any:
    """``nav`` with each glob entry replaced by the pages it matches (see the module's
    docstring)."""
    if isinstance(nav, list):
        expanded = []
        for entry in nav:
            if isinstance(entry, str) and "*" in entry:
                expanded.extend(_matches(entry, uris))
            else:
                expanded.append(_expand(entry, uris))
        return expanded
    if isinstance(nav, dict):
        return {title: _expand(value, uris) for title, value in nav.items()}
    if isinstance(nav, str) and "*" in nav:
        return _matches(nav, uris)
    return nav


def _matches(pattern: str, uris: list[str]) -> list[str]:
    matches = [uri for uri in uris if fnmatch.fnmatchcase(uri, pattern)]
    if not matches:
        raise PluginError(f"nav: the pattern {pattern!r} matches no page")
    return sorted(matches, key=lambda uri: uri.removesuffix("index.md"))

"""The documentation site typesets its math, offline.

Formulas are written ``$...$`` / ``$$...$$`` in ``docs/`` (pymdownx.arithmatex keeps their TeX),
and the committed KaTeX (``docs/vendor/katex``, fetched by ``docs/fetch_katex.py``) typesets them
when a page is opened, from disk. What a reader sees is checked in headless Chromium: the
kinematic-inseparability page shows typeset formulas, and every formula of the site parses (a
formula KaTeX cannot parse would show as red source, silently for ``mkdocs build --strict``). No
page loads a script, style sheet, font or image from outside the site.

The site is the one ``make test`` has just built (``mkdocs build --strict`` into ``site/``,
passed as ``KINEMATIC_BUILT_SITE``); without that variable it is built here into a temporary
directory (10 s of CPU).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType

import pytest

from tests.tools import require_tool

ROOT = Path(__file__).resolve().parent.parent
KATEX = ROOT / "docs" / "vendor" / "katex"
BUILT_SITE = "KINEMATIC_BUILT_SITE"
FORMULA = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.DOTALL)
OUTSIDE = re.compile(r"^\s*(https?:|//)", re.IGNORECASE)
CSS_URL = re.compile(r"""(?:url\(|@import)\s*['"]?\s*(https?:|//)""", re.IGNORECASE)
TAG = re.compile(r"<(?!a[\s>])([a-zA-Z][\w-]*)([^>]*)>")
ATTRIBUTE = re.compile(
    r"""\s(src|srcset|data|poster|href)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)


def _fetch_katex() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fetch_katex", ROOT / "docs" / "fetch_katex.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Dom(HTMLParser):
    """What the tests read from a page typeset by Chromium: each element's classes, and
    KaTeX's error messages (after the ``data-page`` of the element around them, if any) and TeX
    annotations."""

    def __init__(self) -> None:
        super().__init__()
        self.classes: list[list[str]] = []
        self.errors: list[str] = []
        self.annotations: list[str] = []
        self._inside: str | None = None
        self._page = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        self.classes.append(values.get("class", "").split())
        self._page = values.get("data-page", self._page)
        if "katex-error" in self.classes[-1]:
            self.errors.append(" ".join(filter(None, (self._page, values.get("title", "")))))
        self._inside = tag

    def handle_data(self, data: str) -> None:
        if self._inside == "annotation":
            self.annotations.append(data)

    def handle_endtag(self, tag: str) -> None:
        self._inside = None

    def count(self, name: str) -> int:
        """How many elements have the class ``name``."""
        return sum(name in classes for classes in self.classes)


def read_dom(html: str) -> Dom:
    dom = Dom()
    dom.feed(html)
    return dom


def loads(html: str) -> list[str]:
    """The addresses a page loads from: ``src`` and the like of every element, ``href`` of its
    ``<link>`` elements (a regular expression over the tags: an HTML parser takes seconds for
    the whole site)."""
    found = []
    for tag in TAG.finditer(html):
        for attribute in ATTRIBUTE.finditer(tag.group(2)):
            if attribute.group(1).lower() != "href" or tag.group(1).lower() == "link":
                found.append(next(value for value in attribute.groups()[1:] if value is not None))
    return found


def typeset(page: Path, profile: Path) -> Dom:
    """The DOM of ``page`` after its scripts ran, in headless Chromium (no network use of its
    own: no background requests, no component updates)."""
    chromium = require_tool("chromium")
    result = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, f"chromium on {page}: {result.stderr[-2000:]}"
    return read_dom(result.stdout)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = os.environ.get(BUILT_SITE)
    if built:
        return Path(built).resolve()
    pytest.importorskip("mkdocs")
    target = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(target)],
        cwd=ROOT, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, capture_output=True, text=True,
        check=False)
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stderr}"
    return target


def pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_the_ki_page_shows_typeset_math(site: Path, tmp_path: Path):
    """Kills: the math left as code or as raw TeX (no ``.katex``), a script or style sheet path
    that does not resolve from the page (KaTeX never runs), a formula that does not parse."""
    page = site / "concepts" / "ki-partitions.html"
    formulas = len(FORMULA.findall(page.read_text()))
    assert formulas >= 10, f"{page}: {formulas} formulas written as math"
    dom = typeset(page, tmp_path / "profile")
    assert dom.errors == []
    assert dom.count("katex") == formulas
    assert dom.count("katex-display") == 1  # def:bki's backward dynamics
    assert r"\mathbb{P}_u(x, a \mid x'_1) = \mathbb{P}_u(x, a \mid x'_2)," in "".join(
        annotation.strip() for annotation in dom.annotations)


def test_every_formula_of_the_site_parses(site: Path, tmp_path: Path):
    """All the site's formulas on one page, typeset by the site's own scripts: KaTeX marks one it
    cannot parse ``.katex-error`` (shown in red; the build does not notice). Kills a TeX error in
    any page, e.g. an unbalanced brace or an unknown command. The control, a formula that does
    not parse, must be the one error found (the site's script neither throws nor hides it)."""
    formulas = [(page.relative_to(site).as_posix(), match.group(0))
                for page in pages(site) for match in FORMULA.finditer(page.read_text())]
    assert len(formulas) >= 100
    control = ("control", r'<span class="arithmatex">\(\frac{1}{\)</span>')
    body = "\n".join(f'<p data-page="{escape(page)}:">{formula}</p>'
                     for page, formula in [*formulas, control])
    scripts = "".join(f'<script src="{(site / path).as_uri()}"></script>'
                      for path in ("vendor/katex/katex.min.js", "javascripts/math.js"))
    sheet = tmp_path / "formulas.html"
    sheet.write_text(f'<!doctype html><html><head><meta charset="utf-8"></head><body>\n{body}\n'
                     f"{scripts}</body></html>")
    dom = typeset(sheet, tmp_path / "profile")
    assert [error for error in dom.errors if not error.startswith("control: ParseError")] == []
    assert len(dom.errors) == 1, "the control formula was not reported"
    assert dom.count("katex") == len(formulas)


def test_no_page_loads_anything_from_outside_the_site(site: Path):
    """Every script, style sheet, font and image comes from the site itself (opened from disk,
    it needs no network): no ``src`` or ``<link href>`` and no CSS ``url()``/``@import`` is an
    http(s) or protocol-relative address. Kills a KaTeX, font or theme asset taken from a CDN."""
    outside = []
    for page in pages(site):
        html = page.read_text()
        outside += [f"{page.relative_to(site)}: {address}" for address in loads(html)
                    if OUTSIDE.match(address)]
        outside += [f"{page.relative_to(site)}: {match.group(0)}"
                    for match in CSS_URL.finditer(html)]
    outside += [f"{sheet.relative_to(site)}: {match.group(0)}" for sheet in site.rglob("*.css")
                for match in CSS_URL.finditer(sheet.read_text())]
    assert outside == []
    ki_page = site / "concepts" / "ki-partitions.html"
    addresses = set(loads(ki_page.read_text()))
    assert {"../vendor/katex/katex.min.css", "../vendor/katex/katex.min.js",
            "../javascripts/math.js"} <= addresses
    missing = [address for address in addresses
               if not (ki_page.parent / address.partition("#")[0]).is_file()]
    assert missing == [], f"{ki_page} loads files the site does not have"


def test_the_committed_katex_is_the_pinned_version():
    """``docs/vendor/katex`` holds what ``make katex`` writes for the pinned version: kills a
    version bumped in ``fetch_katex.py`` without re-fetching, and a font the style sheet names
    (as woff2, the format every current browser takes) that is not committed, which a reader
    would get as a fallback font."""
    fetch_katex = _fetch_katex()
    assert f'version:"{fetch_katex.VERSION}"' in (KATEX / "katex.min.js").read_text()
    assert (KATEX / "LICENSE").read_text().startswith("The MIT License")
    named = set(re.findall(r"url\((fonts/[^)]+\.woff2)\)", (KATEX / "katex.min.css").read_text()))
    committed = {path.relative_to(KATEX).as_posix() for path in KATEX.rglob("*") if path.is_file()}
    assert committed == named | {"LICENSE", "katex.min.js", "katex.min.css"}


def test_fetch_katex_takes_only_what_the_site_uses():
    """The tarball's files kept, and where: kills vendoring the whole package (sources, ttf and
    woff fonts, unminified builds)."""
    target = _fetch_katex().target
    assert target("package/dist/katex.min.js") == "katex.min.js"
    assert target("package/dist/fonts/KaTeX_Main-Regular.woff2") == "fonts/KaTeX_Main-Regular.woff2"
    assert target("package/LICENSE") == "LICENSE"
    for unused in ("package/dist/katex.js", "package/dist/fonts/KaTeX_Main-Regular.ttf",
                   "package/dist/fonts/KaTeX_Main-Regular.woff", "package/src/katex.ts",
                   "package/dist/contrib/auto-render.min.js"):
        assert target(unused) is None, unused

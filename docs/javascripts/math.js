// Typesets the formulas of a page with the vendored KaTeX (docs/vendor/katex/, `make katex`).
// pymdownx.arithmatex (generic mode, mkdocs.yml) leaves each formula as its TeX in an element of
// class "arithmatex": \(...\) inline, \[...\] displayed. Only those elements are typeset, so a
// dollar sign in code or in a notebook page is left alone. A formula KaTeX cannot parse is shown
// as its source in red (class "katex-error", the error in its title); tests/test_site_math.py
// fails on any.
(function () {
  "use strict";
  function typeset() {
    document.querySelectorAll(".arithmatex").forEach(function (element) {
      var tex = element.textContent.trim();
      var display = tex.startsWith("\\[");
      katex.render(tex.slice(2, -2), element, { displayMode: display, throwOnError: false });
    });
  }
  // mkdocs-material's document$ emits on every page load (instant navigation included).
  if (typeof document$ !== "undefined") {
    document$.subscribe(typeset);
  } else {
    typeset();
  }
})();

"""A Griffe extension (``extensions:`` of mkdocstrings' Python handler in ``mkdocs.yml``) that
reads the project's docstrings as their reStructuredText-flavoured source means them.

- A doctest block (from a line starting with ``>>>`` to the next blank line, as in
  reStructuredText) becomes a fenced ``pycon`` block: as Markdown its ``>>>`` would be nested
  quotes and its outputs' brackets (``['1/2', '1']``) reference links. After a numpydoc section
  (``Raises`` and its dashes), where a fence would be read as more of the section, the first
  such block gets an ``Examples`` heading instead, whose doctests numpydoc reads itself.
- An inline Sphinx role loses its role: ``:func:`optimal_values``` reads ``optimal_values`` in
  code type, as in the source.
- A Hypothesis strategy written as a function decorated with ``@st.composite`` (or
  ``@composite``) is shown as users call it: without its first parameter ``draw``, which
  Hypothesis passes, and returning a ``SearchStrategy`` of what the function returns.
- A module's page documents what the module defines: the names it re-exports (in its
  ``__all__``) are documented on the page of the module defining them. A package's page lists
  its re-exports, each linked to that page.

Only what is given to the renderer changes; the source is left as it is.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

SPHINX_ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):(?=`)")


def fence_doctests(text: str) -> str:
    """``text`` with each doctest block in a ``pycon`` fence at the block's indentation, or,
    from the first unindented one after a numpydoc section on, in an ``Examples`` section."""
    lines = text.split("\n")
    result: list[str] = []
    in_section = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line and set(line) == {"-"} and result and result[-1].strip():
            in_section = True
        if not line.lstrip().startswith(">>>"):
            result.append(line)
            i += 1
            continue
        indent = line[: len(line) - len(line.lstrip())]
        if in_section and not indent:
            result.extend(["Examples", "--------", *lines[i:]])
            break
        result.append(f"{indent}```pycon")
        while i < len(lines) and lines[i].strip():
            result.append(lines[i])
            i += 1
        result.append(f"{indent}```")
    return "\n".join(result)


def _listed(alias: griffe.Alias) -> str:
    """A package's re-export as a list item: its name, linked to its documentation when it has
    some (an undocumented constant is not rendered, so a link would dangle), and its module."""
    name = f"`{alias.name}`"
    try:
        documented = alias.final_target.has_docstrings
    except griffe.AliasResolutionError:  # defined outside the packages documented here
        documented = False
    if documented:
        name = f"[{name}][{alias.target_path}]"
    return f"- {name} (`{alias.target_path.rpartition('.')[0]}`)"


class ReStructuredTextDocstrings(griffe.Extension):
    """Fences doctest blocks, drops inline Sphinx roles and hides re-exports (see the module's
    docstring), once a package is loaded (``on_object`` is not called for the package itself)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        objects: list[griffe.Object] = [pkg]
        while objects:
            obj = objects.pop()
            objects.extend(member for member in obj.members.values() if not member.is_alias)
            if obj.docstring is not None:
                obj.docstring.value = SPHINX_ROLE.sub("", fence_doctests(obj.docstring.value))
            if obj.is_function and _is_composite(obj):
                _as_called(obj)
            if obj.is_module:
                _hide_reexports(obj)


COMPOSITE = "hypothesis.strategies.composite"


def _is_composite(function: griffe.Function) -> bool:
    """Whether ``function`` is decorated with Hypothesis's ``composite`` (``@st.composite`` or
    ``@composite``): griffe resolves each decorator to the path of what it calls."""
    return any(decorator.callable_path == COMPOSITE for decorator in function.decorators)


def _as_called(function: griffe.Function) -> None:
    """The signature of a ``composite`` strategy as users call it: its first parameter
    (``draw``) dropped, and its return annotation ``T`` read as ``SearchStrategy[T]``."""
    first = next(iter(function.parameters))
    del function.parameters[first.name]
    if function.returns is not None:
        function.returns = f"SearchStrategy[{function.returns}]"


def _hide_reexports(module: griffe.Module) -> None:
    """Leaves ``module``'s re-exports to their own modules' pages; a package lists them."""
    exported = [member for member in module.members.values()
                if member.is_alias and member.is_public]
    for member in module.members.values():
        if member.is_alias:
            member.public = False
    if module.is_init_module and exported:
        listing = "\n".join(_listed(member)
                             for member in sorted(exported, key=lambda m: m.name.lower()))
        heading = f"The public names of `{module.path}`, defined in its modules:"
        text = module.docstring.value if module.docstring else ""
        module.docstring = griffe.Docstring(f"{text}\n\n{heading}\n\n{listing}", parent=module)

"""The notebooks run top to bottom without errors (executed with nbclient) and show figures;
they call the library and define nothing of their own."""

import ast
from pathlib import Path

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
TRAINS_HOMER = {"02_counterexamples.ipynb", "03_homer_vs_truth.ipynb"}
"""Notebooks that train HOMER at real budgets (a minute or more each): marked ``slow``."""


def test_there_are_notebooks():
    assert NOTEBOOKS
    assert {path.name for path in NOTEBOOKS} >= TRAINS_HOMER  # a rename would drop the mark


@pytest.mark.parametrize("path", [
    pytest.param(path, marks=[pytest.mark.slow] if path.name in TRAINS_HOMER else [])
    for path in NOTEBOOKS], ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_and_draws(path, tmp_path):
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_defines_no_functions_and_draws_without_pyplot(path):
    """What a notebook needed of its own belongs in the library, where it is tested; figures
    come from the library as cell values (pyplot would also keep every figure open)."""
    python = TransformerManager().transform_cell  # %magics as the Python IPython runs
    source = "\n".join(python(cell.source) for cell in nbformat.read(path, as_version=4).cells
                       if cell.cell_type == "code")
    nodes = list(ast.walk(ast.parse(source)))
    assert not [node.name for node in nodes
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
    assert not [node for node in nodes if isinstance(node, ast.Lambda)]
    imported = {alias.name for node in nodes if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module for node in nodes if isinstance(node, ast.ImportFrom)}
    assert "matplotlib.pyplot" not in imported

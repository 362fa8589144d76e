"""The viewer's modules import each other in one direction only, at the top of the file.

Read from the source with `ast`: every `sealscope.viewer` module's module-level imports
(those under `if TYPE_CHECKING:` are annotations, not imports) form a graph without a
cycle, and no function imports anything (a function-local import is how a cycle hides).
"""
from __future__ import annotations

import ast
from pathlib import Path

VIEWER = Path(__file__).resolve().parents[2] / "viewer"
PACKAGE = "sealscope.viewer"


def _modules() -> dict[str, ast.Module]:
    return {p.stem: ast.parse(p.read_text(encoding="utf-8"), str(p))
            for p in sorted(VIEWER.glob("*.py"))}


def _top_level_viewer_imports(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and \
                node.module.startswith(PACKAGE + "."):
            out.add(node.module.rsplit(".", 1)[1])
        elif isinstance(node, ast.Import):
            out.update(a.name.rsplit(".", 1)[1] for a in node.names
                       if a.name.startswith(PACKAGE + "."))
    return out


def _function_imports(tree: ast.Module) -> list[int]:
    lines = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    lines.append(node.lineno)
    return lines


def test_no_function_imports_in_the_viewer():
    found = {name: lines for name, tree in _modules().items()
             if (lines := _function_imports(tree))}
    assert found == {}


def test_viewer_imports_form_no_cycle():
    graph = {name: _top_level_viewer_imports(tree) for name, tree in _modules().items()}
    assert graph["app"] >= {"ledger_tab", "seal_tab", "harn_tab", "evidence_tab"}
    assert graph["messages"] == set() and graph["commands"] == set()
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, " -> ".join(path + (name,))
        if name in done:
            return
        for dep in sorted(graph.get(name, ())):
            visit(dep, path + (name,))
        done.add(name)

    for name in sorted(graph):
        visit(name, ())
    assert done == set(graph)

"""The viewer's modules import each other in one direction only, at the top of the file
or through `viewer.lazy`, and the app starts without what its first screen does not need.

Read from the source with `ast`: every `sealscope.viewer` module's module-level imports
(those under `if TYPE_CHECKING:` are annotations, not imports), with each name it reads
from `viewer.lazy` counted as an import of the module that name loads from, form a
graph without a cycle, and no function imports anything (a function-local import is how
a cycle hides). `viewer.lazy`'s table agrees with its `TYPE_CHECKING` imports.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from sealscope.viewer import lazy

from tests.core.test_lazy import table_agrees

VIEWER = Path(__file__).resolve().parents[2] / "viewer"
PACKAGE = "sealscope.viewer"


def _modules() -> dict[str, ast.Module]:
    return {
        p.stem: ast.parse(p.read_text(encoding="utf-8"), str(p))
        for p in sorted(VIEWER.glob("*.py"))
    }


def _top_level_viewer_imports(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for node in tree.body:
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith(PACKAGE + ".")
        ):
            out.add(node.module.rsplit(".", 1)[1])
        elif isinstance(node, ast.ImportFrom) and node.module == PACKAGE:
            out.update(a.name for a in node.names)  # from sealscope.viewer import lazy
        elif isinstance(node, ast.Import):
            out.update(
                a.name.rsplit(".", 1)[1] for a in node.names if a.name.startswith(PACKAGE + ".")
            )
    return out


def _lazy_viewer_imports(tree: ast.Module) -> set[str]:
    """The viewer modules whose names this module reads through `viewer.lazy`
    (`lazy.SealTab` is an import of `seal_tab`, made on first use)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "lazy"
            and node.attr in lazy._LAZY
        ):
            module = lazy._LAZY[node.attr].partition(":")[0]
            if module.startswith(PACKAGE + "."):
                out.add(module.rsplit(".", 1)[1])
    return out


def _graph() -> dict[str, set[str]]:
    return {
        name: _top_level_viewer_imports(tree) | _lazy_viewer_imports(tree)
        for name, tree in _modules().items()
    }


def _function_imports(tree: ast.Module) -> list[int]:
    lines = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    lines.append(node.lineno)
    return lines


def test_no_function_imports_in_the_viewer():
    found = {name: lines for name, tree in _modules().items() if (lines := _function_imports(tree))}
    assert found == {}


def test_viewer_imports_form_no_cycle():
    graph = _graph()
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


def test_the_lazy_table_agrees_with_its_type_checking_imports():
    table_agrees(lazy, VIEWER / "lazy.py")
    assert set(lazy._LAZY) == set(lazy.__all__)


def test_every_lazy_name_is_read_somewhere():
    """A name in the table that no module reads is a stale entry."""
    read: set[str] = set()
    for tree in _modules().values():
        read |= {
            node.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "lazy"
        }
    assert set(lazy._LAZY) - read == set()


# What the first screen of a ledger does not need: importing the app must not load it.
# The first paint draws that screen; the ledger tab and its widgets load behind it.
NOT_AT_START = {
    "sealscope.viewer.ledger_tab",
    "sealscope.viewer.banner",
    "sealscope.viewer.row_detail",
    "sealscope.viewer.receipt_panel",
    "sealscope.viewer.follow_mode",
    "sealscope.viewer.verify_child",
    "sealscope.core.ledger",
    "sealscope.viewer.fleet_tab",
    "sealscope.viewer.harn_tab",
    "sealscope.viewer.seal_tab",
    "sealscope.viewer.seal_diff",
    "sealscope.viewer.verdict_view",
    "sealscope.viewer.lookup_screen",
    "sealscope.viewer.pin_screen",
    "sealscope.viewer.held_screen",
    "sealscope.viewer.readme_screen",
    "sealscope.viewer.export_action",
    "sealscope.viewer.compaction_chart",
    "sealscope.viewer.prompt",
    "sealscope.core.export",
    "sealscope.core.fleet",
    "sealscope.core.follow",
    "sealscope.core.pins",
    "sealscope.core.witness",
    "sealscope.core.receipt",
    "sealscope.core.sealfile",
    "sealscope.core.compaction_series",
    "sealscope.core.continuity.snapshots",
    "sealscope.core.harn.read",
    "importlib.metadata",
    "markdown_it",
    "textual.widgets._markdown",
    "textual.widgets._data_table",
}


def test_importing_the_app_loads_only_what_the_first_screen_needs():
    code = "import sys, sealscope.viewer.app\nprint('\\n'.join(sorted(sys.modules)))"
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
        ).stdout.split()
    )
    assert {
        "sealscope.viewer.first_paint",
        "sealscope.viewer.source",
        "sealscope.viewer.row_list",
    } <= loaded
    assert NOT_AT_START & loaded == set()

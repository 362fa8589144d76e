"""The layers hold: sealscope.core stands alone, the frontends sit on it.

    sealscope.viewer  (viewer/)   Textual app          ─┐ may import sealscope.* and
    sealscope         (cli/)      the command, style    ─┘ textual / rich
    sealscope.core    (core/)     stdlib + orjson only, imports nothing above it

Every module of sealscope.core, subpackages included, is read with `ast`: each import
must name sealscope.core, the standard library or orjson. Then every core module is
imported in a fresh interpreter where Textual and Rich cannot be imported.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "core"
ALLOWED_THIRD_PARTY = {"orjson"}

BLOCK = """
import importlib, importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("textual", "rich"):
            raise ImportError(f"{name} is blocked in this test")
        return None
sys.meta_path.insert(0, Block())
for name in sys.argv[1:]:
    importlib.import_module(name)
assert not any(m.split(".")[0] in ("textual", "rich") for m in sys.modules)
print("ok")
"""


def core_modules() -> dict[str, Path]:
    """Every core module's dotted name → its file (subpackages included)."""
    out = {}
    for path in sorted(CORE.rglob("*.py")):
        parts = list(path.relative_to(CORE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(["sealscope", "core", *parts])] = path
    return out


def imported_names(name: str, path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            found.append((node.lineno, mod))
    return found


def allowed(module: str) -> bool:
    top = module.split(".")[0]
    if module == "sealscope.core" or module.startswith("sealscope.core."):
        return True
    if top == "sealscope":
        return False
    return top in sys.stdlib_module_names or top in ALLOWED_THIRD_PARTY or top == "__future__"


def test_the_walk_sees_every_core_module():
    names = core_modules()
    assert {
        "sealscope.core.ledger",
        "sealscope.core.verdict",
        "sealscope.core.kinds",
        "sealscope.core.export.report",
        "sealscope.core.harn.read",
        "sealscope.core.continuity.diff",
    } <= set(names)
    assert len(names) >= 40


def test_core_imports_only_core_the_standard_library_and_orjson():
    bad = [
        f"{path.relative_to(CORE.parent)}:{line}: {mod}"
        for name, path in core_modules().items()
        for line, mod in imported_names(name, path)
        if not allowed(mod)
    ]
    assert bad == []


def test_the_checker_refuses_a_frontend_import(tmp_path):
    assert not allowed("sealscope.output") and not allowed("sealscope")
    assert not allowed("textual.app") and not allowed("rich.text") and not allowed("numpy")
    assert allowed("json") and allowed("orjson") and allowed("sealscope.core.jsonio")
    f = tmp_path / "x.py"
    f.write_text("from .. import version\nfrom ...mcp_server import serve\nimport rich\n")
    assert imported_names("sealscope.core.export.x", f) == [
        (1, "sealscope.core"),
        (2, "sealscope.mcp_server"),
        (3, "rich"),
    ]


def test_core_imports_without_textual_or_rich():
    names = [
        n
        for n, p in core_modules().items()
        if not p.name.startswith("_") or p.name == "__init__.py"
    ]
    out = subprocess.run(
        [sys.executable, "-c", BLOCK, *names], capture_output=True, text=True, check=False
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_the_architecture_lists_every_core_module():
    """docs/ARCHITECTURE.md names each core module (a subpackage's modules in its row)."""
    doc = (CORE.parent / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    table = doc[doc.index("## Core modules") : doc.index("## CLI")]
    rows = {line.split("`")[1]: line for line in table.splitlines() if line.startswith("| `")}
    missing = []
    for path in sorted(CORE.rglob("*.py")):
        rel = path.relative_to(CORE)
        if len(rel.parts) == 1:
            listed = rel.name == "__init__.py" or rel.name in rows
        else:
            row = rows.get(rel.parts[0] + "/", "")
            listed = bool(row) and (rel.name == "__init__.py" or f"`{rel.stem}`" in row)
        if not listed:
            missing.append(rel.as_posix())
    assert missing == []

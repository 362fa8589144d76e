"""Deferred imports (`core.lazy`): a table's names load on first read, are the very
objects their modules define, and agree with the `TYPE_CHECKING` imports the type
checker reads; the classifier loads neither the harn reader nor the continuity
verdicts to call a file a ledger."""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest
from sealscope.core import continuity, harn, lazy

ROOT = Path(__file__).resolve().parents[2]


def is_module(name: str) -> bool:
    try:
        return find_spec(name) is not None
    except ModuleNotFoundError:  # the parent is a module, not a package
        return False


def type_checking_imports(path: Path) -> dict[str, str]:
    """name → `lazy.load` target of every import under a module-level
    `if TYPE_CHECKING:` of the file at `path` ("M:n" for `from M import n`, "M.n" when
    that names a module, "a.b" for `import a.b as n`)."""
    out: dict[str, str] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Name)
            and node.test.id == "TYPE_CHECKING"
        ):
            for imp in node.body:
                if isinstance(imp, ast.ImportFrom) and imp.module:
                    for a in imp.names:
                        sub = f"{imp.module}.{a.name}"
                        out[a.asname or a.name] = (
                            sub if is_module(sub) else f"{imp.module}:{a.name}"
                        )
                elif isinstance(imp, ast.Import):
                    out.update((a.asname or a.name, a.name) for a in imp.names)
    return out


def table_agrees(module: object, path: Path) -> None:
    """`module._LAZY` names exactly what the file imports for the type checker, each
    name reading as the object its target loads."""
    table: dict[str, str] = module._LAZY  # type: ignore[attr-defined]
    assert table == type_checking_imports(path)
    for name, target in table.items():
        assert getattr(module, name) is lazy.load(target)


@pytest.mark.parametrize(
    ("module", "path"),
    [
        (continuity, ROOT / "core" / "continuity" / "__init__.py"),
        (harn, ROOT / "core" / "harn" / "__init__.py"),
    ],
)
def test_a_package_re_exports_every_public_name_lazily(module, path):
    assert set(module._LAZY) == set(module.__all__)
    table_agrees(module, path)
    assert set(module.__all__) <= set(dir(module))
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        module.Nope  # noqa: B018 - the read is the test


def test_load_and_exports():
    assert lazy.load("sealscope.core.verdict:BROKEN") == "BROKEN"
    assert lazy.load("sealscope.core.verdict") is sys.modules["sealscope.core.verdict"]
    with pytest.raises(ValueError, match="module:attribute"):
        lazy.load("sealscope.core.verdict:")
    assert lazy.table({"a.b": ("X", "Y")}) == {"X": "a.b:X", "Y": "a.b:Y"}


FRESH = """
import sys
from sealscope.core.kinds import classify
print(classify(sys.argv[1]).kind)
print(' '.join(sorted(m for m in sys.modules if m.startswith('sealscope.core.'))))
"""


def test_classifying_a_ledger_loads_no_harn_or_continuity_logic():
    out = subprocess.run(
        [sys.executable, "-c", FRESH, str(ROOT / "sample_ledgers" / "session.jsonl")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    kind, loaded = out.splitlines()
    assert kind == "ledger"
    deep = {
        m
        for m in loaded.split()
        if m.startswith(("sealscope.core.harn.", "sealscope.core.continuity."))
    }
    assert deep == {"sealscope.core.continuity.schema"}

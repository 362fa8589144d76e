"""sealscope.core stands alone: it imports without Textual or Rich."""
from __future__ import annotations

import pkgutil
import subprocess
import sys

import sealscope.core

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


def test_core_imports_without_textual_or_rich():
    names = ["sealscope.core." + m.name for m in pkgutil.iter_modules(sealscope.core.__path__)
             if not m.name.startswith("_")]
    assert "sealscope.core.ledger" in names and "sealscope.core.receipt" in names
    out = subprocess.run([sys.executable, "-c", BLOCK, *names], capture_output=True, text=True,
                         check=False)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr

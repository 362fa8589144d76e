"""sealscope's version: the one home is the `version` in pyproject.toml, read here from the
installed package's metadata. Every frontend (`--version`, the MCP server's info, reports,
statements) reads `__version__` from this module and never spells a version itself.

The metadata is read when `__version__` is first asked for (a module `__getattr__`,
PEP 562), not on import, and from the first `sealscope-*.dist-info/METADATA` on
`sys.path` (where `importlib.metadata` finds it too) without importing that package,
which costs more than `sealscope --version` may take; `importlib.metadata` only
where no such file is found (an egg-info, a zip).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

__all__ = ["__version__"]

UNKNOWN = "0+unknown"
"""The version of a source tree that was never installed (no metadata to read)."""

if TYPE_CHECKING:
    __version__: str


def _from_dist_info() -> str | None:
    """The `Version:` of the first `sealscope-*.dist-info` on `sys.path`, or None when
    the first install found is not one (then `importlib.metadata` decides)."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in sorted(names):
            low = name.lower()
            if low.startswith("sealscope-") and low.endswith((".dist-info", ".egg-info")):
                if not low.endswith(".dist-info"):
                    return None
                try:
                    with open(os.path.join(entry or ".", name, "METADATA"), encoding="utf-8") as fh:
                        for line in fh:
                            if not line.strip():
                                break
                            if line.startswith("Version:"):
                                return line.split(":", 1)[1].strip() or None
                except OSError:
                    return None
                return None
    return None


def __getattr__(name: str) -> str:
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    found = _from_dist_info()
    if found is None:
        from importlib.metadata import PackageNotFoundError, version  # see above

        try:
            found = version("sealscope")
        except PackageNotFoundError:  # imported from a source tree that was never installed
            found = UNKNOWN
    globals()["__version__"] = found  # asked once: later reads find the global
    return found

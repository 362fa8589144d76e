"""sealscope's version: the one home is the `version` in pyproject.toml, read here from the
installed package's metadata. Every frontend (`--version`, the MCP server's info, reports,
statements) reads `__version__` from this module and never spells a version itself.

The metadata is read when `__version__` is first asked for (a module `__getattr__`,
PEP 562), not on import: `importlib.metadata` costs more than a viewer's first screen
can spare, and only `--version`, the MCP server and a few reports need it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["__version__"]

UNKNOWN = "0+unknown"
"""The version of a source tree that was never installed (no metadata to read)."""

if TYPE_CHECKING:
    __version__: str


def __getattr__(name: str) -> str:
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version  # on first use: see above

    try:
        found = version("sealscope")
    except PackageNotFoundError:  # imported from a source tree that was never installed
        found = UNKNOWN
    globals()["__version__"] = found  # asked once: later reads find the global
    return found

"""sealscope's version: the one home is the `version` in pyproject.toml, read here from the
installed package's metadata. Every frontend (`--version`, the MCP server's info, reports,
statements) imports `__version__` from this module and never spells a version itself."""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__: str = version("sealscope")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]

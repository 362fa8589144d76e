"""sealscope: a terminal audit viewer, on a headless core, for arcaeon evidence files."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sealscope.core import version as _version

if TYPE_CHECKING:
    from sealscope.core.version import __version__

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    """`sealscope.__version__` is `sealscope.core.version`'s, read when first asked for
    (importing the package reads no metadata)."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _version.__version__

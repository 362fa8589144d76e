"""sealscope: a terminal audit viewer, on a headless core, for arcaeon evidence files."""

from sealscope.core.version import __version__

__all__ = ["__version__"]

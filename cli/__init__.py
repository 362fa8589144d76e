"""sealscope: a terminal audit viewer, on a headless core, for arcaeon evidence files."""

__version__ = "0.1.0"

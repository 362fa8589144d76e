"""The bundled sample evidence, as the package `sealscope.sample_ledgers`.

This top-level folder of the checkout is the one source: pyproject.toml maps the package
onto it (`package-dir`), so an editable install reads these files in place and a wheel,
an sdist or a pipx install carries them as package data. `FOLDER` is where they are on
disk for whatever install is running; the generators (`make_*.py`) stay in the source
and the sdist, not in the wheel."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

FOLDER: Path = Path(str(files(__name__)))
README: Path = FOLDER / "README.md"

__all__ = ["FOLDER", "README"]

"""Where a report may be written: into a folder that already exists. No frontend
creates a folder without asking; `missing_folder(path)` is the one reason a target
cannot be written as given (the viewer asks, the CLI refuses)."""

from __future__ import annotations

import os

__all__ = ["missing_folder"]


def missing_folder(path: str | os.PathLike[str]) -> str | None:
    """Why the folder `path` would be written into does not take it (it does not
    exist, or is not a folder); None when it exists."""
    folder = os.path.dirname(os.path.abspath(os.path.expanduser(os.fspath(path))))
    if os.path.isdir(folder):
        return None
    if os.path.exists(folder):
        return f"{folder} is not a folder"
    return f"the folder {folder} does not exist"

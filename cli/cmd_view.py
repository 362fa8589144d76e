"""`sealscope view [PATH ...]`: the terminal viewer (the default with no verb).

Each path opens as a ledger, a continuity snapshot (seal) or a harn transcript / run
record tab; a folder opens as a fleet tab (one row per ledger beneath it, audited as
`sealscope fleet` does; also `sealscope fleet DIR --view`). With no paths it opens the
bundled samples (`sealscope.sample_ledgers`, installed with the package): its ledgers,
the two seals and the seals ledger from `seals/`, and the harn session transcript (see
its README.md).
Textual is imported only here, inside the verb, so the other verbs never pay for it."""
from __future__ import annotations

import argparse
from pathlib import Path

from sealscope.output import error_line
from sealscope.sample_ledgers import FOLDER


def samples_dir() -> Path:
    """The bundled samples of the running install (`sealscope.sample_ledgers`)."""
    return FOLDER


def viewer_paths(given: list[str]) -> list[Path] | None:
    """The paths the viewer opens (the bundled samples when none are given), or None
    after one error line per path that does not exist."""
    paths = [Path(p) for p in given] or [samples_dir()]
    missing = [p for p in paths if not p.exists()]
    for p in missing:
        error_line(f"no such file or folder: {p}")
    return None if missing else paths


def register(sub) -> None:
    p = sub.add_parser("view", help="open the terminal viewer on ledgers, seals and harn "
                                    "files (default: the samples)",
                       description="Open the terminal audit viewer on the given ledgers, "
                                   "continuity snapshots, harn transcripts or run records, "
                                   "or folders of them; with none, the bundled samples.")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="a ledger, snapshot or harn file, or a folder (a fleet tab)")
    p.set_defaults(func=run)


def view(given: list[str]) -> int:
    """Run the viewer on `given` (checked by `viewer_paths`): 0, or 3 for a missing path."""
    paths = viewer_paths(given)
    if paths is None:
        return 3
    from sealscope.viewer.app import SealscopeApp
    SealscopeApp(paths).run()
    return 0


def run(args: argparse.Namespace) -> int:
    return view(args.paths)

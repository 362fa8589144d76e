"""`sealscope view [PATH ...]`: the terminal viewer (the default with no verb).

Each path opens as a ledger, a continuity snapshot (seal) or a harn transcript / run
record tab; a folder opens as a fleet tab (one row per ledger beneath it, audited as
`sealscope fleet` does; also `sealscope fleet DIR --view`). With no paths it opens the
bundled samples (`sealscope.sample_ledgers`, installed with the package): its ledgers,
the two seals and the seals ledger from `seals/`, and the harn session transcript (see
its README.md). `--case CASE` opens a case file's evidence and records into it
(`sealscope.viewer.case_link`).
Textual is imported only here, inside the verb, so the other verbs never pay for it."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from sealscope.core import verdict
from sealscope.core.sanitize import clean
from sealscope.output import error_line
from sealscope.sample_ledgers import FOLDER

if TYPE_CHECKING:
    from sealscope.viewer.app import SealscopeApp


def samples_dir() -> Path:
    """The bundled samples of the running install (`sealscope.sample_ledgers`)."""
    return FOLDER


def viewer_paths(given: list[str]) -> list[Path] | None:
    """The paths the viewer opens (the bundled samples when none are given): every
    given path as soon as one of them exists — the viewer opens what it can and says
    why each other could not be opened — or None after one error line per path when
    none exists (there would be nothing to show)."""
    paths = [Path(p) for p in given] or [samples_dir()]
    if any(p.exists() for p in paths):
        return paths
    for p in paths:
        error_line(f"no such file or folder: {p}")
    return None


def register(sub) -> None:
    p = sub.add_parser(
        "view",
        help="open the terminal viewer on ledgers, seals and harn files (default: the samples)",
        description="Open the terminal audit viewer on the given ledgers, "
        "continuity snapshots, harn transcripts or run records, "
        "or folders of them; with none, the bundled samples.",
    )
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a ledger, snapshot or harn file, or a folder (a fleet tab)",
    )
    p.add_argument(
        "--case",
        metavar="CASE",
        help="open a case file (sealscope case new): its evidence as tabs with their "
        "recorded checks, and record every check run from then on",
    )
    p.add_argument(
        "--artefacts",
        metavar="DIR",
        help="a folder of held artefacts the run's checks look in (as `check --artefacts`)",
    )
    p.set_defaults(func=run)


def viewer_app(
    given: list[str], case: str | None = None, artefacts: str | None = None
) -> SealscopeApp | None:
    """The viewer on `given` (checked by `viewer_paths`), or None when nothing exists;
    with `case`, on that case (which must exist) and `given` beside it; `artefacts` the
    run's --artefacts DIR."""
    if case is not None:
        if not os.path.isfile(case):
            error_line(f"no such case: {clean(case)} (sealscope case new makes one)")
            return None
        paths: list[Path] | None = [Path(p) for p in given]
        if paths and not all(p.exists() for p in paths):
            paths = viewer_paths(given)
    else:
        paths = viewer_paths(given)
    if paths is None:
        return None
    from sealscope.viewer.app import SealscopeApp

    return SealscopeApp(paths, first_paint=case is None, case=case, artefacts=artefacts)


def view(given: list[str], case: str | None = None, artefacts: str | None = None) -> int:
    """Run the viewer on `given` (and `case`): 0; 3 when none of the paths exists, or
    when the app ended on an error of its own (Textual has printed it); 128 + the
    signal's number when SIGTERM or SIGHUP ended it (quietly, `viewer.signal_end`)."""
    app = viewer_app(given, case, artefacts)
    if app is None:
        return verdict.COULD_NOT
    from sealscope.viewer.signal_end import run_app

    signalled = run_app(app, app.ending)
    if signalled is not None:
        return signalled
    return verdict.COULD_NOT if app.return_code else verdict.HELD


def run(args: argparse.Namespace) -> int:
    if args.artefacts is not None and not Path(args.artefacts).is_dir():
        error_line(f"view: --artefacts {clean(args.artefacts)}: not a folder")
        return verdict.USAGE
    return view(args.paths, args.case, args.artefacts)

"""`sealscope view [PATH ...]`: the terminal viewer (the default with no verb).

With no paths it opens the bundled `sample_ledgers/` folder. Textual is imported only
here, inside the verb, so the other verbs never pay for it."""
from __future__ import annotations

import argparse
from pathlib import Path

import sealscope
from sealscope.output import error_line


def samples_dir() -> Path:
    return Path(sealscope.__file__).resolve().parent.parent / "sample_ledgers"


def register(sub) -> None:
    p = sub.add_parser("view", help="open the terminal viewer on ledgers (default: the samples)",
                       description="Open the terminal audit viewer on the given ledgers or "
                                   "folders of ledgers; with none, the bundled sample ledgers.")
    p.add_argument("paths", nargs="*", metavar="PATH", help="a ledger file or a folder of them")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    paths = [Path(p) for p in args.paths] or [samples_dir()]
    missing = [p for p in paths if not p.exists()]
    for p in missing:
        error_line(f"no such file or folder: {p}")
    if missing:
        return 3
    from sealscope.viewer.app import SealscopeApp
    SealscopeApp(paths).run()
    return 0

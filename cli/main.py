"""The `sealscope` command: argparse verbs over sealscope.core, exit codes per CLI.md.

Each verb lives in its own `cmd_*` module exposing `register(subparsers)`; the module
sets `func` on its parser. A run imports only what its verb needs: the verb's own
module (`cmd_<verb>`) when it has one, none for a bare `--version`, every one for
help or anything else. Exit codes: 0 held, 1 evidence wrong, 3 could not look or
bounded, 2 usage.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NoReturn

from sealscope.core import verdict

# verb modules, in help order; each registers one or more verbs
VERB_MODULES = (
    "sealscope.cmd_view",
    "sealscope.cmd_serve",
    "sealscope.cmd_verify",
    "sealscope.cmd_watch",
    "sealscope.cmd_receipts",
    "sealscope.cmd_check",
    "sealscope.cmd_continuity",
    "sealscope.cmd_harn",
    "sealscope.cmd_export",
    "sealscope.cmd_fleet",
    "sealscope.cmd_mcp",
    "sealscope.cmd_demo",
    "sealscope.cmd_case",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors exit 2 with one line
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(verdict.USAGE)


class _Version(argparse.Action):
    """`--version`: the version is read only when it is asked for."""

    def __call__(self, parser: argparse.ArgumentParser, *_args: object) -> None:
        from sealscope.core.version import __version__

        sys.stdout.write(f"sealscope {__version__}\n")
        parser.exit()


def _verb_modules(argv: list[str] | None) -> tuple[str, ...]:
    """The verb modules `argv` needs registered (see the module docstring)."""
    first = argv[0] if argv else None
    if first == "--version":
        return ()
    own = f"sealscope.cmd_{first}"
    return (own,) if own in VERB_MODULES else VERB_MODULES


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="sealscope",
        description="Audit arcaeon ledgers, compaction receipts and continuity seals.",
    )
    parser.add_argument(
        "--version", action=_Version, nargs=0, help="show program's version number and exit"
    )
    sub = parser.add_subparsers(dest="verb", parser_class=_Parser)
    for name in VERB_MODULES if argv is None else _verb_modules(argv):
        importlib.import_module(name).register(sub)
    from sealscope import help_texts

    help_texts.apply(parser, sub)
    parser.set_defaults(verbs=frozenset(sub.choices), _verb_parsers=dict(sub.choices))
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:2] == ["harn", "seal"]:  # a sub-command of its own (`harn seal --help`)
        from sealscope.cmd_harn import run_seal

        try:
            return run_seal(argv[2:], _Parser)
        except KeyboardInterrupt:
            return 130
    parser = build_parser(argv)
    if (
        not argv
        or argv[0] == "--case"
        or (argv[0] not in parser.get_default("verbs") and not argv[0].startswith("-"))
    ):
        # no verb, or bare paths: open the viewer
        argv = ["view", *argv]
    args, extra = parser.parse_known_args(argv)
    if extra:  # said by the verb's own parser: its usage, not every verb's
        verb = args._verb_parsers.get(getattr(args, "verb", None), parser)
        verb.error(f"unrecognized arguments: {' '.join(extra)}")
    if not getattr(args, "func", None):
        parser.print_help()
        return verdict.USAGE
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return verdict.WRONG
    finally:
        # a GitHub run's stop-commands pause ends with its run: the next `main` in
        # this process (a test, an embedding caller) writes plain error lines
        out = sys.modules.get("sealscope.output")
        if out is not None:
            out.end_guard()

"""The `--help` of every verb: a description, the exit codes it uses, help for every
positional argument (issue 33, "CLI conventions").

`apply(parser)` fills in what a verb's own `register` left out, so the texts live in
one place and every verb reads the same way: the description (the verb's one-line help
when it has no longer one), an epilog `exit codes: ...` (CLI.md's codes: 0 held in
full, 1 evidence wrong, 2 usage, 3 could not look or bounded, as each verb uses them),
and the help of a positional argument that has none. A verb without an entry here gets
the general convention, so a new verb never prints a help without its exit codes.
"""

from __future__ import annotations

import argparse

from sealscope.core import verdict as V

__all__ = ["EXIT_CODES", "POSITIONALS", "TOP_EPILOG", "apply"]

H, W, U, C = V.HELD, V.WRONG, V.USAGE, V.COULD_NOT

GENERAL = f"{H} held in full; {W} the evidence is wrong; {U} usage; {C} could not look, or bounded"

EXIT_CODES = {
    "view": f"{H} the viewer was closed; {U} usage; {C} a path could not be opened",
    "serve": f"{H} the server stopped; {U} usage; {C} the serve extra is not installed",
    "verify": f"{H} every ledger {V.VERIFIED} in full; {W} a ledger is {V.BROKEN} (or a "
    f"pin/witness disagrees); {U} usage; {C} a ledger could not be read, is empty, or "
    "verified only within a bound",
    "watch": f"the worst verdict seen when it ends (Ctrl-C or SIGTERM): {H} every row "
    f"verified; {W} a break, truncation or rewrite; {U} usage; {C} a file could not be read",
    "receipts": f"{H} every receipt row {V.VERIFIED} (in full, or within a bound stated "
    f"beside it); {W} a row is not ok; {U} usage; {C} no receipt row, or a file could not "
    "be read",
    "lookup": f"{H} the held items were looked up (found or not: findings); {U} usage; {C} "
    "nothing to look up (no held item) or a file could not be read",
    "selftest": f"{H} every check held; {W} a check failed",
    "snapshot": f"{H} {V.VALID}; {W} {V.INVALID} (a file that is not a valid snapshot); "
    f"{U} usage; {C} missing or unreadable",
    "diff": f"{H} both seals load and validate (changes are findings); {W} either is "
    f"{V.INVALID}; {U} usage; {C} either cannot be read",
    "continuity": f"{H} {V.FAITHFUL}; {W} a divergence or an invalid comparison; {U} "
    f"usage; {C} containment only (--loose) or an input that cannot be read",
    "harn": f"{H} no high finding; {W} a high finding; {U} usage; {C} the file is not a "
    "harn transcript or run record, or cannot be read",
    "export": f"the report's: {H} held in full; {W} evidence wrong; {U} usage; {C} could "
    "not look, or bounded",
    "fleet": f"the worst entry's: {H} every ledger {V.VERIFIED}; {W} a ledger "
    f"{V.BROKEN}; {U} usage; {C} a ledger could not be read or only bounded",
    "mcp": f"{H} the client closed the connection; {U} usage",
    "case": f"{H} held (the case verifies; every recorded check holds on replay); {W} the "
    f"case is {V.BROKEN} or a replayed check changed; {U} usage; {C} a case that could not "
    "be read or refuses an append (a torn last line), or evidence missing on replay",
    "demo": f"{H} every step's check held; {W} one did not; {U} usage; 143 ended by "
    "SIGTERM (128 + 15, as a shell reports it)",
}

POSITIONALS = {
    ("verify", "ledgers"): "a ledger (JSONL) to verify; several are verified in turn",
    ("watch", "ledgers"): "a ledger (JSONL) to follow as it grows",
    ("receipts", "ledger"): "the ledger (JSONL) whose compaction-receipt rows are verified",
    ("lookup", "ledger"): "the ledger (JSONL) whose receipts' drop manifests are searched",
    ("snapshot", "file"): "a continuity snapshot (seal) file (JSON)",
    ("diff", "old"): "the older seal (JSON)",
    ("diff", "new"): "the newer seal (JSON)",
    ("continuity", "file"): "the sealed continuity snapshot (JSON) to score against",
}

TOP_EPILOG = (
    "sealscope PATH... opens the viewer on those files (as `sealscope view PATH...`);\n"
    "sealscope with no arguments opens the viewer on the bundled samples.\n"
    "sealscope --case CASE [PATH...] opens the viewer on a case file and records into it\n"
    "(`sealscope case --help`: an audit's working papers).\n"
    "`sealscope VERB --help` says what a verb does and its exit codes.\n"
    "exit codes: " + GENERAL
)


def apply(parser: argparse.ArgumentParser, sub: argparse._SubParsersAction) -> None:
    """Fill in every verb's description, exit codes and positional help (see the
    module docstring), and the top-level epilog."""
    parser.epilog = TOP_EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    helps = {a.dest: a.help for a in sub._choices_actions}
    for name, p in sub.choices.items():
        if not p.description:
            first = helps.get(name) or name
            p.description = first[:1].upper() + first[1:] + "."
        codes = f"exit codes: {EXIT_CODES.get(name, GENERAL)}"
        p.epilog = f"{p.epilog}\n\n{codes}" if p.epilog else codes
        for action in p._actions:
            if not action.option_strings and action.help is None:
                action.help = POSITIONALS.get((name, action.dest), f"the {action.dest}")

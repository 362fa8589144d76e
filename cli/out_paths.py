"""The verbs' output flags checked against their inputs (`core.out_paths`): one call
at the start of each verb, before any work; a target that lands on an input is
refused with one line on stderr (exit 2, usage).

The output flags are every flag a verb writes to: `--junit`, `--vsa`, `--output`/`-o`
(export), `--checkpoint` (verify), `--record` (demo), `--ledger` (harn seal: appended
to, passed as `extra`), and with `--format github` the step summary file
`$GITHUB_STEP_SUMMARY`."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from sealscope.core.out_paths import landing
from sealscope.core.sanitize import clean

__all__ = ["INPUT_ATTRS", "OUTPUT_FLAGS", "inputs_of", "outputs", "refused"]

#: attribute on the parsed arguments → the flag a user gives it as
OUTPUT_FLAGS = {
    "output": "--output",
    "junit": "--junit",
    "vsa": "--vsa",
    "checkpoint": "--checkpoint",
    "record": "--record",
}


#: the attributes that hold a verb's input paths (files or folders it reads)
INPUT_ATTRS = (
    "path",
    "paths",
    "sources",
    "ledgers",
    "words",
    "transcript",
    "artefacts",
    "pin",
    "witness",
    "pre",
    "post",
    "lookup",
    "restated",
    "tiers",
    "against",
    "added",
)


def inputs_of(args: Any) -> list[str]:
    """Every input path the parsed `args` name (`INPUT_ATTRS`, lists flattened)."""
    out: list[str] = []
    for attr in INPUT_ATTRS:
        value = getattr(args, attr, None)
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str) and v:
                out.append(v)
    return out


def outputs(args: Any) -> list[tuple[str, str]]:
    """(flag, path) of every output the parsed `args` ask for."""
    out = [
        (flag, value)
        for attr, flag in OUTPUT_FLAGS.items()
        if isinstance(value := getattr(args, attr, None), str) and value
    ]
    github = "github" in (getattr(args, "ci_format", None), getattr(args, "format", None))
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if github and summary:
        out.append(("$GITHUB_STEP_SUMMARY", summary))
    return out


def _is_unit(folder: str) -> bool:
    """Whether the folder is an evidence unit (a pack or bundle folder, KINDS.md §1)."""
    from sealscope.core import kinds

    return kinds.identify(folder).kind in (kinds.EVIDENCE_PACK, kinds.AUDIT_BUNDLE)


def refused(
    args: Any,
    verb: str,
    inputs: Iterable[str | None],
    extra: Iterable[tuple[str, str | None]] = (),
) -> bool:
    """Whether an output of `args` (and `extra`, (flag, path) each) lands on one of
    `inputs`; if so one line on stderr names both. The caller then exits 2."""
    from sealscope.output import error_line

    given = list(inputs)
    for flag, target in [*outputs(args), *((f, t) for f, t in extra if t)]:
        hit = landing(target, given)
        if hit is None:
            continue
        if hit.inside:
            what = "unit" if _is_unit(hit.input) else "folder"
            why = f"refusing to write into the {what} it audits: {flag} {clean(target)} lies in"
        else:
            why = f"refusing to write over an input: {flag} {clean(target)} is"
        error_line(f"{verb}: {why} {clean(hit.input)} (nothing sealscope writes lands on evidence)")
        return True
    return False

"""The checks `sealscope export` runs on one file beyond reading it, as session
records (`core.export.records`), in the viewer's terms and by the same core calls:
on a ledger the pin, the witness, each receipt recomputed with held content
(`--pre/--post`, `--line`), the look-ups; on a stand-alone receipt file the receipt
recomputed with held content; on a snapshot the diff (`--against`), the restatement
scored (`--restated`) and the ids added (`--added`). A reason to stop is `Refused`:
one error line and its exit code.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sealscope.cmd_receipts import held_matches
from sealscope.core import verdict

__all__ = ["Refused", "ledger_session", "receipt_session", "seal_session"]


class Refused(Exception):
    """A reason to stop with one error line, and the exit code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def ledger_session(args: argparse.Namespace) -> list[Any]:
    """The records of the checks the flags ask for on a ledger, in the viewer's terms:
    the pin, the witness, then each receipt recomputed with the held content."""
    from sealscope.core import export, pins, witness

    session = []
    if args.pin is not None:
        try:
            pin = pins.pin_from(args.pin)
        except ValueError as e:
            raise Refused(f"export: --pin: {e}", verdict.USAGE) from None
        try:
            session.append(export.check_record("pin", pins.check_pin(args.path, pin), pin=pin.text))
        except (OSError, ValueError) as e:
            session.append(export.check_error_record("pin", str(e), pin=pin.text))
    if args.witness:
        inputs = {"witness": args.witness, "namespace": args.ns}
        try:
            session.append(
                export.check_record(
                    "witness",
                    witness.verify_against_witness(args.witness, args.ns, args.path),
                    **inputs,
                )
            )
        except (OSError, ValueError) as e:
            session.append(export.check_error_record("witness", str(e), **inputs))
    held_files: list[str] = []
    if args.pre or args.post:
        recomputed = _recomputed(args)
        session += recomputed
        for rec in recomputed:
            held_files += [
                p
                for p in (rec.inputs.get("pre"), rec.inputs.get("post"))
                if isinstance(p, str) and p not in held_files
            ]
    if args.lookup or args.lookup_text:
        session += _lookups(args, held_files)
    return session


def _lookups(args: argparse.Namespace, checks_held: list[str]) -> list[Any]:
    """The viewer's look-ups (`l`) as the report records them (`export.ledger_lookup`):
    one record per `--lookup` file, then one per `--lookup-text`, whose held items
    containing the text are searched in the `--lookup` files' items, then in the held
    content the receipt checks loaded (`checks_held`, as the viewer's look-up searches
    the open ledgers' checks)."""
    from sealscope.core import export, held, lookup

    try:
        index = lookup.DropIndex.build([args.path])
    except OSError as e:
        raise Refused(
            f"export: cannot read {args.path}: {e.strerror or e}", verdict.COULD_NOT
        ) from None
    out: list[Any] = []
    pool: list[Any] = []
    for path in args.lookup:
        try:
            items = held.load_held(path, getattr(sys.stdin, "buffer", None))
        except held.HeldContentError as e:
            raise Refused(f"export: --lookup: {e}", verdict.COULD_NOT) from None
        pool += items
        out.append(export.ledger_lookup(index, args.path, items, held=[path])[0])
    for path in checks_held:
        if path != "-":
            try:
                pool += held.load_held(path)
            except held.HeldContentError:
                pass  # already refused, or recorded, by the receipt check
    for text in args.lookup_text:
        typed = lookup.typed_items(text)
        out.append(
            export.ledger_lookup(
                index,
                args.path,
                typed,
                text=text,
                containing=lookup.containing_items(pool, text, (i.digest for i in typed)),
                digest_hits=index.containing(text),
            )[0]
        )
    return out


def receipt_session(args: argparse.Namespace) -> list[Any]:
    """The record of a stand-alone receipt file (`args.path`, KINDS.md §2) recomputed
    with the held content `--pre`/`--post`, as `receipts FILE --pre --post` checks it:
    its one row, on line 1; nothing when no held content is given."""
    from sealscope.core.checks import receipt_file

    if not (args.pre or args.post):
        return []
    if args.line not in (None, 1):
        raise Refused(f"export: {args.path} holds one receipt, on line 1", verdict.USAGE)
    try:
        row = receipt_file.read_receipt_file(args.path)
    except (OSError, ValueError) as e:
        raise Refused(f"export: cannot read the receipt: {e}", verdict.COULD_NOT) from None
    return _recomputed(args, [(1, row)])


def _recomputed(args: argparse.Namespace, rows: list[tuple[int, Any]] | None = None) -> list[Any]:
    """Each receipt the held content applies to (`--line`, the only row, or the rows
    whose claimed digest it matches; `rows` given: those), recomputed: a
    `recompute_record` naming the drops its manifest hides."""
    from sealscope.core import export, held, lookup, receipt

    items: dict[str, list[Any]] = {}
    for side in ("pre", "post"):
        path = getattr(args, side)
        if path is not None:
            try:
                items[side] = held.load_held(path, getattr(sys.stdin, "buffer", None))
            except held.HeldContentError as e:
                raise Refused(f"export: --{side}: {e}", verdict.COULD_NOT) from None
    try:
        rows = rows or [
            (n, row)
            for n, row in lookup.iter_receipt_rows(args.path)
            if args.line is None or n == args.line
        ]
    except OSError as e:
        raise Refused(
            f"export: cannot read {args.path}: {e.strerror or e}", verdict.COULD_NOT
        ) from None
    if not rows:
        where = f"line {args.line} is not" if args.line else "the ledger holds no"
        raise Refused(f"export: {where} compaction-receipt row to recompute", verdict.USAGE)
    contents = {side: receipt.content_of(got) for side, got in items.items()}
    matched = held_matches(rows, contents) if args.line is None and len(rows) > 1 else None
    if matched is not None and not matched:
        raise Refused(
            "export: the held content matches no receipt row's claimed "
            "pre.digest or post.digest; choose the row with --line N",
            verdict.USAGE,
        )
    pre, post = items.get("pre"), items.get("post")
    out = []
    for n, row in rows:
        if matched is not None and n not in matched:
            continue
        check = receipt.verify_receipt(row, contents.get("pre"), contents.get("post"))
        out.append(
            export.recompute_record(
                n,
                check,
                pre=args.pre if pre is not None else None,
                post=args.post if post is not None else None,
                row=row,
                held=[*(pre or []), *(post or [])],
            )
        )
    return out


def seal_session(args: argparse.Namespace) -> tuple[Any, list[Any]]:
    """The seal, and the records of `--against` and `--restated` on it."""
    from sealscope.core import export
    from sealscope.core.continuity import diff_seals, verify_continuation

    seal = export.load_seal(args.path)
    session = []
    tiers = _read(export.load_tiers, args.tiers) if args.tiers else None
    if args.against:
        old = export.load_seal(args.against)
        if old.snap is None or seal.snap is None:
            session.append(export.diff_error_record(old, seal, tiers_path=args.tiers))
        else:
            session.append(
                export.diff_record(
                    diff_seals(old.snap, seal.snap, tiers=tiers),
                    args.against,
                    args.path,
                    tiers_path=args.tiers,
                )
            )
    # an invalid seal: nothing to score against; the snapshot verdict says why
    if args.restated and seal.snap is not None:
        restated = _read(export.load_restated, args.restated)
        try:
            v = verify_continuation(
                seal.snap, restated=restated, strict=not args.loose, tiers=tiers
            )
            session.append(export.verdict_record(v, args.restated, tiers_path=args.tiers))
        except (ValueError, TypeError) as e:
            session.append(
                export.verdict_error_record(
                    str(e), args.restated, strict=not args.loose, tiers_path=args.tiers
                )
            )
    if args.added:
        if seal.snap is None:
            raise Refused(
                f"export: --added: {args.path} is no valid seal to compare with", verdict.COULD_NOT
            )
        from sealscope.core.continuity import added_since_seal

        manifest = _read(export.load_manifest, args.added)
        try:
            added = added_since_seal(seal.snap, manifest)
        except (ValueError, TypeError) as e:
            raise Refused(f"export: --added: {e}", verdict.COULD_NOT) from None
        session.append(export.added_record(added, args.added))
    return seal, session


def _read(loader: Any, path: str) -> Any:
    try:
        return loader(path)
    except ValueError as e:
        raise Refused(f"export: {e}", verdict.COULD_NOT) from None

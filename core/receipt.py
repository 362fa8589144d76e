"""Compaction receipts: verifying a row (v1 or v2); sealing one (schema v2) lives in
`sealscope.core.receipt_build`, whose names are re-exported here.

A receipt binds the digest of the full content before a compaction, the digest of the
survivor, and a manifest of the digests of what was dropped (never the content), and
is appended as one ledger row. `verify_receipt` always checks the row's own arithmetic
and its `receipt_digest`; given the content it recomputes every claimed number.

Item digests follow FORMATS.md 1.5 (`sealscope.core.digest.item_digest`); the rules
and every note text follow FORMATS.md 5.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sealscope.core import digest as _digest
from sealscope.core import verdict as _verdict
from sealscope.core.receipt_build import (
    CORE_KEYS,
    KIND,
    SCHEMA_V1,
    SCHEMA_V2,
    SCHEMAS,
    CompactionReceipt,
    ContentDigest,
    DropSet,
    as_content,
    build_row,
    content_of,
    core_of,
    digest_content,
    infer_drops,
    is_receipt_row,
)

__all__ = [
    "SCHEMA_V1",
    "SCHEMA_V2",
    "KIND",
    "CORE_KEYS",
    "ContentDigest",
    "DropSet",
    "digest_content",
    "content_of",
    "infer_drops",
    "core_of",
    "build_row",
    "CompactionReceipt",
    "Check",
    "Recomputed",
    "ReceiptCheck",
    "verify_receipt",
    "is_receipt_row",
    "manifest_gaps",
]

_SCHEMAS = SCHEMAS  # short name and byte rule by schema string


# --------------------------------------------------------------------------- verdict


@dataclass(frozen=True)
class Check:
    """One named check behind a verdict, for display: passed or not, and why."""

    name: str
    ok: bool
    detail: str = ""


@dataclass(frozen=True)
class Recomputed:
    """What verification recomputed: the core's digest (None when the core cannot be
    canonicalised), each content side given, and, with both sides, the drop set."""

    receipt_digest: str | None = None
    pre: ContentDigest | None = None
    post: ContentDigest | None = None
    drops: DropSet | None = None


@dataclass(frozen=True)
class ReceiptCheck(_verdict.Judged):
    """`verify_receipt`'s verdict. `to_dict()` is the reference's seven fields in its
    order; `checks` (self-consistency, gates included), `content_checks` and
    `recomputed` are extra detail for display."""

    ok: bool = False
    self_consistent: bool = False
    content: str = "skipped"
    schema: str | None = None
    understatement_check: str | None = None
    verified_scope: str = "none"
    notes: tuple[str, ...] = ()
    checks: tuple[Check, ...] = field(default=(), compare=False, repr=False)
    content_checks: tuple[Check, ...] = field(default=(), compare=False, repr=False)
    recomputed: Recomputed = field(default_factory=Recomputed, compare=False, repr=False)

    def __bool__(self) -> bool:
        return self.ok

    def outcome(self) -> _verdict.Outcome:
        """This receipt row's verdict (`core.verdict.receipt`)."""
        return _verdict.receipt(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "self_consistent": self.self_consistent,
            "content": self.content,
            "schema": self.schema,
            "understatement_check": self.understatement_check,
            "verified_scope": self.verified_scope,
            "notes": list(self.notes),
        }


def _int_text(n: int) -> str:
    """Decimal text of any int, past the interpreter's 4300-digit str() limit."""
    try:
        return str(n)
    except ValueError:
        pass
    sign, n = ("-", -n) if n < 0 else ("", n)
    base, chunks = 10**1000, []
    while n:
        n, r = divmod(n, base)
        chunks.append(r)
    return sign + str(chunks[-1]) + "".join(f"{c:01000d}" for c in reversed(chunks[:-1]))


def _show(v: Any) -> str:
    """Python repr, never raising (huge ints spelled out, the rest summarised)."""
    if isinstance(v, int) and not isinstance(v, bool):
        return _int_text(v)
    try:
        return repr(v)
    except (ValueError, RecursionError):
        return f"<{type(v).__name__} too large to show>"


def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


class _Gate(Exception):
    """A shape gate that failed: its name and note; verification stops there."""

    def __init__(
        self, name: str, note: str, schema: str | None = None, under: str | None = None
    ) -> None:
        super().__init__(note)
        self.name, self.note, self.schema, self.under = name, note, schema, under


class _Log:
    """Named checks in the order they ran, their failure notes appended to a shared
    `notes` list (one list for the whole verdict, so notes keep their order)."""

    def __init__(self, notes: list[str]) -> None:
        self.notes = notes
        self.checks: list[Check] = []

    def check(self, name: str, failed: list[str], detail: str = "") -> bool:
        self.notes.extend(failed)
        self.checks.append(Check(name, not failed, "; ".join(failed) or detail))
        return not failed

    def compare(self, name: str, got: Any, want: Any) -> bool:
        same = not (got != want)  # noqa: SIM202 - the reference tests `!=`; keep its operator
        return self.check(
            name, [] if same else [f"{name}: recomputed {_show(got)} != claimed {_show(want)}"]
        )

    @property
    def all_ok(self) -> bool:
        return all(c.ok for c in self.checks)


@dataclass(frozen=True)
class _Shape:
    """A row that passed the shape gates: its version and the blocks it claims."""

    version: str
    under: str
    pre: dict[str, Any]
    post: dict[str, Any]
    dropped: dict[str, Any]
    introduced: dict[str, Any]
    manifest: list[Any]
    intro_bytes: int | None


def _shape(row: Any, log: _Log) -> _Shape:
    """The shape gates, in order; raises _Gate at the first that fails."""
    if not isinstance(row, dict):
        raise _Gate(
            "row is an object",
            f"malformed receipt row: expected a JSON object, got {type(row).__name__}",
        )
    log.check("row is an object", [])
    label = row.get("schema")
    if not (isinstance(label, str) and label in _SCHEMAS):
        raise _Gate("schema known", f"unknown schema {_show(label)} — cannot verify")
    version, under = _SCHEMAS[label]
    log.check("schema known", [], version)
    try:
        pre_b, post_b, drop_b = row["pre"], row["post"], row["dropped"]
        intro_b = row["introduced"]
        counts = [
            pre_b["count"],
            post_b["count"],
            drop_b["count"],
            intro_b["count"],
            pre_b["bytes"],
            post_b["bytes"],
            drop_b["bytes"],
        ]
        manifest = drop_b["items"]
        intro_bytes = None
        if version == "v2":
            intro_bytes = intro_b["bytes"]
            counts.append(intro_bytes)
    except (LookupError, TypeError) as e:
        raise _Gate(
            "fields present", f"malformed receipt row: missing {e}", version, under
        ) from None
    log.check("fields present", [])
    if not all(_is_count(c) for c in counts):
        raise _Gate(
            "counts are non-negative integers",
            "malformed receipt row: counts/bytes must be non-negative integers",
            version,
            under,
        )
    log.check("counts are non-negative integers", [])
    if not isinstance(manifest, list) or not all(isinstance(d, str) for d in manifest):
        raise _Gate(
            "dropped.items are strings",
            "malformed receipt row: dropped.items must be a list of digest strings",
            version,
            under,
        )
    log.check("dropped.items are strings", [])
    return _Shape(version, under, pre_b, post_b, drop_b, intro_b, manifest, intro_bytes)


def _byte_problems(s: _Shape) -> list[str]:
    """The bytes rule: drops come out of pre; v2 pins post exactly, v1 only bounds it
    from below when something was introduced."""
    pb, qb, db = s.pre["bytes"], s.post["bytes"], s.dropped["bytes"]
    if db > pb:
        return [
            (
                f"dropped.bytes {_int_text(db)} exceeds pre.bytes {_int_text(pb)} — "
                f"impossible, drops come out of pre"
            )
        ]
    if s.dropped["count"] == 0 and db != 0:
        return [f"dropped.count is 0 but dropped.bytes is {_int_text(db)}"]
    if s.version == "v2":
        want = pb - db + (s.intro_bytes or 0)
        if qb != want:
            return [
                (
                    f"bytes do not reconcile: pre.bytes - dropped.bytes + "
                    f"introduced.bytes = {_int_text(want)}, got post.bytes {_int_text(qb)}"
                )
            ]
        return []
    kept_bytes = pb - db
    if s.introduced["count"] == 0 and qb != kept_bytes:
        return [
            (
                f"bytes do not reconcile: nothing was introduced, so post.bytes "
                f"must equal pre.bytes - dropped.bytes ({_int_text(kept_bytes)}), "
                f"got {_int_text(qb)}"
            )
        ]
    if qb < kept_bytes:
        return [
            (
                f"bytes do not reconcile: post.bytes {_int_text(qb)} is below the "
                f"kept bytes it must contain ({_int_text(kept_bytes)}) -- v1 schema: "
                f"this is only a lower bound, not an exact pin, whenever "
                f"introduced.count>0 (the HIGH-1 gap; re-seal under v2 to close it)"
            )
        ]
    return []


def _self_consistency(row: dict[str, Any], s: _Shape, log: _Log) -> str | None:
    """Every self-consistency check runs; returns the recomputed core digest (None when
    the core cannot be canonicalised)."""
    for lab, val in (
        ("pre.digest", s.pre.get("digest")),
        ("post.digest", s.post.get("digest")),
        ("receipt_digest", row.get("receipt_digest")),
    ):
        log.check(
            f"well-formed {lab}",
            []
            if _digest.is_well_formed(val)
            else [f"{lab} is not a well-formed self-describing digest"],
        )
    log.check(
        "well-formed dropped.items",
        [
            f"dropped.items[{i}] is not a well-formed self-describing digest"
            for i, d in enumerate(s.manifest)
            if not _digest.is_well_formed(d)
        ],
    )
    pc, qc, dc, ic = (s.pre["count"], s.post["count"], s.dropped["count"], s.introduced["count"])
    log.check(
        "manifest length",
        []
        if len(s.manifest) == dc
        else [f"manifest length {len(s.manifest)} != dropped.count {_int_text(dc)}"],
    )
    if pc - dc < 0:
        log.check("counts reconcile", ["dropped.count exceeds pre.count"])
    else:
        log.check(
            "counts reconcile",
            []
            if qc - ic == pc - dc
            else ["counts do not reconcile: post - introduced != pre - dropped"],
        )
    log.check("bytes reconcile", _byte_problems(s))
    try:
        core_digest = _digest.digest_json(core_of(row))
    except (ValueError, RecursionError) as e:
        reason = str(e).split("\n", 1)[0][:200]
        log.check(
            "receipt_digest reproduces",
            [
                (
                    f"receipt_digest cannot be recomputed: the row's core cannot be "
                    f"canonicalised ({reason}) — the row was altered"
                )
            ],
        )
        return None
    log.check(
        "receipt_digest reproduces",
        []
        if row.get("receipt_digest") == core_digest
        else [("receipt_digest does not reproduce from the row's core — the row was altered")],
    )
    return core_digest


def _missing_from_pre(manifest: list[Any], pre_c: ContentDigest) -> list[str]:
    """A note for each manifest digest the pre content cannot supply (as a multiset)."""
    avail = Counter(pre_c.digests)
    missing: list[str] = []
    for d in manifest:
        if avail[d] > 0:
            avail[d] -= 1
        else:
            missing.append(
                f"manifest digest {d[:40]}… not found in pre_content — "
                f"receipt claims a drop of an item the pre-content never "
                f"contained"
            )
    return missing


def _recompute(s: _Shape, pre: Any, post: Any, log: _Log) -> Recomputed:
    """Recompute every number the content given can pin, each as a content check."""
    pre_c = post_c = drops = None
    if pre is not None:
        pre_c = as_content(pre)
        log.compare("pre.digest", pre_c.digest, s.pre.get("digest"))
        log.compare("pre.count", pre_c.count, s.pre["count"])
        log.compare("pre.bytes", pre_c.bytes, s.pre["bytes"])
        log.check("manifest within pre", _missing_from_pre(s.manifest, pre_c))
    if post is not None:
        post_c = as_content(post)
        log.compare("post.digest", post_c.digest, s.post.get("digest"))
        log.compare("post.count", post_c.count, s.post["count"])
        log.compare("post.bytes", post_c.bytes, s.post["bytes"])
    if pre_c is not None and post_c is not None:
        drops = infer_drops(pre_c, post_c)
        if Counter(drops.items) != Counter(s.manifest):
            log.check(
                "drop manifest",
                [
                    (
                        f"drop-manifest disagrees with content: recomputed "
                        f"{len(drops.items)} dropped item(s), manifest "
                        f"claims {len(s.manifest)}"
                    )
                ],
            )
        else:
            log.check("drop manifest", [])
            log.compare("dropped.bytes", drops.bytes, s.dropped["bytes"])
        if drops.introduced_count != s.introduced["count"]:
            log.compare("introduced.count", drops.introduced_count, s.introduced["count"])
        else:
            log.check("introduced.count", [])
            if s.version == "v2":
                log.compare("introduced.bytes", drops.introduced_bytes, s.intro_bytes)
    return Recomputed(None, pre_c, post_c, drops)


def _scope(s: _Shape, pre: Any, post: Any) -> tuple[str, list[str]]:
    """`verified_scope` for the content given, and the notes that bound it."""
    if pre is not None and post is not None:
        scope = "full"
    elif pre is not None:
        scope = "bounded_pre_only"
    elif post is not None:
        scope = "bounded_post_only"
    else:
        scope = "bounded_no_content"
    v1_gap = s.version == "v1" and scope != "full" and s.introduced["count"] > 0
    if v1_gap:
        scope += "+v1_lower_bound"
    notes = []
    if scope.startswith("bounded_no_content"):
        notes.append(
            "bounded scan: no content supplied, so nothing was recomputed -- "
            "this is self-consistency only, not proof that pre/post/dropped "
            f"are true (verified_scope={scope})"
        )
    elif scope != "full":
        notes.append(
            "bounded scan: only one side of the content was supplied, so the "
            f"drop set was not recomputed (verified_scope={scope})"
        )
    if v1_gap:
        notes.append(
            "bounded scan: v1 row claiming an introduction -- post.bytes is only "
            "a lower bound, so dropped.bytes could be understated behind the "
            "claimed introduction (HIGH-1). Supply content or re-seal under v2 "
            "to pin it."
        )
    return scope, notes


def verify_receipt(row: Any, pre: Any = None, post: Any = None) -> ReceiptCheck:
    """Verify a receipt row (FORMATS.md 5.4); never raises for any row.

    `pre`/`post`: the content held (a list of items, or a ContentDigest). Content is
    digested only once the row passes its shape gates; an item that cannot be
    canonicalised raises ValueError, as opening a receipt on it would. Where the
    reference raises on a core it cannot canonicalise, this returns
    `self_consistent=False` with a note saying so."""
    notes: list[str] = []
    log = _Log(notes)
    try:
        s = _shape(row, log)
    except _Gate as g:
        log.check(g.name, [g.note])
        return ReceiptCheck(
            schema=g.schema,
            understatement_check=g.under,
            notes=tuple(notes),
            checks=tuple(log.checks),
        )
    core_digest = _self_consistency(row, s, log)
    self_consistent = log.all_ok
    content_log = _Log(notes)
    recomputed = _recompute(s, pre, post, content_log)
    mismatch = not content_log.all_ok
    checked = pre is not None or post is not None
    content = "mismatch" if mismatch else ("match" if checked else "skipped")
    scope, scope_notes = _scope(s, pre, post)
    notes.extend(scope_notes)
    return ReceiptCheck(
        ok=self_consistent and not mismatch,
        self_consistent=self_consistent,
        content=content,
        schema=s.version,
        understatement_check=s.under,
        verified_scope=scope,
        notes=tuple(notes),
        checks=tuple(log.checks),
        content_checks=tuple(content_log.checks),
        recomputed=Recomputed(core_digest, recomputed.pre, recomputed.post, recomputed.drops),
    )


def manifest_gaps(row: Any, check: ReceiptCheck) -> tuple[list[str], list[str]]:
    """What the drop manifest of `row` hides and invents, once held content recomputed
    the drops (`check.recomputed.drops`): (digests dropped but not declared, declared
    but not dropped), each as a multiset in order; both empty without both sides."""
    drops = check.recomputed.drops
    if drops is None:
        return [], []
    dropped = row.get("dropped") if isinstance(row, dict) else None
    items = dropped.get("items") if isinstance(dropped, dict) else None
    manifest = (
        Counter(d for d in items if isinstance(d, str)) if isinstance(items, list) else Counter()
    )
    undeclared = list((Counter(drops.items) - manifest).elements())
    phantom = list((manifest - Counter(drops.items)).elements())
    return undeclared, phantom

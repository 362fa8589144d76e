"""Compaction receipts: sealing one (schema v2) and verifying a row (v1 or v2).

A receipt binds the digest of the full content before a compaction, the digest of the
survivor, and a manifest of the digests of what was dropped (never the content), and
is appended as one ledger row. `verify_receipt` always checks the row's own arithmetic
and its `receipt_digest`; given the content it recomputes every claimed number.

Item digests follow FORMATS.md 1.5 (`sealscope.core.digest.item_digest`); the rules
and every note text follow FORMATS.md 5.
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from sealscope.core import digest as _digest
from sealscope.core import ledger as _ledger
from sealscope.core.clock import utc_stamp

__all__ = ["SCHEMA_V1", "SCHEMA_V2", "KIND", "CORE_KEYS", "ContentDigest", "DropSet",
           "digest_content", "content_of", "infer_drops", "core_of", "build_row",
           "CompactionReceipt", "Check", "Recomputed", "ReceiptCheck", "verify_receipt",
           "is_receipt_row"]

SCHEMA_V1 = "arcaeon-compact:receipt:v1"
SCHEMA_V2 = "arcaeon-compact:receipt:v2"
KIND = "compaction_receipt"
CORE_KEYS = ("schema", "pre", "post", "dropped", "introduced", "compactor", "method")

_SCHEMAS = {SCHEMA_V1: ("v1", "truncation-only"), SCHEMA_V2: ("v2", "full")}


# --------------------------------------------------------------------------- content

@dataclass(frozen=True)
class ContentDigest:
    """An ordered content list, digested: per-item digests, the whole digest (json-c14n
    of the list of item digests) and the total byte count."""
    items: tuple[_digest.ItemDigest, ...]
    digest: str
    bytes: int

    @property
    def count(self) -> int:
        return len(self.items)

    @property
    def digests(self) -> list[str]:
        return [i.digest for i in self.items]


def content_of(items: Iterable[Any]) -> ContentDigest:
    """A ContentDigest from items already digested (anything with `.digest`, `.size`,
    e.g. ItemDigest or a held item)."""
    per = tuple(_digest.ItemDigest(i.digest, i.size) for i in items)
    return ContentDigest(per, _digest.digest_json([i.digest for i in per]),
                         sum(i.size for i in per))


def digest_content(values: Iterable[Any]) -> ContentDigest:
    """Digest every item (bytes/str raw, anything else json-c14n). ValueError when an
    item cannot be canonicalised (NaN, lone surrogate, too deep)."""
    return content_of(_digest.item_digest(v) for v in values)


def _as_content(x: Any) -> ContentDigest:
    return x if isinstance(x, ContentDigest) else digest_content(x)


@dataclass(frozen=True)
class DropSet:
    """Pre minus post as a multiset of digests, walked in pre order: what was dropped
    (digests in pre order, their bytes) and what the post holds that pre did not."""
    items: tuple[str, ...]
    bytes: int
    introduced_count: int
    introduced_bytes: int
    leftover: Counter = field(compare=False, repr=False, default_factory=Counter)


def infer_drops(pre: ContentDigest, post: ContentDigest) -> DropSet:
    """Each pre item consumes one equal post digest if one is left, else it is dropped.
    Unconsumed post occurrences are introduced; their bytes are counted at the size of
    that digest's first item in post."""
    left = Counter(post.digests)
    dropped: list[str] = []
    dropped_bytes = 0
    for it in pre.items:
        if left[it.digest] > 0:
            left[it.digest] -= 1
        else:
            dropped.append(it.digest)
            dropped_bytes += it.size
    size_of: dict[str, int] = {}
    for it in post.items:
        size_of.setdefault(it.digest, it.size)
    left = +left
    return DropSet(tuple(dropped), dropped_bytes, sum(left.values()),
                   sum(n * size_of[d] for d, n in left.items()), left)


# --------------------------------------------------------------------------- building

def core_of(row: dict) -> dict:
    """The receipt core: exactly the seven core keys, a missing one as null."""
    return {k: row.get(k) for k in CORE_KEYS}


def _core(schema: str, pre: ContentDigest, post: ContentDigest, drops: DropSet,
          compactor: Any, method: Any) -> dict:
    introduced: dict[str, int] = {"count": drops.introduced_count}
    if schema == SCHEMA_V2:
        introduced["bytes"] = drops.introduced_bytes
    return {
        "schema": schema,
        "pre": {"count": pre.count, "bytes": pre.bytes, "digest": pre.digest},
        "post": {"count": post.count, "bytes": post.bytes, "digest": post.digest},
        "dropped": {"count": len(drops.items), "bytes": drops.bytes,
                    "items": list(drops.items)},
        "introduced": introduced,
        "compactor": compactor,
        "method": method,
    }


def build_row(pre: Any, post: Any, compactor: Any, method: Any, schema: str = "v2", *,
              opened_at: str | None = None, envelope: bool | None = None) -> dict:
    """The receipt row for pre → post, without writing it anywhere.

    `pre`/`post` are item lists or ContentDigests; `schema` is "v2"/"v1" (or the full
    label). With `envelope` (default: on for v2, off for v1) the row carries `kind`
    and `opened_at` like a sealed row (minus `ts` and `chain`); without it, the core
    plus `receipt_digest`, the shape of a legacy v1 row."""
    label = {"v1": SCHEMA_V1, "v2": SCHEMA_V2}.get(schema, schema)
    if label not in _SCHEMAS:
        raise ValueError(f"unknown receipt schema {schema!r}")
    pre_c, post_c = _as_content(pre), _as_content(post)
    core = _core(label, pre_c, post_c, infer_drops(pre_c, post_c), compactor, method)
    row = dict(core)
    if envelope if envelope is not None else label == SCHEMA_V2:
        row["kind"] = KIND
        row["opened_at"] = opened_at if opened_at is not None else utc_stamp()
    row["receipt_digest"] = _digest.digest_json(core)
    return row


class CompactionReceipt:
    """One compaction, opened on the full content and sealed once to a ledger.

    `open(pre)` → `record_kept(post)` → optional `record_dropped(items)` →
    `seal(path, compactor=, method=)`. Sealed receipts refuse every further call."""

    __slots__ = ("_pre", "_opened_at", "_post", "_claim", "_row")

    def __init__(self, *_a: Any, **_k: Any) -> None:
        raise TypeError("use CompactionReceipt.open(pre_content)")

    @classmethod
    def open(cls, pre_content: Sequence[Any]) -> "CompactionReceipt":
        """Digest every pre item and stamp `opened_at`. ValueError for an item that
        cannot be canonicalised."""
        self = object.__new__(cls)
        self._pre = digest_content(pre_content)
        self._opened_at = utc_stamp()
        self._post: ContentDigest | None = None
        self._claim: list[str] | None = None
        self._row: dict | None = None
        return self

    @property
    def sealed(self) -> bool:
        return self._row is not None

    @property
    def opened_at(self) -> str:
        return self._opened_at

    def _unsealed(self) -> None:
        if self._row is not None:
            raise RuntimeError("receipt already sealed; open a new one")

    def record_kept(self, post_content: Sequence[Any]) -> None:
        """Digest the survivor (a later call replaces an earlier one)."""
        self._unsealed()
        self._post = digest_content(post_content)

    def record_dropped(self, items: Sequence[Any]) -> None:
        """Claim the dropped items; `seal` refuses when the claim's digest multiset
        differs from the inferred drops."""
        self._unsealed()
        self._claim = [_digest.item_digest(x).digest for x in items]

    def seal(self, ledger_path: str | os.PathLike, *, compactor: Any, method: Any) -> dict:
        """Build the v2 row, append it to the ledger, return it with its `chain`."""
        self._unsealed()
        if self._post is None:
            raise ValueError("seal() before record_kept() — record the survivor first "
                             "(an empty list is a valid survivor: everything was dropped)")
        drops = infer_drops(self._pre, self._post)
        if self._claim is not None and Counter(self._claim) != Counter(drops.items):
            raise ValueError(
                f"record_dropped() claim disagrees with pre-minus-kept (claimed "
                f"{len(self._claim)} item(s), inferred {len(drops.items)}); refusing "
                f"to seal an inconsistent receipt")
        core = _core(SCHEMA_V2, self._pre, self._post, drops, compactor, method)
        row = dict(core)
        row["kind"] = KIND
        row["opened_at"] = self._opened_at
        row["receipt_digest"] = _digest.digest_json(core)
        row["ts"] = utc_stamp()
        row["chain"] = _ledger.append(ledger_path, row)
        self._row = row
        return row


def is_receipt_row(value: Any) -> bool:
    """A JSON object whose `kind` is exactly `compaction_receipt`."""
    return isinstance(value, dict) and value.get("kind") == KIND


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
class ReceiptCheck:
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

    def to_dict(self) -> dict:
        return {"ok": self.ok, "self_consistent": self.self_consistent,
                "content": self.content, "schema": self.schema,
                "understatement_check": self.understatement_check,
                "verified_scope": self.verified_scope, "notes": list(self.notes)}


def _int_text(n: int) -> str:
    """Decimal text of any int, past the interpreter's 4300-digit str() limit."""
    try:
        return str(n)
    except ValueError:
        pass
    sign, n = ("-", -n) if n < 0 else ("", n)
    base, chunks = 10 ** 1000, []
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
    """An early return: the note, the gate's name."""


def verify_receipt(row: Any, pre: Any = None, post: Any = None) -> ReceiptCheck:
    """Verify a receipt row (FORMATS.md 5.4); never raises for any row.

    `pre`/`post`: the content held (a list of items, or a ContentDigest). Content is
    digested only once the row passes its shape gates; an item that cannot be
    canonicalised raises ValueError, as opening a receipt on it would. Where the
    reference raises on a core it cannot canonicalise, this returns
    `self_consistent=False` with a note saying so."""
    notes: list[str] = []
    checks: list[Check] = []

    def early(name: str, note: str, schema=None, under=None) -> ReceiptCheck:
        notes.append(note)
        checks.append(Check(name, False, note))
        return ReceiptCheck(schema=schema, understatement_check=under,
                            notes=tuple(notes), checks=tuple(checks))

    if not isinstance(row, dict):
        return early("row is an object", "malformed receipt row: expected a JSON "
                     f"object, got {type(row).__name__}")
    checks.append(Check("row is an object", True))
    label = row.get("schema")
    if not (isinstance(label, str) and label in _SCHEMAS):
        return early("schema known", f"unknown schema {_show(label)} — cannot verify")
    version, under = _SCHEMAS[label]
    checks.append(Check("schema known", True, version))

    try:
        pre_b, post_b, drop_b = row["pre"], row["post"], row["dropped"]
        intro_b = row["introduced"]
        counts = [pre_b["count"], post_b["count"], drop_b["count"], intro_b["count"],
                  pre_b["bytes"], post_b["bytes"], drop_b["bytes"]]
        manifest = drop_b["items"]
        intro_bytes = None
        if version == "v2":
            intro_bytes = intro_b["bytes"]
            counts.append(intro_bytes)
    except (LookupError, TypeError) as e:
        return early("fields present", f"malformed receipt row: missing {e}", version, under)
    checks.append(Check("fields present", True))
    if not all(_is_count(c) for c in counts):
        return early("counts are non-negative integers", "malformed receipt row: "
                     "counts/bytes must be non-negative integers", version, under)
    checks.append(Check("counts are non-negative integers", True))
    if not isinstance(manifest, list) or not all(isinstance(d, str) for d in manifest):
        return early("dropped.items are strings", "malformed receipt row: dropped.items "
                     "must be a list of digest strings", version, under)
    checks.append(Check("dropped.items are strings", True))

    # -- self-consistency: every check runs
    def check(name: str, failed: list[str]) -> None:
        notes.extend(failed)
        checks.append(Check(name, not failed, "; ".join(failed)))

    for lab, val in (("pre.digest", pre_b.get("digest")), ("post.digest", post_b.get("digest")),
                     ("receipt_digest", row.get("receipt_digest"))):
        check(f"well-formed {lab}", [] if _digest.is_well_formed(val) else
              [f"{lab} is not a well-formed self-describing digest"])
    check("well-formed dropped.items",
          [f"dropped.items[{i}] is not a well-formed self-describing digest"
           for i, d in enumerate(manifest) if not _digest.is_well_formed(d)])

    pc, qc, dc, ic = pre_b["count"], post_b["count"], drop_b["count"], intro_b["count"]
    pb, qb, db = pre_b["bytes"], post_b["bytes"], drop_b["bytes"]
    check("manifest length", [] if len(manifest) == dc else
          [f"manifest length {len(manifest)} != dropped.count {_int_text(dc)}"])
    kept = pc - dc
    if kept < 0:
        check("counts reconcile", ["dropped.count exceeds pre.count"])
    else:
        check("counts reconcile", [] if qc - ic == kept else
              ["counts do not reconcile: post - introduced != pre - dropped"])

    bad: list[str] = []
    if db > pb:
        bad.append(f"dropped.bytes {_int_text(db)} exceeds pre.bytes {_int_text(pb)} — "
                   f"impossible, drops come out of pre")
    elif dc == 0 and db != 0:
        bad.append(f"dropped.count is 0 but dropped.bytes is {_int_text(db)}")
    elif version == "v2":
        want = pb - db + intro_bytes
        if qb != want:
            bad.append(f"bytes do not reconcile: pre.bytes - dropped.bytes + "
                       f"introduced.bytes = {_int_text(want)}, got post.bytes {_int_text(qb)}")
    else:
        kept_bytes = pb - db
        if ic == 0 and qb != kept_bytes:
            bad.append(f"bytes do not reconcile: nothing was introduced, so post.bytes "
                       f"must equal pre.bytes - dropped.bytes ({_int_text(kept_bytes)}), "
                       f"got {_int_text(qb)}")
        elif qb < kept_bytes:
            bad.append(f"bytes do not reconcile: post.bytes {_int_text(qb)} is below the "
                       f"kept bytes it must contain ({_int_text(kept_bytes)}) -- v1 schema: "
                       f"this is only a lower bound, not an exact pin, whenever "
                       f"introduced.count>0 (the HIGH-1 gap; re-seal under v2 to close it)")
    check("bytes reconcile", bad)

    try:
        core_digest: str | None = _digest.digest_json(core_of(row))
    except (ValueError, RecursionError) as e:
        core_digest = None
        reason = str(e).split("\n", 1)[0][:200]
        check("receipt_digest reproduces",
              [f"receipt_digest cannot be recomputed: the row's core cannot be "
               f"canonicalised ({reason}) — the row was altered"])
    else:
        check("receipt_digest reproduces", [] if row.get("receipt_digest") == core_digest
              else ["receipt_digest does not reproduce from the row's core — the row was altered"])
    self_consistent = all(c.ok for c in checks)

    # -- content recomputation
    content_checks: list[Check] = []

    def compare(name: str, got: Any, want: Any) -> bool:
        same = not (got != want)
        note = "" if same else f"{name}: recomputed {_show(got)} != claimed {_show(want)}"
        if note:
            notes.append(note)
        content_checks.append(Check(name, same, note))
        return same

    mismatch = False
    pre_c = post_c = drops = None
    if pre is not None:
        pre_c = _as_content(pre)
        for name, got, want in (("pre.digest", pre_c.digest, pre_b.get("digest")),
                                ("pre.count", pre_c.count, pc), ("pre.bytes", pre_c.bytes, pb)):
            mismatch |= not compare(name, got, want)
        avail = Counter(pre_c.digests)
        missing: list[str] = []
        for d in manifest:
            if avail[d] > 0:
                avail[d] -= 1
            else:
                missing.append(f"manifest digest {d[:40]}… not found in pre_content — "
                               f"receipt claims a drop of an item the pre-content never "
                               f"contained")
        notes.extend(missing)
        mismatch |= bool(missing)
        content_checks.append(Check("manifest within pre", not missing, "; ".join(missing)))
    if post is not None:
        post_c = _as_content(post)
        for name, got, want in (("post.digest", post_c.digest, post_b.get("digest")),
                                ("post.count", post_c.count, qc), ("post.bytes", post_c.bytes, qb)):
            mismatch |= not compare(name, got, want)
    if pre_c is not None and post_c is not None:
        drops = infer_drops(pre_c, post_c)
        if Counter(drops.items) != Counter(manifest):
            note = (f"drop-manifest disagrees with content: recomputed {len(drops.items)} "
                    f"dropped item(s), manifest claims {len(manifest)}")
            notes.append(note)
            content_checks.append(Check("drop manifest", False, note))
            mismatch = True
        else:
            content_checks.append(Check("drop manifest", True))
            mismatch |= not compare("dropped.bytes", drops.bytes, db)
        if drops.introduced_count != ic:
            mismatch |= not compare("introduced.count", drops.introduced_count, ic)
        else:
            content_checks.append(Check("introduced.count", True))
            if version == "v2":
                mismatch |= not compare("introduced.bytes", drops.introduced_bytes, intro_bytes)

    checked = pre is not None or post is not None
    content = "mismatch" if mismatch else ("match" if checked else "skipped")

    if pre is not None and post is not None:
        scope = "full"
    elif pre is not None:
        scope = "bounded_pre_only"
    elif post is not None:
        scope = "bounded_post_only"
    else:
        scope = "bounded_no_content"
    v1_gap = version == "v1" and scope != "full" and ic > 0
    if v1_gap:
        scope += "+v1_lower_bound"
    if scope != "full":
        if scope.startswith("bounded_no_content"):
            notes.append("bounded scan: no content supplied, so nothing was recomputed -- "
                         "this is self-consistency only, not proof that pre/post/dropped "
                         f"are true (verified_scope={scope})")
        else:
            notes.append("bounded scan: only one side of the content was supplied, so the "
                         f"drop set was not recomputed (verified_scope={scope})")
    if v1_gap:
        notes.append("bounded scan: v1 row claiming an introduction -- post.bytes is only "
                     "a lower bound, so dropped.bytes could be understated behind the "
                     "claimed introduction (HIGH-1). Supply content or re-seal under v2 "
                     "to pin it.")
    return ReceiptCheck(
        ok=self_consistent and not mismatch, self_consistent=self_consistent,
        content=content, schema=version, understatement_check=under,
        verified_scope=scope, notes=tuple(notes), checks=tuple(checks),
        content_checks=tuple(content_checks),
        recomputed=Recomputed(core_digest, pre_c, post_c, drops))

"""Checkpoints: what a finished verification knew at a line boundary, so the next one
walks only what was appended (`verify_incremental`).

A checkpoint holds the byte length N of the verified prefix (ending just after a
line break), the walk state there, the SHA-256 of each 64 MiB chunk of bytes [0, N)
(`chunk_digest`), the file's identity and the rules version. Resuming hashes [0, N)
without parsing, its chunks on two threads while the appended bytes are walked: a
shorter file or a chunk whose hash differs is BROKEN (the first break names what the
checkpoint saw; the full walk still runs for the rest of the verdict); a match gives
exactly the full verdict. A trailing line without a line break is walked but never
taken into a checkpoint.

The checkpoint file (where it lives, its document, how it is read and written, and
what it is trusted for) is `checkpoint_file`'s; its names are re-exported here. A
resume binds the walk state to the bytes that were walked: the chunk digests written
are of the bytes the walk read (`chunk_digest.bound`, `chunk_digest.check`); a file
that changed or was replaced while it was verified gets no checkpoint and no green
verdict.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sealscope.core import chunk_digest as _chunks
from sealscope.core import ledger
from sealscope.core.checkpoint_file import (
    CHUNK,
    FORMAT,
    MAX_BYTES,
    MAX_FINDINGS,
    RULES,
    Checkpoint,
    NotReplaceable,
    cache_dir,
    default_location,
    evidence_target,
    forget,
    load,
    save,
)
from sealscope.core.clock import utc_stamp
from sealscope.core.ledger import Finding, VerifyResult, WalkState
from sealscope.core.lines import Buffer

__all__ = [
    "RULES",
    "CHUNK",
    "FORMAT",
    "MAX_FINDINGS",
    "Checkpoint",
    "Resumed",
    "Incremental",
    "cache_dir",
    "default_location",
    "line_cut",
    "verify_incremental",
    "load",
    "save",
    "prefix_digests",
    "span_text",
    "changed_result",
    "evidence_target",
    "MAX_BYTES",
    "NotReplaceable",
    "forget",
]

_READ = 8 << 20


# --------------------------------------------------------------------------- bytes


def line_cut(buf: Buffer, start: int, total: int) -> int:
    """The end of the last line of [start, total) that has its line break: just after
    the last `\\n`, or after a lone `\\r` that is not the last byte (a last `\\r` may
    yet become `\\r\\n`). `start` when there is none."""
    block = 1 << 16
    end = total
    while end > start:
        lo = max(start, end - block)
        data = buf[lo:end]
        nl = data.rfind(b"\n")
        cr = data.rfind(b"\r", 0, len(data) - 1 if end == total else len(data))
        hit = max(nl, cr)
        if hit >= 0:
            return lo + hit + 1
        end = lo
        block = min(block * 4, _READ)
    return start


prefix_digests = _chunks.digests
span_text = _chunks.span_text


def changed_result(full: VerifyResult, text: str) -> VerifyResult:
    """A full walk's verdict made BROKEN by what a checkpoint saw (`text` is the first
    break; the walk's own findings follow)."""
    return replace(
        full,
        ok=False,
        first_break=text,
        breaks=full.breaks + 1,
        findings=_prepended(Finding(0, "break", text), full.findings),
    )


def _prepended(first: Finding, rest: Sequence[Finding]) -> ledger.Findings:
    out = ledger.Findings((first,))
    out.extend(rest)
    return out


# --------------------------------------------------------------------------- resume


@dataclass(frozen=True)
class Resumed:
    """How much of a verification was resumed: rows 1..rows_before and bytes
    [0, bytes_before) unchanged since the checkpoint; the rest walked now."""

    rows_before: int
    rows_after: int
    lines_before: int
    bytes_before: int
    bytes_after: int
    checkpoint_written_at: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows_unchanged": self.rows_before,
            "rows_total": self.rows_after,
            "lines_unchanged": self.lines_before,
            "bytes_unchanged": self.bytes_before,
            "bytes_total": self.bytes_after,
            "checkpoint_written_at": self.checkpoint_written_at,
        }

    def sentence(self) -> str:
        k, m = self.rows_before, self.rows_after
        now = f"{k + 1:,}..{m:,} verified now" if m > k else "no new rows"
        return f"rows 1..{k:,} unchanged since checkpoint (prefix hash matched), {now}"


@dataclass(frozen=True)
class Incremental:
    """`verify_incremental`'s answer. `change` is "shrank" or "changed" when the
    checkpoint caught the file; `saved` whether a new checkpoint was written."""

    result: VerifyResult
    checkpoint: str | None
    resumed: Resumed | None = None
    notes: tuple[str, ...] = ()
    saved: bool = False
    change: str | None = None
    checkpoint_sha256: str | None = None  # the checkpoint resumed from, as it was read


def verify_incremental(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    checkpoint: str | os.PathLike[str] | None = None,
    save_new: bool = True,
    on_progress: ledger.ProgressFn | None = None,
    workers: int | None = None,
    env: Mapping[str, str] | None = None,
    digest: bool = False,
) -> Incremental:
    """Verify a ledger using and updating its checkpoint (default: the user's cache).
    Never raises for any file; checkpoint trouble becomes a note. The verdict is
    bound to the one file opened here, as `ledger.verify`'s is (a file replaced or
    changed while it was verified is never VERIFIED and gets no checkpoint);
    `digest=True` also gives the SHA-256 of the bytes verified (`result.sha256`)."""
    try:
        fh, buf = ledger._open_checked(path)
    except OSError as e:
        return Incremental(ledger._unreadable(e), None)
    with fh:
        inc = _incremental(
            str(path),
            fh.fileno(),
            buf,
            strict,
            checkpoint,
            save_new,
            on_progress,
            workers,
            env,
            digest,
        )
        res = ledger.bound_to_file(inc.result, str(path), fh.fileno())
        return inc if res is inc.result else replace(inc, result=res)


def _incremental(
    path: str,
    fd: int,
    buf: Buffer,
    strict: bool,
    checkpoint: str | os.PathLike[str] | None,
    save_new: bool,
    on_progress: ledger.ProgressFn | None,
    workers: int | None,
    env: Mapping[str, str] | None,
    digest: bool = False,
) -> Incremental:
    st = os.fstat(fd)
    real = os.path.realpath(path)
    where = Path(checkpoint) if checkpoint is not None else default_location(real, strict, env)
    notes: list[str] = []
    if evidence_target(where, [path]) is not None:
        notes.append(
            f"checkpoint {where} is the ledger itself: not read, not written; verified in full"
        )
        walked = ledger.walk_span(
            buf, strict=strict, cut=len(buf), on_progress=on_progress, workers=workers
        )
        res = _digested(fd, len(buf), walked, digest)
        return Incremental(res, None, notes=tuple(notes))
    cp, note = load(where, real, strict)
    if cp is None:
        notes.append(note or f"no checkpoint at {where} yet: verified in full")
    total = len(buf)
    cut = line_cut(buf, 0, total)

    def walk(state: WalkState | None) -> ledger.Walked:
        return ledger.walk_span(
            buf, strict=strict, cut=cut, state=state, on_progress=on_progress, workers=workers
        )

    if cp is not None:
        if (st.st_dev, st.st_ino) != cp.identity[:2]:
            notes.append(
                f"the file was replaced since the checkpoint (inode {cp.identity[1]} "
                f"→ {st.st_ino}); its prefix is checked byte for byte"
            )
        if total < cp.length:
            text = f"checkpoint: file shrank from {cp.length:,} to {total:,} bytes"
            full = walk(None).result
            return _caught(full, text, "shrank", where, notes)
        # the prefix's chunks (and those on to the new cut) hash on two threads while
        # the appended bytes are walked here
        seam = _unconfirmed_seam(buf, cp.length, total)
        with ThreadPoolExecutor(max_workers=1) as hashing:
            checking = hashing.submit(_chunks.check, fd, cp.chunks, cp.length, cut)
            walked = walk(cp.state if seam is None else None)
            if seam is not None:
                walked = replace(walked, restarted=seam)
            try:
                checked = checking.result()
            except OSError as e:
                return _unsettled(walked, f"it could not be read again: {e}", where, notes, cp)
        if checked.changed is not None:
            text = _changed_text(checked.changed, cp.length)
            full = walk(None).result
            return _caught(full, text, "changed", where, notes)
        if walked.restarted:
            notes.append(walked.restarted)
            chunks, why = _chunks.bound(fd, cut, [sp for sp in walked.spans if sp[1] <= cut])
        else:
            chunks = checked.chunks
            seen, why = ledger.span_digest(
                fd, cp.length, cut, [sp for sp in walked.spans if sp[1] <= cut]
            )
            if why is None and seen != checked.after:
                why = f"bytes {cp.length:,}–{cut:,} differ from what the walk read"
        if why is not None or chunks is None:
            return _unsettled(walked, str(why), where, notes, cp)
        resumed = (
            None
            if walked.restarted
            else Resumed(
                cp.state.rows, walked.result.rows, cp.state.lines, cp.length, total, cp.written_at
            )
        )
        inc = _finish(
            path, fd, st, where, walked, chunks, resumed, notes, save_new, checkpoint is None
        )
        return replace(
            inc,
            result=_digested(fd, total, walked, digest, inc.result, cp),
            checkpoint_sha256=cp.digest,
        )
    walked = walk(None)
    chunks, why = _chunks.bound(fd, cut, [sp for sp in walked.spans if sp[1] <= cut])
    if why is not None or chunks is None:
        return _unsettled(walked, str(why), where, notes)
    inc = _finish(path, fd, st, where, walked, chunks, None, notes, save_new, checkpoint is None)
    return replace(inc, result=_digested(fd, total, walked, digest, inc.result))


def _unconfirmed_seam(buf: Buffer, length: int, total: int) -> str | None:
    """Why the walk state at `length` no longer fits the file, or None. A prefix that
    ends in a lone `\\r` was cut there because the byte after it was not `\\n`; when
    that byte is gone or is now `\\n`, the `\\r` is not (or not yet) the line break
    the state counted, so the file is walked from byte 0 (its prefix still checked)."""
    if length == 0 or buf[length - 1 : length] != b"\r":
        return None
    if total > length and buf[length : length + 1] != b"\n":
        return None
    now = "gone" if total == length else "a \\n"
    return (
        f"the checkpoint's prefix ends in a lone \\r and the byte after it is now {now}; "
        "walked again from the start"
    )


def _digested(
    fd: int,
    total: int,
    walked: ledger.Walked,
    digest: bool,
    res: VerifyResult | None = None,
    resumed_from: Checkpoint | None = None,
) -> VerifyResult:
    """The verdict with the SHA-256 of [0, total) when asked for: the walked spans'
    bytes read again and checked against the walk's hashes, the prefix a checkpoint
    vouched for (`resumed_from`) checked against its chunk digests."""
    res = walked.result if res is None else res
    if not digest:
        return res
    spans = list(walked.spans)
    cp = resumed_from
    if cp is not None and cp.length > 0 and not any(a < cp.length for a, _b, _h in spans):
        spans += [
            (a, b, h) for (a, b), h in zip(_chunks.chunk_spans(cp.length), cp.chunks, strict=True)
        ]
    sha, why = ledger.span_digest(fd, 0, total, spans)
    if why is not None:
        return ledger.changed_while_read(res, why)
    return replace(res, sha256=sha)


def _changed_text(chunk: int, length: int) -> str:
    """The first break for a prefix whose chunk `chunk` changed since it was verified."""
    where = _chunks.chunk_text(chunk, length)
    return f"checkpoint: prefix changed in bytes {where} since it was verified"


def _unsettled(
    walked: ledger.Walked, why: str, where: Path, notes: list[str], cp: Checkpoint | None = None
) -> Incremental:
    """The answer when the bytes did not hold still while they were verified and
    hashed: COULD NOT LOOK (BROKEN stays BROKEN), and no checkpoint written."""
    notes.append(f"the file changed while it was verified ({why}): no checkpoint written")
    return Incremental(
        ledger.changed_while_read(walked.result, why),
        str(where),
        notes=tuple(notes),
        checkpoint_sha256=None if cp is None else cp.digest,
    )


def _caught(
    full: VerifyResult, text: str, change: str, where: Path, notes: list[str]
) -> Incremental:
    if full.first_break:
        notes.append(f"the full walk's first break: {full.first_break}")
    else:
        notes.append(
            "the full walk alone finds no break: the file was rewritten or cut consistently"
        )
    notes.append(f"checkpoint {where} kept: remove it to accept the file as it is now")
    return Incremental(changed_result(full, text), str(where), notes=tuple(notes), change=change)


def _finish(
    path: str,
    fd: int,
    st: os.stat_result,
    where: Path,
    walked: ledger.Walked,
    chunks: Sequence[str],
    resumed: Resumed | None,
    notes: list[str],
    save_new: bool,
    in_cache: bool = False,
) -> Incremental:
    res = walked.result
    saved = False
    if save_new:
        try:
            now = os.stat(path)
            same = (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino)
        except OSError:
            same = False
        if not same:
            notes.append("the file was replaced while it was verified: no checkpoint written")
        elif len(walked.state.findings) > MAX_FINDINGS:
            notes.append(f"more than {MAX_FINDINGS:,} findings: no checkpoint written")
        else:
            cp = Checkpoint(
                path=os.path.realpath(path),
                identity=(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns),
                length=walked.state.offset,
                chunks=tuple(chunks),
                state=walked.state,
                written_at=utc_stamp(),
            )
            try:
                save(where, cp, in_cache=in_cache)
                saved = True
            except NotReplaceable as e:
                notes.append(f"checkpoint not written: {e}")
            except OSError as e:
                notes.append(f"checkpoint {where} not written: {e.strerror or e}")
    return Incremental(res, str(where), resumed=resumed, notes=tuple(notes), saved=saved)

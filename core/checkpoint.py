"""Checkpoints: what a finished verification knew at a line boundary, so the next one
walks only what was appended (`verify_incremental`).

A checkpoint holds the byte length N of the verified prefix (ending just after a
line break), the walk state there, the SHA-256 of bytes [0, N) and of each 64 MiB
chunk, the file's identity and the rules version. Resuming hashes [0, N) without
parsing: a shorter file or a different hash is BROKEN (the first break says what the
checkpoint saw; the full walk still runs for the rest of the verdict); a match walks
only the bytes after N, from the saved state, and gives exactly the full verdict.
A trailing line without a line break is walked but never taken into a checkpoint.

The checkpoint file (where it lives, its document, how it is read and written, and
what it is trusted for) is `checkpoint_file`'s; its names are re-exported here. A
resume binds the walk state to the bytes that were walked: the prefix digest written
is of the bytes the walk read (`ledger.span_digest`); a file that changed or was
replaced while it was verified gets no checkpoint and no green verdict.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sealscope.core import checkpoint_file as _file
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


# a hashing pool thread's read buffer, reused for all its chunks while the pool lives
# (fresh memory for every read would cost a page fault per page)
_buffers = threading.local()


def _read_hash(fd: int, h: Any, start: int, end: int, buf: bytearray | None = None) -> None:
    """Feed bytes [start, end) of `fd` to `h`, read into `buf` (None: a buffer of this
    call's own, gone when it returns: a long-lived caller keeps no 8 MB)."""
    if buf is None:
        buf = bytearray(max(1, min(_READ, end - start)))
    view = memoryview(buf)
    pos = start
    while pos < end:
        want = min(len(buf), end - pos)
        got = os.preadv(fd, [view[:want]], pos)
        if not got:
            raise OSError(f"file ended at byte {pos} while hashing to {end}")
        h.update(view[:got])
        pos += got


def _digest(fd: int, start: int, end: int, buf: bytearray | None = None) -> str:
    h = hashlib.sha256()
    _read_hash(fd, h, start, end, buf)
    return h.hexdigest()


def _pool_digest(fd: int, start: int, end: int) -> str:
    """`_digest` on a hashing pool's thread, through that thread's kept buffer."""
    buf = getattr(_buffers, "buf", None)
    if buf is None:
        buf = _buffers.buf = bytearray(_READ)
    return _digest(fd, start, end, buf)


def prefix_digests(
    fd: int, end: int, first_chunk: int = 0, on_hashed: Callable[[int], None] | None = None
) -> list[str]:
    """SHA-256 of each CHUNK of [first_chunk*CHUNK, end), hashed on two threads;
    `on_hashed(bytes)` hears how far the hashing has come, chunk by chunk."""
    chunk = _file.CHUNK
    spans = [(a, min(a + chunk, end)) for a in range(first_chunk * chunk, end, chunk)]
    out: list[str] = []

    def take(hexed: Iterable[str]) -> list[str]:
        for (_a, b), h in zip(spans, hexed, strict=True):
            out.append(h)
            if on_hashed is not None:
                on_hashed(b)
        return out

    if len(spans) <= 1:
        return take(_digest(fd, a, b) for a, b in spans)
    with ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
        return take(pool.map(lambda ab: _pool_digest(fd, *ab), spans))


def span_text(a: int, b: int) -> str:
    """A byte span for people: `0–64 MiB` on MiB boundaries, else `0–5,000`."""
    mib = 1 << 20
    if a % mib == 0 and b % mib == 0:
        return f"{a // mib}–{b // mib} MiB"
    return f"{a:,}–{b:,}"


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
        # hash the prefix (and on to the new cut) while the appended bytes are walked
        h = hashlib.sha256()
        box: dict[str, Any] = {}

        def hash_prefix() -> None:
            try:
                _read_hash(fd, h, 0, cp.length)
                box["prefix"] = h.hexdigest()
                part = hashlib.sha256()
                ledger._hash_into(fd, (h, part), cp.length, cut)
                box["cut"], box["part"] = h.hexdigest(), part.hexdigest()
            except OSError as e:
                box["error"] = e

        keep = cp.length // _file.CHUNK  # whole chunks inside the prefix keep their digests
        tail: dict[str, Any] = {}

        def hash_tail() -> None:  # the last partial chunk and the new ones, on the other core
            try:
                tail["chunks"] = [
                    _digest(fd, a, min(a + _file.CHUNK, cut))
                    for a in range(keep * _file.CHUNK, cut, _file.CHUNK)
                ]
            except OSError as e:
                tail["error"] = e

        threads = [threading.Thread(target=f, daemon=True) for f in (hash_prefix, hash_tail)]
        for t in threads:
            t.start()
        walked = walk(cp.state)
        for t in threads:
            t.join()
        if "error" in box or box.get("prefix") != cp.sha256:
            text = _changed_text(fd, cp, total)
            full = walk(None).result
            return _caught(full, text, "changed", where, notes)
        if walked.restarted:
            notes.append(walked.restarted)
        lo = 0 if walked.restarted else cp.length
        seen, why = ledger.span_digest(fd, lo, cut, [sp for sp in walked.spans if sp[1] <= cut])
        if why is None and seen != box["cut" if walked.restarted else "part"]:
            why = f"bytes {lo:,}–{cut:,} differ from what the walk read"
        if why is not None:
            notes.append(f"the file changed while it was verified ({why}): no checkpoint written")
            return Incremental(
                ledger.changed_while_read(walked.result, why),
                str(where),
                notes=tuple(notes),
                checkpoint_sha256=cp.digest,
            )
        resumed = (
            None
            if walked.restarted
            else Resumed(
                cp.state.rows, walked.result.rows, cp.state.lines, cp.length, total, cp.written_at
            )
        )
        chunks = None if "error" in tail else list(cp.chunks[:keep]) + tail["chunks"]
        inc = _finish(
            path,
            fd,
            st,
            where,
            walked,
            box["cut"],
            chunks,
            resumed,
            notes,
            save_new,
            checkpoint is None,
        )
        return replace(
            inc,
            result=_digested(fd, total, walked, digest, inc.result, (cp.length, cp.sha256)),
            checkpoint_sha256=cp.digest,
        )
    walked = walk(None)
    sha: str | None = ""
    chunks = None
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            whole = pool.submit(
                ledger.span_digest, fd, 0, cut, [sp for sp in walked.spans if sp[1] <= cut]
            )
            chunks = prefix_digests(fd, cut)
            sha, why = whole.result()
    except OSError:
        chunks, why = None, None
    if why is not None:
        notes.append(f"the file changed while it was verified ({why}): no checkpoint written")
        return Incremental(
            ledger.changed_while_read(walked.result, why), str(where), notes=tuple(notes)
        )
    inc = _finish(
        path, fd, st, where, walked, sha or "", chunks, None, notes, save_new, checkpoint is None
    )
    return replace(inc, result=_digested(fd, total, walked, digest, inc.result))


def _digested(
    fd: int,
    total: int,
    walked: ledger.Walked,
    digest: bool,
    res: VerifyResult | None = None,
    prefix: tuple[int, str] | None = None,
) -> VerifyResult:
    """The verdict with the SHA-256 of [0, total) when asked for: the walked spans'
    bytes read again and checked against the walk's hashes, the prefix a checkpoint
    vouched for (`prefix`: its length and digest) checked against its digest."""
    res = walked.result if res is None else res
    if not digest:
        return res
    spans = list(walked.spans)
    if prefix is not None and prefix[0] > 0 and not any(a < prefix[0] for a, _b, _h in spans):
        spans.append((0, prefix[0], prefix[1]))
    sha, why = ledger.span_digest(fd, 0, total, spans)
    if why is not None:
        return ledger.changed_while_read(res, why)
    return replace(res, sha256=sha)


def _changed_text(fd: int, cp: Checkpoint, total: int) -> str:
    """Name the first 64 MiB chunk of the prefix whose bytes changed."""
    try:
        now = prefix_digests(fd, cp.length)
    except OSError:
        now = []
    # `now` is empty when the file cannot be read: then the first chunk is named
    i = next((k for k, (a, b) in enumerate(zip(cp.chunks, now, strict=False)) if a != b), 0)
    a, b = i * _file.CHUNK, min((i + 1) * _file.CHUNK, cp.length)
    return f"checkpoint: prefix changed in bytes {span_text(a, b)} since it was verified"


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
    digest: str,
    chunks: list[str] | None,
    resumed: Resumed | None,
    notes: list[str],
    save_new: bool,
    in_cache: bool = False,
) -> Incremental:
    res = walked.result
    saved = False
    if save_new and chunks is None:
        notes.append("the file changed while it was hashed: no checkpoint written")
    elif save_new and chunks is not None:
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
                sha256=digest,
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

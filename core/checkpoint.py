"""Checkpoints: what a finished verification knew at a line boundary, so the next one
walks only what was appended.

A checkpoint holds the byte length N of the verified prefix (ending just after a
line break), the walk state there, the SHA-256 of bytes [0, N) and of each 64 MiB
chunk, the file's identity and the rules version. Resuming hashes [0, N) without
parsing: a shorter file or a different hash is BROKEN (the first break says what the
checkpoint saw; the full walk still runs for the rest of the verdict); a match walks
only the bytes after N, from the saved state, and gives exactly the full verdict.
A trailing line without a line break is walked but never taken into a checkpoint.

A checkpoint is a cache, not a trust root: it proves the prefix is byte-identical to
what this machine verified, not that those bytes were honest. Checkpoints live in
`$XDG_CACHE_HOME/sealscope/checkpoints/` (else `~/.cache/...`), keyed by the file's
real path, or in a file the caller names; never beside the evidence. One that cannot
be read, comes from another rules version or names another file is ignored with a
one-line note and the walk starts at byte 0.

What a checkpoint is trusted for, and what it never may do:

* It is read like evidence: a regular file only (`lines.open_regular`: a FIFO or a
  device is refused, never waited on), at most `MAX_BYTES`, parsed with the safe parse
  (nesting too deep is a note, not a crash), its walk state checked for consistency
  (counts, first break, offsets inside the file) before it is used. One owned by
  another user, or in a world-writable folder owned by another user, is ignored.
* It is written only where nothing else lives: a path that is evidence (the ledger
  itself, a symlink or hard link to it) is refused (`evidence_target`), and an
  existing file is replaced only when it is itself a sealscope checkpoint (not a
  symlink, not hard-linked elsewhere).
* It binds the walk state to the bytes that were walked: the prefix digest written
  is of the bytes the walk read (`ledger.span_digest`); a file that changed or was
  replaced while it was verified gets no checkpoint and no green verdict.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeGuard

from sealscope.core import ledger
from sealscope.core import lines as _lines
from sealscope.core.jsonio import loads as _safe_loads
from sealscope.core.lines import Buffer
from sealscope.core.clock import utc_stamp
from sealscope.core.ledger import Finding, VerifyResult, WalkState

__all__ = ["RULES", "CHUNK", "FORMAT", "MAX_FINDINGS", "Checkpoint", "Resumed",
           "Incremental", "cache_dir", "default_location", "line_cut", "verify_incremental",
           "load", "save", "prefix_digests", "span_text", "changed_result",
           "evidence_target", "MAX_BYTES", "NotReplaceable", "forget"]

FORMAT = "sealscope-checkpoint/1"
# Bumped whenever the walk's rules or its state change: an older checkpoint is then
# ignored rather than resumed with other rules.
RULES = "sealscope-walk/1 (arcaeon 0.10.0)"
CHUNK = 64 << 20
MAX_FINDINGS = 100_000  # more breaks than this: no checkpoint (it would not be small)
_READ = 8 << 20
MAX_BYTES = 64 << 20  # a checkpoint larger than this is not one (MAX_FINDINGS fit well)


# --------------------------------------------------------------------------- where

def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CACHE_HOME/sealscope/checkpoints`, else `~/.cache/sealscope/checkpoints`."""
    source: Mapping[str, str] = os.environ if env is None else env
    base = source.get("XDG_CACHE_HOME") or ""
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return root / "sealscope" / "checkpoints"


def default_location(real_path: str, strict: bool,
                     env: Mapping[str, str] | None = None) -> Path:
    """The cache file for a ledger's real path (strict walks keep their own)."""
    key = hashlib.sha256(real_path.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return cache_dir(env) / f"{key}{'-strict' if strict else ''}.json"


# --------------------------------------------------------------------------- document

@dataclass(frozen=True)
class Checkpoint:
    """The document. `length` is N; `identity` is (device, inode, size, mtime_ns) of the
    file when it was verified; `chunks` are the SHA-256 of [i*CHUNK, min((i+1)*CHUNK, N))."""
    path: str
    identity: tuple[int, int, int, int]
    length: int
    sha256: str
    chunks: tuple[str, ...]
    state: WalkState
    rules: str = RULES
    written_at: str = ""
    digest: str = ""  # SHA-256 of the document as it was loaded ("" when not loaded)

    def to_json(self) -> bytes:
        doc = {"format": FORMAT, "rules": self.rules, "path": self.path,
               "identity": dict(zip(("device", "inode", "size", "mtime_ns"), self.identity,
                                    strict=True)),
               "length": self.length, "lines": self.state.lines, "rows": self.state.rows,
               "sha256": self.sha256, "chunk_bytes": CHUNK, "chunks": list(self.chunks),
               "written_at": self.written_at, "state": self.state.to_dict()}
        return json.dumps(doc, ensure_ascii=True, indent=1).encode("ascii") + b"\n"

    @classmethod
    def from_json(cls, data: bytes) -> Checkpoint:
        """ValueError naming what is wrong, for anything but a well-formed document."""
        try:
            doc = _safe_loads(data)
        except (ValueError, UnicodeDecodeError) as e:
            raise ValueError(f"not JSON ({e})") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError("not a sealscope checkpoint")
        ident = doc.get("identity")
        keys = ("device", "inode", "size", "mtime_ns")
        if not isinstance(ident, dict) or not all(_nat(ident.get(k)) for k in keys):
            raise ValueError("identity out of shape")
        chunks = doc.get("chunks")
        length = doc.get("length")
        if not (_nat(length) and isinstance(chunks, list)
                and all(_hex64(c) for c in chunks) and _hex64(doc.get("sha256"))
                and isinstance(doc.get("path"), str) and isinstance(doc.get("rules"), str)
                and doc.get("chunk_bytes") == CHUNK
                and len(chunks) == -(-length // CHUNK)):
            raise ValueError("fields out of shape")
        state = WalkState.from_dict(doc.get("state"))
        if state.offset != length:
            raise ValueError("walk state and length disagree")
        why = _inconsistent(state)
        if why:
            raise ValueError(f"walk state inconsistent: {why}")
        device, inode, size, mtime_ns = (ident[k] for k in keys)
        return cls(path=doc["path"], identity=(device, inode, size, mtime_ns),
                   length=length, sha256=doc["sha256"], chunks=tuple(chunks), state=state,
                   rules=doc["rules"], written_at=str(doc.get("written_at", "")))


def _nat(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _hex64(v: Any) -> bool:
    return isinstance(v, str) and len(v) == 64 and all(c in "0123456789abcdef" for c in v)


def _inconsistent(st: WalkState) -> str:
    """What in a walk state cannot come from any walk, or "" (see `Checkpoint`)."""
    breaks = sum(1 for f in st.findings if f[1] == "break")
    declared = len(st.findings) - breaks
    lines = [f[0] for f in st.findings]
    if st.breaks != breaks or st.declared_breaks != declared:
        return "break counts and findings disagree"
    if st.chained + st.prechain > st.rows or st.began != (st.chained > 0):
        return "row counts disagree"
    if st.rows > st.lines or st.lines > st.offset + 1:
        return "more rows or lines than bytes"
    if any(not 0 < n <= st.lines for n in lines):
        return "a finding outside the lines walked"
    if st.first_chained > st.lines or (st.chained > 0) != (st.first_chained > 0):
        return "the first chained line is out of place"
    return ""


def _untrusted_place(fd: int, where: Path) -> str:
    """Why a checkpoint at `where` (open on `fd`) may have been planted by someone
    else, or "": a file owned by another user, or a world-writable folder owned by
    another user (anyone may put a file there)."""
    me = os.geteuid() if hasattr(os, "geteuid") else None
    if me is None:  # pragma: no cover - not POSIX
        return ""
    if os.fstat(fd).st_uid != me:
        return "it is owned by another user"
    try:
        d = os.stat(where.parent)
    except OSError:
        return ""
    if d.st_mode & stat.S_IWOTH and d.st_uid != me:
        return "its folder is world-writable and owned by another user"
    return ""


def _read_capped(where: Path) -> bytes:
    """A checkpoint's bytes: a regular file only (never a FIFO's wait or a device's
    endless read), at most MAX_BYTES (ValueError beyond), ignored when another user
    could have put it there (PermissionError)."""
    with _lines.open_regular(where) as fh:
        why = _untrusted_place(fh.fileno(), where)
        if why:
            raise PermissionError(why)
        data = fh.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"larger than {MAX_BYTES >> 20} MiB")
    return data


def load(where: Path, real_path: str, strict: bool) -> tuple[Checkpoint | None, str | None]:
    """The checkpoint at `where` if it may be resumed for this file and mode, else
    (None, a one-line note; None when there simply is none yet)."""
    try:
        data = _read_capped(where)
    except FileNotFoundError:
        return None, None
    except PermissionError as e:
        return None, f"checkpoint {where} ignored: {e.strerror or e}; verified in full"
    except OSError as e:
        return None, f"checkpoint {where} ignored: unreadable ({e.strerror or e}); verified in full"
    except ValueError as e:
        return None, f"checkpoint {where} ignored: unreadable ({e}); verified in full"
    try:
        cp = Checkpoint.from_json(data)
    except ValueError as e:
        return None, f"checkpoint {where} ignored: unreadable ({e}); verified in full"
    cp = replace(cp, digest=hashlib.sha256(data).hexdigest())
    if cp.rules != RULES:
        return None, (f"checkpoint {where} ignored: made by rules {cp.rules!r}, these are "
                      f"{RULES!r}; verified in full")
    if cp.path != real_path:
        return None, (f"checkpoint {where} ignored: it is for another file ({cp.path}); "
                      "verified in full")
    if cp.state.strict != strict:
        mode = "strict" if cp.state.strict else "non-strict"
        return None, f"checkpoint {where} ignored: made by a {mode} walk; verified in full"
    return cp, None


class NotReplaceable(OSError):
    """The checkpoint path holds something that is not a sealscope checkpoint."""


def _replaceable(where: Path, any_content: bool = False) -> str:
    """Why the file at `where` may not be replaced by a checkpoint, or "" (nothing
    there, or a sealscope checkpoint of ours: a regular file with one link; with
    `any_content`, in sealscope's own cache, any such file)."""
    try:
        st = os.lstat(where)
    except FileNotFoundError:
        return ""
    except OSError as e:
        return f"it cannot be examined ({e.strerror or e})"
    if stat.S_ISLNK(st.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISREG(st.st_mode):
        return "it is not a regular file"
    if st.st_nlink > 1:
        return "it has other hard links"
    if any_content:
        return ""
    try:
        with _lines.open_regular(where) as fh:
            head = fh.read(MAX_BYTES + 1)
        doc = _safe_loads(head)
    except (OSError, ValueError, UnicodeDecodeError):
        return "it is not a sealscope checkpoint"
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return "it is not a sealscope checkpoint"
    return ""


def save(where: Path, cp: Checkpoint, *, in_cache: bool = False) -> None:
    """Write atomically: a temporary file in the same directory (created new, never
    through a link), fsynced, renamed over `where`. Never replaces a file that is not
    a sealscope checkpoint (`NotReplaceable`, nothing written), a symlink or a file
    with other hard links; `in_cache`: `where` is the file `default_location` names
    in sealscope's own cache, where an unreadable checkpoint may be replaced."""
    why = _replaceable(where, in_cache)
    if why:
        raise NotReplaceable(f"{where} is kept: {why}")
    where.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = where.with_name(f".{where.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) \
        | getattr(os, "O_CLOEXEC", 0)
    made = False
    try:
        fd = os.open(tmp, flags, 0o600)
        made = True
        with os.fdopen(fd, "wb") as fh:
            fh.write(cp.to_json())
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, where)
        made = False
    finally:
        if made:
            tmp.unlink(missing_ok=True)


def evidence_target(where: str | os.PathLike[str],
                    evidence: list[str] | tuple[str, ...]) -> str | None:
    """The evidence file that the checkpoint path `where` is (the same file, a symlink
    to it, a hard link of it), or None. A checkpoint is never written there."""
    try:
        st = os.stat(where)
    except OSError:
        st = None
    real = os.path.realpath(where)
    for e in evidence:
        try:
            es = os.stat(e)
        except OSError:
            es = None
        if st is not None and es is not None and (st.st_dev, st.st_ino) == (es.st_dev,
                                                                            es.st_ino):
            return e
        if real == os.path.realpath(e):
            return e
    return None


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


def _read_hash(fd: int, h: Any, start: int, end: int) -> None:
    pos = start
    while pos < end:
        data = os.pread(fd, min(_READ, end - pos), pos)
        if not data:
            raise OSError(f"file ended at byte {pos} while hashing to {end}")
        h.update(data)
        pos += len(data)


def _digest(fd: int, start: int, end: int) -> str:
    h = hashlib.sha256()
    _read_hash(fd, h, start, end)
    return h.hexdigest()


def prefix_digests(fd: int, end: int, first_chunk: int = 0) -> list[str]:
    """SHA-256 of each CHUNK of [first_chunk*CHUNK, end), hashed on two threads."""
    spans = [(a, min(a + CHUNK, end)) for a in range(first_chunk * CHUNK, end, CHUNK)]
    if len(spans) <= 1:
        return [_digest(fd, a, b) for a, b in spans]
    with ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
        return list(pool.map(lambda ab: _digest(fd, *ab), spans))


def span_text(a: int, b: int) -> str:
    """A byte span for people: `0–64 MiB` on MiB boundaries, else `0–5,000`."""
    mib = 1 << 20
    if a % mib == 0 and b % mib == 0:
        return f"{a // mib}–{b // mib} MiB"
    return f"{a:,}–{b:,}"


def changed_result(full: VerifyResult, text: str) -> VerifyResult:
    """A full walk's verdict made BROKEN by what a checkpoint saw (`text` is the first
    break; the walk's own findings follow)."""
    return replace(full, ok=False, first_break=text, breaks=full.breaks + 1,
                   findings=_prepended(Finding(0, "break", text), full.findings))


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
        return {"rows_unchanged": self.rows_before, "rows_total": self.rows_after,
                "lines_unchanged": self.lines_before, "bytes_unchanged": self.bytes_before,
                "bytes_total": self.bytes_after,
                "checkpoint_written_at": self.checkpoint_written_at}

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


def verify_incremental(path: str | os.PathLike[str], *, strict: bool = False,
                       checkpoint: str | os.PathLike[str] | None = None, save_new: bool = True,
                       on_progress: ledger.ProgressFn | None = None, workers: int | None = None,
                       env: Mapping[str, str] | None = None,
                       digest: bool = False) -> Incremental:
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
        inc = _incremental(str(path), fh.fileno(), buf, strict, checkpoint, save_new,
                           on_progress, workers, env, digest)
        res = ledger.bound_to_file(inc.result, str(path), fh.fileno())
        return inc if res is inc.result else replace(inc, result=res)


def _incremental(path: str, fd: int, buf: Buffer, strict: bool,
                 checkpoint: str | os.PathLike[str] | None, save_new: bool,
                 on_progress: ledger.ProgressFn | None, workers: int | None,
                 env: Mapping[str, str] | None, digest: bool = False) -> Incremental:
    st = os.fstat(fd)
    real = os.path.realpath(path)
    where = Path(checkpoint) if checkpoint is not None else default_location(real, strict, env)
    notes: list[str] = []
    if evidence_target(where, [path]) is not None:
        notes.append(f"checkpoint {where} is the ledger itself: not read, not written; "
                     "verified in full")
        walked = ledger.walk_span(path, buf, strict=strict, cut=len(buf),
                                  on_progress=on_progress, workers=workers)
        res = _digested(fd, len(buf), walked, digest)
        return Incremental(res, None, notes=tuple(notes))
    cp, note = load(where, real, strict)
    if cp is None:
        notes.append(note or f"no checkpoint at {where} yet: verified in full")
    total = len(buf)
    cut = line_cut(buf, 0, total)

    def walk(state: WalkState | None) -> ledger.Walked:
        return ledger.walk_span(path, buf, strict=strict, cut=cut, state=state,
                                on_progress=on_progress, workers=workers)

    if cp is not None:
        if (st.st_dev, st.st_ino) != cp.identity[:2]:
            notes.append(f"the file was replaced since the checkpoint (inode {cp.identity[1]} "
                         f"→ {st.st_ino}); its prefix is checked byte for byte")
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

        keep = cp.length // CHUNK  # whole chunks inside the prefix keep their digests
        tail: dict[str, Any] = {}

        def hash_tail() -> None:  # the last partial chunk and the new ones, on the other core
            try:
                tail["chunks"] = [_digest(fd, a, min(a + CHUNK, cut))
                                  for a in range(keep * CHUNK, cut, CHUNK)]
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
        seen, why = ledger.span_digest(fd, lo, cut, [sp for sp in walked.spans
                                                      if sp[1] <= cut])
        if why is None and seen != box["cut" if walked.restarted else "part"]:
            why = f"bytes {lo:,}–{cut:,} differ from what the walk read"
        if why is not None:
            notes.append(f"the file changed while it was verified ({why}): no checkpoint "
                         "written")
            return Incremental(ledger.changed_while_read(walked.result, why), str(where),
                               notes=tuple(notes), checkpoint_sha256=cp.digest)
        resumed = None if walked.restarted else Resumed(
            cp.state.rows, walked.result.rows, cp.state.lines, cp.length, total, cp.written_at)
        chunks = None if "error" in tail else list(cp.chunks[:keep]) + tail["chunks"]
        inc = _finish(path, fd, st, where, walked, box["cut"], chunks, resumed, notes,
                      save_new, checkpoint is None)
        return replace(inc, result=_digested(fd, total, walked, digest, inc.result,
                                             (cp.length, cp.sha256)),
                       checkpoint_sha256=cp.digest)
    walked = walk(None)
    sha: str | None = ""
    chunks = None
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            whole = pool.submit(ledger.span_digest, fd, 0, cut,
                                [sp for sp in walked.spans if sp[1] <= cut])
            chunks = prefix_digests(fd, cut)
            sha, why = whole.result()
    except OSError:
        chunks, why = None, None
    if why is not None:
        notes.append(f"the file changed while it was verified ({why}): no checkpoint written")
        return Incremental(ledger.changed_while_read(walked.result, why), str(where),
                           notes=tuple(notes))
    inc = _finish(path, fd, st, where, walked, sha or "", chunks, None, notes, save_new,
                  checkpoint is None)
    return replace(inc, result=_digested(fd, total, walked, digest, inc.result))


def _digested(fd: int, total: int, walked: ledger.Walked, digest: bool,
              res: VerifyResult | None = None,
              prefix: tuple[int, str] | None = None) -> VerifyResult:
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
    a, b = i * CHUNK, min((i + 1) * CHUNK, cp.length)
    return f"checkpoint: prefix changed in bytes {span_text(a, b)} since it was verified"


def _caught(full: VerifyResult, text: str, change: str, where: Path,
            notes: list[str]) -> Incremental:
    if full.first_break:
        notes.append(f"the full walk's first break: {full.first_break}")
    else:
        notes.append("the full walk alone finds no break: the file was rewritten or cut "
                     "consistently")
    notes.append(f"checkpoint {where} kept: remove it to accept the file as it is now")
    return Incremental(changed_result(full, text), str(where), notes=tuple(notes),
                       change=change)


def _finish(path: str, fd: int, st: os.stat_result, where: Path, walked: ledger.Walked,
            digest: str, chunks: list[str] | None, resumed: Resumed | None,
            notes: list[str], save_new: bool, in_cache: bool = False) -> Incremental:
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
            cp = Checkpoint(path=os.path.realpath(path),
                            identity=(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns),
                            length=walked.state.offset, sha256=digest, chunks=tuple(chunks),
                            state=walked.state, written_at=utc_stamp())
            try:
                save(where, cp, in_cache=in_cache)
                saved = True
            except NotReplaceable as e:
                notes.append(f"checkpoint not written: {e}")
            except OSError as e:
                notes.append(f"checkpoint {where} not written: {e.strerror or e}")
    return Incremental(res, str(where), resumed=resumed, notes=tuple(notes), saved=saved)


# --------------------------------------------------------------------------- forget

def forget(path: str | os.PathLike[str], *, strict: bool = False,
           checkpoint: str | os.PathLike[str] | None = None,
           env: Mapping[str, str] | None = None) -> tuple[bool | None, str]:
    """Remove a ledger's checkpoint (`verify --incremental --reset`): the file at
    `checkpoint`, else the cache file for the ledger's real path and mode. Only a
    file that is a sealscope checkpoint (its `format` is FORMAT) is removed; anything
    else is left in place. (True, what was removed), (None, there was none) or
    (False, why it was left)."""
    real = os.path.realpath(os.fspath(path))
    where = Path(checkpoint) if checkpoint is not None else default_location(real, strict, env)
    from sealscope.core.lines import open_regular  # a FIFO is refused, never waited on

    try:
        with open_regular(where) as fh:
            head = fh.read()
    except FileNotFoundError:
        return None, f"no checkpoint to reset at {where}"
    except OSError as e:
        return False, f"checkpoint {where} left in place: unreadable ({e.strerror or e})"
    try:
        doc = json.loads(head)
    except (ValueError, UnicodeDecodeError):
        doc = None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return False, f"{where} is not a sealscope checkpoint: left in place"
    try:
        where.unlink()
    except OSError as e:
        return False, f"checkpoint {where} left in place: {e.strerror or e}"
    return True, f"checkpoint {where} removed; verified in full"

"""Evidence packs (`evidence-pack`, a folder or a zip; KINDS.md §8): the ten checks,
in order, with the reference's own verdict words.

A zip is read in place (`zipread`), never extracted: refused before reading as
`zipread` says (`pack zip`: BROKEN for names that are not plain or occur twice,
COULD NOT LOOK `bounded` or `unreadable`), else its entries are checked exactly as
a folder's files, and the result gains `zip: {entries, sha256}`.

A folder (or the zip's entries): `manifest.json` missing → COULD NOT LOOK `missing`;
a folder of that name, not UTF-8 JSON or not an object → `unreadable` (one check
`manifest`). Otherwise, in
order: `file hashes`, `records chain and head`, `window rows equal their records
lines`, `build-time findings`, `manifest hash`, `aat export`, `mandate rows`,
`second-read receipt`, `re-derived fields and prose`, `pins` (their rules are each
function's docstring: checks 1–2 here, 3 in `pack_window`, 4–6 in `pack_steps`,
7–8 in `pack_mandate`, 9–10 in `pack_rederived`).
The pack's word is the worst (BROKEN over COULD NOT LOOK over VERIFIED); `reason_word`
and its fellows come from the first COULD NOT LOOK check.
`check` takes no witness file and uses no network: a listed local pin is COULD NOT
LOOK `missing`, a remote one `network`.

records.jsonl, window.jsonl and the AAT export are streamed, never held: each pass
over them holds one line (bounded by `zipread.ENTRY_MAX_BYTES`) and what the checks
compare (`pack_records`), and lines of whitespace alone are skipped in bulk. Any other
member held in memory to be parsed is bounded by `zipread.ENTRY_MAX_BYTES` too; past
it the pack is COULD NOT LOOK `bounded`, not read.

Where sealscope re-derives less than the reference, the check says so in its `note`
and never says more than the reference would. The `aat`, `mandate` and `readings`
sections are rebuilt from the records (`aat_rebuild`, `pack_mandate`) and the
second-read receipt's check rerun (`portable`). The two pages (README.md,
ARTICLE_12_SUMMARY.md) are rendered again, as the reference does (`pack_render`).
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from sealscope.core import ledger as _ledger
from sealscope.core.checks import pack_derive as D
from sealscope.core.checks import zipread as Z
from sealscope.core.checks.pack_records import (
    RecordsFacts,
    Selected,
    chunks_of,
    nonblank_lines,
    verify_stream,
)
from sealscope.core.checks.result import CheckContext, KindCheck

__all__ = [
    "KIND",
    "CHECKS",
    "verify_members",
    "members",
    "verify_pack",
    "check",
    "unit_subjects",
    "vsa_subjects",
]

KIND = "evidence-pack"
VERIFIED, BROKEN, COULD_NOT_LOOK = D.VERIFIED, D.BROKEN, D.COULD_NOT_LOOK
MANIFEST, MANIFEST_SHA, RECORDS, WINDOW = (
    "manifest.json",
    "manifest.sha256",
    "records.jsonl",
    "window.jsonl",
)
CNL_FILE, INTEGRITY = "could_not_look.json", "integrity.json"
CNL_FIELDS = ("looked_for", "where", "reason_word", "reason")
#: The names of the ten checks, in their order.
CHECKS = (
    "file hashes",
    "records chain and head",
    "window rows equal their records lines",
    "build-time findings",
    "manifest hash",
    "aat export",
    "mandate rows",
    "second-read receipt",
    "re-derived fields and prose",
    "pins",
)
OPERATOR_AT_T = "UNKNOWN"
OPERATOR_AT_T_NOTE = (
    "who operated the witness when each pin was taken is not known until "
    "a custody record is published and anchored"
)
PROSE_HASH_ONLY = "not re-derived, hash only"
REDERIVED_PROSE = ("README.md", "ARTICLE_12_SUMMARY.md")
_BASE_CHECKS = (
    "records chain and witness cross-check",
    "window has rows",
    "every agent row placed in or out of the window",
)
_NON_CLAIMS = ("self_asserted", "undeclared", "none")


class Raised(Exception):
    """The reference raises here (its front door: COULD NOT LOOK, `error` the class)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _entry(check: str, word: str, **fields: Any) -> dict[str, Any]:
    """One check's result entry, as every check of a pack builds it: its name, its
    verdict word, then its fields in order."""
    return {"check": check, "verdict": word, **fields}


def _cnl(check: str, looked_for: Any, where: str, word: str, reason: str) -> dict[str, Any]:
    """COULD NOT LOOK: what was looked for, where, the reason word and the reason."""
    return _entry(
        check, COULD_NOT_LOOK, looked_for=looked_for, where=where, reason_word=word, reason=reason
    )


def _verified(check: str, note: str) -> dict[str, Any]:
    """VERIFIED with a note saying what there was to check (a section not built)."""
    return _entry(check, VERIFIED, note=note)


def _broken(check: str, finding: str) -> dict[str, Any]:
    """BROKEN on one finding (a malformed manifest block)."""
    return _entry(check, BROKEN, finding=finding)


def _missing(p: _Pack, check: str, names: Iterable[str], so: str) -> dict[str, Any] | None:
    """COULD NOT LOOK `missing` for the first of `names` the pack does not hold ("the
    pack has no NAME, so SO"); None when it holds them all."""
    for name in names:
        if not p.has(name):
            return _cnl(check, name, p.m.where, "missing", f"the pack has no {name}, so {so}")
    return None


def _get(value: Any, key: str) -> Any:
    """`(value or {}).get(key)`, raising where the reference's would."""
    if not value:
        return None
    if not isinstance(value, dict):
        raise Raised("AttributeError")
    return value.get(key)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


@dataclass
class _Pack:
    """One pack being checked: its members, its manifest, and what the records give
    (each records pass streamed, done once)."""

    m: Z.Members
    manifest: dict[str, Any]
    _facts: RecordsFacts | None = None
    _vr: _ledger.VerifyResult | None = None
    #: (lines, digest, all integers) of window.jsonl's `line` values, once read
    window_values: tuple[int, Any, bool] | None = None

    def has(self, name: str) -> bool:
        return self.m.is_file(name)

    def read(self, name: str) -> bytes:
        return self.m.read(name)

    def json(self, name: str) -> Any:
        """The member parsed (UTF-8), None when absent or unreadable."""
        try:
            return json.loads(self.read(name).decode("utf-8"))
        except (OSError, ValueError):
            return None

    def record_lines(self) -> Iterator[bytes]:
        """records.jsonl's lines (split on LF, a CR kept, no final empty piece),
        streamed from the member; none when it cannot be opened."""
        try:
            yield from self.m.lines(RECORDS)
        except FileNotFoundError:
            return

    def records_nonblank(self, on_blank: Callable[[int, int], None]) -> Iterator[tuple[int, bytes]]:
        """records.jsonl's lines not of whitespace alone, (number, line), streamed
        (`pack_records.nonblank_lines`); `on_blank(first, last)` is told each run of
        the others, the trailing run included. None when the member is absent."""
        try:
            fh = self.m.open(RECORDS)
        except FileNotFoundError:
            return
        total: list[int] = []
        prev = 0
        with fh:
            for n, line in nonblank_lines(chunks_of(fh), total):
                if n > prev + 1:
                    on_blank(prev + 1, n - 1)
                prev = n
                yield n, line
        if total[0] > prev:
            on_blank(prev + 1, total[0])

    def facts(self) -> RecordsFacts:
        """What one streamed pass over records.jsonl gives (`pack_records`), read
        once; an absent or unreadable member reads as empty."""
        if self._facts is None:
            try:
                window = _window_args(self.manifest)
            except (ValueError, TypeError, AttributeError):
                window = None
            try:
                with self.m.open(RECORDS) as fh:
                    self._facts = RecordsFacts.read(fh, window)
            except OSError:
                self._facts = RecordsFacts.read(io.BytesIO(b""), window)
        return self._facts

    def selection(self) -> Selected:
        """The window selected again from the records. Raises ValueError when the
        manifest's window cannot be read, RecursionError where the strict reader
        meets a line nesting past its depth (the reference's reader raises)."""
        f = self.facts()
        if f.selected is None:
            raise ValueError("the manifest's window could not be read")
        if f.deep_in_window:
            raise RecursionError("a records line nests past the parser's depth")
        return f.selected

    @property
    def vr(self) -> _ledger.VerifyResult:
        """The records' chain walk, streamed (`pack_records.verify_stream`)."""
        if self._vr is None:
            try:
                self._vr = verify_stream(lambda: self.m.open(RECORDS), Z.ENTRY_MAX_BYTES)
            except OSError as e:
                self._vr = _ledger.VerifyResult(
                    ok=False, first_break=f"unreadable: {e}", unreadable=True
                )
        return self._vr


def _finish(res: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    if problems:
        res.update({"verdict": BROKEN, "finding": "; ".join(problems)})
    else:
        res["verdict"] = VERIFIED
    return res


# --------------------------------------------------------------------------- 1–3


def step_hashes(p: _Pack) -> dict[str, Any]:
    """1. Every listed file present and equal to its sha256; nothing unlisted
    anywhere under the pack (subfolders included) but the manifest and its hash."""
    check = CHECKS[0]
    listed = p.manifest.get("files")
    if not isinstance(listed, dict) or not listed:
        return _cnl(
            check,
            "a file list with sha256 values",
            MANIFEST,
            "unreadable",
            "manifest.json has no `files` table to check against",
        )
    on_disk = set(p.m.names()) - {MANIFEST, MANIFEST_SHA}
    changed, missing = [], []
    for name in sorted(listed):
        if not p.has(name):
            missing.append(name)
            continue
        try:
            digest = p.m.sha256(name)
        except OSError:
            missing.append(name)
            continue
        if digest != listed[name]:
            changed.append(name)
    unlisted = sorted(on_disk - set(listed))
    res = {
        "check": check,
        "files_checked": len(listed) - len(missing),
        "changed": changed,
        "missing": missing,
        "unlisted": unlisted,
    }
    problems = []
    if missing:
        problems.append(f"listed in the manifest and missing from the pack: {', '.join(missing)}")
    if changed:
        problems.append(f"sha256 differs from the manifest: {', '.join(changed)}")
    if unlisted:
        problems.append(f"not listed in the manifest: {', '.join(unlisted)}")
    return _finish(res, problems)


def step_chain(p: _Pack) -> dict[str, Any]:
    """2. The records' chain reruns (BROKEN on a break, COULD NOT LOOK `empty` or
    `bounded` when it reaches no verdict) and its head (last chain, rows) is the
    manifest's `chain_head`."""
    check = CHECKS[1]
    gone = _missing(p, check, [RECORDS], "there is no chain to rerun")
    if gone is not None:
        return gone
    claimed = p.manifest.get("chain_head")
    if not isinstance(claimed, dict) or "chain" not in claimed:
        return _cnl(
            check,
            "the chain head recorded at export",
            MANIFEST,
            "unreadable",
            "manifest.json has no `chain_head` to compare the chain against",
        )
    vr = p.vr
    res: dict[str, Any] = {
        "check": check,
        "rows": vr.rows,
        "first_break": vr.first_break,
        "breaks": vr.breaks,
        "manifest_chain": claimed.get("chain"),
        "manifest_rows": claimed.get("rows"),
    }
    if vr.ok is False:
        res.update(
            {"verdict": BROKEN, "finding": f"records.jsonl chain breaks at {vr.first_break}"}
        )
        return res
    if vr.ok is None:
        word = "empty" if vr.verified_scope == "empty" else "bounded"
        return {
            **res,
            **_cnl(
                check,
                "chain links for every record",
                f"records.jsonl (verified_scope={vr.verified_scope})",
                word,
                "the chain check did not cover every row, so it reached no verdict",
            ),
        }
    chain = p.facts().last_chain
    res["chain"] = chain
    if chain != claimed.get("chain") or vr.rows != claimed.get("rows"):
        return _finish(
            res,
            [
                (
                    f"records.jsonl head (rows {vr.rows}, chain {chain}) differs "
                    f"from the manifest's chain_head (rows {claimed.get('rows')}, "
                    f"chain {claimed.get('chain')})"
                )
            ],
        )
    return _finish(res, [])


# --------------------------------------------------------------------------- 4–5


def _window_args(manifest: dict[str, Any]) -> tuple[Any, Any, Any]:
    """(agent, since, until) of the manifest's window; raises ValueError (or
    AttributeError, TypeError) when they cannot be read."""
    w = _dict(manifest.get("window"))
    since, until = D.parse_when(w.get("from")), D.parse_when(w.get("to"))
    agent = w.get("agent")
    if agent is not None and not isinstance(agent, str):
        raise D.BadTime("agent is not a string")
    return agent, since, until


# --------------------------------------------------------------------------- the pack


def _worst(words: list[str]) -> str:
    if BROKEN in words:
        return BROKEN
    if COULD_NOT_LOOK in words or not words:
        return COULD_NOT_LOOK
    return VERIFIED


def _result(where: str, checks: list[dict[str, Any]]) -> dict[str, Any]:
    word = _worst([c["verdict"] for c in checks])
    res: dict[str, Any] = {
        "pack": where,
        "verdict": word,
        "exit": D.EXIT_BY_WORD[word],
        "checks": checks,
    }
    if word == BROKEN:
        res["finding"] = "; ".join(
            f"{c['check']}: {c.get('finding')}" for c in checks if c["verdict"] == BROKEN
        )
    if word != VERIFIED:
        reasons = []
        for c in checks:
            if c["verdict"] == COULD_NOT_LOOK and c["check"] != CHECKS[3]:
                reasons.append({"check": c["check"], **{k: c.get(k) for k in CNL_FIELDS}})
            for e in c.get("entries") or []:
                if isinstance(e, dict):
                    reasons.append(
                        {"check": e.get("check", "build"), **{k: e.get(k) for k in CNL_FIELDS}}
                    )
        res["could_not_look"] = reasons
    if word == COULD_NOT_LOOK:
        first = next(c for c in checks if c["verdict"] == COULD_NOT_LOOK)
        res.update({k: first.get(k) for k in CNL_FIELDS})
    return res


def verify_members(m: Z.Members) -> dict[str, Any]:
    """The pack's result over its members (a folder's files or a zip's entries), as the
    reference's `verify_pack` answers: `verdict`, `exit`, `checks` (one dict per check,
    `check` and `verdict` first), `finding`, `could_not_look`, the first COULD NOT LOOK
    check's fields. Raises `Raised` where the reference raises."""
    from sealscope.core.checks import pack_mandate as M
    from sealscope.core.checks import pack_rederived as R
    from sealscope.core.checks import pack_steps as S
    from sealscope.core.checks import pack_window as W

    try:
        if not m.is_file(MANIFEST):
            if isinstance(m, Z.FolderMembers) and os.path.isdir(os.path.join(m.root, MANIFEST)):
                raise IsADirectoryError(f"{MANIFEST} is a folder")
            raise FileNotFoundError(MANIFEST)
        manifest = json.loads(m.read(MANIFEST).decode("utf-8"))
        if not isinstance(manifest, dict):
            raise ValueError("not a JSON object")
    except FileNotFoundError:
        c = _cnl(
            "manifest",
            MANIFEST,
            m.where,
            "missing",
            "the pack has no manifest.json, so nothing says what its files should be",
        )
        return _result(m.where, [c])
    except (OSError, ValueError) as e:
        c = _cnl(
            "manifest",
            MANIFEST,
            m.where,
            "unreadable",
            f"manifest.json could not be read as a JSON object ({e})",
        )
        return _result(m.where, [c])
    p = _Pack(m, manifest)
    steps = (
        step_hashes,
        step_chain,
        W.step_window,
        S.step_build,
        S.step_manifest_hash,
        S.step_aat,
        M.step_mandate,
        M.step_readings,
        R.step_rederived,
        R.step_pins,
    )
    res = _result(m.where, [step(p) for step in steps])
    res["members"] = members(m, manifest)
    return res


def members(m: Z.Members, manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """Every file the manifest lists or the pack holds, in name order, with its
    listed sha256 (None: not listed; the manifest and its hash file are never
    listed) and its actual one (None: not a readable file of the pack) — what an
    export or the viewer's member list shows beside the checks."""
    listed = _dict(manifest.get("files"))
    out = []
    for name in sorted(set(listed) | set(m.names())):
        try:
            actual = m.sha256(name) if m.is_file(name) else None
        except OSError:
            actual = None
        want = listed.get(name)
        out.append(
            {
                "name": name,
                "listed": want if isinstance(want, str) else None,
                "actual": actual,
                "matches": actual is not None and actual == want,
            }
        )
    return out


def verify_pack(path: str) -> dict[str, Any]:
    """`verify_members` of a folder, or of a zip read in place (refused first as
    `zipread` says; the result then gains `zip: {entries, sha256}`)."""
    if os.path.isdir(path):
        return verify_members(Z.FolderMembers(path))
    opened = Z.open_zip(path)
    if isinstance(opened, Z.ZipRefused):
        if opened.word == BROKEN:
            c = _broken("pack zip", opened.reason)
            return {
                "pack": path,
                "verdict": BROKEN,
                "exit": D.EXIT_BY_WORD[BROKEN],
                "checks": [c],
                "finding": f"pack zip: {opened.reason}",
            }
        c = _cnl(
            "pack zip",
            "an evidence pack zip",
            path,
            opened.reason_word or "unreadable",
            opened.reason,
        )
        return _result(path, [c])
    try:
        res = verify_members(opened)
    finally:
        opened.close()
    res["pack"] = path
    res["zip"] = {"entries": len(opened.digests), "sha256": opened.sha256_of_zip}
    return res


def check(path: str, ctx: CheckContext) -> KindCheck:
    """`sealscope check` of an evidence pack: the reference's own word, `ok` null,
    `detail` the whole result (KINDS.md §8.3). Never raises: where the reference
    raises, COULD NOT LOOK with `detail.error` its class name; a zip that vanishes or
    cannot be hashed, COULD NOT LOOK `unreadable`."""
    del ctx

    def could_not(detail: dict[str, Any], reason: str) -> KindCheck:
        """COULD NOT LOOK for the whole pack, `detail` saying why."""
        return KindCheck(
            path=path, kind=KIND, ok=None, word=COULD_NOT_LOOK, detail=detail, reason=reason
        )

    try:
        detail = verify_pack(path)
    except Z.TooBig as e:
        return could_not({"reason_word": "bounded"}, f"{e}: past sealscope's bound, not read")
    except Raised as e:
        return could_not({"error": e.name}, f"the check raised {e.name}")
    except RecursionError:
        return could_not({"error": "RecursionError"}, "a member nests deeper than the parser reads")
    except OSError as e:
        return could_not({"reason_word": "unreadable", "error": type(e).__name__}, str(e))
    pins = next((c for c in detail["checks"] if c["check"] == CHECKS[9]), None)
    bound = ""
    if detail["verdict"] == VERIFIED and pins is not None and not pins.get("pins_checked"):
        bound = "no pin listed: the tail of the records not witnessed"
    return KindCheck(
        path=path,
        kind=KIND,
        ok=None,
        bound=bound,
        word=detail["verdict"],
        detail=detail,
        reason=str(detail.get("finding") or detail.get("reason") or ""),
    )


def unit_subjects(path: str) -> list[tuple[str, str]]:
    """The VSA subjects of a unit: a zip is its own digest `(name, sha256)`; a folder
    is each member its manifest lists, with the member's actual sha256 (listed
    members that are not files of the folder are left out). Raises OSError when
    the path cannot be read."""
    if not os.path.isdir(path):
        return [(os.path.basename(path), Z.file_sha256(path))]
    m = Z.FolderMembers(path)
    try:
        manifest = json.loads(m.read(MANIFEST).decode("utf-8"))
    except (OSError, ValueError):
        manifest = None
    if isinstance(manifest, dict) and isinstance(manifest.get("files"), dict):
        names = sorted(n for n in manifest["files"] if m.is_file(n))
    else:
        names = [n for n in m.names() if m.is_file(n)]
    return [(n, m.sha256(n)) for n in names]


def vsa_subjects(res: KindCheck) -> tuple[tuple[str, str], ...]:
    """The VSA subjects of a pack's check, from the digests the check took of the bytes
    it read (nothing is read again): a zip is its own digest (`detail.zip.sha256`) under
    its path; a folder each member its manifest lists that is a file of the pack, as
    `path/member` with the digest its check took (`detail.members`). () when the check
    took none (the pack could not be read)."""
    d = res.detail if isinstance(res.detail, dict) else {}
    z = d.get("zip")
    if isinstance(z, dict):
        sha = z.get("sha256")
        return ((res.path, sha),) if isinstance(sha, str) and sha else ()
    listed = [m for m in d.get("members") or () if isinstance(m, dict)]
    return tuple(
        (f"{res.path}/{m['name']}", m["actual"])
        for m in listed
        if m.get("listed") is not None and isinstance(m.get("actual"), str)
    )

"""The audit report of one evidence file, as a value: `to_dict()` (JSON) and
`to_markdown()`.

A report is built from one file, whose kind `core.kinds.classify` decides: a
**ledger**, a **snapshot** or a **harn** transcript or run record.

* ledger: the verify verdict (`ledger.verify(path).to_dict()` plus the verdict word),
  every break and excused break (`findings`), and every compaction-receipt row's
  `verify_receipt` status with its line number;
* snapshot: its validation (`valid`, `digest`, `error`, `label`, `id_scheme`,
  `probes`, as `sealscope snapshot --json` prints them).

Work done beyond that, in a viewer session or by CLI flags (a restatement scored, a
diff of two seals, items added since a seal, held content recomputed, a lookup), is
passed in as `SessionRecord`s and reported in order, each with its own exit code.

Exit code of a report (`AuditReport.exit_code`), worst first (1 over 3 over 0):
ledger → the `verify` verb's code, combined with the `receipts` verb's code when the
ledger holds at least one receipt row (a ledger with no receipt row claims nothing
to check); snapshot → the `snapshot` verb's code; then every session record's own
code (a verdict: `continuity`'s; a diff: `diff`'s; a recomputation: `receipts`').

In the Markdown every string taken from evidence goes through `sanitize.clean` and is
then either put in a code span (values: ids, digests, declared and restated text) or
backslash-escaped (prose that quotes evidence: errors, notes, reasons), so no raw
HTML, link, image or heading can come from the data. The JSON keeps values as they
are (JSON escaping is exact), equal to the CLI verbs' `--json` output.

Also here, shared by the CLI and the viewer: the readers of a seal, a restatement,
a tiers file and a manifest file, with the CLI's error texts. Pure: no Textual, no
Rich, nothing printed.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence

from sealscope.core import ledger as _ledger
from sealscope.core import verdict as _verdict
from sealscope.core.verdict import worst
from sealscope.core import kinds
from sealscope.core.sanitize import clean

__all__ = [
    "EXPORT_SCHEMA", "SessionRecord", "SealFile", "AuditReport", "SnapshotRowRef",
    "Unreadable", "read_json_file", "load_seal", "load_restated",
    "load_tiers", "load_manifest", "verdict_record", "diff_record", "added_record", "recompute_record",
    "lookup_record", "build_report", "iter_snapshot_rows", "md_text", "md_code",
    "grouped_divergences",
]

EXPORT_SCHEMA = "sealscope-export:v1"

# --------------------------------------------------------------------------- readers

from sealscope.core.sealfile import (  # noqa: E402  (re-exported for the viewer)
    SealFile, Unreadable, load_manifest, load_restated, load_seal, load_tiers,
    read_json_file)


# --------------------------------------------------------------------------- session

@dataclass(frozen=True)
class SessionRecord:
    """One piece of work done on the file beyond reading it: `kind` is "verdict",
    "diff", "added", "recompute" or "lookup" (others are reported as plain JSON);
    `inputs` names what was used (paths, mode), `result` is the core's own dict
    (a verdict's to_dict, the diff_seals object, ...), `code` its exit code."""
    kind: str
    title: str
    inputs: dict = field(default_factory=dict)
    result: Any = None
    code: int = 0

    def to_dict(self) -> dict:
        return {"kind": self.kind, "title": self.title, "inputs": dict(self.inputs),
                "result": self.result, "exit_code": self.code}


def verdict_record(verdict: Any, restated_path: str, *, tiers_path: str | None = None
                   ) -> SessionRecord:
    """A restatement scored against the seal (`verify_continuation`'s verdict)."""
    strict = bool((verdict.policy or {}).get("strict", True))
    return SessionRecord(
        "verdict", f"restatement {os.path.basename(restated_path)} "
                   f"({'strict' if strict else 'loose'})",
        {"restated": restated_path, "mode": "strict" if strict else "loose",
         "tiers": tiers_path}, verdict.to_dict(), _verdict.continuation(verdict).exit_code)


def diff_record(doc: dict, previous_path: str, current_path: str, *,
                tiers_path: str | None = None) -> SessionRecord:
    """Two seals diffed (`diff_seals`' object); code 0: both seals loaded."""
    return SessionRecord(
        "diff", f"diff {os.path.basename(previous_path)} → {os.path.basename(current_path)}",
        {"previous": previous_path, "current": current_path, "tiers": tiers_path}, doc, 0)


def added_record(added: dict, manifest_path: str) -> SessionRecord:
    """`added_since_seal` against a newer manifest (findings, not failures)."""
    return SessionRecord("added", f"added since the seal ({os.path.basename(manifest_path)})",
                         {"manifest": manifest_path}, added, 0)


def recompute_record(line: int, check: Any, *, pre: str | None = None,
                     post: str | None = None) -> SessionRecord:
    """A receipt row re-verified with held content (`verify_receipt` with pre/post)."""
    d = check.to_dict() if hasattr(check, "to_dict") else dict(check)
    return SessionRecord("recompute", f"receipt on line {line} recomputed",
                         {"line": line, "pre": pre, "post": post},
                         {"line": line, **d}, _verdict.receipt(d).exit_code)


def lookup_record(items: Sequence[dict], *, held: Sequence[str] = ()) -> SessionRecord:
    """Held items looked up in the drop manifests: `items` as `sealscope lookup`
    prints them (`digest`, `bytes`, `found`)."""
    return SessionRecord("lookup", f"lookup of {len(items)} held item(s)",
                         {"held": list(held)}, {"items": list(items)}, 0)


# --------------------------------------------------------------------------- report

@dataclass(frozen=True)
class AuditReport:
    """The audit report of one file (see the module docstring)."""
    kind: str                         # "ledger" | "snapshot" | "harn"
    path: str
    verdict: str                      # the file's own verdict word
    exit_code: int                    # worst of the file's and every session record's
    ledger: dict | None = None        # verify to_dict + "verdict"
    breaks: tuple = ()                # {"line", "kind", "text"}
    receipts: tuple = ()              # {"line", **verify_receipt fields}
    receipts_verdict: str | None = None
    snapshot: dict | None = None      # the snapshot verb's object
    harn: tuple = ()                  # the harn verb's objects, one per compaction
    session: tuple = ()               # SessionRecords

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"schema": EXPORT_SCHEMA, "kind": self.kind, "path": self.path,
                               "verdict": self.verdict, "exit_code": self.exit_code}
        if self.kind == "ledger":
            out["ledger"] = self.ledger
            out["breaks"] = list(self.breaks)
            out["receipts"] = list(self.receipts)
            out["receipts_verdict"] = self.receipts_verdict
        elif self.kind == "harn":
            out["harn"] = list(self.harn)
        else:
            out["snapshot"] = self.snapshot
        out["session"] = [r.to_dict() for r in self.session]
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2, default=str)

    def to_markdown(self) -> str:
        return _Markdown(self).render()


def build_report(path: str | os.PathLike, *, kind: str | None = None,
                 session: Iterable[SessionRecord] = (), verify_result: Any = None,
                 seal: SealFile | None = None,
                 on_progress: Callable[[int, int], None] | None = None) -> AuditReport:
    """Build the report of `path` (kind from `kinds.classify` unless given: ledger,
    snapshot or harn). A ledger tab that already holds its VerifyResult passes it as
    `verify_result`; a seal tab its loaded `SealFile` as `seal`. ValueError with the
    classifier's reason when the file is none of the three; otherwise never raises
    for any file content."""
    p = os.fspath(path)
    if kind is None:
        found = kinds.classify(p)
        if not found.opens:
            raise ValueError(found.reason)
        kind = found.kind
    session = tuple(session)
    if kind == "harn":
        return _harn_report(p, session)
    if kind == "snapshot":
        got = seal if seal is not None else load_seal(p)
        code = worst([got.exit_code, *(r.code for r in session)])
        return AuditReport("snapshot", p, got.verdict, code, snapshot=got.summary(),
                           session=session)
    if kind != "ledger":
        raise ValueError(f"unknown report kind {kind!r} (ledger, snapshot or harn)")
    res = verify_result if verify_result is not None else \
        _ledger.verify(p, on_progress=on_progress)
    doc = res.to_dict()
    doc["verdict"] = res.verdict
    breaks = tuple({"line": f.line, "kind": f.kind, "text": f.text} for f in res.findings)
    receipts: list[dict] = []
    if not res.unreadable:
        from sealscope.core import lookup, receipt
        try:
            for line, row in lookup.iter_receipt_rows(p):
                receipts.append({"line": line, **receipt.verify_receipt(row).to_dict()})
        except OSError:
            pass
    rec = _verdict.receipts(receipts)
    codes = [res.exit_code]
    if receipts:
        codes.append(rec.exit_code)
    code = worst([*codes, *(r.code for r in session)])
    return AuditReport("ledger", p, res.verdict, code, ledger=doc, breaks=breaks,
                       receipts=tuple(receipts), receipts_verdict=rec.verdict,
                       session=session)


def _harn_report(path: str, session: tuple) -> AuditReport:
    """A harn transcript: every compaction event with its findings, judged as
    `sealscope harn` judges it (1 on a high-severity finding, 3 unreadable)."""
    from sealscope.core import harn
    try:
        doc = harn.load(path)
    except harn.HarnError as e:
        out = _verdict.harn(None, readable=False)
        return AuditReport("harn", path, out.verdict,
                           worst([out.exit_code, *(r.code for r in session)]),
                           harn=({"error": e.message},), session=session)
    found = harn.check_document(doc)
    out = _verdict.harn(harn.worst_severity(f for c in found for f in c.findings))
    return AuditReport("harn", path, out.verdict, worst([out.exit_code, *(r.code for r in session)]),
                       harn=tuple(c.to_dict() for c in found), session=session)


# --------------------------------------------------------------------------- ledger links

@dataclass(frozen=True)
class SnapshotRowRef:
    """A `continuity_snapshot` row of a ledger (FORMATS §6.8)."""
    path: str
    line: int
    label: Any
    manifest_digest: Any
    probe_set_digest: Any

    def matches(self, snap: Any) -> bool:
        """The row seals this snapshot: both digests equal."""
        return (self.manifest_digest == getattr(snap, "manifest_digest", None)
                and self.probe_set_digest == getattr(snap, "probe_set_digest", None))


_SNAP_NEEDLE = b"continuity_snapshot"


def iter_snapshot_rows(path: str | os.PathLike) -> Iterator[SnapshotRowRef]:
    """Every `continuity_snapshot` row of a ledger, in file order, with its line
    number as the verifier counts lines. OSError when the file cannot be opened."""
    p = os.fspath(path)
    for n, obj in _ledger.iter_rows(
            p, prefilter=lambda raw: _SNAP_NEEDLE in raw or b"\\u" in raw):
        if isinstance(obj, dict) and obj.get("kind") == "continuity_snapshot":
            yield SnapshotRowRef(p, n, obj.get("label"), obj.get("manifest_digest"),
                                 obj.get("probe_set_digest"))


# --------------------------------------------------------------------------- markdown

# every character that can start Markdown syntax inline: escapes, code, emphasis,
# links and images, raw HTML and entities, tables, strikethrough, math; `:` and `@`
# (and the dot of `www.`) so no URL, e-mail or protocol autolink can form
_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#!|~&:@$])|(?<=www)(\.)", re.IGNORECASE)
_LEADING = re.compile(r"^([-+=>]|\d+[.)])")


def md_text(value: Any) -> str:
    """Evidence as Markdown prose: sanitized, then every character that could start
    Markdown syntax backslash-escaped (no HTML, link, autolink, emphasis, heading,
    list or table cell can come from the data)."""
    text = clean(value if isinstance(value, str) else str(value))
    text = _SPECIAL.sub(lambda m: "\\" + m.group(0), text)
    m = _LEADING.match(text)
    if m:
        lead = m.group(1)
        text = lead[:-1] + "\\" + lead[-1] + text[len(lead):]
    return text


def md_code(value: Any, *, in_table: bool = False) -> str:
    """Evidence as a Markdown code span (literal: no HTML, links or autolinks), sanitized.
    In a table cell `|` is escaped, as GFM requires even inside code spans."""
    if value is None:
        return "*null*"
    text = clean(value if isinstance(value, str) else _json_text(value))
    if text == "":
        return "*(empty)*"
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ")):
        text = f" {text} "
    if in_table:
        text = text.replace("|", "\\|")
    return f"{fence}{text}{fence}"


def _json_text(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=False, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def _cell(value: Any) -> str:
    return md_code(value, in_table=True)


def _fenced_json(value: Any) -> list[str]:
    """A JSON value as a fenced block: each line sanitized, the fence longer than any
    backtick run inside (a fenced block is literal: nothing in it is interpreted)."""
    body = [clean(line) for line in json.dumps(value, ensure_ascii=False, indent=2,
                                               default=str, allow_nan=True).split("\n")]
    longest = max((len(m) for line in body for m in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + "json", *body, fence]


_SEVERITY_ORDER = ("critical", "notable", "advisory")


class _Markdown:
    def __init__(self, report: AuditReport) -> None:
        self.r = report
        self.out: list[str] = []

    def add(self, *lines: str) -> None:
        self.out.extend(lines)

    def render(self) -> str:
        r = self.r
        self.add(f"# sealscope audit report: {md_code(os.path.basename(r.path))}", "",
                 f"- file: {md_code(r.path)}",
                 f"- kind: {r.kind}",
                 f"- verdict: **{r.verdict}**",
                 f"- exit code: {r.exit_code} (0 held in full, 1 evidence wrong, "
                 f"3 could not look or bounded)", "")
        if r.kind == "ledger":
            self.ledger()
        elif r.kind == "harn":
            self.harn()
        else:
            self.snapshot()
        for rec in r.session:
            self.record(rec)
        return "\n".join(self.out).rstrip("\n") + "\n"

    # ------------------------------------------------------------------ ledger
    def ledger(self) -> None:
        d = self.r.ledger or {}
        self.add("## Chain verification", "",
                 "| field | value |", "|---|---|")
        for key in ("verdict", "ok", "rows", "chained", "prechain", "breaks",
                    "verified_scope", "declared_breaks", "first_break"):
            self.add(f"| {key} | {_cell(d.get(key))} |")
        self.add("")
        if d.get("declared"):
            self.add("Declared breaks:", "")
            self.add(*[f"- {md_text(x)}" for x in d["declared"]], "")
        self.add("## Breaks", "")
        if not self.r.breaks:
            self.add("No break.", "")
        else:
            self.add("| line | kind | finding |", "|---:|---|---|")
            for b in self.r.breaks:
                self.add(f"| {b['line']} | {b['kind']} | {md_text(b['text'])} |")
            self.add("")
        self.add("## Compaction receipts", "")
        if not self.r.receipts:
            self.add("No compaction-receipt row in this ledger.", "")
            return
        self.add(f"Receipts verdict: **{self.r.receipts_verdict}** "
                 f"({len(self.r.receipts)} row(s); without held content a receipt is "
                 f"checked for self-consistency only).", "",
                 "| line | ok | self-consistent | content | schema | scope |",
                 "|---:|---|---|---|---|---|")
        for c in self.r.receipts:
            self.add(f"| {c['line']} | {_yn(c['ok'])} | {_yn(c['self_consistent'])} | "
                     f"{_cell(c['content'])} | {_cell(c['schema'])} | "
                     f"{_cell(c['verified_scope'])} |")
        self.add("")
        for c in self.r.receipts:
            if c.get("notes"):
                self.add(f"Notes on line {c['line']}:", "")
                self.add(*[f"- {md_text(n)}" for n in c["notes"]], "")

    # ------------------------------------------------------------------ snapshot
    def harn(self) -> None:
        self.add("## harn compaction events", "")
        checks = self.r.harn
        if checks and "error" in checks[0]:
            self.add(f"Could not read the file: {md_text(checks[0]['error'])}", "")
            return
        if not checks:
            self.add("No compaction event.", "")
            return
        self.add("| # | event | path | mode / strategy | archived | tokens before → after | worst finding |",
                 "|---:|---|---|---|---:|---|---|")
        for i, c in enumerate(checks, 1):
            self.add(f"| {i} | {md_code(c.get('id'), in_table=True)} | {_cell(c.get('path'))} | "
                     f"{md_text(c.get('mode'))} / {md_text(c.get('strategy'))} | "
                     f"{_cell(c.get('archived_messages'))} | "
                     f"{_cell(c.get('estimated_tokens_before'))} → "
                     f"{_cell(c.get('estimated_tokens_after'))} | {_cell(c.get('worst'))} |")
        self.add("")
        for i, c in enumerate(checks, 1):
            if c.get("findings"):
                self.add(f"Findings of event {i}:", "")
                self.add(*[f"- {f['severity']}: {md_code(f['code'])} — {md_text(f['message'])}"
                           for f in c["findings"]], "")

    def snapshot(self) -> None:
        s = self.r.snapshot or {}
        self.add("## Snapshot validation", "", "| field | value |", "|---|---|")
        for key in ("valid", "digest", "label", "id_scheme", "probes"):
            self.add(f"| {key} | {_cell(s.get(key))} |")
        self.add("")
        if s.get("error"):
            self.add(f"Why it is not valid: {md_text(s['error'])}", "")

    # ------------------------------------------------------------------ session
    def record(self, rec: SessionRecord) -> None:
        self.add(f"## {md_text(rec.title)}", "")
        for k, v in rec.inputs.items():
            if v is not None:
                self.add(f"- {md_text(k)}: {md_code(v)}")
        self.add(f"- exit code: {rec.code}", "")
        fn = getattr(self, f"rec_{rec.kind}", None)
        if fn is not None and isinstance(rec.result, dict):
            fn(rec.result)
        else:
            self.add(*_fenced_json(rec.result), "")

    def rec_verdict(self, v: dict) -> None:
        strict = bool((v.get("policy") or {}).get("strict", True))
        word = _verdict.continuation(v).verdict
        faithful = v.get("faithful")
        shown = "not judged (loose mode)" if not strict else _cell(faithful)
        self.add(f"Verdict: **{word}**", "", "| field | value |", "|---|---|",
                 f"| comparison | {_cell(v.get('comparison'))} |",
                 f"| faithful | {shown} |",
                 f"| valid | {_cell(v.get('valid'))} |",
                 f"| mode | {'strict' if strict else 'loose'} |",
                 f"| verdict_digest | {_cell(v.get('verdict_digest'))} |", "")
        if v.get("claimed_property"):
            self.add(f"Claimed: {md_text(v['claimed_property'])}", "")
        divs = v.get("divergences") or []
        if not divs:
            self.add("No divergence.", "")
        for sev, group in _grouped(divs):
            self.add(f"### {md_text(sev)} ({len(group)})", "",
                     "| id | declared | restated | reason |", "|---|---|---|---|")
            for d in group:
                self.add(f"| {_cell(d.get('id'))} | {_cell(d.get('declared'))} | "
                         f"{_cell(d.get('restated'))} | {md_text(d.get('reason') or '')} |")
            self.add("")
        notes = [n for n in (v.get("notes") or []) if n]
        if notes:
            self.add("Notes:", "", *[f"- {md_text(n)}" for n in notes], "")

    def rec_diff(self, d: dict) -> None:
        self.add(f"- previous: {md_code(d.get('previous_digest'))}",
                 f"- current: {md_code(d.get('current_digest'))}",
                 f"- {len(d.get('changed') or [])} changed, {len(d.get('added') or [])} added, "
                 f"{len(d.get('removed') or [])} removed, {d.get('n_unchanged')} unchanged", "")
        rows = [(k, e) for k in ("changed", "added", "removed") for e in (d.get(k) or [])]
        if not rows:
            self.add("No declared item changed.", "")
            return
        self.add("| change | id | severity | previous | current |", "|---|---|---|---|---|")
        for kind, e in rows:
            self.add(f"| {kind} | {_cell(e.get('id'))} | {_cell(e.get('severity'))} | "
                     f"{_cell(e.get('declared'))} | {_cell(e.get('restated'))} |")
        self.add("")

    def rec_added(self, added: dict) -> None:
        if not added:
            self.add("Nothing added since the seal.", "")
            return
        self.add("| field | ids added since the seal |", "|---|---|")
        for fld, ids in added.items():
            self.add(f"| {_cell(fld)} | {', '.join(_cell(i) for i in ids)} |")
        self.add("")

    def rec_recompute(self, c: dict) -> None:
        self.add("| ok | self-consistent | content | scope |", "|---|---|---|---|",
                 f"| {_yn(c.get('ok'))} | {_yn(c.get('self_consistent'))} | "
                 f"{_cell(c.get('content'))} | {_cell(c.get('verified_scope'))} |", "")
        if c.get("notes"):
            self.add(*[f"- {md_text(n)}" for n in c["notes"]], "")

    def rec_lookup(self, doc: dict) -> None:
        items = doc.get("items") or []
        self.add("| digest | bytes | found at (line:position) |", "|---|---:|---|")
        for it in items:
            found = ", ".join(f"{f.get('line')}:{f.get('position')}"
                              for f in it.get("found") or []) or "absent"
            self.add(f"| {_cell(it.get('digest'))} | {it.get('bytes')} | {md_text(found)} |")
        self.add("")


def _yn(v: Any) -> str:
    return "yes" if v is True else ("no" if v is False else _cell(v))


def _grouped(divs: Sequence[dict]) -> list[tuple[str, list[dict]]]:
    """Divergences by severity: critical, notable, advisory, then other tiers in
    order of appearance, then untiered."""
    groups: dict[str, list[dict]] = {}
    for d in divs:
        sev = d.get("severity")
        groups.setdefault("untiered" if sev is None else str(sev), []).append(d)
    order = [s for s in _SEVERITY_ORDER if s in groups]
    order += [s for s in groups if s not in order and s != "untiered"]
    if "untiered" in groups:
        order.append("untiered")
    return [(s, groups[s]) for s in order]


def grouped_divergences(divs: Sequence[dict]) -> list[tuple[str, list[dict]]]:
    """Public form of the grouping the report and the viewer share."""
    return _grouped(divs)

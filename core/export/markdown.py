"""An audit report as Markdown.

Every string taken from evidence goes through `sanitize.clean` and is then either put
in a code span (values: ids, digests, declared and restated text) or backslash-escaped
(prose that quotes evidence: errors, notes, reasons), so no raw HTML, link, image or
heading can come from the data. Only what could start Markdown is escaped: a `:`
only where it could make an autolink (before `/`, or after `mailto`/`xmpp`), so
`line 4: chain mismatch` reads as written.
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING, Any

from sealscope.core import verdict as _verdict
from sealscope.core.continuity import grouped_divergences
from sealscope.core.sanitize import clean

if TYPE_CHECKING:
    from sealscope.core.export.records import SessionRecord
    from sealscope.core.export.report import AuditReport

__all__ = ["render", "session_lines", "md_text", "md_code", "note_text"]

_PY_WORDS = re.compile(r"\b(None|True|False)\b")
_JSON_WORDS = {"None": "null", "True": "true", "False": "false"}


def note_text(note: Any) -> str:
    """A verdict's note as a person reads it: the JSON keeps the reference's words
    (FORMATS.md), and Python's `None`/`True`/`False` in them are shown as JSON's
    `null`/`true`/`false` (`faithful` is deliberately null), as every value is shown."""
    return _PY_WORDS.sub(lambda m: _JSON_WORDS[m.group(1)], str(note))


# every character that can start Markdown syntax inline: escapes, code, emphasis,
# links and images (`[` and `]`, and a `(` right after a `]`: with those escaped no
# `(`, `)` or `!` can make a link or an image, so the rest stay as written), raw HTML
# and entities, tables, strikethrough, math; `_` only where it could open or close
# emphasis (an underscore between two letters or digits never does, so
# `verified_scope=bounded_no_content` reads as written); `@`, the `:` of a scheme
# (`x://`, `mailto:`, `xmpp:`) and the dot of `www.` so no URL, e-mail or protocol
# autolink can form
_SPECIAL = re.compile(
    r"([\\`*\[\]<>#|~&@$]|(?<=\])\()|((?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))"
    r"|(:(?=/)|(?<=mailto):|(?<=xmpp):)|(?<=www)(\.)",
    re.IGNORECASE,
)
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
        text = lead[:-1] + "\\" + lead[-1] + text[len(lead) :]
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
        # Markdown shows the value as stored (NaN as NaN): text, not a JSON document
        return json.dumps(value, ensure_ascii=False, sort_keys=False, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def _cell(value: Any) -> str:
    return md_code(value, in_table=True)


def _fenced_json(value: Any) -> list[str]:
    """A JSON value as a fenced block: each line sanitized, the fence longer than any
    backtick run inside (a fenced block is literal: nothing in it is interpreted)."""
    # Markdown shows the value as stored (NaN as NaN): text, not a JSON document
    body = [
        clean(line)
        for line in json.dumps(
            value, ensure_ascii=False, indent=2, default=str, allow_nan=True
        ).split("\n")
    ]
    longest = max((len(m) for line in body for m in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + "json", *body, fence]


def render(report: AuditReport) -> str:
    """The report as Markdown (rules in the module docstring)."""
    return _Markdown(report).render()


def session_lines(records: Any) -> list[str]:
    """The Markdown sections of session records (checks run on a file beyond reading
    it), as a ledger report writes them: the same for a kind report."""
    m = _Records()
    for rec in records:
        m.record(rec)
    return m.out


class _Markdown:
    def __init__(self, report: AuditReport) -> None:
        self.r = report
        self.out: list[str] = []

    def add(self, *lines: str) -> None:
        self.out.extend(lines)

    def render(self) -> str:
        r = self.r
        self.add(
            f"# sealscope audit report: {md_code(os.path.basename(r.path))}",
            "",
            f"- file: {md_code(r.path)}",
            *_binding(r),
            f"- kind: {r.kind}",
            f"- verdict: **{r.verdict}**{_why(r)}",
            *([f"- {r.kind} check: {md_text(r.own_result)}"] if r.own_result else []),
            f"- exit code: {r.exit_code} (0 held in full, 1 evidence wrong, "
            f"3 could not look or bounded)",
        )
        if r.session:
            self.add(
                f"- the file alone: **{r.file_verdict}**; with "
                f"{_count(len(r.session), 'check')}: "
                + ", ".join(f"{md_text(x.kind)} **{x.word}**" for x in r.session)
            )
        self.add("")
        if r.kind == "ledger":
            self.ledger()
        elif r.kind == "harn":
            self.harn()
        else:
            self.snapshot()
        if r.kind in ("ledger", "harn") and r.compaction_series:
            self.series()
        for rec in r.session:
            self.record(rec)
        return "\n".join(self.out).rstrip("\n") + "\n"

    # ------------------------------------------------------------------ series
    def series(self) -> None:
        """The compaction chart's series as a table (the same values the viewer plots)."""
        pts = self.r.compaction_series
        ledger = self.r.kind == "ledger"
        unit = "bytes" if ledger else "tokens"
        self.add(
            "## Compaction series",
            "",
            f"Claimed sizes of each compaction in file order ({unit}: `pre`, `post`, "
            f"`dropped`); ★ marks the compaction whose dropped share is furthest above "
            f"the median.",
            "",
        )
        if ledger:
            self.add(
                "| line | pre | post | dropped | share | items pre → post, dropped | receipt | |",
                "|---:|---:|---:|---:|---:|---|---|---|",
            )
        else:
            self.add("| event | pre | post | dropped | share | |", "|---:|---:|---:|---:|---:|---|")
        for p in pts:
            share = p.get("dropped_share")
            cells = [
                str(p.get("line", p.get("event"))),
                _cell(p.get("pre")),
                _cell(p.get("post")),
                _cell(p.get("dropped")),
                "—" if share is None else f"{100 * share:.1f}%",
            ]
            if ledger:
                cells.append(
                    f"{_cell(p.get('pre_items'))} → {_cell(p.get('post_items'))}, "
                    f"{_cell(p.get('dropped_items'))}"
                )
                cells.append(
                    "fails" if not p.get("ok") else "bounded" if p.get("bounded") else "ok"
                )
            cells.append("★ outlier" if p.get("outlier") else "")
            self.add("| " + " | ".join(cells) + " |")
        self.add("")

    # ------------------------------------------------------------------ ledger
    def ledger(self) -> None:
        d = self.r.ledger or {}
        self.add("## Chain verification", "", "| field | value |", "|---|---|")
        for key in (
            "verdict",
            "ok",
            "rows",
            "chained",
            "prechain",
            "breaks",
            "verified_scope",
            "declared_breaks",
            "first_break",
        ):
            self.add(f"| {key} | {_cell(d.get(key))} |")
        if self.r.why and d.get("verdict") != _verdict.BROKEN:
            self.add(f"| why | {md_text(self.r.why)} |")
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
            explained = [b["explained"] for b in self.r.breaks if b.get("explained")]
            if explained:
                self.add("What the chain shows at each chain mismatch:", "")
            for m in explained:
                after = f"line {m['prev_line']}, chain" if m["prev_line"] else "the start,"
                self.add(
                    f"- line {m['line']}: stored chain {md_code(m['stored'])}, "
                    f"recomputed {md_code(m['recomputed'])} after {after} "
                    f"{md_code(m['prev_chain'])}; fits: {m['cause']} ({m['evidence']})"
                )
            if explained:
                self.add("")
        if self.r.rows_checked:
            self.add(
                "## Row checks", "", "| line | check | verdict | fields |", "|---:|---|---|---|"
            )
            for e in self.r.rows_checked:
                rest = {k: v for k, v in e.items() if k not in ("line", "check", "verdict")}
                self.add(
                    f"| {_num(e.get('line'))} | {_cell(e.get('check'))} | "
                    f"**{md_text(e.get('verdict'))}** | {_cell(rest)} |"
                )
            self.add("")
        self.add("## Compaction receipts", "")
        if not self.r.receipts:
            self.add("No compaction-receipt row in this ledger.", "")
            return
        self.add(
            f"Receipts verdict: **{self.r.receipts_verdict}** "
            f"({_count(len(self.r.receipts), 'row')}; without held content a receipt is "
            f"checked for self-consistency only).",
            "",
            "| line | ok | self-consistent | content | schema | scope |",
            "|---:|---|---|---|---|---|",
        )
        for c in self.r.receipts:
            self.add(
                f"| {c['line']} | {_yn(c['ok'])} | {_yn(c['self_consistent'])} | "
                f"{_cell(c['content'])} | {_cell(c['schema'])} | "
                f"{_cell(c['verified_scope'])} |"
            )
        self.add("")
        for c in self.r.receipts:
            if c.get("notes"):
                self.add(f"Notes on line {c['line']}:", "")
                self.add(*[f"- {md_text(n)}" for n in c["notes"]], "")

    # ------------------------------------------------------------------ harn
    def harn(self) -> None:
        self.add("## harn compaction events", "")
        checks = self.r.harn
        if checks and "error" in checks[0]:
            self.add(f"Could not read the file: {md_text(checks[0]['error'])}", "")
            return
        if not checks:
            self.add("No compaction event.", "")
            return
        self.add(
            "| # | event | path | mode / strategy | archived | tokens before → after "
            "| worst finding |",
            "|---:|---|---|---|---:|---|---|",
        )
        for i, c in enumerate(checks, 1):
            self.add(
                f"| {i} | {md_code(c.get('id'), in_table=True)} | {_cell(c.get('path'))} | "
                f"{md_text(c.get('mode'))} / {md_text(c.get('strategy'))} | "
                f"{_cell(c.get('archived_messages'))} | "
                f"{_cell(c.get('estimated_tokens_before'))} → "
                f"{_cell(c.get('estimated_tokens_after'))} | {_cell(c.get('worst'))} |"
            )
        self.add("")
        for i, c in enumerate(checks, 1):
            if c.get("findings"):
                self.add(f"Findings of event {i}:", "")
                self.add(
                    *[
                        f"- {f['severity']}: {md_code(f['code'])} — {md_text(f['message'])}"
                        for f in c["findings"]
                    ],
                    "",
                )

    # ------------------------------------------------------------------ snapshot
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
        self.add(f"- verdict: **{rec.word}**")
        if rec.checked:
            self.add(f"- {md_text(rec.checked)}")
        self.add(f"- exit code: {rec.code}", "")
        fn = getattr(self, f"rec_{rec.kind}", None)
        if fn is not None and isinstance(rec.result, dict):
            fn(rec.result)
        else:
            self.add(*_fenced_json(rec.result), "")

    def rec_verdict(self, v: dict[str, Any]) -> None:
        strict = bool((v.get("policy") or {}).get("strict", True))
        word = _verdict.continuation(v).verdict
        faithful = v.get("faithful")
        shown = "not judged (loose mode)" if not strict else _cell(faithful)
        self.add(
            f"Restatement scored: **{word}**",
            "",
            "| field | value |",
            "|---|---|",
            f"| comparison | {_cell(v.get('comparison'))} |",
            f"| faithful | {shown} |",
            f"| valid | {_cell(v.get('valid'))} |",
            f"| mode | {'strict' if strict else 'loose'} |",
            f"| verdict_digest | {_cell(v.get('verdict_digest'))} |",
            "",
        )
        if v.get("claimed_property"):
            self.add(f"Claimed: {md_text(v['claimed_property'])}", "")
        divs = v.get("divergences") or []
        if not divs:
            self.add("No divergence.", "")
        for sev, group in grouped_divergences(divs):
            self.add(
                f"### {md_text(sev)} ({len(group)})",
                "",
                "| id | declared | restated | reason |",
                "|---|---|---|---|",
            )
            for d in group:
                self.add(
                    f"| {_cell(d.get('id'))} | {_cell(d.get('declared'))} | "
                    f"{_cell(d.get('restated'))} | {md_text(d.get('reason') or '')} |"
                )
            self.add("")
        notes = [n for n in (v.get("notes") or []) if n]
        if notes:
            self.add("Notes:", "", *[f"- {md_text(note_text(n))}" for n in notes], "")

    def rec_diff(self, d: dict[str, Any]) -> None:
        self.add(
            f"- previous: {md_code(d.get('previous_digest'))}",
            f"- current: {md_code(d.get('current_digest'))}",
            f"- {len(d.get('changed') or [])} changed, {len(d.get('added') or [])} added, "
            f"{len(d.get('removed') or [])} removed, "
            f"{_num(d.get('n_unchanged'))} unchanged",
            "",
        )
        rows = [(k, e) for k in ("changed", "added", "removed") for e in (d.get(k) or [])]
        if not rows:
            self.add("No declared item changed.", "")
            return
        self.add("| change | id | severity | previous | current |", "|---|---|---|---|---|")
        for kind, e in rows:
            self.add(
                f"| {kind} | {_cell(e.get('id'))} | {_cell(e.get('severity'))} | "
                f"{_cell(e.get('declared'))} | {_cell(e.get('restated'))} |"
            )
        self.add("")

    def rec_added(self, added: dict[str, Any]) -> None:
        if not added:
            self.add("Nothing added since the seal.", "")
            return
        self.add("| field | ids added since the seal |", "|---|---|")
        for fld, ids in added.items():
            self.add(f"| {_cell(fld)} | {', '.join(_cell(i) for i in ids)} |")
        self.add("")

    def rec_recompute(self, c: dict[str, Any]) -> None:
        self.add(
            "| ok | self-consistent | content | scope |",
            "|---|---|---|---|",
            f"| {_yn(c.get('ok'))} | {_yn(c.get('self_consistent'))} | "
            f"{_cell(c.get('content'))} | {_cell(c.get('verified_scope'))} |",
            "",
        )
        for key, noun, what in (
            ("undeclared", "drop", "the manifest does not declare"),
            ("phantom", "manifest entry", "no recomputed drop explains"),
        ):
            items = c.get(key) or []
            if items:
                self.add(
                    f"{_count(len(items), noun)} {what}:",
                    "",
                    "| digest | held item | bytes | value |",
                    "|---|---|---:|---|",
                )
                for it in items:
                    self.add(
                        f"| {_cell(it.get('digest'))} | {_cell(it.get('held'))} | "
                        f"{_cell(it.get('bytes'))} | {_cell(it.get('preview'))} |"
                    )
                self.add("")
        if c.get("notes"):
            self.add(*[f"- {md_text(n)}" for n in c["notes"]], "")

    def rec_pin(self, v: dict[str, Any]) -> None:
        if "error" in v:
            self.add(f"Could not check: {md_text(v['error'])}", "")
            return
        self.add("| field | value |", "|---|---|")
        for key in (
            "verdict",
            "detail",
            "witness_rows",
            "witness_chain",
            "local_rows",
            "witness_self_integrity",
        ):
            self.add(f"| {key} | {_cell(v.get(key))} |")
        self.add("")

    rec_witness = rec_pin

    def rec_lookup(self, doc: dict[str, Any]) -> None:
        items = doc.get("items") or []
        typed = "containing" in doc  # a typed-text lookup: its text is in the inputs
        if typed:
            self.add("Exact items (the text as typed, and as a JSON item when it parses):", "")
        self.add("| digest | bytes | found at (line:position) |", "|---|---:|---|")
        for it in items:
            self.add(
                f"| {_cell(it.get('digest'))} | {_num(it.get('bytes'))} | "
                f"{_places(it.get('found'))} |"
            )
        self.add("")
        if not typed:
            return
        partial = doc.get("containing") or []
        if not partial:
            self.add("No held item loaded contains the text.", "")
        else:
            self.add(
                f"{_count(len(partial), 'held item')} containing the text:",
                "",
                "| held item | digest | bytes | value | found at (line:position) |",
                "|---|---|---:|---|---|",
            )
            for h in partial:
                self.add(
                    f"| {_cell(h.get('held'))} | {_cell(h.get('digest'))} | "
                    f"{_num(h.get('bytes'))} | {_cell(h.get('preview'))} | "
                    f"{_places(h.get('found'))} |"
                )
            self.add("")
        hits = doc.get("digest_hits") or []
        if hits:
            self.add(
                f"{_count(len(hits), 'manifest entry')} whose digest contains the text:",
                "",
                "| line | position | digest |",
                "|---:|---:|---|",
            )
            for e in hits:
                self.add(
                    f"| {_num(e.get('line'))} | {_num(e.get('position'))} | "
                    f"{_cell(e.get('digest'))} |"
                )
            self.add("")


def _binding(r: AuditReport) -> list[str]:
    """The lines binding the report to the evidence (`binding.bind`) and to its making:
    the file's SHA-256 and size, a ledger's head, when and by which sealscope."""
    ev = r.evidence or {}
    out = []
    if ev.get("sha256") is not None:
        out.append(f"- sha256: {md_code(ev['sha256'])}, {_bytes(ev.get('bytes'))}")
    elif ev:
        out.append(f"- sha256: not read ({md_text(ev.get('error', 'unreadable'))})")
    head = ev.get("head")
    if isinstance(head, dict):
        out.append(
            f"- head: {_count(head.get('rows'), 'row')}, last chain {md_code(head.get('chain'))}"
        )
    if r.generated_at or r.version:
        out.append(
            f"- generated: {r.generated_at or 'unknown'} by sealscope {r.version or 'unknown'}"
        )
    return out


def _count(n: Any, word: str) -> str:
    """`1 row`, `2 rows`, `— rows` for an unknown count."""
    if not isinstance(n, int) or isinstance(n, bool):
        return f"— {word}"
    many = word[:-1] + "ies" if word.endswith("y") else word + "s"
    return f"{n:,} {word if n == 1 else many}"


def _bytes(n: Any) -> str:
    return _count(n, "byte")


def _why(r: AuditReport) -> str:
    """Beside a ledger's COULD NOT LOOK, why (`VerifyResult.reason`), in the same line."""
    return f" ({md_text(r.why)})" if r.why and r.verdict == _verdict.COULD_NOT_LOOK else ""


def _places(found: Any) -> str:
    """Manifest places as `line:position`, or `absent`."""
    return md_text(
        ", ".join(f"{_num(f.get('line'))}:{_num(f.get('position'))}" for f in found or [])
        or "absent"
    )


def _num(v: Any) -> str:
    """A count or position for prose: `—` when absent, never `None`."""
    return "—" if v is None else md_text(v)


def _yn(v: Any) -> str:
    return "yes" if v is True else ("no" if v is False else _cell(v))


class _Records(_Markdown):
    """Only the session sections of `_Markdown` (they read no report)."""

    def __init__(self) -> None:
        self.out = []

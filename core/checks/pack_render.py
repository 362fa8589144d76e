"""The two pages an evidence pack carries, rendered again from the pack's own data
(KINDS.md §8.2, check 9): `ARTICLE_12_SUMMARY.md` (the audit export's page) and
`README.md` (the pack's page). A pack's check compares each page it holds with the
page rendered here; a page that differs is drift, whatever hash the manifest lists.

The rules, as the reference applies them when it checks a pack:

* The summary is rendered from the records' chain result, the audit finding, the
  integrity file's `witness` block (its `verdict`, `detail`, `witness_rows` stand for
  the witness's answer when a `namespace` was cross-checked), the tolerant row read
  (count, unreadable lines, event counts, first and last `ts`), and the export block's
  `system_id`, `provider`, `generated_at` and `tool` (the version is what follows the
  first `/`, or the whole text). It is compared after turning each CRLF of the held
  page into LF, so a page rewritten with CRLF line ends still matches.
* A witness block whose kind is not none must carry `independence` and `note`: without
  them the reference's renderer fails (`KeyError`), and so the whole check.
* The README is rendered from the build's verdict reached again (with the finding of
  the first extra check that made it BROKEN), the window (agent, bounds, the rows
  selected, unplaced lines), the names the window's rows carry, and the manifest's
  `deal`, `mandate` and `readings` blocks. It is compared byte for byte. A block
  whose fields cannot be read (a missing key, a value of the wrong type) renders no
  page, which is drift, never a failure of the check.
* The witness `note` an integrity file may carry is one of the export's own fixed
  notes (`WITNESS_NOTES`); any other note is drift.

Values are shown as Python's `str()` shows them (a missing provider as
`(unspecified)`, a `null` period end as `None`), since that is what the pages hold.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from sealscope.core.checks import pack_derive as D
from sealscope.core.checks.pack_records import RecordsFacts, Selected

__all__ = [
    "Unrenderable",
    "WITNESS_NOTES",
    "README_DOES_NOT_SHOW",
    "render_summary",
    "summary_holds",
    "render_readme",
    "readme_holds",
]


class Unrenderable(Exception):
    """The summary cannot be rendered from what the pack holds; `name` is the class
    of the failure the reference meets there."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


# ----------------------------------------------------------------- witness notes

_NOTE_LOCAL = (
    "This witness is a local file, in the same control domain as whoever can write "
    "the log, so it is NOT independent: a party able to truncate or rewrite the log "
    "can also rewrite this witness. A PASS backed by it is SELF-ASSERTED, not "
    "externally verified. Real independence requires a witness outside the "
    "log-writer's control \u2014 a remote notary endpoint or a public timestamp anchor."
)
_NOTE_REMOTE = (
    "This witness is a remote endpoint a regulator can query independently of the "
    "log-writer; 'externally_verifiable' means a third party can fetch and re-check "
    "the pin. Genuine independence still requires that the endpoint itself is "
    "outside the log-writer's control."
)
_NOTE_OTS = (
    "This witness is an OpenTimestamps anchor committed to a public blockchain; the "
    "pin is externally_verifiable by anyone against the public chain, independently "
    "of the log-writer."
)
_NOTE_NONE = (
    "No external witness was consulted, so truncation was not checked and "
    "completeness is not witnessed; independence does not apply."
)
_NOTE_UNDECLARED = (
    "The witness object did not declare its kind and is not the reference local-file "
    "store; independence is reported as self_asserted (the conservative default, "
    "claiming no independence we cannot establish) until the witness declares itself "
    "externally verifiable via a witness_descriptor()."
)
_SELF_DECLARED_CAVEAT = (
    "SELF-DECLARED BY THE WITNESS OBJECT, not established by this tool \u2014 verify "
    "the identifier yourself before relying on it. "
)
#: Every witness note an audit export writes; an integrity file with another is drift.
WITNESS_NOTES = frozenset(
    (_NOTE_NONE, _NOTE_LOCAL, _NOTE_UNDECLARED, _NOTE_REMOTE, _NOTE_OTS)
    + tuple(_SELF_DECLARED_CAVEAT + n for n in (_NOTE_REMOTE, _NOTE_OTS))
)

# ----------------------------------------------------------------- the summary

_PUBLIC_WITNESS = "https://witness.arcaeon.io"

_EMPTY_LOG = (
    "EMPTY_LOG \u2014 no records have been written yet. There is nothing to verify "
    "and nothing to accuse: an empty log is an absence of evidence, not evidence of "
    "tampering. (Before 2026-08-23 this case exported as FAIL with an alteration "
    "accusation \u2014 an external audit caught it; the ledger's own ok=None "
    "tri-state now passes through honestly.)"
)
_PASS_UNPROVEN_PIN = (
    " READ THIS BEFORE RELYING ON THE PASS: the witness did NOT prove its own record "
    "was unedited (self_integrity={si!r}). Every remote/hosted witness client is this "
    "shape, and so is arcaeon-ledger before 0.5.9. The comparison above therefore "
    "rests on a pin whose own integrity was never established here \u2014 an attacker "
    "who can write BOTH the log and the pin can produce exactly this PASS. Check the "
    "witness at its source."
)
_SKIPPED = "SKIPPED check, not an absent one; supply both to close the gap, and"

_SUMMARY_BODY = """\
Verification is reproducible by anyone: `records.jsonl` is hash-chained, so
re-running arcaeon-ledger's `verify_file()` reproduces `integrity.json`. Tamper
evidence does not depend on trusting this tool or its author.

## How this maps to EU AI Act Article 12
*Scope note, stated here because vendors routinely overstate this: Article 12
requires automatic recording of events. It does not require tamper-evidence or
integrity protection \u2014 the rows below marked "beyond Article 12" are engineering
properties this tool adds because they make the record usable as evidence, not
because the Act demands them.*

- **Automatic recording of events over the lifetime (Art.12(1)):** every action
  is appended automatically at the time it happens; timestamps are on each row.
- **Traceability appropriate to the intended purpose (Art.12(2)):** records carry
  system_id, agent, event type, inputs, outputs, decisions, and the acting
  principal + capability version.
- **Periods of use (Art.12(3)(a)):** see `system_start`/`system_stop` events and
  `period_covered` in the manifest.
- **Reference database checked (Art.12(3)(b)):** see `reference_check` events;
  what they name is the operator's to record.
- **Input data that led to a match (Art.12(3)(c)):** see `inputs` on `input`
  and `reference_check` rows.
- **Tamper-evidence (beyond Article 12 \u2014 the Act does not require this):**
  hash-chaining makes any post-hoc edit, deletion, or reorder detectable and
  locatable \u2014 the property a plain log file does not have, and the property that
  makes the record evidence rather than a self-report when it is challenged.
- **Truncation (the one thing a chain cannot catch alone):** deleting the most
  recent records leaves a prefix that still chains clean, so tamper-evidence by
  itself cannot prove a log is *complete*. That gap is closed only by an external
  witness \u2014 an outside record of the log's head that a later truncation would
  disagree with. When a witness is consulted, this export reports it under
  `witness` in `integrity.json` (and `witness.json`); a bundle marked PASS has
  been checked against a witness, while "verified modulo truncation" means the
  chain is intact but completeness was not witnessed. See the Integrity line above.
- **Witness independence (judge it yourself):** the `witness` block in
  `integrity.json` names the witness's `kind` (`local_file` / `remote_url` /
  `opentimestamps` / `none`), its `identifier`, and an honest `independence` label
  (`self_asserted` / `externally_verifiable` / `none`). A witness only proves
  completeness if it is controlled INDEPENDENTLY of whoever can write the log \u2014 a
  `local_file` witness sits in the writer's own control domain and is labelled
  `self_asserted`, NOT independent. This lets a regulator see the independence
  question rather than take a bare PASS on trust.

## What this is NOT
This is an engineering control that produces tamper-evident, exportable records.
It is not legal advice and does not by itself make a system compliant. Article 12
compliance depends on WHAT you choose to log and your broader obligations under
the Act. This tool gives you the integrity + export primitive; the coverage is
yours to define.

## Event counts
"""


def _chain_state(ok: bool | None) -> str:
    if ok:
        return "the chain itself is intact"
    if ok is None:
        return (
            "the chain could not speak for these rows (they carry no chain links, so "
            "nothing was verified locally)"
        )
    return "the chain is ALSO broken"


def _unverified_scope(vr: Any) -> str:
    scope = vr.verified_scope or "bounded"
    pre, declared = vr.prechain or 0, vr.declared_breaks or 0
    why: list[str] = []
    advice: list[str] = []
    if pre:
        why.append(f"{pre} row(s) carry no chain links, so nothing about them was verified locally")
        advice.append(
            "Chain the log going forward and pin it to a witness; rows written from "
            "that point on are verifiable."
        )
    if declared:
        why.append(
            f"{declared} declared break(s) bound the scan \u2014 the chain was not "
            "checked ACROSS those rows (the breaks are named in `declared`, and they "
            "stay named permanently)"
        )
        advice.append(
            "A declared break is an honest permanent record, not a repair: the rows on "
            "either side of it are chained, the join between them is not."
        )
    if not why:
        why.append(
            f"the chain's scan was bounded (verified_scope={scope!r}) for a reason this "
            "version of arcaeon-audit does not itemize \u2014 read `verified_scope` in "
            "integrity.json"
        )
    return (
        f"UNVERIFIED_SCOPE \u2014 this log contains {vr.rows} record(s) and the chain "
        f"could not speak for all of them (verified_scope={scope!r}): "
        + "; ".join(why)
        + ". This is NOT a pass and NOT an accusation \u2014 it is an unanswered "
        "question. "
        + " ".join(advice)
        + (" " if advice else "")
        + "(Before 2026-08-23 this case exported as EMPTY_LOG \u2014 'no records have "
        "been written yet' \u2014 over a log with records in it, which also masked a "
        "positive witness detection. A pre-invite adversarial audit caught it.)"
    )


def _modulo_truncation(store_configured: bool, namespace: Any) -> str:
    if store_configured and not namespace:
        why = (
            "a witness WAS configured but no `witness_namespace` was given, so the "
            f"cross-check never ran \u2014 this is a {_SKIPPED}"
        )
    elif not store_configured and namespace:
        why = (
            f"a namespace ({namespace!r}) was given but no witness was configured, so "
            f"the cross-check never ran \u2014 a {_SKIPPED}"
        )
    else:
        why = "no external witness was consulted, and"
    return (
        "VERIFIED (MODULO TRUNCATION) \u2014 no tampering detected: every record chains "
        f"to the prior one. TRUNCATION NOT CHECKED \u2014 {why} a hash chain provably "
        "cannot detect truncation on its own (dropping the most recent rows leaves a "
        "prefix that still verifies clean). This is NOT a proof of completeness. Pin "
        "the log to an external witness to close this gap."
    )


def _integrity_line(vr: Any, finding: str, wb: dict[str, Any]) -> str:
    """The Integrity section's first paragraph for `finding`."""
    crossed = "namespace" in wb  # the witness's answer is the block's own fields
    detail = wb.get("detail")
    rows = wb.get("witness_rows") if crossed else "?"
    namespace = wb.get("namespace")
    state = _chain_state(vr.ok)
    if finding == "EMPTY_LOG":
        return _EMPTY_LOG
    if finding == "WITNESS_CHECK_FAILED":
        return (
            f"WITNESS_CHECK_FAILED \u2014 {state}, but the witness cross-check could not "
            f"complete: {detail if crossed else 'witness unavailable'}. The fault is in "
            "the witness consultation, not (necessarily) in the record set. Do not read "
            "this as tampering, and do not read it as a pass: the completeness question "
            "is unanswered."
        )
    if finding.startswith("UNRECOGNIZED_WITNESS_VERDICT"):
        return (
            f"{finding} \u2014 the witness returned a verdict this version of "
            "arcaeon-audit does not recognize (likely a newer arcaeon-ledger vocabulary). "
            "Reported verbatim rather than mapped onto an accusation. Upgrade "
            "arcaeon-audit, or read the raw witness block in integrity.json."
        )
    if finding == "FAIL":
        return (
            f"FAIL \u2014 integrity broken at: {vr.first_break}. The record set has been "
            "altered, truncated, or reordered since it was written."
        )
    if finding == "PASS":
        line = (
            "PASS \u2014 no tampering detected, and the witnessed prefix is complete. "
            "Every record chains to the prior one, and the log's chain at the witnessed "
            "row still matches an external witness pin (namespace "
            f"{namespace!r}, {rows} row(s) witnessed): no records were dropped AT OR "
            f"BEFORE the witnessed point (row {rows}). This does NOT cover records "
            "written AFTER the last pin \u2014 anything logged past the witnessed head "
            "can still be dropped undetectably, so the completeness guarantee runs only "
            "up to the last pin (pin close to export to shrink that window). It also "
            "assumes the witness is controlled INDEPENDENTLY of whoever can write the "
            "log: a witness an attacker can also rewrite proves nothing."
        )
        if wb.get("self_integrity") != "verified":
            line += _PASS_UNPROVEN_PIN.format(si=wb.get("self_integrity", "unknown"))
        return line
    if finding == "TRUNCATION_DETECTED":
        said = detail if crossed else "the witness reported truncation"
        return (
            f"TRUNCATION_DETECTED \u2014 {state}, but {said}. A hash chain cannot see "
            "truncation on its own (a truncated prefix still chains clean); the external "
            "witness caught it. This log is MISSING records that existed when it was "
            "witnessed \u2014 it is NOT a complete record and must not be treated as one."
        )
    if finding == "REWRITE_DETECTED":
        said = detail if crossed else "the witness reported a rewrite"
        return (
            f"REWRITE_DETECTED \u2014 {said}. The exported log has enough rows, but its "
            "chain at the witnessed row disagrees with the external witness: history was "
            "rewritten from at or before that point."
        )
    if finding == "UNVERIFIED_SCOPE":
        return _unverified_scope(vr)
    return _modulo_truncation(wb.get("kind") not in (None, "none"), namespace)


def _witness_paragraphs(wb: dict[str, Any], unreadable: int) -> str:
    """What follows the first paragraph: the witness's nature, where to check its pin
    without trusting the pack, and the unreadable lines."""
    out = ""
    if wb.get("kind") not in (None, "none"):
        try:
            independence, note = wb["independence"], wb["note"]
        except KeyError:
            raise Unrenderable("KeyError") from None
        out += (
            f"\n\nWitness independence \u2014 kind: {wb['kind']}; identifier: "
            f"{wb.get('identifier')}; independence: {independence}. {note}"
        )
    ns, rows, chain = wb.get("namespace"), wb.get("witness_rows"), wb.get("witness_chain")
    if ns and rows is not None and chain:
        query = "&".join(
            f"{k}={quote(str(v), safe='')}"
            for k, v in (("ns", ns), ("rows", rows), ("chain", chain))
        )
        out += (
            "\n\nCHECK THIS WITHOUT TRUSTING US. The witnessed head above is held by a "
            "public witness whose pin store is a PUBLIC git repository. Fetch it "
            "yourself, no account and no credential:\n\n"
            f"    curl -s '{_PUBLIC_WITNESS}/api/verify?{query}'\n\n"
            "Read `witnessed` and `is_current_head`, then open the `raw_record_url` it "
            "returns \u2014 that file lives in the public repo, and its commit history is "
            "linked as `history`. If those numbers disagree with this bundle, believe the "
            "public repository, not this document. (If the namespace is not found there, "
            "this log was pinned to a privately held witness and its completeness rests "
            "on a record you cannot independently reach \u2014 which is itself worth "
            "knowing.)"
        )
    if unreadable:
        out += (
            f"\n\n{unreadable} line(s) in the log could not be read as a record "
            "(unparseable, non-UTF8, or not a JSON object). They are preserved verbatim "
            "in `records.jsonl` and excluded from the counts below \u2014 an export never "
            "silently drops what it cannot read."
        )
    return out


def render_summary(
    vr: Any,
    finding: str,
    wb: dict[str, Any],
    rows: list[dict[str, Any]] | RecordsFacts,
    unreadable: int,
    export: dict[str, Any],
) -> str:
    """ARTICLE_12_SUMMARY.md as the pack's data gives it (the module docstring's
    first two rules): `vr` the chain result of the records, `finding` the audit
    finding, `wb` integrity.json's witness block, `rows` and `unreadable` the
    records read tolerantly (`pack_derive.read_rows`), `export` the manifest's
    `audit_export` (or `rows` the streamed read, `RecordsFacts`). Raises
    Unrenderable where the reference's renderer fails."""
    if isinstance(rows, RecordsFacts):
        s, count = rows.summary(), rows.rows
    else:
        s, count = D.summarise(rows), len(rows)

    def text(key: str) -> str:
        v = export.get(key)
        return v if isinstance(v, str) else ""

    tool = text("tool")
    version = tool.partition("/")[2] or tool
    integrity = _integrity_line(vr, finding, wb) + _witness_paragraphs(wb, unreadable)
    counts = "\n".join(f"- {k}: {v}" for k, v in sorted(s["counts"].items())) or "- (none)"
    return (
        f"# Article 12 audit export \u2014 {text('system_id') or '(unnamed system)'}\n"
        "\n"
        f"**Provider:** {text('provider') or '(unspecified)'}\n"
        f"**Records:** {count}  \u00b7  **Period covered:** {s['first_ts']} "
        f"\u2192 {s['last_ts']}\n"
        f"**Generated:** {export.get('generated_at')} by arcaeon-audit/{version}\n"
        "\n"
        "## Integrity\n"
        f"{integrity}\n"
        "\n" + _SUMMARY_BODY + counts + "\n"
    )


def summary_holds(page: bytes, rendered: str) -> bool:
    """Whether a held summary is the page rendered (its CRLFs read as LF)."""
    return page.replace(b"\r\n", b"\n") == rendered.encode("utf-8")


# ----------------------------------------------------------------- the README

#: What a pack does not show, as its README words each bullet.
README_DOES_NOT_SHOW = (
    (
        'Not "Article 12 compliant", "AI Act ready" or "conformant to" either standard. '
        'We say "evidence toward", once, on page one.'
    ),
    (
        "Not that the pack proves the agent behaved well. It proves what was written was "
        "not changed after pinning."
    ),
    (
        'Not "independent witness". One witness, we operate it, `independence` reads '
        "`self_asserted` unless proven otherwise."
    ),
    (
        "Not a known `operator_at_t`. It is UNKNOWN until the custody record is published "
        "and anchored."
    ),
    "Not AAT-conformant. We emit a subset, with a re-derived chain, and list what is missing.",
    "Not six-month retention by the operator of the hosted witness. Retention is the holder's.",
)

_VERDICT_TEXT = {
    D.VERIFIED: "VERIFIED. The records chain checked out from its first row to its "
    "last, and every check this build ran reached an answer.",
    D.BROKEN: "BROKEN. The records chain does not check out: at least one row was "
    "changed, removed or reordered after it was written. integrity.json names the "
    "first break.",
    D.COULD_NOT_LOOK: "COULD NOT LOOK. At least one check could not reach an answer, "
    "so this pack shows nothing either way on it. could_not_look.json says what was "
    "looked for, where, and why.",
}

_README_INTRO = (
    "This folder is evidence toward the logging duties in the EU AI Act for one agent "
    "and one window of time. It shows what was written and that every row hashes to "
    "the next. With a pin, it also shows the rows up to the pinned head are the ones "
    "that existed at pin time. Without a pin, a full rewrite by the holder still "
    "checks out."
)

_README_HOW = [
    "",
    "## How to check it yourself",
    "",
    "Rehash every file against manifest.json and rerun the chain:",
    "",
    "```text",
    "arcaeon evidence-pack verify .",
    "```",
    "",
    "Check the records chain on its own, with nothing from this pack but the file:",
    "",
    "```text",
    "arcaeon verify records.jsonl",
    "```",
    "",
]


def _sections(build: dict[str, Any]) -> list[str]:
    """The deal, mandate and second-read sections, each when its block is truthy."""
    out: list[str] = []
    deal = build.get("deal")
    if deal:
        out += [
            "",
            "## The deal",
            "",
            (
                f"- Deal `{deal['id']}`, buyer tape {deal['buyer_tape']}, seller tape "
                f"{deal['seller_tape']}"
            ),
            f"- Dispute: {deal['summary']}",
            f"- Files: {', '.join(deal['files'])} (timeline.md is for a person)",
        ]
    mandate = build.get("mandate")
    if mandate:
        c = mandate["counts"]
        out += [
            "",
            "## The mandate",
            "",
            (
                f"- Mandate file: {mandate['mandate_file']}, sha256 "
                f"{mandate['mandate_file_sha256'] or 'not read'}"
            ),
            (
                f"- Calls in the window: {c['inside']} inside, {c['outside']} outside, "
                f"{c['could_not_look']} the gate could not judge"
            ),
            "- The outside rows, verbatim: mandate_rows.json",
        ]
    readings = build.get("readings")
    if readings:
        out += [
            "",
            "## The second read",
            "",
            (
                f"- Comparison receipt: readings_receipt.json (from {readings['source']}), "
                f"kind {readings.get('kind') or 'not read'}"
            ),
            (
                f"- receipt verify: {'passes' if readings.get('ok') else 'does not pass'}; "
                f"ledger {readings.get('ledger_status') or 'not read'}"
            ),
            "- Two readers agreeing measures how a sentence reads, not whether a claim is true.",
        ]
    return out


def render_readme(
    build: dict[str, Any],
    window: dict[str, Any],
    rows: list[dict[str, Any]] | Selected,
    system_id: str,
    provider: str,
) -> str | None:
    """README.md as the pack's data gives it (the module docstring's third rule):
    `build` the build's verdict reached again (`verdict`, `finding`, and the
    manifest's `deal`/`mandate`/`readings` blocks), `window` the manifest's window
    (`agent`, `from`, `to`, `unplaced_lines`), `rows` the window selected again
    (or what `Selected` keeps of it).
    None when a block cannot be read, so no page can be rendered."""
    try:
        return _readme(build, window, rows, system_id, provider)
    except (KeyError, TypeError, AttributeError):
        return None


def _readme(
    build: dict[str, Any],
    window: dict[str, Any],
    rows: list[dict[str, Any]] | Selected,
    system_id: str,
    provider: str,
) -> str:
    if not isinstance(rows, Selected):
        rows = Selected.of(rows)
    seen, count, first, last = rows.names, rows.count, rows.first_line, rows.last_line
    agent = window["agent"]
    lines = [
        "# Evidence pack",
        "",
        _README_INTRO,
        "",
        "## The agent",
        "",
        "- Agent: "
        + (
            f"`{agent}` (matched on a row's `agent` or `system_id`)"
            if agent
            else "every agent in the ledger (no --agent given)"
        ),
        "- Names seen in the window's rows: "
        + (", ".join(f"`{n}`" for n in seen) if seen else "none"),
    ]
    if system_id:
        lines.append(f"- System id given at build: `{system_id}`")
    if provider:
        lines.append(f"- Provider given at build: {provider}")
    span = f"ledger lines {first} to {last}" if count else "no lines"
    lines += [
        "",
        "## The window",
        "",
        f"- From: {window['from'] or 'the first row'}",
        f"- To: {window['to'] or 'the last row'}",
        f"- Rows: {count} ({span}); each is in window.jsonl with its ledger line number",
    ]
    if window.get("unplaced_lines"):
        lines.append(
            f"- Rows whose time could not be read, left out: lines {window['unplaced_lines']}"
        )
    lines += _sections(build)
    text = _VERDICT_TEXT.get(build["verdict"], _VERDICT_TEXT[D.COULD_NOT_LOOK])
    deal = build.get("deal")
    if deal and build["verdict"] == D.BROKEN and str(build.get("finding", "")).startswith("deal "):
        text = (
            f"BROKEN. The two tapes of deal {deal['id']} do not agree: "
            f"{deal['summary']}. timeline.md and verdict.json say where."
        )
    lines += ["", "## The verdict", "", text, "", "## What this pack does not show", ""]
    lines += [f"- {b}" for b in README_DOES_NOT_SHOW]
    lines += _README_HOW
    return "\n".join(lines)


def readme_holds(page: bytes, rendered: str | None) -> bool:
    """Whether a held README is, byte for byte, the page rendered."""
    return rendered is not None and page == rendered.encode("utf-8")

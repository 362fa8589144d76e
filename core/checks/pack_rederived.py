"""Evidence packs, checks 9 and 10 (KINDS.md §8.2): the fields and pages re-derived
from the records and integrity.json, and the pins.

9. `re-derived fields and prose`: nothing is taken on the manifest's word, since a
holder who edits it can recompute `manifest.sha256` too. Re-derived: the witness
independence (no signed witness attestation exists, so a witness is at most
`self_asserted`) and its note (one the export writes), `operator_at_t` (`UNKNOWN`)
and its note, `built_at` (a stamp, not before the newest record; before a listed
pin's receipt: COULD NOT LOOK `bounded`), the pinned head, integrity.json's
`finding`/`verdict`/`rows`/`chain_ok`/`first_break` and `records_sha256`, the export
counts, ARTICLE_12_SUMMARY.md and README.md rendered again (`pack_render`; a page
that differs is `summary drift` / `readme drift`), the manifest's `verdict`/`exit`,
and the `prose` group (every other `.md` labelled hash-only). When records.jsonl
fails its own listed hash or its chain, nothing is re-derived from it: COULD NOT
LOOK `bounded`. Where the reference's own check fails (a build time that matches
the stamp's shape but is no date, an unhashable witness kind, note or verdict, a
witness block the summary cannot be rendered from, a page that cannot be encoded),
this one raises `Raised` with the same class name.

10. `pins`: integrity.json readable (else COULD NOT LOOK); the manifest's pins are
the ones integrity.json's witness block records (and witness.json agrees), the row
counts agree, and records.jsonl holds each pinned head at its row (BROKEN otherwise).
No pin: VERIFIED, the tail not witnessed. A listed pin is checked against the
witness itself, which `check` is never given: a local pin COULD NOT LOOK `missing`, a
remote one `network`.
"""

from __future__ import annotations

from typing import Any

from sealscope.core.checks import pack_derive as D
from sealscope.core.checks import pack_render as PR
from sealscope.core.checks.pack import (
    _BASE_CHECKS,
    _NON_CLAIMS,
    BROKEN,
    CHECKS,
    CNL_FIELDS,
    COULD_NOT_LOOK,
    INTEGRITY,
    MANIFEST,
    OPERATOR_AT_T,
    OPERATOR_AT_T_NOTE,
    PROSE_HASH_ONLY,
    RECORDS,
    REDERIVED_PROSE,
    VERIFIED,
    Raised,
    _cnl,
    _dict,
    _finish,
    _Pack,
    _window_args,
)
from sealscope.core.checks.pack_records import chains_at
from sealscope.core.ledger import GENESIS

__all__ = ["step_rederived", "step_pins", "held_to_listed"]

_REMOTE_KEYS = ("commit", "commit_url", "raw_record_url")


def _nature(where: str, block: dict[str, Any]) -> list[str]:
    """An independence label that claims more than the pack can show is an
    overclaim; a note that is not one the export writes is drift. An unhashable
    kind or note raises, as the reference's lookups do."""
    kind, ind, src = block.get("kind"), block.get("independence"), block.get("independence_source")
    note = block.get("note")
    try:
        hash(kind)
        hash(note)
    except TypeError:
        raise Raised("TypeError") from None
    problems = []
    caveated = (
        ind == "externally_verifiable"
        and kind in ("remote_url", "opentimestamps")
        and src == "self_declared_by_witness"
        and str(note or "").startswith("SELF-DECLARED BY THE WITNESS")
    )
    fixed = {"none": ("none", "no_witness"), "local_file": ("self_asserted", "established_by_type")}
    if (ind not in _NON_CLAIMS and not caveated) or (kind in fixed and (ind, src) != fixed[kind]):
        problems.append(
            f"independence overclaimed: {where} says {ind!r} (source {src!r}) for a "
            f"{kind!r} witness"
        )
    if note not in PR.WITNESS_NOTES:
        problems.append(f"witness note drift: {where}'s witness note is not one the export writes")
    return problems


def _fold(res: dict[str, Any], c: dict[str, Any]) -> None:
    w = c["verdict"]
    if w == BROKEN and res["verdict"] != BROKEN:
        res.update({"verdict": BROKEN, "exit": D.EXIT_BY_WORD[BROKEN], "finding": c["finding"]})
    elif w == COULD_NOT_LOOK and res["verdict"] == VERIFIED:
        res.update({"verdict": COULD_NOT_LOOK, "exit": D.EXIT_BY_WORD[COULD_NOT_LOOK]})


def _is_word(value: Any) -> bool:
    """Whether `value` is a verdict word; an unhashable value raises, as the
    reference's lookup does."""
    try:
        return value in D.EXIT_BY_WORD
    except TypeError:
        raise Raised("TypeError") from None


def _pack_verdict(integrity: dict[str, Any], has_window: bool, checks: Any) -> dict[str, Any]:
    """The build's verdict reached again: the records word, an empty window, then
    every well-formed extra check folded in (the first BROKEN one's finding kept,
    as the README words a broken deal by it)."""
    given = integrity.get("verdict")
    word = str(given) if _is_word(given) else COULD_NOT_LOOK
    res = {"verdict": word, "exit": D.EXIT_BY_WORD[word], "finding": integrity.get("finding")}
    if not has_window and word != BROKEN:
        res.update({"verdict": COULD_NOT_LOOK, "exit": D.EXIT_BY_WORD[COULD_NOT_LOOK]})
    if not isinstance(checks, (list, str, dict)):
        raise Raised("TypeError")  # a truthy value that is not iterable: the reference raises
    for c in checks:
        if (
            isinstance(c, dict)
            and c.get("check") not in _BASE_CHECKS
            and _is_word(c.get("verdict"))
            and (c["verdict"] != BROKEN or "finding" in c)
            and (c["verdict"] != COULD_NOT_LOOK or all(k in c for k in CNL_FIELDS))
        ):
            _fold(res, c)
    return res


def _manifest_intact(p: _Pack) -> bool:
    """Whether manifest.sha256 names the manifest's own bytes."""
    try:
        text = p.read("manifest.sha256").decode("ascii").strip()
        return text == f"{p.m.sha256(MANIFEST)}  {MANIFEST}"
    except (OSError, ValueError):
        return False


def held_to_listed(p: _Pack, name: str) -> bool:
    """Whether a member sealscope does not rebuild (the AAT gaps file) held
    up: present, and equal to its listed hash when the manifest that lists it is
    intact (a changed manifest vouches for no hash, so the member is then not held
    against it)."""
    try:
        if not p.has(name):
            return False
        if _manifest_intact(p):
            return p.m.sha256(name) == _dict(p.manifest.get("files")).get(name)
        return True
    except OSError:
        return False


def step_rederived(p: _Pack) -> dict[str, Any]:
    """9. The module docstring's first rule."""
    check = CHECKS[8]
    integrity = p.json(INTEGRITY)
    if not p.has(RECORDS) or not isinstance(integrity, dict):
        name = RECORDS if not p.has(RECORDS) else INTEGRITY
        return _cnl(
            check,
            name,
            p.m.where,
            "missing" if not p.has(name) else "unreadable",
            f"the pack has no readable {name}, so its fields could not be re-derived",
        )
    man, facts = p.manifest, p.facts()
    problems: list[str] = []
    bounded: list[str] = []
    wb, mw = _dict(integrity.get("witness")), _dict(man.get("witness"))
    kind = wb.get("kind")
    if (mw.get("kind"), mw.get("identifier")) != (kind, wb.get("identifier")):
        problems.append("the manifest's witness is not integrity.json's")
    if (mw.get("independence"), mw.get("independence_source")) != D.independence(kind):
        problems.append("independence overclaimed in the manifest")
    problems += _nature("integrity.json", wb)
    if p.has("witness.json"):
        w = p.json("witness.json")
        if isinstance(w, dict):
            for k in ("kind", "identifier", "independence", "independence_source", "note"):
                if w.get(k) != wb.get(k):
                    problems.append(f"witness.json {k} differs from integrity.json's")
    if man.get("operator_at_t") != OPERATOR_AT_T:
        problems.append(f"operator overclaimed: operator_at_t is not {OPERATOR_AT_T}")
    if man.get("operator_at_t_note") != OPERATOR_AT_T_NOTE:
        problems.append("operator note drift: operator_at_t_note is not the pack's own")
    built_s = man.get("built_at")
    try:
        built = (
            D.parse_when(built_s)
            if isinstance(built_s, str) and D.STAMP.fullmatch(built_s)
            else None
        )
    except D.BadTime:
        raise Raised("PackUsageError") from None  # a stamp's shape, but no date
    pins_v = man.get("pins")
    pins: list[Any] = pins_v if isinstance(pins_v, list) else []
    if built is None:
        problems.append(f"built_at {built_s!r} is not YYYY-MM-DDTHH:MM:SSZ")
    else:
        newest = facts.newest
        if newest is not None and newest.replace(microsecond=0) > built:
            problems.append(f"built_at {built_s} is before the newest record")
        for x in pins:
            taken = D.when_or_none(x.get("received_at")) if isinstance(x, dict) else None
            if taken is not None and taken.replace(microsecond=0) > built:
                bounded.append(f"built_at {built_s} is before the witness received a pin")
    head = _dict(man.get("chain_head"))
    rec_sha = facts.sha256
    listed = _dict(man.get("files"))
    vr = p.vr
    records_bad = listed.get(RECORDS) != rec_sha or vr.ok is False
    if not records_bad and integrity.get("records_sha256") != rec_sha:
        problems.append(
            "records hash mismatch: records.jsonl, the manifest's files and "
            "integrity.json's records_sha256 do not all agree"
        )
    for x in pins:
        if not isinstance(x, dict) or not D.is_int(x.get("rows")):
            continue
        rows = head.get("rows")
        if (
            not D.is_int(rows)
            or rows < x["rows"]
            or (rows == x["rows"] and head.get("chain") != x.get("chain"))
        ):
            problems.append("the manifest's chain_head is not the pinned head or past it")
    if not records_bad:
        problems += _rederive_records(p, integrity, wb, vr)
    prose = man.get("prose", {})
    if not isinstance(prose, dict) or any(v != PROSE_HASH_ONLY for v in prose.values()):
        problems.append(f"the manifest's `prose` group must map each file to {PROSE_HASH_ONLY!r}")
        prose = {}
    unlabelled = sorted(
        n for n in listed if n.endswith(".md") and n not in REDERIVED_PROSE and n not in prose
    )
    if unlabelled:
        problems.append(f"prose not labelled: {unlabelled}")
    stray = sorted(n for n in prose if n not in listed)
    if stray:
        problems.append(f"the manifest's `prose` group names files it does not hash: {stray}")
    res = {
        "check": check,
        "prose_hash_only": sorted(prose),
        "note": "re-derived: independence, operator_at_t, built_at, the pinned head, "
        "integrity.json, the export counts, the verdict, README.md and "
        "ARTICLE_12_SUMMARY.md (rendered again and compared)"
        + (f"; {', '.join(sorted(prose))}: {PROSE_HASH_ONLY}" if prose else ""),
    }
    if problems:
        return _finish(res, problems)
    if records_bad:
        return {
            **res,
            **_cnl(
                check,
                "records.jsonl as it was packed",
                RECORDS,
                "bounded",
                "records.jsonl fails its own hash or chain, so nothing was re-derived from it",
            ),
        }
    if bounded:
        return {
            **res,
            **_cnl(
                check,
                "a build time no earlier than the pins the pack lists",
                MANIFEST,
                "bounded",
                "; ".join(bounded),
            ),
        }
    return _finish(res, [])


def _rederive_records(
    p: _Pack, integrity: dict[str, Any], wb: dict[str, Any], vr: Any
) -> list[str]:
    """integrity.json, the export block, the build's verdict and the two pages,
    re-derived from records.jsonl (only called when it holds its hash and chain)."""
    man, problems = p.manifest, []
    cross = "namespace" in wb
    try:
        finding = D.derive_finding(vr, wb.get("verdict"), cross)
    except TypeError:
        raise Raised("TypeError") from None  # an unhashable witness verdict
    for k, want in (
        ("finding", finding),
        ("verdict", D.finding_word(finding)),
        ("rows", vr.rows),
        ("chain_ok", vr.ok),
        ("first_break", vr.first_break),
    ):
        if integrity.get(k) != want:
            problems.append(f"integrity.json {k} is not the {want!r} re-derived from records.jsonl")
    if integrity.get("instrument_notes") is not None:
        problems.append("integrity.json carries instrument notes, which a pack never writes")
    facts = p.facts()
    s, unreadable = facts.summary(), facts.unreadable
    ae = _dict(man.get("audit_export"))
    for k, want in (
        ("record_count", facts.rows),
        ("unreadable_lines", unreadable),
        ("period_covered", {"from": s["first_ts"], "to": s["last_ts"]}),
        ("event_counts", s["counts"]),
        ("unknown_event_types", s["unknown_event_types"]),
    ):
        if ae.get(k) != want:
            problems.append(
                f"the manifest's audit_export {k} is not the one re-derived from records.jsonl"
            )
    if integrity.get("checked_at") != ae.get("generated_at"):
        problems.append("integrity.json checked_at is not the export's generated_at")
    try:
        summary = PR.render_summary(vr, finding, wb, facts, unreadable, ae)
    except PR.Unrenderable as e:
        raise Raised(e.name) from None
    except UnicodeEncodeError:
        raise Raised("UnicodeEncodeError") from None  # a lone surrogate in the pin's query
    if not _page_holds(p, "ARTICLE_12_SUMMARY.md", summary, PR.summary_holds):
        problems.append(
            "summary drift: ARTICLE_12_SUMMARY.md is not the page rendered again from "
            "records.jsonl and the witness block"
        )
    w = _dict(man.get("window"))
    try:
        agent = _window_args(man)[0]
        sel = p.selection()
    except (ValueError, TypeError, AttributeError):
        problems.append(
            "readme drift: the manifest's window could not be read, so README.md could "
            "not be rendered again"
        )
        return problems
    res = _pack_verdict(integrity, sel.count > 0, man.get("checks") or [])
    if (man.get("verdict"), man.get("exit")) != (res["verdict"], res["exit"]):
        problems.append(
            f"the manifest's verdict {man.get('verdict')!r} is not the "
            f"{res['verdict']!r} re-derived from the records and the checks"
        )
    for k in ("deal", "mandate", "readings"):
        if man.get(k) is not None:
            res[k] = man[k]
    window = {
        "agent": agent,
        "from": w.get("from"),
        "to": w.get("to"),
        "unplaced_lines": sel.unplaced,
    }
    system_id, provider = (
        v if isinstance(v, str) else "" for v in (ae.get("system_id"), ae.get("provider"))
    )
    readme = PR.render_readme(res, window, sel, system_id, provider)
    if readme is None or not _page_holds(p, "README.md", readme, PR.readme_holds):
        problems.append(
            "readme drift: README.md is not the page rendered again from the records "
            "(its does-not-show bullets the pack's own)"
        )
    return problems


def _page_holds(p: _Pack, name: str, rendered: str, holds: Any) -> bool:
    """Whether the pack holds `name` as a file equal to the page `rendered` (as
    `holds` compares them). A page that cannot be encoded raises when there is a
    file to compare it with, as the reference's comparison does; a member that
    cannot be read does not hold."""
    if not p.has(name):
        return False
    try:
        rendered.encode("utf-8")
    except UnicodeEncodeError:
        raise Raised("UnicodeEncodeError") from None
    try:
        page = p.read(name)
    except OSError:
        return False
    return bool(holds(page, rendered))


def _ref(pin: dict[str, Any]) -> tuple[Any, Any, Any]:
    return pin.get("namespace"), pin.get("rows"), pin.get("chain")


def _expected_pins(wb: dict[str, Any]) -> list[dict[str, Any]]:
    ns = wb.get("namespace")
    if not ns or wb.get("witness_rows") is None:
        return []
    return [{"namespace": ns, "rows": wb.get("witness_rows"), "chain": wb.get("witness_chain")}]


def _pinned_chains(p: _Pack, pins: list[dict[str, Any]]) -> Any:
    """The records' chain at each pin's row count (`pack_records.chains_at`'s rule),
    read in one streamed pass: a function of the count (`genesis` at or below 0,
    None past the end)."""
    counts: list[Any] = [x.get("rows") for x in pins]
    wanted = {int(n) for n in counts if D.is_int(n) and n > 0}
    got: dict[int, Any] = {}
    if wanted and p.has(RECORDS):
        with p.m.open(RECORDS) as fh:
            got = chains_at(fh, wanted)

    def at(rows: int) -> Any:
        return GENESIS if rows <= 0 else got.get(rows)

    return at


def step_pins(p: _Pack) -> dict[str, Any]:
    """10. The module docstring's second rule."""
    check = CHECKS[9]
    integrity = p.json(INTEGRITY)
    if not isinstance(integrity, dict):
        return _cnl(
            check,
            INTEGRITY,
            p.m.where,
            "unreadable" if p.has(INTEGRITY) else "missing",
            "integrity.json holds the witness block the pins are checked against",
        )
    man = p.manifest
    wb = _dict(integrity.get("witness"))
    listed = man.get("pins")
    problems: list[str] = []
    if not isinstance(listed, list) or not all(isinstance(x, dict) for x in listed):
        problems.append("manifest.json has no readable `pins` list")
        listed = []
    else:
        have = sorted(map(_ref, listed), key=repr)
        if have != sorted(map(_ref, _expected_pins(wb)), key=repr):
            problems.append(
                "the manifest's pins are not the ones integrity.json's witness block records"
            )
        if p.has("witness.json"):
            w = p.json("witness.json")
            if not isinstance(w, dict):
                problems.append("witness.json is not a JSON object")
            else:
                problems += [
                    f"witness.json {k} differs from integrity.json's"
                    for k in ("namespace", "witness_rows", "witness_chain")
                    if w.get(k) != wb.get(k)
                ]
        head = man.get("chain_head") or {}
        if not isinstance(head, dict):
            raise Raised("AttributeError")  # the reference reads it as a dict here
        if (
            D.is_int(integrity.get("rows"))
            and D.is_int(head.get("rows"))
            and integrity["rows"] != head["rows"]
        ):
            problems.append("row count mismatch: integrity.json and the manifest's chain_head")
        chains = _pinned_chains(p, listed)
        for x in listed:
            ns, rows, chain = _ref(x)
            if D.is_int(rows) and p.has(RECORDS) and chains(rows) != chain:
                problems.append(
                    f"records.jsonl does not hold the head pinned for {ns!r} at row {rows}"
                )
    res: dict[str, Any] = {"check": check, "pins_checked": len(listed)}
    if problems:
        return _finish(res, problems)
    if not listed:
        return {
            **res,
            "verdict": VERIFIED,
            "note": "no pin is listed, so the tail of the records was not witnessed",
        }
    ns, rows, _chain = _ref(listed[0])
    if wb.get("kind") == "remote_url" or any(listed[0].get(k) for k in _REMOTE_KEYS):
        return {
            **res,
            **_cnl(
                check,
                f"the public pin for {ns!r} at row {rows}",
                "the hosted witness",
                "network",
                "check uses no network; a remote pin unread is not verified",
            ),
        }
    return {
        **res,
        **_cnl(
            check,
            f"the local pin file holding {ns!r}",
            "--witness (not given)",
            "missing",
            "a pin is checked against the witness itself, not the "
            "pack's copy of it; check takes no pin file",
        ),
    }

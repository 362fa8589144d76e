"""core.export: the audit report value, its JSON and its Markdown."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from sealscope.core import export, ledger, verdict
from sealscope.core.continuity import diff_seals, snapshot, verify_continuation
from sealscope.core.receipt import build_row

ROOT = Path(__file__).resolve().parents[2]
SEALS = ROOT / "sample_ledgers" / "seals"
HOSTILE = (
    "APPROVED\rREJECTED \x1b[31mred\x1b[0m \u202egnp.exe <script>alert(1)</script> "
    "[click](http://evil.example) ![img](x.png) www.evil.example a@b.example `tick` | pipe"
)


def _seal(name: str) -> export.SealFile:
    got = export.load_seal(SEALS / name)
    assert got.status == "ok", got.error
    return got


# --------------------------------------------------------------------------- ledger


def test_ledger_report_matches_verify_and_receipts():
    r = export.build_report(SEALS / "seals-ledger.jsonl")
    assert r.kind == "ledger" and r.verdict == "VERIFIED"
    res = ledger.verify(SEALS / "seals-ledger.jsonl")
    assert r.ledger == {**res.to_dict(), "verdict": "VERIFIED"}
    assert r.breaks == ()
    assert [c["line"] for c in r.receipts] == [3]
    assert r.receipts[0]["verified_scope"] == "bounded_no_content"
    assert r.receipts_verdict == "VERIFIED"
    # a receipt checked without held content is counted, not judged (verdict.ledger)
    assert (r.verdict, r.exit_code, r.file_verdict) == ("VERIFIED", 0, "VERIFIED")
    d = r.to_dict()
    assert d["schema"] == export.EXPORT_SCHEMA and d["exit_code"] == 0
    json.dumps(d)


def test_ledger_with_breaks_and_bad_receipt(tmp_path):
    p = tmp_path / "l.jsonl"
    ledger.append(p, {"kind": "note", "text": "one", "ts": "2026-01-01T00:00:00Z"})
    row = build_row(["a", "b"], ["a"], "c", "m", opened_at="2026-01-01T00:00:00Z")
    row["dropped"]["count"] = 5  # the receipt lies about its arithmetic
    row["ts"] = "2026-01-01T00:00:01Z"
    ledger.append(p, row)
    ledger.append(p, {"kind": "note", "text": "three", "ts": "2026-01-01T00:00:02Z"})
    lines = p.read_text().splitlines()
    lines[0] = lines[0].replace("one", "ONE")
    p.write_text("\n".join(lines) + "\n")
    r = export.build_report(p)
    assert r.verdict == "BROKEN" and r.exit_code == 1
    assert r.breaks and r.breaks[0]["line"] == 1
    assert r.receipts[0]["ok"] is False and r.receipts_verdict == "BROKEN"
    md = r.to_markdown()
    assert "## Breaks" in md and "| 1 | break | line 1: chain mismatch |" in md


def test_ledger_without_receipts_is_judged_by_verify_alone(tmp_path):
    p = tmp_path / "plain.jsonl"
    ledger.append(p, {"kind": "note", "ts": "2026-01-01T00:00:00Z"})
    r = export.build_report(p)
    assert (r.verdict, r.exit_code, r.receipts_verdict) == ("VERIFIED", 0, "COULD NOT LOOK")
    assert "No compaction-receipt row" in r.to_markdown()


def test_unreadable_ledger(tmp_path):
    r = export.build_report(tmp_path / "nope.jsonl", kind="ledger")
    assert r.verdict == "COULD NOT LOOK" and r.exit_code == 3 and r.receipts == ()


def test_session_recompute_is_reported():
    rows = list(
        __import__("sealscope.core.lookup", fromlist=["x"]).iter_receipt_rows(
            SEALS / "seals-ledger.jsonl"
        )
    )
    from sealscope.core.receipt import verify_receipt

    line, row = rows[0]
    pre = [
        "plan: verify the ledger",
        {"tool": "grep", "output": "42 matches"},
        "decision: ship by Monday",
    ]
    check = verify_receipt(row, pre, [pre[0], pre[2]])
    rec = export.recompute_record(line, check, pre="pre.json", post="post.json")
    assert rec.code == 0 and rec.result["verified_scope"] == "full"
    r = export.build_report(SEALS / "seals-ledger.jsonl", session=[rec])
    assert r.to_dict()["session"][0]["result"]["content"] == "match"
    assert "receipt on line 3 recomputed" in r.to_markdown()


# --------------------------------------------------------------------------- snapshot


def test_snapshot_report_valid_and_invalid():
    r = export.build_report(SEALS / "seal-day1.json")
    # one of the three words; the snapshot's own VALID is its validation's field
    assert (r.kind, r.verdict, r.exit_code, r.own_result) == ("snapshot", "VERIFIED", 0, "VALID")
    s = r.snapshot
    assert s["valid"] is True and s["digest"] == _seal("seal-day1.json").snap.digest
    assert (s["label"], s["id_scheme"], s["probes"], s["error"]) == ("wren", "index", 7, None)
    bad = export.build_report(SEALS / "seal-day1-tampered.json")
    assert (bad.verdict, bad.exit_code, bad.own_result) == ("BROKEN", 1, "INVALID")
    assert bad.snapshot["digest"] is None
    assert bad.snapshot["error"].startswith("manifest_digest does not reproduce")
    assert "Why it is not valid" in bad.to_markdown()


def test_verdict_and_diff_records():
    s1, s2 = _seal("seal-day1.json"), _seal("seal-day2.json")
    tiers = export.load_tiers(SEALS / "tiers.json")
    restated = export.load_restated(SEALS / "restated-divergent.json")
    strict = verify_continuation(s1.snap, restated=restated, tiers=tiers)
    loose = verify_continuation(s1.snap, restated=restated, strict=False)
    doc = diff_seals(s1.snap, s2.snap, tiers=tiers)
    recs = [
        export.verdict_record(strict, "restated-divergent.json", tiers_path="tiers.json"),
        export.verdict_record(loose, "restated-divergent.json"),
        export.diff_record(doc, "seal-day1.json", "seal-day2.json", tiers_path="tiers.json"),
        export.added_record({"live_threads": ["live_threads:seal-diff"]}, "m.json"),
    ]
    assert [r.code for r in recs] == [1, 1, 0, 0]
    assert [r.verdict for r in recs] == ["DIVERGENCE", "DIVERGENCE", "VALID", "NOTED"]
    # a report says one of the three words, the check's own beside it
    assert [r.word for r in recs] == ["BROKEN", "BROKEN", "VERIFIED", "VERIFIED"]
    assert recs[0].checked == "restatement: DIVERGENCE" and recs[2].checked == "seals: VALID"
    r = export.build_report(SEALS / "seal-day1.json", session=recs)
    # word and code agree: the seal holds, the restatement it was scored with does not
    assert (r.verdict, r.exit_code, r.file_verdict) == ("BROKEN", 1, "VERIFIED")
    d = r.to_dict()
    assert d["session"][0]["result"]["verdict_digest"] == strict.verdict_digest
    assert d["session"][1]["result"]["faithful"] is None
    assert d["session"][2]["result"] == doc
    md = r.to_markdown()
    assert "Restatement scored: **DIVERGENCE**" in md and "- restatement: DIVERGENCE" in md
    assert "| faithful | not judged (loose mode) |" in md
    assert "| faithful | `false` |" in md
    assert "### critical (1)" in md and "### notable (1)" in md and "### untiered (1)" in md
    assert "`identity_anchors:0`" in md and "`open_commitments:0`" in md
    assert "| changed | `open_commitments:0` | `notable` |" in md
    assert "| added | `live_threads:seal-diff` | `advisory` | *null* |" in md
    assert "| removed | `live_threads:ledger-verify` | `advisory` |" in md
    # the critical group comes first
    assert md.index("### critical") < md.index("### notable")


def test_contained_only_loose_is_never_a_pass():
    s1 = _seal("seal-day1.json")
    v = verify_continuation(
        s1.snap, restated=export.load_restated(SEALS / "restated-faithful.json"), strict=False
    )
    assert v.comparison == "containment_only" and verdict.continuation(v).exit_code == 3
    rec = export.verdict_record(v, "restated-faithful.json")
    r = export.build_report(SEALS / "seal-day1.json", session=[rec])
    md = r.to_markdown()
    assert r.exit_code == 3
    assert "CONTAINED ONLY" in md and "not judged (loose mode)" in md
    assert "FAITHFUL**" not in md


# --------------------------------------------------------------------------- markdown safety


def _hostile_snapshot(tmp_path: Path) -> Path:
    snap = snapshot({"notes": [HOSTILE], HOSTILE: "x"}, label=HOSTILE)
    p = tmp_path / "hostile.json"
    p.write_text(snap.to_json(), encoding="utf-8")
    return p


def _no_raw_markup(md: str) -> None:
    assert "\x1b" not in md and "\r" not in md and "\u202e" not in md
    # no HTML tag, link, image or autolink can form outside fenced blocks and code spans
    outside = re.sub(r"(?ms)^(`{3,})json\n.*?^\1$", "", md)
    outside = re.sub(r"(`+)(?:(?!\1).)*?\1", "", outside)
    assert "<script>" not in outside and "](" not in outside
    assert re.search(r"(?<!\\)<[a-z/]", outside) is None
    assert re.search(r"(?<!\\)\[[^\]]*(?<!\\)\]\(", outside) is None
    assert re.search(r"https?(?<!\\):", outside) is None or "http\\:" in outside


def test_markdown_escapes_everything_from_evidence(tmp_path):
    p = _hostile_snapshot(tmp_path)
    snap = export.load_seal(p).snap
    restated = {pr["id"]: HOSTILE + " (restated)" for pr in snap.probes}
    v = verify_continuation(snap, restated=restated, tiers={HOSTILE: ["notes"]})
    doc = diff_seals(snap, snap)
    recs = [
        export.verdict_record(v, str(tmp_path / "r<b>.json")),
        export.diff_record(doc, str(p), str(p)),
        export.SessionRecord("custom", HOSTILE, {"x": HOSTILE}, {"v": HOSTILE + "```"}),
    ]
    md = export.build_report(p, session=recs).to_markdown()
    _no_raw_markup(md)
    assert "\\x1b" in md and "\\r" in md and "\\u202e" in md
    # the table cells stay cells: every table row has its column count
    for line in md.splitlines():
        if line.startswith("| id | declared"):
            continue
        if line.startswith("| `notes:0`"):
            assert len(re.findall(r"(?<!\\)\|", line)) == 5


def test_markdown_of_tampered_label_and_error(tmp_path):
    raw = json.loads((SEALS / "seal-day1.json").read_text())
    raw["label"] = HOSTILE
    raw["manifest"]["x"] = HOSTILE
    p = tmp_path / "t.json"
    p.write_text(json.dumps(raw), encoding="utf-8")
    md = export.build_report(p).to_markdown()
    _no_raw_markup(md)


def test_md_helpers():
    assert export.md_code("a`b") == "``a`b``"
    assert export.md_code("`x`") == "`` `x` ``"
    assert export.md_code("a|b", in_table=True) == "`a\\|b`"
    assert export.md_code(None) == "*null*" and export.md_code("") == "*(empty)*"
    assert export.md_text("- x") == "\\- x"
    assert export.md_text("1. x") == "1\\. x"
    assert export.md_text("<b>") == "\\<b\\>"
    assert export.md_text("see http://x") == "see http\\://x"
    assert export.md_text("mailto:a") == "mailto\\:a"
    assert export.md_text("line 4: chain mismatch") == "line 4: chain mismatch"
    assert export.md_text("www.x.org") == "www\\.x.org"
    assert export.md_text("\x1b[1m") == "\\\\x1b\\[1m"


# --------------------------------------------------------------------------- readers


def test_readers_share_the_cli_texts(tmp_path):
    assert export.load_seal(tmp_path / "none.json").status == "unreadable"
    (tmp_path / "bad.json").write_bytes(b"\xff")
    got = export.load_seal(tmp_path / "bad.json")
    assert got.status == "invalid" and got.error.startswith("not UTF-8")
    (tmp_path / "r.json").write_text('{"a": 1}')
    with pytest.raises(ValueError, match="is int, not text"):
        export.load_restated(tmp_path / "r.json")
    with pytest.raises(ValueError, match="must be a JSON object"):
        export.load_tiers(tmp_path / "r.json")
    assert export.load_manifest(SEALS / "seal-day2.json") == json.loads(
        (SEALS / "manifest-day2.json").read_text()
    )


def test_snapshot_rows_of_a_ledger():
    refs = list(export.iter_snapshot_rows(SEALS / "seals-ledger.jsonl"))
    assert [r.line for r in refs] == [2, 4]
    s1, s2 = _seal("seal-day1.json").snap, _seal("seal-day2.json").snap
    assert refs[0].matches(s1) and not refs[0].matches(s2) and refs[1].matches(s2)


def test_core_export_imports_no_ui():
    code = (
        "import sys, sealscope.core.export; "
        "print([m for m in ('textual', 'rich') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.stdout.strip() == "[]", out.stderr


def test_samples_are_deterministic(tmp_path):
    subprocess.run([sys.executable, str(SEALS / "make_seal_samples.py"), str(tmp_path)], check=True)
    for f in sorted(tmp_path.iterdir()):
        assert f.read_bytes() == (SEALS / f.name).read_bytes(), f.name
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in SEALS.iterdir() if p.suffix in (".json", ".jsonl")
    )

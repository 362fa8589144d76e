"""core.checks.pack_render and check 9 (`re-derived fields and prose`): the two pages
an evidence pack carries, rendered again, against the reference.

* the pages the reference's own build writes are the pages rendered here, byte for
  byte, for ledgers of every finding (PASS, modulo truncation, truncation and rewrite
  detected, a failed witness check, an empty log, unchained and declared-break
  scopes, unreadable lines);
* the renderers against the reference's on witness blocks and README inputs it never
  builds (an unrecognised witness verdict, broken `deal`/`mandate`/`readings` blocks);
* 200 reference packs, their pages and the fields they are rendered from tampered at
  random (a changed number, a changed line, extra whitespace, a removed section,
  CRLF line ends, a byte-order mark; the manifest's export block, the witness note,
  the extra blocks), the manifest's hashes fixed by the rewriter or not, checked as a
  folder and as a re-packed zip read in place: every pack gets verify_pack's word,
  exit, checks and reason word, and check 9 its word, reason word and drift reasons.
"""

from __future__ import annotations

import hashlib
import json
import random
import tempfile
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from arcaeon.prove import audit as ref_audit
from arcaeon.prove.evidence_pack import build_pack, write_zip
from arcaeon.prove.evidence_pack import render_readme as ref_render_readme
from arcaeon.prove.evidence_pack_verify import verify_pack as ref_verify_pack
from arcaeon.record.ledger import Ledger, declare_break
from arcaeon.record.ledger.witness import WitnessStore
from sealscope.core import ledger as our_ledger
from sealscope.core.checks import pack, pack_derive, pack_render
from sealscope.core.checks.result import CheckContext

CHECK9 = "re-derived fields and prose"
DRIFTS = ("readme drift", "summary drift", "witness note drift")
SUMMARY, README = "ARTICLE_12_SUMMARY.md", "README.md"
BUILT_AT = "2099-01-01T00:00:00Z"  # past the declared break row's own clock stamp


# ----------------------------------------------------------------- building packs


def _rows(rng: random.Random, path: Path, n: int, start: int = 0) -> None:
    L = Ledger(path)
    for i in range(start, start + n):
        L.append(
            {
                "event": rng.choice(["tool_call", "decision", "output", "odd", "input"]),
                "agent": rng.choice(["wren", "kite"]),
                "n": i,
                "t": rng.choice(["a", "\u00fc", "\u2014"]),
                "ts": f"2026-10-06T08:{i:02d}:00Z",
            }
        )


def _ledger(rng: random.Random, tmp: Path, i: int) -> tuple[Path, dict]:
    """A ledger of one of the shapes the summary words differently, and the build's
    witness arguments."""
    led = tmp / f"l{i}.jsonl"
    shape = rng.choice(
        ["plain", "plain", "pass", "other-ns", "truncated", "rewritten", "prechain", "declared"]
        + ["unreadable", "empty", "no-ns"]
    )
    kw: dict = {}
    store = tmp / f"pins{i}.jsonl"
    if shape == "empty":
        led.write_bytes(b"")
        return led, kw
    if shape == "prechain":
        led.write_bytes(b'{"event": "input", "ts": "2026-10-06T07:00:00Z"}\n')
    _rows(rng, led, rng.randint(2, 7))
    if shape == "declared":
        with led.open("ab") as fh:
            fh.write(b'{"event": "output", "oob": 1}\n')
        n = len(led.read_bytes().split(b"\n")) - 1
        declare_break(led, n, "written out of band")
        _rows(rng, led, 2, start=30)
    if shape == "unreadable":
        with led.open("ab") as fh:
            fh.write(rng.choice([b"not json\n", b"[1, 2]\n", b'{"x": \xff}\n']))
    if shape in ("pass", "other-ns", "no-ns"):
        WitnessStore(store).record("ns", Ledger(led).head())
        kw["witness"] = str(store)
        if shape != "no-ns":
            kw["witness_namespace"] = "ns" if shape == "pass" else "other"
    if shape == "truncated":
        WitnessStore(store).record("ns", Ledger(led).head())
        lines = led.read_bytes().split(b"\n")
        led.write_bytes(b"\n".join(lines[:-2]) + b"\n")
        kw.update(witness=str(store), witness_namespace="ns")
    if shape == "rewritten":
        WitnessStore(store).record("ns", Ledger(led).head())
        count = len(led.read_bytes().splitlines())
        led.unlink()
        _rows(random.Random(rng.random()), led, count, start=40)
        kw.update(witness=str(store), witness_namespace="ns")
    return led, kw


def _build(rng: random.Random, tmp: Path, i: int) -> Path:
    led, kw = _ledger(rng, tmp, i)
    if rng.random() < 0.3:
        kw["agent"] = rng.choice(["wren", "nobody"])
    if rng.random() < 0.2:
        kw["since"] = "2026-10-06T08:02:00Z"
    if rng.random() < 0.2:
        kw["formats"] = ("aat",)
    system_id, provider = rng.choice([("s", "p"), ("", ""), ("sys \u00e9", ""), ("", "Acme")])
    out = tmp / f"p{i}"
    build_pack(led, out, system_id=system_id, provider=provider, built_at=BUILT_AT, **kw)
    return out


def _plain(tmp: Path, name: str) -> Path:
    """An honest pack of a plain chained ledger, no witness: VERIFIED throughout."""
    led = tmp / f"{name}.jsonl"
    _rows(random.Random(name), led, 4)
    out = tmp / name
    build_pack(led, out, system_id="s", provider="p", built_at=BUILT_AT)
    return out


def _rehash(out: Path) -> None:
    """The rewriter's fix: the manifest lists every file's new hash, and
    manifest.sha256 names the new manifest."""
    m = json.loads((out / "manifest.json").read_text())
    files = m.get("files") if isinstance(m.get("files"), dict) else {}
    for name in list(files):
        if (out / name).is_file():
            files[name] = hashlib.sha256((out / name).read_bytes()).hexdigest()
    (out / "manifest.json").write_text(json.dumps(m, indent=2))
    digest = hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest()
    (out / "manifest.sha256").write_text(f"{digest}  manifest.json\n")


# ----------------------------------------------------------------- tampering


def _page_edit(rng: random.Random, page: bytes) -> tuple[str, bytes]:
    text = page.decode("utf-8")
    lines = text.split("\n")
    op = rng.choice(
        ["number", "line", "space", "blank", "section", "crlf", "crlf-one", "bom", "tail"]
        + ["drop-last-newline", "none"]
    )
    if op == "number":
        spots = [k for k, ch in enumerate(text) if ch.isdigit()]
        k = rng.choice(spots)
        text = text[:k] + str((int(text[k]) + rng.randint(1, 9)) % 10) + text[k + 1 :]
    elif op == "line":
        k = rng.randrange(len(lines))
        lines[k] = rng.choice([lines[k] + " (edited)", "", "- a bullet of our own"])
        text = "\n".join(lines)
    elif op == "space":
        k = rng.randrange(len(lines))
        lines[k] = rng.choice([lines[k] + " ", " " + lines[k], lines[k].replace(" ", "  ", 1)])
        text = "\n".join(lines)
    elif op == "blank":
        lines.insert(rng.randrange(len(lines)), "")
        text = "\n".join(lines)
    elif op == "section":
        heads = [k for k, x in enumerate(lines) if x.startswith("## ")]
        k = rng.choice(heads)
        nxt = next((j for j in heads if j > k), len(lines))
        text = "\n".join(lines[:k] + lines[nxt:])
    elif op == "crlf":
        text = text.replace("\n", "\r\n")
    elif op == "crlf-one":
        k = rng.randrange(len(lines) - 1)
        lines[k] += "\r"
        text = "\n".join(lines)
    elif op == "bom":
        text = "\ufeff" + text
    elif op == "tail":
        text += rng.choice(["\n", " ", "\n\n"])
    elif op == "drop-last-newline":
        text = text.rstrip("\n")
    return op, text.encode("utf-8")


_ODD = [None, "", 0, 1, True, "x", [], ["a"], {}, {"id": "d"}]


def _field_edit(rng: random.Random, out: Path) -> str:
    m = json.loads((out / "manifest.json").read_text())
    integrity = json.loads((out / "integrity.json").read_text())
    ae = m.setdefault("audit_export", {})
    wb = integrity.setdefault("witness", {})
    op = rng.choice(
        ["system_id", "provider", "tool", "generated_at", "note", "detail", "independence"]
        + ["self_integrity", "deal", "mandate", "readings", "window-from", "checks-deal"]
    )
    if op in ("system_id", "provider"):
        ae[op] = rng.choice(["s", "other", "", 7, None])
    elif op == "tool":
        ae["tool"] = rng.choice(["arcaeon-audit/9.9", "arcaeon-audit", "", 3, "a/b/c"])
    elif op == "generated_at":
        stamp = rng.choice(["2026-10-07T00:00:01Z", None, 5])
        ae["generated_at"] = stamp
        if rng.random() < 0.5:
            integrity["checked_at"] = stamp
    elif op == "note":
        wb["note"] = rng.choice([wb.get("note", "") + " ", "a note of our own", None])
    elif op == "detail":
        wb["detail"] = rng.choice(["another detail", None, 3])
    elif op == "independence":
        if rng.random() < 0.5:
            wb.pop("independence", None)
        else:
            wb.pop("note", None)
    elif op == "self_integrity":
        wb["self_integrity"] = rng.choice(["verified", "unknown", None])
    elif op == "deal":
        m["deal"] = rng.choice(
            _ODD
            + [
                {
                    "id": "d1",
                    "buyer_tape": "b",
                    "seller_tape": "s",
                    "summary": "MATCHED",
                    "files": ["verdict.json", "timeline.md"],
                },
                {"id": "d1", "buyer_tape": "b", "seller_tape": "s", "summary": "x", "files": "ab"},
            ]
        )
    elif op == "mandate":
        m["mandate"] = rng.choice(
            _ODD
            + [
                {
                    "mandate_file": "m.json",
                    "mandate_file_sha256": rng.choice([None, "ab"]),
                    "counts": {"inside": 1, "outside": 0, "could_not_look": 2},
                },
                {"mandate_file": "m", "mandate_file_sha256": "", "counts": []},
            ]
        )
    elif op == "readings":
        m["readings"] = rng.choice(
            _ODD
            + [
                {"source": "r.json", "kind": "k", "ok": True, "ledger_status": "held"},
                {"source": "r.json"},
            ]
        )
    elif op == "window-from":
        m.setdefault("window", {})["from"] = rng.choice(["2026-10-06T08:00:00Z", "", 4])
    elif op == "checks-deal":
        m.setdefault("checks", []).append(
            {"check": "deal dispute", "verdict": "BROKEN", "finding": "deal d1: ALTERED"}
        )
        m["deal"] = {"id": "d1", "buyer_tape": "b", "seller_tape": "s", "summary": "ALTERED"}
        m["deal"]["files"] = ["verdict.json"]
        m["verdict"], m["exit"] = "BROKEN", 1
    (out / "manifest.json").write_text(json.dumps(m, indent=2))
    (out / "integrity.json").write_text(json.dumps(integrity, indent=2))
    return op


def _tamper(rng: random.Random, out: Path) -> str:
    """One tampering of a page or of what the pages are rendered from; the hashes
    fixed by the rewriter two times in three."""
    if rng.random() < 0.6:
        name = rng.choice([SUMMARY, README])
        op, page = _page_edit(rng, (out / name).read_bytes())
        (out / name).write_bytes(page)
        op = f"{name}:{op}"
    else:
        op = _field_edit(rng, out)
    if rng.random() < 2 / 3:
        _rehash(out)
        op += "+rehash"
    return op


# ----------------------------------------------------------------- comparing


def _words(res: dict) -> tuple:
    if "checks" not in res:
        return ("raises", res.get("error"))
    return (
        res["verdict"],
        res["exit"],
        [(c["check"], c["verdict"]) for c in res["checks"]],
        res.get("reason_word"),
        (res.get("zip") or {}).get("entries"),
    )


def _check9(res: dict) -> tuple | None:
    """Check 9's word, reason word and the drift reasons its finding names."""
    c = next((c for c in res.get("checks") or [] if c["check"] == CHECK9), None)
    if c is None:
        return None
    finding = c.get("finding") or ""
    return (c["verdict"], c.get("reason_word"), [d for d in DRIFTS if d in finding])


def _reference(path: Path) -> tuple[tuple, tuple | None]:
    try:
        res = ref_verify_pack(path)
    except Exception as e:  # noqa: BLE001  # the reference's own failure is the answer
        return ("raises", type(e).__name__), None
    return _words(res), _check9(res)


def _ours(path: Path) -> tuple[dict, tuple, tuple | None]:
    before = (
        {p: p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}
        if path.is_dir()
        else {path: path.read_bytes()}
    )
    got = pack.check(str(path), CheckContext()).to_dict()
    after = (
        {p: p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}
        if path.is_dir()
        else {path: path.read_bytes()}
    )
    assert after == before  # nothing written to the pack
    return got, _words(got["detail"]), _check9(got["detail"])


@pytest.fixture
def quiet_tmp(tmp_path, monkeypatch):
    """A temp folder of its own, so the test sees that our check extracts nothing."""
    t = tmp_path / "tmp"
    t.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(t))
    return t


# ----------------------------------------------------------------- the tests


def test_the_reference_builds_the_pages_rendered_here(tmp_path):
    """60 honest packs of every ledger shape: the README and summary the reference's
    build wrote are, byte for byte, the pages check 9 renders, and check 9 holds."""
    rng = random.Random(30)
    findings = set()
    rendered = 0  # packs whose records hold, so both pages were rendered and compared
    for i in range(60):
        out = _build(rng, tmp_path, i)
        integrity = json.loads((out / "integrity.json").read_text())
        findings.add(integrity["finding"])
        _got, words, c9 = _ours(out)
        assert (words, c9) == _reference(out), i
        assert c9 is not None and c9[2] == [], (i, integrity["finding"], c9)
        rendered += c9[0] == "VERIFIED"
    assert {
        "PASS",
        "VERIFIED_MODULO_TRUNCATION",
        "TRUNCATION_DETECTED",
        "REWRITE_DETECTED",
        "WITNESS_CHECK_FAILED",
        "EMPTY_LOG",
        "UNVERIFIED_SCOPE",
    } <= findings
    assert rendered >= 40, rendered


def _vr(**kw) -> our_ledger.VerifyResult:
    return our_ledger.VerifyResult(**kw)


_WITNESS = {
    "kind": "local_file",
    "identifier": "/pins.jsonl",
    "independence": "self_asserted",
    "independence_source": "established_by_type",
    "note": "n",
}


@pytest.mark.parametrize(
    "vr, finding, wb",
    [
        (_vr(ok=True, rows=3), "VERIFIED_MODULO_TRUNCATION", {"kind": "none"}),
        (_vr(ok=True, rows=3), "VERIFIED_MODULO_TRUNCATION", dict(_WITNESS)),
        (_vr(ok=True, rows=3), "VERIFIED_MODULO_TRUNCATION", {"kind": None, "namespace": "n"}),
        (_vr(ok=True, rows=3), "PASS", {**_WITNESS, "namespace": "a'b&c", "verdict": "c"}),
        (
            _vr(ok=True, rows=3),
            "PASS",
            {
                **_WITNESS,
                "namespace": "ns",
                "witness_rows": 2,
                "witness_chain": "ab/cd",
                "self_integrity": "verified",
            },
        ),
        (_vr(ok=True, rows=3), "UNRECOGNIZED_WITNESS_VERDICT:odd", {"namespace": "n"}),
        (_vr(ok=None, rows=3), "WITNESS_CHECK_FAILED", {"namespace": "n", "detail": None}),
        (_vr(ok=False, rows=3, first_break="line 2: x"), "FAIL", {}),
        (_vr(ok=True, rows=3), "TRUNCATION_DETECTED", {"namespace": "n", "detail": "d"}),
        (_vr(ok=None, rows=3), "REWRITE_DETECTED", {"namespace": "n", "detail": 4}),
        (_vr(ok=None, rows=0, verified_scope="empty"), "EMPTY_LOG", {}),
        (
            _vr(ok=None, rows=5, prechain=2, declared_breaks=1, verified_scope="b"),
            "UNVERIFIED_SCOPE",
            {},
        ),
        (_vr(ok=None, rows=5, verified_scope=""), "UNVERIFIED_SCOPE", {}),
    ],
)
def test_the_summary_is_the_references_for_every_finding(vr, finding, wb):
    """The renderer against the reference's, on findings a random build rarely or
    never reaches (a remote-looking pin, an unrecognised verdict, a failed chain)."""
    records = b'{"event": "input", "ts": "b"}\n{"event": 3, "ts": "a"}\nnot json\n\n'
    export = {"system_id": "s", "provider": "", "generated_at": BUILT_AT, "tool": "x/1.2"}
    rows, unreadable = ref_audit._read_rows(records)
    wv = (
        SimpleNamespace(
            verdict=wb.get("verdict"), detail=wb.get("detail"), witness_rows=wb.get("witness_rows")
        )
        if "namespace" in wb
        else None
    )
    want = ref_audit.render_summary(
        vr=vr,
        verdict=finding,
        wv=wv,
        witness_block=wb,
        store_configured=wb.get("kind") not in (None, "none"),
        witness_namespace=wb.get("namespace"),
        unreadable=unreadable,
        instrument_notes=None,
        system_id="s",
        provider="",
        rows_count=len(rows),
        s=ref_audit._summ(rows),
        stamp=BUILT_AT,
        version="1.2",
    )
    ours = pack_derive.read_rows(records)
    assert ours == (rows, unreadable)
    assert pack_render.render_summary(vr, finding, wb, *ours, export) == want
    assert pack_render.summary_holds(want.replace("\n", "\r\n").encode(), want)
    assert not pack_render.summary_holds(want.encode() + b" ", want)


def test_a_witness_block_without_its_note_cannot_be_rendered():
    with pytest.raises(pack_render.Unrenderable) as e:
        pack_render.render_summary(_vr(ok=True), "PASS", {"kind": "local_file"}, [], 0, {})
    assert e.value.name == "KeyError"


def test_the_readme_is_the_references_or_none_where_it_raises():
    """300 README inputs, the extra blocks drawn from well-formed and broken values:
    the page is the reference's, or None exactly where the reference's renderer
    fails (a missing key, a wrong type), which check 9 counts as drift."""
    rng = random.Random(12)
    rows = [
        {"line": 1, "raw": '{"agent": "wren", "system_id": "s"}'},
        {"line": 4, "raw": '{"agent": "kite", "x": 1}'},
    ]
    blocks = {
        "deal": [
            {"id": "d", "buyer_tape": "b", "seller_tape": "s", "summary": "M", "files": ["a"]},
            {"id": "d", "buyer_tape": "b", "seller_tape": "s", "summary": "M", "files": [1]},
            {"id": "d", "buyer_tape": "b", "seller_tape": "s", "summary": "M", "files": "ab"},
        ],
        "mandate": [
            {
                "mandate_file": "m",
                "mandate_file_sha256": None,
                "counts": {"inside": 1, "outside": 2, "could_not_look": 0},
            },
            {"mandate_file": "m", "mandate_file_sha256": "x", "counts": {"inside": 1}},
        ],
        "readings": [{"source": "r", "kind": None, "ok": 1, "ledger_status": "s"}, {"kind": 1}],
    }
    outcomes = set()
    for _ in range(300):
        verdict = rng.choice(["VERIFIED", "BROKEN", "COULD NOT LOOK"])
        build = {"verdict": verdict, "finding": rng.choice([None, "deal d: x", "FAIL"])}
        for k, good in blocks.items():
            if rng.random() < 0.4:
                build[k] = rng.choice(good + _ODD)
        sel = rows[: rng.randint(0, 2)]
        window = {
            "agent": rng.choice([None, "", "wren"]),
            "from": rng.choice([None, "", "2026-01-01T00:00:00Z"]),
            "to": rng.choice([None, "2026-02-01"]),
            "unplaced_lines": rng.choice([[], [3, 5]]),
        }
        sid, prov = rng.choice(["", "s"]), rng.choice(["", "p"])
        ref_res = {
            **build,
            "window": {
                **window,
                "rows": len(sel),
                "first_line": sel[0]["line"] if sel else None,
                "last_line": sel[-1]["line"] if sel else None,
            },
        }
        try:
            want = ref_render_readme(ref_res, sel, system_id=sid, provider=prov)
        except (KeyError, TypeError, AttributeError):
            want = None
        got = pack_render.render_readme(build, window, sel, sid, prov)
        assert got == want, (build, window)
        outcomes.add(want is None)
    assert outcomes == {True, False}


def test_differential_page_tampering(tmp_path, quiet_tmp):
    """200 reference packs, a page or what it is rendered from tampered (module
    docstring), checked as a folder and as the same files re-packed into a zip read
    in place: the same words as verify_pack, check 9 the same word, reason word and
    drift reasons; no disagreement tolerated, nothing written or extracted."""
    rng = random.Random(200)
    seen: dict[str, set] = {"word": set(), "drift": set(), "op": set()}
    for i in range(200):
        out = _build(rng, tmp_path, i)
        op = _tamper(rng, out)
        z = tmp_path / f"z{i}.zip"
        write_zip(out, z)
        for path in (out, z):
            got, words, c9 = _ours(path)
            want, want9 = _reference(path)
            assert list(quiet_tmp.iterdir()) == []  # we extract nothing; the reference cleans up
            assert words == want, (i, op, path.name)
            assert c9 == want9, (i, op, path.name)
            if want[0] == "raises":
                assert (got["verdict"], got["exit_code"]) == ("COULD NOT LOOK", 3)
            else:
                assert (got["verdict"], got["exit_code"]) == want[:2]
            seen["word"].add(want[0])
            seen["drift"].update(want9[2] if want9 else ())
        seen["op"].add(op.split("+")[0])
    assert seen["word"] >= {"VERIFIED", "BROKEN", "COULD NOT LOOK", "raises"}
    assert seen["drift"] == set(DRIFTS)
    for must in ("number", "line", "space", "section", "crlf"):
        assert any(o.endswith(f":{must}") for o in seen["op"]), must


def test_a_crlf_summary_holds_and_a_crlf_readme_drifts(tmp_path, quiet_tmp):
    """The summary is compared with its CRLFs read as LF, the README byte for byte: a
    pack whose rewriter turned both pages to CRLF (and fixed the hashes) is BROKEN on
    check 9 by its README alone, folder and zip alike."""
    out = _plain(tmp_path, "crlf")
    assert _reference(out)[0][0] == "VERIFIED"
    for name in (SUMMARY, README):
        (out / name).write_bytes((out / name).read_bytes().replace(b"\n", b"\r\n"))
    _rehash(out)
    z = tmp_path / "crlf.zip"
    write_zip(out, z)
    for path in (out, z):
        _got, words, c9 = _ours(path)
        assert (words, c9) == _reference(path)
        assert c9 == ("BROKEN", None, ["readme drift"])
    (out / README).write_bytes((out / README).read_bytes().replace(b"\r\n", b"\n"))
    _rehash(out)
    _got, words, c9 = _ours(out)
    assert (words, c9) == _reference(out)
    assert words[0] == "VERIFIED" and c9 == ("VERIFIED", None, [])


def test_a_zip_member_page_is_read_in_place(tmp_path, quiet_tmp):
    """A zip whose README member was changed and re-packed with a valid CRC and a
    fixed manifest: check 9 finds the drift from the entry itself, extracting nothing."""
    out = _plain(tmp_path, "member")
    (out / README).write_bytes((out / README).read_bytes().replace(b"VERIFIED.", b"PASSED."))
    _rehash(out)
    z = tmp_path / "r.zip"
    write_zip(out, z)
    with zipfile.ZipFile(z) as zf:
        assert b"PASSED." in zf.read(README)
    got, words, c9 = _ours(z)
    assert (words, c9) == _reference(z)
    assert got["verdict"] == "BROKEN" and c9[2] == ["readme drift"]
    assert list(quiet_tmp.iterdir()) == []


_HOSTILE = [None, "", 0, 1, True, 1.5, "x", "\ud800", [], ["a"], {}, {"a": [1]}]
_HOSTILE += ["2026-13-40T09:00:00Z", "verified", "ns", "local_file", "none", "remote_url"]
_TARGETS = {
    "witness": [
        "kind",
        "identifier",
        "independence",
        "independence_source",
        "note",
        "namespace",
        "verdict",
        "detail",
        "witness_rows",
        "witness_chain",
        "self_integrity",
    ],
    "manifest": ["built_at", "deal", "mandate", "readings", "checks", "verdict", "prose"],
    "audit_export": ["system_id", "provider", "tool", "generated_at"],
    "window": ["agent", "from", "to"],
    "integrity": ["finding", "verdict", "checked_at", "records_sha256"],
}


def test_differential_hostile_values_the_pages_are_rendered_from(tmp_path, quiet_tmp):
    """150 reference packs with one to three hostile values (a lone surrogate, an
    unhashable kind or note, a stamp that is no date, a wrong type) put where check 9
    reads them, the hashes fixed or not: the reference's words, and where its check
    raises, COULD NOT LOOK naming the same exception; never a traceback."""
    rng = random.Random(3)
    raised = set()
    for i in range(150):
        out = _build(rng, tmp_path, i)
        m = json.loads((out / "manifest.json").read_text())
        integrity = json.loads((out / "integrity.json").read_text())
        places = {
            "witness": integrity.setdefault("witness", {}),
            "manifest": m,
            "audit_export": m.setdefault("audit_export", {}),
            "window": m.setdefault("window", {}),
            "integrity": integrity,
        }
        for _ in range(rng.randint(1, 3)):
            where = rng.choice(sorted(_TARGETS))
            places[where][rng.choice(_TARGETS[where])] = rng.choice(_HOSTILE)
        (out / "manifest.json").write_text(json.dumps(m, indent=2))
        (out / "integrity.json").write_text(json.dumps(integrity, indent=2))
        if rng.random() < 0.7:
            _rehash(out)
        got, words, c9 = _ours(out)
        want, want9 = _reference(out)
        assert (words, c9) == (want, want9), i
        if want[0] == "raises":
            raised.add(want[1])
            assert (got["verdict"], got["exit_code"]) == ("COULD NOT LOOK", 3)
    assert {"TypeError", "UnicodeEncodeError"} <= raised, raised


@pytest.mark.parametrize(
    "edit, raised",
    [
        (lambda m, wb: m.update(built_at="2026-13-40T09:00:00Z"), "PackUsageError"),
        (lambda m, wb: wb.pop("note"), "KeyError"),
        (lambda m, wb: wb.update(note=["a list"]), "TypeError"),
        (lambda m, wb: m["audit_export"].update(system_id="\ud800"), "UnicodeEncodeError"),
    ],
)
def test_where_the_references_check_9_raises_we_could_not_look_naming_it(
    tmp_path, quiet_tmp, edit, raised
):
    led = tmp_path / "l.jsonl"
    _rows(random.Random(1), led, 3)
    store = tmp_path / "pins.jsonl"
    WitnessStore(store).record("ns", Ledger(led).head())
    out = tmp_path / "p"
    build_pack(led, out, witness=str(store), witness_namespace="ns", built_at=BUILT_AT)
    m = json.loads((out / "manifest.json").read_text())
    integrity = json.loads((out / "integrity.json").read_text())
    edit(m, integrity["witness"])
    (out / "manifest.json").write_text(json.dumps(m, indent=2))
    (out / "integrity.json").write_text(json.dumps(integrity, indent=2))
    _rehash(out)
    with pytest.raises(Exception) as e:
        ref_verify_pack(out)
    assert type(e.value).__name__ == raised
    got, _words, c9 = _ours(out)
    assert (got["verdict"], got["exit_code"]) == ("COULD NOT LOOK", 3)
    assert got["detail"] == {"error": raised} and c9 is None

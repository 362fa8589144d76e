"""One answer through every door (issue 41): the same path gets one verdict word and one
exit code from `check`, `export` (JSON, Markdown, `--format github`), the fleet (an
entry of its own, and inside a run over its companions), JUnit and the VSA.

The paths: every sample, every public kinds corpus file (skipped when ../shared is
absent), and tampered copies of each kind (a byte edited, CRLF endings, a BOM, a
duplicate key, a cut tail; a unit's member removed and a digest re-listed). Each is
run in this process through `sealscope.main.main`, as the command runs it, so the
test reads real outputs of real files. Then the points of the issue, each on its own:
a witness store and a chain-less ledger are BROKEN / COULD NOT LOOK to every verb,
nothing looked at is COULD NOT LOOK, a folder's VSA is written by every verb, a
report's words are the three, export takes held content for a receipt file, a checked
bound is not said unchecked, and the registry opens a kind registered here in `check`
and `fleet` with no other file changed.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import sys
import types
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from sealscope.core import fleet, registry, verdict
from sealscope.main import main

from tests.conftest import SHARED

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
KINDS_CORPUS = SHARED / "conformance" / "corpus" / "kinds"
THREE = {verdict.VERIFIED: 0, verdict.BROKEN: 1, verdict.COULD_NOT_LOOK: 3}


def sealscope(*argv: str) -> tuple[int, str, str]:
    """The command run in this process: its exit code, stdout and stderr."""
    out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
        out.flush()
    return code, out.buffer.getvalue().decode("utf-8"), err.getvalue()  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- the paths


def _evidence_paths(root: Path) -> list[Path]:
    """Every file and unit folder under `root` a frontend could be handed, without
    Python's own files and caches: a pack or bundle folder as one path."""
    found: list[Path] = []
    for dirpath, dirs, files in os.walk(root):
        here = Path(dirpath)
        units = [d for d in dirs if registry.is_unit(_kind(here / d))]
        found += [here / d for d in units]
        dirs[:] = sorted(d for d in dirs if d not in units and d != "__pycache__")
        found += [here / f for f in sorted(files) if not f.endswith((".py", ".pyc"))]
    return found


def _kind(path: Path) -> str | None:
    from sealscope.core import kinds

    return kinds.identify(str(path)).kind


def _tampered(base: Path) -> list[Path]:
    """Tampered copies of one sample of each kind, in `base`."""
    made: list[Path] = []
    files = {
        "ledger": SAMPLES / "session.jsonl",
        "receipt": SAMPLES / "kinds" / "receipt.json",
        "distill": SAMPLES / "kinds" / "distill-receipt.json",
        "portable": SAMPLES / "kinds" / "portable-receipt.json",
        "verdict": SAMPLES / "kinds" / "continuity-verdict.json",
        "snapshot": SAMPLES / "seals" / "seal-day1.json",
        "harn": SAMPLES / "harn" / "session-transcript.json",
        "aat": SAMPLES / "packs" / "session-aat.jsonl",
        "calls": SAMPLES / "kinds" / "continuity.calls.jsonl",
        "zip": SAMPLES / "packs" / "session-pack.zip",
    }
    for name, src in files.items():
        data = src.read_bytes()
        suffix = "".join(src.suffixes[-1:])
        mid = len(data) // 2
        edits = {
            "byte": data[:mid] + bytes([data[mid] ^ 0x01]) + data[mid + 1 :],
            "crlf": data.replace(b"\n", b"\r\n"),
            "bom": b"\xef\xbb\xbf" + data,
            "cut": data[: max(1, len(data) - 7)],
        }
        text = data.decode("utf-8", "replace")
        if text.lstrip().startswith("{"):  # a duplicate key in the first object
            at = text.index("{") + 1
            edits["dupkey"] = (text[:at] + '"x": 1, "x": 2, ' + text[at:]).encode()
        for edit, body in edits.items():
            path = base / f"{name}-{edit}{suffix}"
            path.write_bytes(body)
            made.append(path)
    bundle = base / "bundle-removed"
    shutil.copytree(SAMPLES / "packs" / "session-bundle", bundle)
    (bundle / "manifest.json").unlink()  # a member removed
    made.append(bundle)
    relisted = base / "bundle-relisted"
    shutil.copytree(SAMPLES / "packs" / "session-bundle", relisted)
    integrity = json.loads((relisted / "integrity.json").read_text())
    for key in integrity:
        if "sha256" in key and isinstance(integrity[key], str):  # a digest re-listed
            integrity[key] = "0" * 64
    (relisted / "integrity.json").write_text(json.dumps(integrity))
    made.append(relisted)
    return made


@pytest.fixture(scope="module")
def tampered(tmp_path_factory) -> list[Path]:
    return _tampered(tmp_path_factory.mktemp("tampered"))


# --------------------------------------------------------------------------- one path


def _answers(path: Path, out: Path) -> dict[str, tuple[str | None, int]]:
    """Every frontend's (word, exit code) for one path; word None where a frontend
    says no word (a file of no kind: export refuses it with one line, exit 3)."""
    p = str(path)
    got: dict[str, tuple[str | None, int]] = {}
    code, stdout, _ = sealscope("check", p, "--json")
    (res,) = json.loads(stdout)
    assert (res["verdict"], res["exit_code"]) in THREE.items()
    got["check"] = (res["verdict"], code)
    assert code == res["exit_code"]
    report = out / "report.json"
    code, _, _ = sealscope("export", p, "--format", "json", "-o", str(report))
    word = json.loads(report.read_text())["verdict"] if report.exists() else None
    if report.exists():
        assert json.loads(report.read_text())["exit_code"] == code
        report.unlink()
    got["export json"] = (word, code)
    md = out / "report.md"
    code, _, _ = sealscope("export", p, "-o", str(md))
    said = re.search(r"^- verdict: \*\*(.+?)\*\*", md.read_text(), re.M) if md.exists() else None
    got["export md"] = (said.group(1) if said else None, code)
    md.unlink(missing_ok=True)
    code, stdout, _ = sealscope("export", p, "--format", "github")
    got["export github"] = (word, code)
    entry = fleet.audit_path(p, ctx=fleet.fleet_context([(p, None)]))
    got["fleet"] = (entry.verdict if entry.evidence else None, entry.exit_code)
    if not entry.evidence:  # listed, not judged: the run holds nothing
        got["fleet"] = (None, fleet.summarize([entry], 0.0).exit_code)
    junit, vsa = out / "junit.xml", out / "vsa.json"
    code, _, _ = sealscope("check", p, "--junit", str(junit), "--vsa", str(vsa))
    got["check --junit --vsa"] = (res["verdict"], code)
    suite = ET.parse(junit).getroot()
    failures = sum(int(s.get("failures") or 0) for s in suite.iter("testsuite"))
    assert (failures > 0) == (res["exit_code"] == 1), p
    if vsa.exists():
        result = json.loads(vsa.read_text())["predicate"]["verificationResult"]
        assert result == ("PASSED" if res["exit_code"] == 0 else "FAILED"), p
        vsa.unlink()
    else:
        assert res["exit_code"] != 0, f"{p}: a VERIFIED path and no VSA"
    junit.unlink()
    return got


def _agree(path: Path, out: Path) -> None:
    got = _answers(path, out)
    word, code = got["check"]
    for door, (w, c) in got.items():
        assert c == code, f"{path}: {door} exits {c}, check {code} ({got})"
        assert w in (word, None), f"{path}: {door} says {w}, check {word} ({got})"
        if w is None:  # a frontend that gives no word gives no green either
            assert c != 0, f"{path}: {door} exits 0 without a word"


def _samples() -> list[Path]:
    return _evidence_paths(SAMPLES)


@pytest.mark.parametrize("path", _samples(), ids=lambda p: str(p.relative_to(SAMPLES)))
def test_every_sample_gets_one_word_and_one_code(path, tmp_path):
    _agree(path, tmp_path)


def test_every_tampered_copy_gets_one_word_and_one_code(tampered, tmp_path):
    for path in tampered:
        _agree(path, tmp_path)


def test_every_kinds_corpus_file_gets_one_word_and_one_code(tmp_path):
    if not KINDS_CORPUS.is_dir():
        pytest.skip("../shared/conformance/corpus/kinds is not present")
    for path in _evidence_paths(KINDS_CORPUS):
        if path.name in ("cases.jsonl", ".gitattributes"):
            continue
        _agree(path, tmp_path)


def test_one_run_with_companions_says_each_path_what_it_says_alone(tmp_path):
    """The samples as one run: `check` of every path and `fleet` / `export DIR` of the
    folder judge each path alike (a ledger with its verdicts and artefacts beside it:
    the run's context), and the folder's word is the worst of theirs."""
    root = tmp_path / "run"
    shutil.copytree(SAMPLES, root, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    paths = [str(p) for p in _evidence_paths(root)]
    _code, stdout, _ = sealscope("check", *paths, "--json")
    checked = {d["path"]: d for d in json.loads(stdout)}
    fcode, stdout, _ = sealscope("fleet", str(root), "--json")
    docs = [json.loads(line) for line in stdout.splitlines()]
    summary = docs.pop()["summary"]
    judged = {d["path"]: d for d in docs if d.get("exit_code") is not None}
    for path, d in judged.items():
        assert (d["verdict"], d["exit_code"]) == (
            checked[path]["verdict"],
            checked[path]["exit_code"],
        ), path
    for d in docs:
        if d.get("exit_code") is None:  # listed with why; check could not look either
            assert d["reason"] and checked[d["path"]]["exit_code"] == 3, d["path"]
    report = tmp_path / "dir.json"
    ecode, _, _ = sealscope("export", str(root), "--format", "json", "-o", str(report))
    doc = json.loads(report.read_text())
    assert {f["path"]: (f["verdict"], f["exit_code"]) for f in doc["files"]} == {
        p: (d["verdict"], d["exit_code"]) for p, d in judged.items()
    }
    assert ecode == fcode == summary["exit_code"] == doc["exit_code"]
    assert doc["verdict"] == verdict.worst_word(d["verdict"] for d in judged.values())


# --------------------------------------------------------------------------- the points


def _fleet_json(*argv: str) -> tuple[int, list[dict], dict]:
    code, stdout, _ = sealscope("fleet", *argv, "--json")
    docs = [json.loads(line) for line in stdout.splitlines()]
    return code, docs, docs.pop()["summary"]


def test_a_witness_store_and_a_chainless_ledger_are_ledgers_to_every_verb(tmp_path):
    """Issue 41: `fleet` and `export DIR` set them aside as "held content" / "a witness
    store" and said COULD NOT LOOK; they are `.jsonl` ledgers (KINDS.md §1)."""
    shutil.copy(SAMPLES / "kinds" / "portable.ledger.jsonl.witness.jsonl", tmp_path / "w.jsonl")
    rows = [json.loads(line) for line in (SAMPLES / "session.jsonl").read_text().splitlines()]
    first = json.dumps(rows[0])
    (tmp_path / "dup.jsonl").write_text(
        first[:-1] + ', "ts": "again"}\n' + "".join(json.dumps(r) + "\n" for r in rows[1:])
    )
    (tmp_path / "nochain.jsonl").write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "chain"}) + "\n" for r in rows)
    )
    code, docs, summary = _fleet_json(str(tmp_path))
    by = {Path(d["path"]).name: d for d in docs}
    assert summary["not_evidence"] == 0
    for name in ("w.jsonl", "dup.jsonl", "nochain.jsonl"):
        _c, stdout, _ = sealscope("check", str(tmp_path / name), "--json")
        (res,) = json.loads(stdout)
        assert res["kind"] == "ledger"
        assert (by[name]["verdict"], by[name]["exit_code"]) == (res["verdict"], res["exit_code"])
    assert by["w.jsonl"]["verdict"] == by["dup.jsonl"]["verdict"] == verdict.BROKEN
    assert code == 1


def test_nothing_looked_at_is_could_not_look(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    code, stdout, _ = sealscope("fleet", str(empty))
    assert code == 3 and stdout.startswith(verdict.COULD_NOT_LOOK)
    held = tmp_path / "held"
    held.mkdir()
    shutil.copy(SAMPLES / "held" / "liar-pre.json", held / "pre.json")
    code, _docs, summary = _fleet_json(str(held))
    assert (code, summary["exit_code"], summary["not_evidence"]) == (3, 3, 1)
    code, _, _ = sealscope("fleet", str(held), "--vsa", str(tmp_path / "v.json"))
    assert code == 3


def test_every_file_of_a_covered_kind_is_audited_and_the_rest_listed(tmp_path):
    """A `distill.out` (the stdout of `arcaeon distill`) is a distill receipt whatever
    its name; a lock file beside a ledger is listed with why."""
    shutil.copy(SAMPLES / "kinds" / "distill-receipt.json", tmp_path / "distill.out")
    shutil.copy(SAMPLES / "session.jsonl", tmp_path / "session.jsonl")
    (tmp_path / "session.jsonl.lock").write_bytes(b"")
    code, docs, summary = _fleet_json(str(tmp_path))
    by = {Path(d["path"]).name: d for d in docs}
    assert by["distill.out"]["kind"] == "distill-receipt"
    assert by["session.jsonl.lock"]["not_evidence"] is True and by["session.jsonl.lock"]["reason"]
    assert (code, summary["units"], summary["not_evidence"]) == (0, 1, 1)
    report = tmp_path.parent / "dir.json"
    sealscope("export", str(tmp_path), "--format", "json", "-o", str(report))
    doc = json.loads(report.read_text())
    assert [Path(f["path"]).name for f in doc["files"]].count("distill.out") == 1
    assert [Path(x["path"]).name for x in doc["not_evidence"]] == ["session.jsonl.lock"]


@pytest.mark.parametrize("unit", ["bundle", "zip"])
def test_a_units_vsa_is_written_by_every_verb_with_one_word(unit, tmp_path):
    src = SAMPLES / "packs" / ("session-bundle" if unit == "bundle" else "session-pack.zip")
    path = tmp_path / src.name
    (shutil.copytree if unit == "bundle" else shutil.copy)(src, path)
    got = {}
    for verb, argv in (
        ("check", ["check", str(path)]),
        ("export", ["export", str(path), "-o", str(tmp_path / "r.md")]),
        ("fleet", ["fleet", str(path)]),
    ):
        vsa = tmp_path / f"{verb}.vsa.json"
        code, _, err = sealscope(*argv, "--vsa", str(vsa))
        doc = json.loads(vsa.read_text())
        got[verb] = (
            code,
            doc["predicate"]["verificationResult"],
            sorted(s["name"] for s in doc["subject"]),
        )
        if verb == "export":
            assert f"({verdict.VERIFIED}, exit 0)" in err
    assert got["check"] == got["export"] == got["fleet"]
    assert got["check"][:2] == (0, "PASSED")


def test_a_report_says_one_of_three_words_and_its_checks_own_beside_it(tmp_path):
    liar, held = SAMPLES / "liar.jsonl", SAMPLES / "held"
    flags = ["--pre", str(held / "liar-pre.json"), "--post", str(held / "liar-post.json")]
    code, stdout, _ = sealscope("export", str(liar), *flags, "--format", "json")
    doc = json.loads(stdout)
    (rec,) = doc["session"]
    assert (doc["verdict"], rec["verdict"], code) == (verdict.BROKEN, verdict.BROKEN, 1)
    assert rec["checked"] == "held content: does not match"
    rcode, _, _ = sealscope("receipts", str(liar), *flags)
    assert rcode == code
    _c, md, _ = sealscope("export", str(liar), *flags)
    assert "FAIL" not in md and "PASS" not in md and "- held content: does not match" in md
    _c, stdout, _ = sealscope(
        "export", str(SAMPLES / "seals" / "seal-day1.json"), "--format", "json"
    )
    assert json.loads(stdout)["verdict"] == verdict.VERIFIED
    _c, stdout, _ = sealscope("check", str(SAMPLES / "seals" / "seal-day1.json"), "--json")
    assert json.loads(stdout)[0]["ok"] is True  # KINDS.md §11.3: `ok` is `valid`


def test_export_takes_held_content_for_a_receipt_file(tmp_path):
    receipt, held = SAMPLES / "kinds" / "receipt.json", SAMPLES / "held"
    flags = ["--pre", str(held / "liar-pre.json"), "--post", str(held / "liar-post.json")]
    rcode, _, _ = sealscope("receipts", str(receipt), *flags)
    code, stdout, _ = sealscope("export", str(receipt), *flags, "--format", "json")
    doc = json.loads(stdout)
    assert code == rcode == doc["exit_code"] == 1 and doc["verdict"] == verdict.BROKEN
    assert doc["file_verdict"] == verdict.VERIFIED and doc["session"][0]["kind"] == "recompute"
    code, stdout, _ = sealscope("export", str(receipt), *flags, "--format", "github")
    assert code == 1 and "::error" in stdout


def test_a_checked_bound_is_not_said_unchecked(tmp_path):
    session, held = SAMPLES / "session.jsonl", SAMPLES / "held"
    flags = ["--pre", str(held / "session-pre.jsonl"), "--post", str(held / "session-post.jsonl")]
    _c, table, _ = sealscope("receipts", str(session), *flags)
    matched = [ln.split()[0] for ln in table.splitlines() if "content:match" in ln]
    assert matched  # the held content matches a row: its content was checked
    code, stdout, _ = sealscope("export", str(session), *flags, "--format", "github")
    notices = [ln for ln in stdout.splitlines() if ln.startswith("::notice")]
    assert code == 0
    for line in matched:
        assert not any(f"line={line}," in n and "bounded_no_content" in n for n in notices)


def test_a_folder_hint_names_the_fleet_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("plain").mkdir()
    _c, stdout, _ = sealscope("check", "plain")
    assert "`sealscope fleet plain`" in stdout
    bundle = tmp_path / "bundle"
    shutil.copytree(SAMPLES / "packs" / "session-bundle", bundle)
    _c, _out, err = sealscope("verify", str(bundle))
    assert "sealscope check" in err and "sealscope fleet" not in err


# --------------------------------------------------------------------------- the registry


@pytest.fixture
def fake_kind(monkeypatch):
    """A kind registered here, with its checker a module made here: nothing else in
    the tree knows it."""
    from sealscope.core.checks.result import KindCheck

    module = types.ModuleType("fake_kinds.checker")

    def check(path, ctx):
        doc = json.loads(Path(path).read_text())
        ok = doc.get("honest") is True
        return KindCheck(path, "fake-kind", ok, {"honest": ok}, reason="" if ok else "lies")

    module.check = check  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_kinds", types.ModuleType("fake_kinds"))
    monkeypatch.setitem(sys.modules, "fake_kinds.checker", module)
    registry.register(
        registry.KindRecord(
            "fake-kind",
            "a fake kind",
            "one object whose `schema` is `fake:v1`",
            "fake_kinds.checker",
            registry.DOCUMENT,
            matches=lambda doc: doc.get("schema") == "fake:v1",
        )
    )
    yield
    registry.unregister("fake-kind")


def test_a_registered_kind_opens_in_check_fleet_and_export(fake_kind, tmp_path):
    (tmp_path / "good.json").write_text('{"schema": "fake:v1", "honest": true}')
    (tmp_path / "bad.json").write_text('{"schema": "fake:v1", "honest": false}')
    code, stdout, _ = sealscope("check", str(tmp_path / "good.json"), str(tmp_path / "bad.json"))
    assert code == 1
    assert stdout.splitlines()[0].startswith(f"{verdict.VERIFIED}  fake-kind")
    assert stdout.splitlines()[1].startswith(f"{verdict.BROKEN}  fake-kind")
    entries = [fleet.audit_path(str(p)) for p, _n in fleet.walk([str(tmp_path)])]
    assert sorted((e.kind, e.verdict) for e in entries) == [
        ("fake-kind", verdict.BROKEN),
        ("fake-kind", verdict.VERIFIED),
    ]
    assert fleet.count_words(fleet.summarize(entries, 0.0)) == "0 ledgers, 2 fake-kinds"
    code, stdout, _ = sealscope("export", str(tmp_path / "bad.json"), "--format", "json")
    doc = json.loads(stdout)
    assert (code, doc["kind"], doc["verdict"]) == (1, "fake-kind", verdict.BROKEN)

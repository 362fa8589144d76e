"""Issue 28 (b), one truth for row checks: a ledger whose rows carry checks of their own
(KINDS.md §11.2: a `continuity_verify` row, an artefact binding, a call row, a distill
receipt row) gets one word and one exit code from `check`, `export`, `fleet` (and its
VSA) and the viewer's banner. Before the row checks entered `verdict.ledger`, `fleet`
and the banner judged chain and receipts only and said VERIFIED where `check` and
`export` said COULD NOT LOOK or BROKEN."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sealscope.core import ledger

from tests.viewer.viewer_helpers import SAMPLES, opened, sync, until

KINDS = SAMPLES / "kinds"
EXE = Path(sys.executable).with_name("sealscope")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [str(EXE)] if EXE.is_file() else [sys.executable, "-m", "sealscope"]
    return subprocess.run(
        [*cmd, *args],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def _call_row_ledger(path: Path) -> Path:
    """A chain that holds, with on line 2 a call row whose `args` do not give its
    `args_digest` (the writer's recipe): BROKEN by its row check alone."""
    ledger.append(path, {"op": "start", "ts": "2026-03-02T10:00:00Z"})
    ledger.append(
        path,
        {
            "op": "tool_call",
            "tool": "seal",
            "ts": "2026-03-02T10:00:01.000000+00:00",
            "args_digest": "0" * 64,
            "args": {"label": "day 1"},
            "args_bytes": 17,
            "ok": True,
        },
    )
    return path


def _distill_row_ledger(path: Path) -> Path:
    """A chain that holds, with a sealed distill receipt whose `truncated` disagrees
    with its drops: BROKEN by its row check alone."""
    receipt = json.loads((KINDS / "distill-receipt.json").read_text())
    receipt = receipt.get("receipt", receipt)
    receipt = dict(receipt, kind="distill_receipt", truncated=not receipt["truncated"])
    ledger.append(path, {"op": "start", "ts": "2026-03-02T10:00:00Z"})
    ledger.append(path, receipt)
    return path


CASES = {  # file → the one answer (word, exit code) of every frontend
    "continuity.jsonl": ("COULD NOT LOOK", 3),  # a continuity_verify row, no verdict held
    "artefacts.jsonl": ("VERIFIED", 0),  # artefact bindings, not held: within a bound
    "call-row.jsonl": ("BROKEN", 1),
    "distill-row.jsonl": ("BROKEN", 1),
}


@pytest.fixture
def evidence(tmp_path: Path):
    def path_of(name: str) -> Path:
        if name == "call-row.jsonl":
            return _call_row_ledger(tmp_path / name)
        if name == "distill-row.jsonl":
            return _distill_row_ledger(tmp_path / name)
        return KINDS / name

    return path_of


def _vsa_result(path: Path) -> tuple[str, int]:
    doc = json.loads(path.read_text())
    (r,) = doc["predicate"]["sealscope"]["results"]
    return r["verdict"], r["exit_code"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_export_fleet_and_the_banner_agree(name, evidence, tmp_path):
    word, code = CASES[name]
    path = evidence(name)

    chk = _cli("check", str(path), "--json")
    (res,) = json.loads(chk.stdout)
    assert (res["kind"], res["verdict"], res["exit_code"], chk.returncode) == (
        "ledger",
        word,
        code,
        code,
    ), chk.stdout + chk.stderr

    exp = _cli("export", str(path), "--format", "json")
    doc = json.loads(exp.stdout)
    assert (doc["verdict"], doc["exit_code"], exp.returncode) == (word, code, code), exp.stderr

    junit = _cli("export", str(path), "--format", "json", "--junit", str(tmp_path / "e.xml"))
    assert junit.returncode == code
    fl = _cli(
        "fleet",
        str(path),
        "--json",
        "--vsa",
        str(tmp_path / "f.vsa"),
        "--junit",
        str(tmp_path / "f.xml"),
    )
    entry, summary = (json.loads(line) for line in fl.stdout.splitlines())
    assert (entry["verdict"], entry["exit_code"], fl.returncode) == (word, code, code), fl.stdout
    assert summary["summary"]["exit_code"] == code
    assert _vsa_result(tmp_path / "f.vsa") == (word, code)
    # a JUnit case per row check, in export's and fleet's, named as `check`'s are
    for e in res["detail"]["rows_checked"]:
        case = f'name="line {e["line"]} {e["check"]}"'
        assert case in (tmp_path / "e.xml").read_text(), e
        assert case in (tmp_path / "f.xml").read_text(), e
    # the fleet entry carries the row checks it was judged by, as `check` reports them
    assert [(e["line"], e["check"], e["verdict"]) for e in entry["rows_checked"]] == [
        (e["line"], e["check"], e["verdict"])
        for e in res["detail"]["rows_checked"]
        if e["check"] != "compaction-receipt"
    ]

    async def banner() -> None:
        async with opened([path]) as (app, pilot):
            (tab,) = app.ledger_tabs()
            await until(pilot, lambda: tab.checks.rows is not None, "row checks never came in")
            await until(pilot, lambda: tab.tab_verdict is not None, "no verdict")
            assert tab.tab_verdict == (word, code)
            assert f" {word} " in str(tab.banner.render())

    sync(banner)()


def test_an_artefact_binding_not_held_names_its_bound_everywhere():
    """Not held, a binding is VERIFIED within a bound, and the bound is said: on
    `check`'s line, in the fleet entry and on the banner."""
    path = KINDS / "artefacts.jsonl"
    chk = _cli("check", str(path))
    assert chk.returncode == 0 and "2 artefacts not held" in chk.stdout, chk.stdout
    fl = _cli("fleet", str(path))
    assert fl.returncode == 0 and "2 artefacts not held" in fl.stdout, fl.stdout

    async def banner() -> None:
        async with opened([path]) as (app, pilot):
            (tab,) = app.ledger_tabs()
            await until(pilot, lambda: tab.checks.rows is not None, "row checks never came in")
            await until(pilot, lambda: "artefacts not held" in str(tab.banner.render()))
            assert tab.tab_verdict == ("VERIFIED", 0)

    sync(banner)()


def test_an_artefact_held_in_a_folder_matches_or_not(tmp_path):
    """`--artefacts DIR`: the named artefact held and unchanged → VERIFIED, nothing
    left unheld for the named one; changed → BROKEN 1, on `check` and `export`."""
    path = KINDS / "artefacts.jsonl"
    held = tmp_path / "held"
    held.mkdir()
    shutil.copy(KINDS / "artefact-report.md", held / "artefact-report.md")
    shutil.copy(KINDS / "artefact-decision.json", held / "artefact-decision.json")
    chk = _cli("check", str(path), "--artefacts", str(held), "--json")
    (res,) = json.loads(chk.stdout)
    assert (res["verdict"], chk.returncode) == ("VERIFIED", 0)
    assert [e["held"] for e in res["detail"]["rows_checked"]] == ["match", "match"]
    assert res["bound"] is None  # every binding held: nothing left within a bound

    (held / "artefact-report.md").write_text("not the report that was bound\n")
    chk = _cli("check", str(path), "--artefacts", str(held), "--json")
    (res,) = json.loads(chk.stdout)
    assert (res["verdict"], chk.returncode) == ("BROKEN", 1)
    assert [e["held"] for e in res["detail"]["rows_checked"]] == ["mismatch", "match"]
    exp = _cli("export", str(path), "--artefacts", str(held), "--format", "json")
    doc = json.loads(exp.stdout)
    assert (doc["verdict"], exp.returncode) == ("BROKEN", 1), exp.stderr


def test_a_row_check_appended_while_following_enters_the_banner(tmp_path, monkeypatch):
    """A followed ledger gains a continuity_verify row no held verdict matches: the
    tab's verdict goes from VERIFIED to COULD NOT LOOK, as `check` says of the file."""
    from sealscope.viewer.app import SealscopeApp
    from sealscope.viewer.follow_mode import FollowMode

    monkeypatch.setattr(FollowMode, "follow_poll", 0.03)
    p = tmp_path / "live.jsonl"
    ledger.append(p, {"op": "start", "ts": "2026-03-02T10:00:00Z"})
    row = json.loads((KINDS / "continuity.jsonl").read_text())
    row.pop("chain")

    async def body() -> None:
        app = SealscopeApp([p])
        async with app.run_test(size=(120, 36)) as pilot:
            (tab,) = app.ledger_tabs()
            await until(pilot, lambda: tab.following and tab.checks.rows is not None)
            assert tab.tab_verdict == ("VERIFIED", 0)
            ledger.append(p, row)
            await until(pilot, lambda: tab.result.rows == 2, "the appended row never came")
            await until(pilot, lambda: bool(tab.checks.rows), "its row check never came")
            assert tab.tab_verdict == ("COULD NOT LOOK", 3)
            assert tab.rows.own_checks == {2: ("COULD NOT LOOK", "continuity: unmatched")}

    sync(body)()
    (res,) = json.loads(_cli("check", str(p), "--json").stdout)
    assert (res["verdict"], res["exit_code"]) == ("COULD NOT LOOK", 3)

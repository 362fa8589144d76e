"""`fleet.outcome`, a whole fleet's one verdict (the fleet tab's label), and
`fleet.why_not`, what a row that is not VERIFIED says without being opened: on real
files, audited by `fleet.audit_file` as the tab and `sealscope fleet` audit them."""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

from sealscope.core import fleet, verdict

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ledgers"


def _audited(folder: Path) -> list[fleet.FleetEntry]:
    skipped: list[tuple[str, str]] = []
    out = [fleet.audit_file(p) for p, _n in fleet.walk([str(folder)], skipped=skipped)]
    return out + [fleet.unreadable_entry(p, why) for p, why in skipped]


def test_a_fleet_is_broken_when_one_ledger_is_and_could_not_look_when_nothing_was_audited(
    tmp_path,
):
    assert fleet.outcome([]) == (verdict.COULD_NOT_LOOK, verdict.COULD_NOT)
    shutil.copy(SAMPLES / "session.jsonl", tmp_path / "a.jsonl")
    assert fleet.outcome(_audited(tmp_path)) == (verdict.VERIFIED, verdict.HELD)
    shutil.copy(SAMPLES / "declared-break.jsonl", tmp_path / "b.jsonl")
    assert fleet.outcome(_audited(tmp_path)) == (verdict.COULD_NOT_LOOK, verdict.COULD_NOT)
    shutil.copy(SAMPLES / "tampered.jsonl", tmp_path / "c.jsonl")
    entries = _audited(tmp_path)
    assert fleet.outcome(entries) == (verdict.BROKEN, verdict.WRONG)
    assert fleet.outcome(entries).exit_code == fleet.summarize(entries, 0.0).exit_code


def test_held_content_named_jsonl_is_a_ledger_judged_as_check_judges_it(tmp_path):
    """A `.jsonl` file of held content is a ledger (KINDS.md §1), not set aside: its
    word is `check`'s, and the fleet's is the worst of the entries'."""
    from sealscope.core import checks

    shutil.copy(SAMPLES / "session.jsonl", tmp_path / "a.jsonl")
    shutil.copy(SAMPLES / "held" / "session-pre.jsonl", tmp_path / "held.jsonl")
    entries = _audited(tmp_path)
    want = checks.run([str(tmp_path / "held.jsonl")])[0]
    assert [(e.kind, e.verdict) for e in fleet.worst_first(entries)] == [
        ("ledger", want.verdict),
        ("ledger", verdict.VERIFIED),
    ]
    assert fleet.outcome(entries) == (want.verdict, want.exit_code) == (verdict.BROKEN, 1)


def test_nothing_judged_is_could_not_look(tmp_path):
    """An empty folder, or one of held `.json` content only: nothing was looked at,
    so the run is COULD NOT LOOK 3, in `summarize` as in `outcome`."""
    assert fleet.summarize(_audited(tmp_path), 0.0).exit_code == verdict.COULD_NOT
    shutil.copy(SAMPLES / "held" / "liar-pre.json", tmp_path / "pre.json")
    entries = [fleet.audit_path(p) for p, _n in fleet.walk([str(tmp_path)])]
    assert [e.evidence for e in entries] == [False]
    assert fleet.summarize(entries, 0.0).exit_code == verdict.COULD_NOT
    assert fleet.outcome(entries) == (verdict.COULD_NOT_LOOK, verdict.COULD_NOT)


def test_why_not_names_a_fifo_a_socket_a_dangling_link_an_empty_file(tmp_path, monkeypatch):
    d = tmp_path / "f"
    d.mkdir()
    shutil.copy(SAMPLES / "session.jsonl", d / "ok.jsonl")
    os.mkfifo(d / "pipe.jsonl")
    (d / "empty.jsonl").write_bytes(b"")
    os.symlink(d / "gone.jsonl", d / "dangling.jsonl")
    os.symlink(tmp_path / "away.jsonl", d / "out.jsonl")  # out of the folder, dangling
    sock = socket.socket(socket.AF_UNIX)
    try:
        monkeypatch.chdir(d)  # a relative name: a socket's path has a short limit
        sock.bind("s.jsonl")
        why = {Path(e.path).name: fleet.why_not(e) for e in _audited(d)}
    finally:
        sock.close()
    assert why == {
        "ok.jsonl": "",
        "pipe.jsonl": "a FIFO (named pipe): not read",
        "empty.jsonl": "empty file",
        "dangling.jsonl": "a dangling link: no target",
        "out.jsonl": "a dangling link: no target",
        "s.jsonl": "a socket: not read",
    }

"""Evidence of the other kinds written by the reference's own writers (arcaeon, the
test-only oracle), the reference's answers on it as `KindCheck`s, and the driving of a
kind's tab in the viewer: shared by the kind-tab tests and snapshots."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.text import Text
from sealscope.core import verdict
from sealscope.core.checks.result import KindCheck
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.check_list import KindBanner
from textual.widgets import OptionList, Static, TabbedContent

from tests.viewer.viewer_helpers import SAMPLES, until

HOSTILE = "\x1b[31mred[/] [bold]x\u202e\x07"
HOSTILE_SHOWN = "\\x1b[31mred[/] [bold]x"  # what the sanitizer leaves of it


# ------------------------------------------------------------------ evidence made here


def session_rows() -> list[dict]:
    return [
        json.loads(x) for x in (SAMPLES / "session.jsonl").read_text().splitlines() if x.strip()
    ]


def receipt_file(folder: Path, name: str = "receipt.json", **edit) -> Path:
    """Line 7 of the sample session (a v2 receipt) as its own pretty file, no chain."""
    row = session_rows()[6]
    assert row["kind"] == "compaction_receipt"
    row.pop("chain")
    row.update(edit)
    p = folder / name
    p.write_text(json.dumps(row, indent=2))
    return p


def pack(folder: Path, *, zipped: bool = False) -> Path:
    from arcaeon.prove.evidence_pack import build_pack

    out = folder / "pack"
    build_pack(SAMPLES / "session.jsonl", out, built_at="2026-03-02T00:00:00Z", zip_out=zipped)
    if zipped:
        z = folder / "pack.zip"
        assert z.is_file()
        return z
    return out


def aat_export(folder: Path, name: str = "aat.jsonl") -> Path:
    from arcaeon.prove.aat_export import export_aat

    out = folder / name
    export_aat(SAMPLES / "session.jsonl", out)
    return out


# ------------------------------------------------------------------ the reference's answers


def oracle_receipt(path: Path) -> KindCheck:
    """`arcaeon compact FILE`'s answer as a KindCheck (KINDS.md §2.3)."""
    from arcaeon.prove.compact import verify_receipt

    r = verify_receipt(json.loads(path.read_text()))
    keys = (
        "self_consistent",
        "content",
        "schema",
        "understatement_check",
        "verified_scope",
        "notes",
    )
    return KindCheck(
        str(path),
        "receipt",
        r["ok"],
        {k: r.get(k) for k in keys},
        bound="self-consistent, content not checked" if r["ok"] else "",
    )


def oracle_pack(path: Path) -> KindCheck:
    """`arcaeon evidence-pack verify`'s answer as a KindCheck (KINDS.md §8.3)."""
    from arcaeon.prove.evidence_pack_verify import verify_pack

    r = verify_pack(path)
    return KindCheck(
        str(path),
        "evidence-pack",
        None,
        {"verdict": r["verdict"], "exit": r["exit"], "checks": r["checks"]},
        word=r["verdict"],
    )


def oracle_aat(path: Path) -> dict:
    from arcaeon.prove.aat_export import verify_aat_bytes

    return verify_aat_bytes(path.read_bytes())


def tree_digest(folder: Path) -> dict[str, str]:
    """Every file under `folder` (not followed through links) and its sha256."""
    out = {}
    for root, _dirs, files in os.walk(folder):
        for f in files:
            p = Path(root) / f
            if not p.is_symlink():
                out[str(p.relative_to(folder))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


# ------------------------------------------------------------------ driving the viewer


def run(coro) -> None:
    asyncio.run(coro)


def empty_app() -> SealscopeApp:
    """The viewer with no file open (tabs are added by the test)."""
    app = SealscopeApp([os.devnull])
    app.paths = []
    return app


async def settled(app, pilot, tab) -> None:
    await until(
        pilot,
        lambda: tab.tab_verdict is not None and not any(w.is_running for w in app.workers),
        "the tab never judged",
    )
    await pilot.pause()


@contextlib.asynccontextmanager
async def showing(tab, size=(120, 36)):
    """The viewer with `tab` added and in front, its check in and drawn."""
    app = empty_app()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await app.query_one(TabbedContent).add_pane(tab)
        app.show_tab(tab)
        app.clear_notifications()
        await settled(app, pilot, tab)
        yield app, pilot


def banner_of(tab) -> str:
    content = tab.query_one(KindBanner).content
    assert isinstance(content, Text)
    return content.plain


def static_text(tab, selector: str) -> str:
    content = tab.query_one(selector, Static).content
    return content.plain if isinstance(content, Text) else str(content)


def rows_of(tab, selector: str) -> list[str]:
    ol = tab.query_one(selector, OptionList)
    out = []
    for i in range(ol.option_count):
        prompt = ol.get_option_at_index(i).prompt
        out.append(prompt.plain if isinstance(prompt, Text) else str(prompt))
    return out


# ------------------------------------------------------------------ distill, portable, verdict


def distill_file(folder: Path, **edit) -> Path:
    from arcaeon.save.distill import distill

    got = distill({"report": "x" * 6000, "ids": list(range(400))}, budget=120)
    rec = dict(got.receipt.to_dict() if hasattr(got.receipt, "to_dict") else got.receipt)
    rec.update(edit)
    p = folder / "drop.json"
    p.write_text(json.dumps(rec, indent=1))
    return p


def oracle_distill(path: Path) -> KindCheck:
    from arcaeon.save.distill import verify_receipt

    r = verify_receipt(json.loads(path.read_text()))
    return KindCheck(
        str(path),
        "distill-receipt",
        r["ok"],
        {"verified_scope": r["verified_scope"], "source": "document", "notes": r.get("notes")},
        bound="structure only, content not carried" if r["ok"] else "",
    )


def portable_file(folder: Path) -> tuple[Path, Path]:
    from arcaeon.record.receipt.core import build_receipt

    ledger = folder / "issuer.ledger.jsonl"
    r = build_receipt(
        "cite",
        {"doc": HOSTILE},
        [{"name": "cited", "score": 1}],
        {"proves": ["the citation was checked"], "does_not_prove": ["that the source is true"]},
        ledger_path=ledger,
        namespace="cite",
        witness=False,
        anchor=False,
        issued_at="2026-03-01T10:00:00Z",
    )
    p = folder / "cite.json"
    p.write_text(json.dumps(r, indent=1, ensure_ascii=False))
    return p, ledger


def oracle_portable(path: Path, ledger: Path | None) -> KindCheck:
    from arcaeon.record.receipt.core import verify_receipt

    text = path.read_text()
    r = verify_receipt(json.loads(text), ledger_path=ledger, source_text=text)
    return KindCheck(
        str(path),
        "portable-receipt",
        r["ok"],
        r,
        bound="" if ledger else "no ledger: body digest only",
    )


def verdict_file(folder: Path, faithful: bool) -> Path:
    from arcaeon.prove.continuity import snapshot, verify_continuation

    snap = snapshot({"goal": "ship the fix", "facts": ["a", "b"]}, label="t")
    restated = {p["id"]: (p.get("value", "") if faithful else "wrong") for p in snap.probes}
    if faithful:
        restated = {"goal": "ship the fix", "facts:0": "a", "facts:1": "b"}
    v = verify_continuation(snap, restated=restated)
    p = folder / ("exact.json" if faithful else "divergence.json")
    p.write_text(json.dumps(v.to_dict(), indent=2))
    return p


def oracle_verdict(path: Path) -> KindCheck:
    from arcaeon.prove.continuity import verdict_from_dict

    d = json.loads(path.read_text())
    try:
        v = verdict_from_dict(d)
    except ValueError as e:
        return KindCheck(
            str(path),
            "continuity-verdict",
            False,
            {"loaded": False, "error": type(e).__name__, "verdict_digest": None},
        )
    det = {
        "loaded": True,
        "error": None,
        "faithful": v.faithful,
        "valid": v.valid,
        "comparison": v.comparison,
        "verdict_digest": v.verdict_digest,
    }
    word = (verdict.VERIFIED if v.faithful else verdict.BROKEN) if v.valid else verdict.BROKEN
    return KindCheck(str(path), "continuity-verdict", True, det, word=word)


def render_plain(renderable, width: int = 100) -> str:
    console = Console(record=True, width=width, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def bundle(folder: Path) -> Path:
    from arcaeon.prove.audit import export_bundle

    out = folder / "bundle"
    export_bundle(SAMPLES / "session.jsonl", out, generated_at="2026-03-02T00:00:00Z")
    return out


def oracle_bundle_word(path: Path) -> str:
    from arcaeon.record.ledger import verify_file

    ok = verify_file(path / "records.jsonl").ok
    return verdict.kind_check(ok).verdict


def cli(*args: str) -> subprocess.CompletedProcess:
    """`sealscope ARGS...` run as a user runs it (this tree's interpreter), text out."""
    return subprocess.run(
        [sys.executable, "-m", "sealscope", *args],
        check=False,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )


async def front_judged(app, pilot) -> None:
    """Until the tab in front has its verdict and no worker runs."""
    await until(
        pilot,
        lambda: (
            bool(app.panes())
            and app.current_tab().tab_verdict is not None
            and not any(w.is_running for w in app.workers)
        ),
        "the tab never judged",
    )

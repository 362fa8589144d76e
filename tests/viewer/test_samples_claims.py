"""What the samples' README (shown by `R`) says is what happens (issue 33): the ten tabs
`sealscope` opens and the bar they read once verified; `sealscope view FOLDER` opening
those ten only for the installed samples folder and one fleet tab for any other folder,
a copy of the samples included; and the commands the samples' READMEs give, run from
the folder they name, answering the word and exit code written beside them."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sealscope.sample_ledgers import FOLDER, README
from sealscope.viewer.app import SAMPLE_TABS, SealscopeApp, expand_paths, sample_paths
from sealscope.viewer.fleet_tab import FleetTab
from textual.widgets.tabbed_content import ContentTab

from tests.viewer.viewer_helpers import opened, settle, sync

EXE = Path(sys.executable).parent / "sealscope"
TEXT = README.read_text(encoding="utf-8")
SEALS_TEXT = (FOLDER / "seals" / "README.md").read_text(encoding="utf-8")


def said(snippet: str, text: str = TEXT) -> bool:
    """`snippet` is in the README, line breaks and runs of spaces read as one space."""
    flat = re.sub(r"\s+", " ", text)
    return re.sub(r"\s+", " ", snippet) in flat


@sync
async def test_sealscope_opens_the_ten_tabs_and_the_bar_the_readme_reads():
    bar = re.search(r"the bar reads `([^`]+)`", TEXT, re.S)
    assert bar, "the README no longer quotes the tab bar"
    async with opened() as (app, pilot):
        await settle(app, pilot)
        labels = [str(t.label.plain) for t in app.query(ContentTab)]
    assert " ".join(labels) == re.sub(r"\s+", " ", bar[1])
    assert [p.relative_to(FOLDER).as_posix() for p in app.paths] == list(SAMPLE_TABS)
    assert len(SAMPLE_TABS) == 10 and said("opens ten tabs")


def test_view_of_the_installed_folder_is_the_ten_tabs_and_of_a_copy_one_fleet_tab(tmp_path):
    assert said("So does `sealscope view FOLDER` when FOLDER is this installed folder")
    assert expand_paths([FOLDER]) == sample_paths()
    copy = tmp_path / "sample_ledgers"
    shutil.copytree(FOLDER, copy)
    assert expand_paths([copy]) == [copy]  # a copy is any other folder: one fleet tab
    assert said("Any other folder given on the command line opens as one **fleet tab**")


@sync
async def test_a_copy_of_the_samples_opens_one_fleet_tab(tmp_path):
    copy = tmp_path / "sample_ledgers"
    shutil.copytree(FOLDER, copy, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    app = SealscopeApp([copy])
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        panes = app.panes()
        assert len(panes) == 1 and isinstance(panes[0], FleetTab)


def run(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    cmd = [str(EXE)] if EXE.is_file() else [sys.executable, "-m", "sealscope"]
    return subprocess.run(
        [*cmd, *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )


# (folder, the command as the README gives it, the exit code, words the output holds,
# what the README says beside it)
CLAIMS = [
    (
        ".",
        "fleet .",
        1,
        ["32 verified, 10 broken, 1 could not look", "23 not evidence"],
        "finds 43 evidence files: 32 verified, 10",
    ),
    (
        ".",
        "check kinds/receipt.json",
        0,
        ["VERIFIED · self-consistent, content not checked"],
        "**VERIFIED** · self-consistent, content not checked",
    ),
    (
        ".",
        "receipts kinds/receipt.json",
        0,
        ["     1  v2", "-> VERIFIED"],
        "`sealscope receipts kinds/receipt.json` lists it as row 1",
    ),
    (
        ".",
        "check kinds/distill-receipt.json",
        0,
        ["VERIFIED · structural only"],
        "**VERIFIED** · structural only",
    ),
    (
        ".",
        "check kinds/portable-receipt.json",
        0,
        ["VERIFIED · witness claimed, not contacted"],
        "**VERIFIED** · witness claimed, not contacted",
    ),
    (".", "check kinds/continuity-verdict.json", 1, ["BROKEN"], "the verdict: **BROKEN**"),
    (
        ".",
        "check kinds/continuity.jsonl",
        3,
        ["COULD NOT LOOK"],
        "the ledger alone: **COULD NOT LOOK**",
    ),
    (
        ".",
        "check kinds/continuity.jsonl --artefacts kinds",
        0,
        ["VERIFIED  ledger"],
        "or `--artefacts kinds`: the row `matched`, **VERIFIED**",
    ),
    (
        ".",
        "check kinds/artefacts.jsonl",
        0,
        ["VERIFIED · 2 artefacts not held"],
        "**VERIFIED** · 2 artefacts not held",
    ),
    (
        ".",
        "check kinds/artefacts.jsonl --artefacts kinds",
        0,
        ["VERIFIED  ledger"],
        "with `--artefacts kinds` both `match`, VERIFIED in full",
    ),
    (".", "check kinds/continuity.calls.jsonl", 0, ["VERIFIED"], "**VERIFIED** (chain from"),
    (
        "kinds/long-tail",
        "check deal.buyer.jsonl deal.seller.jsonl",
        0,
        ["VERIFIED  ledger/deal-tape  deal.buyer.jsonl  MATCHED against deal.seller.jsonl"],
        "profile `deal-tape`, `detail.pair` MATCHED 2",
    ),
    (
        "kinds/long-tail",
        "check agent.tape.jsonl",
        0,
        ["not paired: give the other tape to compare"],
        'alone, each is its chain only, "not paired"',
    ),
    (
        "kinds/long-tail",
        "check once.log.jsonl",
        0,
        ["1 key indeterminate: intent without executed"],
        "1 key indeterminate: intent without executed",
    ),
    (
        "kinds/long-tail",
        "check mandate-sealed-edited.json",
        1,
        ["BROKEN  -/mandate"],
        "the body no longer digests to `mandate_digest` (quirk 64)",
    ),
    (".", "check packs/session-pack.zip", 0, ["VERIFIED"], "**VERIFIED**, exit 0"),
    (".", "verify packs/session-pack.zip", 1, ["BROKEN"], "would call it BROKEN"),
    (".", "check packs/session-bundle", 0, ["VERIFIED"], "**VERIFIED** by the chain"),
    (".", "check packs/session-aat.jsonl", 0, ["VERIFIED"], "**VERIFIED**, 11 records"),
    (
        ".",
        "verify packs/session-aat.jsonl",
        1,
        ["first break: line 1"],
        "calls the same file BROKEN at line 1",
    ),
    ("seals", "snapshot seal-day1.json", 0, ["VALID"], "`sealscope snapshot` → VALID, exit 0"),
    (
        "seals",
        "snapshot seal-day1-tampered.json",
        1,
        ["INVALID", "manifest_digest does not"],
        "INVALID (`manifest_digest does not reproduce",
    ),
    (
        "seals",
        "continuity seal-day1.json --restated restated-faithful.json",
        0,
        ["FAITHFUL"],
        "FAITHFUL, exit 0",
    ),
    (
        "seals",
        "continuity seal-day1.json --restated restated-faithful.json --loose",
        3,
        ["CONTAINED ONLY"],
        "`--loose` → `containment_only` (faithful not judged), exit 3",
    ),
    (
        "seals",
        "continuity seal-day1.json --restated restated-divergent.json",
        1,
        ["DIVERGENCE", "identity_anchors:0", "open_commitments:0"],
        "strict → DIVERGENCE",
    ),
    ("seals", "verify seals-ledger.jsonl", 0, ["VERIFIED"], "`verify` → VERIFIED, exit 0"),
    (
        "seals",
        "receipts seals-ledger.jsonl",
        0,
        ["1 verified within a bound", "-> VERIFIED"],
        "`receipts` → VERIFIED within a bound",
    ),
    (
        "seals",
        "diff seal-day1.json seal-day2.json --tiers tiers.json",
        0,
        ["1 changed, 1 added, 1 removed, 5 unchanged"],
        "1 changed",
    ),
    (
        "seals",
        "export seal-day1.json --restated restated-divergent.json --tiers tiers.json",
        1,
        ["verdict: **BROKEN**", "Restatement scored: **DIVERGENCE**"],
        "Try: `sealscope export seal-day1.json",
    ),
    (
        "seals",
        "export seal-day2.json --against seal-day1.json --tiers tiers.json",
        0,
        ["verdict: **VERIFIED**"],
        "`sealscope export seal-day2.json --against",
    ),
]


@pytest.mark.parametrize(
    ("folder", "command", "code", "words", "claim"), CLAIMS, ids=[c[1] for c in CLAIMS]
)
def test_each_command_the_samples_readmes_give_answers_as_written(
    folder, command, code, words, claim
):
    text = SEALS_TEXT if folder == "seals" else TEXT
    assert said(claim, text), f"the README no longer says {claim!r}"
    p = run(FOLDER / folder, *command.split())
    assert p.returncode == code, (command, p.stdout[-2000:], p.stderr[-2000:])
    for w in words:
        assert w in p.stdout, (command, w, p.stdout[-3000:])

"""Every report's JSON goes through the sanitizer's JSON rule (`sanitize.safe_json`),
whichever frontend writes it: a file name with a non-UTF-8 byte, a legacy `#[`
command or a bidi override gives a document that is valid UTF-8, carries no command
and reads back to the same values. Before, the viewer's `x` raised on such a name
(a lone surrogate cannot be written as UTF-8) and kept a raw `#[`."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from sealscope.core import export
from sealscope.viewer.export_action import write_report

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ledgers"


def _hostile(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    folder.mkdir()
    name = os.fsdecode(b"\xff#[cmd]\xe2\x80\xae.jsonl")
    shutil.copy(SAMPLES / "session.jsonl", folder / name)
    return folder / name


def test_a_report_on_a_hostile_name_is_safe_utf8_json(tmp_path):
    p = _hostile(tmp_path)
    for report in (
        export.build_report(p),
        export.build_folder_report(p.parent),
    ):
        text = report.to_json()
        data = text.encode("utf-8")  # never a lone surrogate left
        assert b"#[" not in data and "\u202e" not in text
        assert json.loads(data)["path"] == report.to_dict()["path"]


def test_the_viewer_writes_the_report_of_a_hostile_name(tmp_path):
    p = _hostile(tmp_path)
    report = export.build_report(p)
    md, js = write_report(report, tmp_path / "out" / "report", create=True)
    doc = json.loads(Path(js).read_bytes())
    assert doc["path"] == os.fspath(p) and doc["verdict"] == report.verdict
    assert "#[" not in Path(js).read_text(encoding="utf-8")
    assert Path(md).read_text(encoding="utf-8")

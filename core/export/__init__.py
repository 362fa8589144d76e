"""Audit reports: one evidence file, and the work done on it, as Markdown or JSON.

A report is built from one file, whose kind `core.kinds.classify` decides (or the
caller insists on):

* ledger: the verify verdict (`ledger.verify(path).to_dict()` plus the verdict word),
  every break and excused break, and every compaction-receipt row's `verify_receipt`
  status with its line number;
* snapshot: its validation (`valid`, `digest`, `error`, `label`, `id_scheme`,
  `probes`, as `sealscope snapshot --json` prints them);
* harn: every compaction event with its findings, as `sealscope harn --json`.

Checks run beyond that, in a viewer tab or by CLI flags (a pin, a witness, held
content, a restatement, a diff, a lookup), are passed in as `SessionRecord`s and
reported in order, a section each with its own verdict and exit code; the report's
verdict and exit code are `judged(file's own, records)`, as the viewer tab's. The JSON keeps
values as they are (JSON escaping is exact), equal to the CLI verbs' `--json` output;
the Markdown escapes every string from evidence.

Modules: `records` (session records), `report` (`AuditReport`, `build_report`, exit
codes), `links` (seal ↔ ledger rows), `markdown` (the rendering), `target` (where a
report may be written: a folder that exists), `kind_report` / `kind_markdown` (the
report of every other kind `sealscope check` knows: a receipt, a pack, a bundle...,
laid out from its `KindCheck`, never judged again). Every public name
is importable from here; so are the seal-file readers of `core.sealfile`, which the
report reads (`SealFile`, `load_seal`, ...). Pure: no Textual, no Rich, nothing printed.
"""

from __future__ import annotations

from sealscope.core.continuity import grouped_divergences
from sealscope.core.export.folder import FOLDER_SCHEMA, FolderReport, build_folder_report
from sealscope.core.export.kind_report import (
    KIND_SCHEMA,
    REPORT_KINDS,
    UNIT_KINDS,
    KindReport,
    build_kind_report,
    kind_checks,
)
from sealscope.core.export.links import SnapshotRowRef, iter_snapshot_rows
from sealscope.core.export.markdown import md_code, md_text
from sealscope.core.export.records import (
    SessionRecord,
    added_record,
    artefact_record,
    check_error_record,
    check_record,
    diff_error_record,
    diff_record,
    ledger_lookup,
    lookup_record,
    recompute_record,
    verdict_error_record,
    verdict_record,
)
from sealscope.core.export.report import EXPORT_SCHEMA, AuditReport, Cancelled, build_report, judged
from sealscope.core.export.target import missing_folder
from sealscope.core.sealfile import (
    SealFile,
    Unreadable,
    load_manifest,
    load_restated,
    load_seal,
    load_tiers,
    read_json_file,
)

__all__ = [
    "EXPORT_SCHEMA",
    "AuditReport",
    "Cancelled",
    "build_report",
    "judged",
    "SessionRecord",
    "check_record",
    "artefact_record",
    "check_error_record",
    "verdict_record",
    "verdict_error_record",
    "diff_record",
    "diff_error_record",
    "added_record",
    "recompute_record",
    "lookup_record",
    "ledger_lookup",
    "SnapshotRowRef",
    "iter_snapshot_rows",
    "md_text",
    "md_code",
    "grouped_divergences",
    "missing_folder",
    "SealFile",
    "Unreadable",
    "read_json_file",
    "load_seal",
    "load_restated",
    "load_tiers",
    "load_manifest",
    "FOLDER_SCHEMA",
    "FolderReport",
    "build_folder_report",
    "KIND_SCHEMA",
    "REPORT_KINDS",
    "UNIT_KINDS",
    "KindReport",
    "build_kind_report",
    "kind_checks",
]

"""Build the samples of the units an auditor is sent, from `session.jsonl`, with the
reference's own writers (arcaeon 0.10.0, the dev extra):

    python sample_ledgers/make_kinds_packs.py

into `packs/`: an evidence pack zip (`arcaeon evidence-pack --zip`), an audit-export
bundle folder (`arcaeon audit export`) and an agent-audit-trail export (`arcaeon
export --format agent-audit-trail`). Build and export times are fixed, so a rebuild
gives byte-identical files. The files are data: nothing of the reference enters
sealscope, which only reads them. See README.md beside this file, "Units".
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "packs"
SOURCE = HERE / "session.jsonl"
#: After the newest row of session.jsonl.
BUILT_AT = "2026-03-01T10:00:00Z"


def main(out: Path = OUT) -> None:
    """Write the three units into `out` (replaced)."""
    from arcaeon.prove.aat_export import export_aat  # type: ignore[import-untyped]
    from arcaeon.prove.audit import export_bundle  # type: ignore[import-untyped]
    from arcaeon.prove.evidence_pack import build_pack  # type: ignore[import-untyped]

    if out.exists():
        shutil.rmtree(out)
    out.mkdir()
    with tempfile.TemporaryDirectory() as tmp:
        # the pack: its zip only (the folder it is zipped from stays behind)
        folder = Path(tmp) / "session-pack"
        build_pack(
            SOURCE,
            folder,
            system_id="agent-7",
            provider="sealscope samples",
            built_at=BUILT_AT,
            zip_out=True,
        )
        shutil.copyfile(folder.with_suffix(".zip"), out / "session-pack.zip")
    export_bundle(
        SOURCE,
        out / "session-bundle",
        system_id="agent-7",
        provider="sealscope samples",
        generated_at=BUILT_AT,
    )
    export_aat(SOURCE, out / "session-aat.jsonl")


if __name__ == "__main__":
    main()

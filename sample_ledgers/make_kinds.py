"""Build the samples of the other evidence kinds (`sealscope check`), deterministically,
through sealscope's own core.

    python sample_ledgers/make_kinds.py

Writes `sample_ledgers/kinds/`: a stand-alone compaction receipt file, a distill drop
receipt, a portable receipt with the issuer's ledger beside it, a stored continuity
verdict with the ledger its `continuity_verify` row went to, a ledger with artefact
bindings and the artefact they bind, and an MCP call record. Every timestamp is a fixed
value, so running this again gives byte-identical files. See README.md beside this
file for what `sealscope check` answers on each.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from sealscope.core import digest, ledger, receipt, witness
from sealscope.core.checks.call_record import args_digest
from sealscope.core.continuity.continuation import verify_continuation
from sealscope.core.continuity.probes import restate
from sealscope.core.continuity.snapshots import snapshot

HERE = Path(__file__).resolve().parent
OUT = HERE / "kinds"
STAMP = "2026-03-02T10:00:00Z"


def stamp(i: int) -> str:
    return f"2026-03-02T10:{i // 60:02d}:{i % 60:02d}Z"


def write_json(path: Path, value: Any, indent: int = 2) -> None:
    path.write_text(json.dumps(value, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")


def compaction_receipt() -> None:
    """receipt.json: what `arcaeon compact FILE` reads — one v2 row, pretty-printed."""
    pre = ["user: summarise the incident", {"tool": "fetch", "status": 200}, "assistant: done"]
    post = ["user: summarise the incident", "summary: one fetch, then done"]
    row = receipt.build_row(pre, post, "agent-7", "llm-summary", opened_at=STAMP)
    write_json(OUT / "receipt.json", row)


def _part(value: Any) -> dict[str, Any]:
    d = digest.item_digest(value)
    return {"digest": d.digest, "bytes": d.size}


def distill_receipt() -> None:
    """distill-receipt.json: a drop receipt (`arcaeon-distill:receipt:v1`) for a tool
    output cut from 6 rows to 2, one `rows_dropped` drop."""
    rows = [{"id": i, "name": f"row {i}"} for i in range(6)]
    kept, dropped = rows[:2], rows[2:]
    drop = {
        "kind": "rows_dropped",
        "path": "$",
        **{k: v for k, v in _part(dropped).items() if k == "digest"},
        "dropped_bytes": _part(dropped)["bytes"],
        "dropped_count": len(dropped),
    }
    write_json(
        OUT / "distill-receipt.json",
        {
            "schema": "arcaeon-distill:receipt:v1",
            "strategy": "json",
            "budget_tokens": 40,
            "full": _part(rows),
            "distilled": _part(kept),
            "drops": [drop],
            "truncated": True,
            "created_at": STAMP,
        },
    )


def portable_receipt() -> None:
    """portable-receipt.json + portable.ledger.jsonl (+ its local witness pin file): a
    `cite` receipt whose row the issuer appended to its own ledger, pinned locally."""
    led = OUT / "portable.ledger.jsonl"
    pins = OUT / "portable.ledger.jsonl.witness.jsonl"
    ledger.append(led, {"evt": "opened", "by": "issuer", "ts": stamp(0)})
    body = {
        "receipt_version": "arcaeon-receipt/0.1",
        "kind": "cite",
        "issued_at": STAMP,
        "subject": {"doc": "handbook.md", "quote": "audits are annual"},
        "checks": [{"name": "quote found verbatim", "score": 1}],
        "scope": {
            "proves": ["the quote appears in the document as fetched"],
            "does_not_prove": ["that the document is current"],
        },
        "extra": {},
    }
    body_digest = digest.digest_json(body)
    chain = ledger.append(
        led,
        {
            "evt": "receipt",
            "kind": "cite",
            "namespace": "issuer",
            "body_digest": body_digest,
            "checks": 1,
            "ts": stamp(1),
        },
    )
    pin = witness.record(pins, "issuer", 2, chain, STAMP, received_at=STAMP)
    write_json(
        OUT / "portable-receipt.json",
        {
            **body,
            "body_digest": body_digest,
            "ledger": {
                "path": led.name,
                "namespace": "issuer",
                "rows": 2,
                "chain": chain,
                "algorithm": "truncated_sha256_128 hash chain (arcaeon-ledger)",
            },
            "witness": {
                "kind": "local-file",
                "independence": "none (self-controlled file)",
                "path": pins.name,
                "namespace": "issuer",
                "rows": 2,
                "chain": chain,
                "pin": pin,
                "status": "pinned",
            },
            "anchor": {"status": "skipped"},
        },
        indent=1,
    )


def _fix_stamps(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: (STAMP if k.endswith("_at") and isinstance(v, str) else _fix_stamps(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_fix_stamps(v) for v in value]
    return value


def continuity_verdict() -> None:
    """continuity-verdict.json + continuity.jsonl: a strict verdict with one divergence
    (a stored record of a red finding: BROKEN by the `continuity` verb's rule), and the
    ledger whose `continuity_verify` row repeats it."""
    manifest = {
        "identity_anchors": ["agent-7", "audit team"],
        "open_commitments": ["ship the quarterly report"],
    }
    snap = snapshot(manifest)
    restated = restate(manifest)
    restated[sorted(restated)[0]] = "someone else"
    v = verify_continuation(snap, restated=restated)
    doc = v.to_dict()
    doc["receipt"] = _fix_stamps(doc["receipt"])
    write_json(OUT / "continuity-verdict.json", doc)
    ledger.append(
        OUT / "continuity.jsonl",
        {
            "kind": "continuity_verify",
            "label": snap.label,
            "manifest_digest": snap.manifest_digest,
            "faithful": v.faithful,
            "valid": v.valid,
            "n_divergences": len(v.divergences),
            "schema": v.schema,
            "comparison": v.comparison,
            "policy": v.policy,
            "verdict_digest": v.verdict_digest,
            "ts": stamp(2),
        },
    )


def artefacts() -> None:
    """artefact-report.md + artefacts.jsonl: a ledger row binding that file by name
    (raw-bytes) and one binding a JSON value (json-c14n)."""
    report = OUT / "artefact-report.md"
    report.write_text("# Incident report\n\nOne fetch, then done.\n", encoding="utf-8")
    data = report.read_bytes()
    hexd = hashlib.sha256(data).hexdigest()
    value = {"verdict": "approved", "by": "audit team"}
    jhex = digest.digest_json(value).rsplit(":", 1)[1]
    led = OUT / "artefacts.jsonl"
    ledger.append(
        led,
        {
            "evt": "artefact",
            "tool": "report.write",
            "artefact": {
                "subject": {"name": report.name, "digest": {"sha256": hexd}},
                "recipe": "sha256:raw-bytes:v1",
                "digest": f"sha256:raw-bytes:v1:{hexd}",
                "bound_at": STAMP,
                "source_meta": {"kind": "file", "path": report.name, "content_length": len(data)},
            },
            "ts": stamp(3),
        },
    )
    ledger.append(
        led,
        {
            "evt": "artefact",
            "tool": "decision.record",
            "artefact": {
                "subject": {"name": None, "digest": {"sha256": jhex}},
                "recipe": "sha256:json-c14n:v1",
                "digest": f"sha256:json-c14n:v1:{jhex}",
                "bound_at": STAMP,
                "source_meta": {
                    "kind": "json",
                    "content_length": len(digest.canonical_json(value)),
                },
            },
            "ts": stamp(4),
        },
    )
    write_json(OUT / "artefact-decision.json", value)


def call_record() -> None:
    """continuity.calls.jsonl: three MCP tool calls, one refused, as the servers'
    call recorder writes them (the args digest ASCII-escaped JSON, not json-c14n)."""
    path = OUT / "continuity.calls.jsonl"
    calls = [
        ("seal", {"label": "day 1"}, True),
        ("verify", {"restated": {"a": "é"}}, True),
        ("verify", {"restated": "not an object"}, False),
    ]
    for i, (tool, args, ok) in enumerate(calls):
        d, n = args_digest(args)
        row: dict[str, Any] = {
            "op": "tool_call",
            "tool": tool,
            "ts": f"2026-03-02T10:00:0{i}.000000+00:00",
            "args_digest": d,
            "args": args,
            "args_bytes": n,
            "ok": ok,
        }
        if not ok:
            row["error"] = "restated must be an object"
        ledger.append(path, row)


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir()
    compaction_receipt()
    distill_receipt()
    portable_receipt()
    continuity_verdict()
    artefacts()
    call_record()
    for lock in OUT.glob("*.lock"):  # the append lock files are no sample
        lock.unlink()


if __name__ == "__main__":
    main()

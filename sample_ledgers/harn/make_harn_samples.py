"""Write the harn sample files in this folder, deterministically (no clock, no uuids).

    python sample_ledgers/harn/make_harn_samples.py [OUTDIR]

* `session-transcript.json` — one receipt-era harn transcript with two compactions:
  an automatic observation-mask compaction (recap metrics, a full source measurement)
  and a manual LLM compaction whose measurement left `carried_source_bytes` unmeasured
  (null, not 0). The second snapshot nests the first inside its data, as harn writes it.
  Every check holds: `sealscope harn` exits 0.
* `run-record.json` — a run record (`.harn-runs/<run_id>.json` shape) with the run's
  own transcript and two stages: `plan` carries a legacy (pre-receipt, flat metadata)
  compaction; `implement` carries a receipt whose `archived_messages` understates what
  its snapshot shows was removed. `sealscope harn` reports `archived_understated`
  (high) and exits 1.

The transcripts are built the way harn builds them: at compaction the message list
becomes `[summary] + kept suffix`, the events become one event per message, the earlier
non-message events (older compaction events among them) and the new compaction event;
the pre-compaction transcript is appended to `assets` as a
`compaction_source_transcript` asset.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


# --------------------------------------------------------------------------- a tiny harn


class Ids:
    """Deterministic ids in harn's shapes."""

    def __init__(self, seed: str):
        self.seed = seed
        self.n = 0

    def next(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}-0196f3a2-{self.seed}-7{self.n:03d}-8000-00000000{self.n:04d}"


def msg(role: str, content, **extra) -> dict:
    out = {"role": role, "content": content}
    out.update(extra)
    return out


def call(name: str, **args: str) -> dict:
    """A tool call's `function`: its arguments as the compact JSON text harn records."""
    return {"name": name, "arguments": json.dumps(args, separators=(",", ":"))}


def message_event(ids: Ids, m: dict) -> dict:
    role = m.get("role", "user")
    text = m["content"] if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
    return {
        "id": ids.next("evt"),
        "kind": "tool_result" if role == "tool_result" else "message",
        "role": role,
        "visibility": "internal" if role == "tool" else "public",
        "text": text,
        "blocks": [{"type": "text", "text": text}],
    }


def transcript(
    ids: Ids, tid: str, messages: list, *, events=None, assets=None, summary=None, state=None
) -> dict:
    t = {
        "_type": "transcript",
        "version": 2,
        "id": tid,
        "messages": list(messages),
        "events": list(events) if events is not None else [message_event(ids, m) for m in messages],
        "assets": list(assets or []),
        "metadata": {"workspace": "acme/billing-service"},
    }
    if summary is not None:
        t["summary"] = summary
    if state is not None:
        t["state"] = state
    return t


def append(ids: Ids, t: dict, *messages: dict) -> None:
    for m in messages:
        t["messages"].append(m)
        t["events"].append(message_event(ids, m))


def tokens(messages: list) -> int:
    total = 0
    for m in messages:
        c = m.get("content")
        total += len(c) if isinstance(c, str) else len(json.dumps(c))
    return total // 4


def compact(
    ids: Ids,
    t: dict,
    *,
    keep_last: int,
    summary: str,
    mode: str,
    reason: str,
    strategy: str,
    engine: str,
    receipt: bool = True,
    recap=None,
    measurement=None,
    claim_archived: int | None = None,
    session: str | None = None,
    extra_receipt: dict | None = None,
) -> dict:
    """Compact `t` as harn does; return the new transcript."""
    pre = t["messages"]
    split = len(pre) - keep_last
    archived, kept = pre[:split], pre[split:]
    summary_msg = msg("user", summary)
    post = [summary_msg] + kept
    before, after = tokens(pre), tokens(post)
    snap_id = ids.next("compaction-source")
    snapshot = {
        "_type": "transcript_asset",
        "id": snap_id,
        "kind": "compaction_source_transcript",
        "title": "Pre-compaction transcript",
        "visibility": "internal",
        "data": json.loads(json.dumps(t)),
        "metadata": {
            "strategy": engine,
            "archived_messages": len(archived),
            "estimated_tokens_before": before,
            "estimated_tokens_after": after,
        },
    }
    n_archived = len(archived) if claim_archived is None else claim_archived
    rid = ids.next("compaction")
    flat = {
        "mode": mode,
        "reason": reason,
        "strategy": strategy,
        "engine_strategy": engine,
        "keep_last": keep_last,
        "target_tokens": None,
        "archived_messages": n_archived,
        "estimated_tokens_before": before,
        "estimated_tokens_after": after,
        "new_summary_len": len(summary.encode()),
        "snapshot_asset_id": snap_id,
        "reminders_decremented": 0,
        "reminders_expired": 0,
        "reminders_deduped": 0,
        "reminders_preserved": 0,
        "instruction_mode": "default",
    }
    if not receipt:
        # before receipts: the manual path wrote fewer keys and a random event id
        for key in ("reason", "engine_strategy", "new_summary_len", "instruction_mode"):
            flat.pop(key)
    else:
        if recap is not None:
            flat["recap"] = recap
        r = {
            "schema_version": 1,
            "receipt_id": rid,
            "session_id": session,
            "transcript_id": t["id"],
            "mode": mode,
            "reason": reason,
            "strategy": strategy,
            "engine_strategy": engine,
            "requested_strategy": strategy,
            "resolved_threshold_tokens": 3000 if reason == "threshold" else None,
            "threshold_source": "token_threshold" if reason == "threshold" else None,
            "hard_limit_tokens": 12000 if reason == "threshold" else None,
            "archived_messages": n_archived,
            "estimated_tokens_before": before,
            "estimated_tokens_after": after,
            "snapshot_asset_id": snap_id,
            "instruction_mode": "default",
            "instruction_source": None,
            "compaction_policy": None,
            "recap": recap,
            "source_measurement": measurement,
        }
        r.update(extra_receipt or {})
        flat["receipt"] = r
    if "instruction_mode" in flat:
        # harn records the instruction mode on the snapshot asset too
        snapshot["metadata"]["instruction_mode"] = flat["instruction_mode"]
    text = f"Transcript compacted via {engine}"
    # harn writes the event text again as the event's one text block
    event = {
        "id": rid if receipt else ids.next("evt"),
        "kind": "compaction",
        "role": "system",
        "visibility": "internal",
        "text": text,
        "blocks": [{"type": "text", "text": text}],
        "metadata": flat,
    }
    others = [e for e in t["events"] if e.get("kind") not in ("message", "tool_result")]
    events = [message_event(ids, m) for m in post] + others + [event]
    return transcript(
        ids,
        t["id"],
        post,
        events=events,
        assets=t["assets"] + [snapshot],
        summary=(t.get("summary") + "\n\n" + summary) if t.get("summary") else summary,
        state=t.get("state"),
    )


def size_of(messages) -> int:
    return sum(len(json.dumps(m, ensure_ascii=False).encode()) for m in messages)


# --------------------------------------------------------------------------- content

PYTEST_FAIL = """============================= test session starts ==============================
collected 48 items

tests/test_invoices.py ........F...........................                   [ 81%]
tests/test_ledger.py .........                                               [100%]

=================================== FAILURES ===================================
______________________ test_invoice_total_rounds_half_even ______________________

    def test_invoice_total_rounds_half_even():
        inv = Invoice(lines=[Line(qty=3, unit=Decimal("0.335"))])
>       assert inv.total() == Decimal("1.00")
E       AssertionError: assert Decimal('1.01') == Decimal('1.00')

tests/test_invoices.py:88: AssertionError
=========================== short test summary info ============================
FAILED tests/test_invoices.py::test_invoice_total_rounds_half_even
========================= 1 failed, 47 passed in 2.41s =========================
"""

INVOICE_PY = """from decimal import Decimal, ROUND_HALF_UP

class Invoice:
    def __init__(self, lines):
        self.lines = lines

    def total(self):
        raw = sum(l.qty * l.unit for l in self.lines)
        return raw.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
"""


def session_messages() -> list[dict]:
    return [
        msg(
            "user",
            "The nightly build is red on billing-service. Find out why and fix it, "
            "but don't change the public API of Invoice.",
        ),
        msg(
            "assistant",
            "I'll start by running the test suite to see what fails.",
            tool_calls=[
                {"id": "call_01", "type": "function", "function": call("run", cmd="pytest -q")}
            ],
        ),
        msg("tool", PYTEST_FAIL, tool_call_id="call_01", name="run"),
        msg(
            "assistant",
            "One failure: invoice totals round half-up but the test expects "
            "banker's rounding. Let me read the implementation.",
            tool_calls=[
                {
                    "id": "call_02",
                    "type": "function",
                    "function": call("read", path="billing/invoice.py"),
                }
            ],
        ),
        msg("tool", INVOICE_PY, tool_call_id="call_02", name="read"),
        msg(
            "user",
            "Before you change it: finance says statements since March used "
            "half-even. Check the changelog so we don't break older exports.",
        ),
        msg(
            "assistant",
            "Checking CHANGELOG.md for the rounding decision.",
            tool_calls=[
                {
                    "id": "call_03",
                    "type": "function",
                    "function": call("grep", pattern="round", path="CHANGELOG.md"),
                }
            ],
        ),
        msg(
            "tool",
            "CHANGELOG.md:41: - Invoice totals now use ROUND_HALF_EVEN (finance "
            "request FIN-212), effective 2026-03-01.\nCHANGELOG.md:97: - Tax lines "
            "round per line, not per invoice.",
            tool_call_id="call_03",
            name="grep",
        ),
        msg(
            "assistant",
            "The changelog confirms half-even since 2026-03-01; the code was "
            "reverted to half-up in a later refactor. I'll switch the rounding "
            "mode and rerun the tests.",
        ),
        msg("user", "Go ahead."),
    ]


def session_more() -> list[dict]:
    return [
        msg(
            "assistant",
            "Applying the fix.",
            tool_calls=[
                {
                    "id": "call_04",
                    "type": "function",
                    "function": call(
                        "edit",
                        path="billing/invoice.py",
                        old="ROUND_HALF_UP",
                        new="ROUND_HALF_EVEN",
                    ),
                }
            ],
        ),
        msg(
            "tool",
            "Edited billing/invoice.py: 2 replacements.",
            tool_call_id="call_04",
            name="edit",
        ),
        msg(
            "assistant",
            "Rerunning the suite.",
            tool_calls=[
                {"id": "call_05", "type": "function", "function": call("run", cmd="pytest -q")}
            ],
        ),
        msg(
            "tool",
            "........................................................\n48 passed in 2.37s",
            tool_call_id="call_05",
            name="run",
        ),
        msg(
            "user",
            "Nice. Please also add a regression test for the 0.335 case and write "
            "the PR description.",
        ),
        msg(
            "assistant",
            "Adding tests/test_invoices.py::test_total_half_even_regression and "
            "drafting the PR text.",
        ),
    ]


def session_tail() -> list[dict]:
    return [
        msg(
            "assistant",
            "PR #418 opened: 'Restore ROUND_HALF_EVEN for invoice totals (FIN-212)'. CI is green.",
        ),
        msg("user", "Thanks, merging."),
    ]


# --------------------------------------------------------------------------- samples


def make_session() -> dict:
    ids = Ids("a1c4")
    session = "session-0196f3a2-billing-nightly"
    t = transcript(ids, "transcript-0196f3a2-billing-nightly", session_messages(), state="active")
    archived1 = t["messages"][:6]
    src1 = size_of(archived1)
    recap1 = {
        "recap_bytes": 1184,
        "budget_bytes": 16000,
        "kept_results_count": 2,
        "dropped_count": 1,
        "carried_prior_recap": False,
    }
    summary1 = (
        "[auto-compacted 6 older messages via observation masking]\n"
        "[user] The nightly build is red on billing-service. Find out why and fix it, "
        "but don't change the public API of Invoice.\n"
        "[tool] ============================= test session starts ... "
        "[19 lines, 1023 chars masked; failure lines preserved]\n"
        "E       AssertionError: assert Decimal('1.01') == Decimal('1.00')\n"
        "FAILED tests/test_invoices.py::test_invoice_total_rounds_half_even\n"
        "[assistant] One failure: invoice totals round half-up but the test expects "
        "banker's rounding.\n"
        "[user] Before you change it: finance says statements since March used "
        "half-even. Check the changelog so we don't break older exports."
    )
    t = compact(
        ids,
        t,
        keep_last=4,
        summary=summary1,
        mode="auto",
        reason="threshold",
        strategy="hybrid",
        engine="observation_mask",
        recap=recap1,
        session=session,
        measurement={
            "source_message_count": 6,
            "source_bytes": src1,
            "summary_bytes": len(summary1.encode()),
            "carried_source_bytes": 412,
        },
    )
    append(ids, t, *session_more())
    archived2 = t["messages"][:-2]
    summary2 = (
        "[auto-compacted 9 older messages]\nGoal: fix the red nightly build of "
        "billing-service without changing Invoice's public API. Cause: "
        "Invoice.total() rounded ROUND_HALF_UP; CHANGELOG (FIN-212) requires "
        "ROUND_HALF_EVEN since 2026-03-01. Done: switched to ROUND_HALF_EVEN in "
        "billing/invoice.py; all 48 tests pass. Open: the user asked for a "
        "regression test for the 0.335 case and a PR description."
    )
    t = compact(
        ids,
        t,
        keep_last=2,
        summary=summary2,
        mode="manual",
        reason="manual",
        strategy="llm",
        engine="llm",
        session=session,
        measurement={
            "source_message_count": len(archived2),
            "source_bytes": size_of(archived2),
            "summary_bytes": len(summary2.encode()),
            "carried_source_bytes": None,
        },
    )
    append(ids, t, *session_tail())
    return t


def make_run() -> dict:
    ids = Ids("b7e2")
    # stage "plan": written before receipts existed (legacy flat metadata)
    plan = transcript(
        ids,
        "transcript-0196f3a2-plan",
        [
            msg("user", "Plan the migration of the invoices table to the new ledger schema."),
            msg("assistant", "Step 1: inventory readers of invoices.total_cents."),
            msg(
                "tool",
                "billing/export.py:12\nbilling/report.py:88\nanalytics/daily.sql:4",
                name="grep",
                tool_call_id="call_11",
            ),
            msg("assistant", "Three readers. Step 2: add ledger_entries with a backfill job."),
            msg("user", "Include a rollback plan."),
            msg("assistant", "Rollback: keep total_cents populated by trigger until cutover."),
        ],
    )
    plan = compact(
        ids,
        plan,
        keep_last=2,
        mode="manual",
        reason="",
        strategy="truncate",
        engine="truncate",
        receipt=False,
        summary="[auto-compacted 4 older messages via truncate strategy]\n[user] "
        "Plan the migration of the invoices table to the new ledger "
        "schema.",
    )
    append(ids, plan, msg("assistant", "Plan written to docs/migration-ledger.md."))
    # stage "implement": a receipt that admits 3 archived messages where 5 are gone
    impl = transcript(
        ids,
        "transcript-0196f3a2-implement",
        [
            msg("user", "Implement step 2 of docs/migration-ledger.md."),
            msg(
                "assistant",
                "Creating the migration.",
                tool_calls=[
                    {
                        "id": "call_21",
                        "type": "function",
                        "function": call("write", path="migrations/0042_ledger.sql"),
                    }
                ],
            ),
            msg(
                "tool",
                "Wrote migrations/0042_ledger.sql (38 lines).",
                tool_call_id="call_21",
                name="write",
            ),
            msg("user", "Skip the backfill for archived customers; legal hold applies to them."),
            msg("assistant", "Understood: backfill excludes customers with legal_hold = true."),
            msg("user", "Run it against staging."),
            msg("assistant", "Migration applied on staging; 12,408 rows backfilled."),
        ],
    )
    impl = compact(
        ids,
        impl,
        keep_last=2,
        mode="auto",
        reason="threshold",
        strategy="hybrid",
        engine="observation_mask",
        claim_archived=3,
        session="session-0196f3a2-ledger-migration",
        summary="[auto-compacted 3 older messages via observation masking]\n[user] "
        "Implement step 2 of docs/migration-ledger.md.\n[assistant] "
        "Creating the migration.\n[tool] Wrote "
        "migrations/0042_ledger.sql (38 lines).",
        recap={
            "recap_bytes": 214,
            "budget_bytes": 16000,
            "kept_results_count": 1,
            "dropped_count": 0,
            "carried_prior_recap": False,
        },
        measurement=None,
    )
    run_transcript = transcript(
        ids,
        "transcript-0196f3a2-run",
        [
            msg("user", "Migrate invoices to the ledger schema."),
            msg(
                "assistant",
                "Done: plan in docs/migration-ledger.md, migration 0042 applied to staging.",
            ),
        ],
    )
    return {
        "_type": "run_record",
        "id": "run_0196f3a2_ledger_migration",
        "workflow_id": "wf_ledger_migration",
        "workflow_name": "ledger migration",
        "task": "Migrate invoices to the ledger schema.",
        "status": "completed",
        "started_at": "2026-11-28T09:14:03Z",
        "finished_at": "2026-11-28T09:41:57Z",
        "root_run_id": "run_0196f3a2_ledger_migration",
        "stages": [
            {
                "id": "stage_plan",
                "node_id": "plan",
                "kind": "stage",
                "status": "completed",
                "outcome": "success",
                "transcript": plan,
            },
            {
                "id": "stage_implement",
                "node_id": "implement",
                "kind": "stage",
                "status": "completed",
                "outcome": "success",
                "transcript": impl,
            },
        ],
        "transcript": run_transcript,
        "metadata": {"trace_id": "trace_0196f3a2_ledger"},
    }


def write(path: Path, value) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else HERE
    out.mkdir(parents=True, exist_ok=True)
    write(out / "session-transcript.json", make_session())
    write(out / "run-record.json", make_run())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))

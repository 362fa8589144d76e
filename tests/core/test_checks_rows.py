"""Artefact bindings, call records and ledger rows under `check`, differential against
the reference's own code (`arcaeon.record.ledger.artefact.verify_artefact`,
`arcaeon.record.call_record.verify_call_record`, the MCP servers' args digest) on
evidence its writers made (`bind_artefact`, `Ledger.append`, the continuity server's
call recorder): honest, and with one field or one byte changed at random."""

from __future__ import annotations

import json
from pathlib import Path

import arcaeon.mcp.server as mserver
import arcaeon.prove.continuity.mcp_server as cmcp
import arcaeon.record.call_record as crec
import arcaeon.record.ledger as rledger
import arcaeon.record.ledger.artefact as art
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sealscope.core import checks, kinds
from sealscope.core.checks import artefact as s_artefact
from sealscope.core.checks.result import CheckContext

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
JSONV = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.text(max_size=10)),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=4), c, max_size=4),
    max_leaves=12,
)


def _ours(*paths: Path, artefacts: Path | None = None) -> list[dict]:
    ctx = CheckContext(artefacts=str(artefacts) if artefacts else None)
    return [r.to_dict() for r in checks.run([str(p) for p in paths], ctx)]


# ----------------------------------------------------------------------- artefacts


def _leg(res: dict) -> dict:
    """The offline leg's fields, notes aside (their wording is not compared)."""
    return {k: v for k, v in res.items() if k != "notes"}


@SETTINGS
@given(value=JSONV, data=st.data())
def test_offline_leg_agrees_with_verify_artefact(value: object, data: st.DataObject) -> None:
    bound = art.bind_artefact(value, canon="json-c14n")
    assert _leg(s_artefact.verify_artefact(bound)) == _leg(art.verify_artefact(bound))
    doc = json.loads(json.dumps(bound))
    where = data.draw(st.sampled_from(["digest", "subject", "sha", "char"]))
    if where == "digest":
        doc["digest"] = data.draw(
            st.one_of(
                JSONV,
                st.sampled_from(
                    [
                        "sha512:json-c14n:v1:" + "a" * 64,
                        "sha256:json-c14n:v2:" + "a" * 64,
                        "sha256:md5:v1:" + "a" * 64,
                        "sha256:raw-bytes:v1:" + "a" * 63 + "\n",
                        "a:b:c",
                    ]
                ),
            )
        )
    elif where == "subject":
        doc["subject"] = data.draw(JSONV)
    elif where == "sha":
        doc["subject"]["digest"]["sha256"] = data.draw(
            st.one_of(JSONV, st.just(doc["subject"]["digest"]["sha256"].upper()))
        )
    else:
        d = doc["digest"]
        i = data.draw(st.integers(0, len(d) - 1))
        doc["digest"] = d[:i] + data.draw(st.sampled_from("0aF:x")) + d[i + 1 :]
    assert _leg(s_artefact.verify_artefact(doc)) == _leg(art.verify_artefact(doc))


def test_held_artefacts_match_mismatch_and_not_held(tmp_path: Path) -> None:
    held = tmp_path / "held"
    held.mkdir()
    (held / "report.txt").write_bytes(b"the report\n")
    (held / "value.json").write_text('{"b": 2, "a": 1}', encoding="utf-8")
    ledger = tmp_path / "bound.jsonl"
    led = rledger.Ledger(ledger)
    led.append({"evt": "artefact", "artefact": art.bind_artefact(held / "report.txt")})
    led.append({"evt": "artefact", "artefact": art.bind_artefact({"a": 1, "b": 2})})
    led.append({"evt": "artefact", "artefact": art.bind_artefact(b"not held anywhere")})
    led.append({"evt": "note", "artefact": "a string is not a binding"})
    [got] = _ours(ledger, artefacts=held)
    assert [e["held"] for e in got["detail"]["rows_checked"]] == ["match", "match", "not_held"]
    assert got["verdict"] == "VERIFIED" and "1 artefact not held" in got["bound"]
    [bare] = _ours(ledger)
    assert [e["held"] for e in bare["detail"]["rows_checked"]] == ["not_held"] * 3
    (held / "report.txt").write_bytes(b"the report, edited\n")
    [changed] = _ours(ledger, artefacts=held)
    assert changed["verdict"] == "BROKEN"
    assert changed["detail"]["rows_checked"][0]["held"] == "mismatch"


# ----------------------------------------------------------------------- call records


def _record(tmp: Path, monkeypatch, calls: list[dict]) -> Path:
    path = tmp / "continuity.calls.jsonl"
    path.unlink(missing_ok=True)
    monkeypatch.setenv("ARCAEON_CALL_RECORD", str(path))
    for i, args in enumerate(calls):
        cmcp._record_call(f"tool{i % 2}", args, {"result": {"isError": bool(i % 3 == 2)}})
    return path


def _agree_calls(path: Path) -> dict:
    [got] = _ours(path)
    assert got["kind"] == "call-record" or kinds.identify(path).kind != "call-record"
    if got["kind"] != "call-record":
        return got
    try:
        ref = crec.verify_call_record(path)
    except Exception as e:  # noqa: BLE001 - the reference raising is its answer
        assert got["verdict"] == "COULD NOT LOOK" and got["detail"]["error"] == type(e).__name__
        return got
    want = {
        "ok": ref["ok"],
        "rows": ref["rows"],
        "first_break": ref["first_break"],
        "note": ref.get("note"),
    }
    assert got["detail"]["call_record"] == want
    assert got["ok"] is ref["ok"]
    for e in got["detail"]["rows_checked"]:
        # rows are numbered as the ledger verifier numbers lines (FORMATS.md §2.4)
        text = path.read_bytes().decode("utf-8", "replace")
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        row = json.loads(lines[e["line"] - 1].strip())
        if row.get("args") is None:
            assert e["args"] == "not_inline"
            continue
        digest, size = mserver._args_digest(row["args"])
        same = digest == row.get("args_digest") and size == row.get("args_bytes")
        assert e["args"] == ("match" if same else "mismatch")
    return got


@SETTINGS
@given(
    calls=st.lists(st.dictionaries(st.text(max_size=5), JSONV, max_size=3), min_size=1, max_size=5),
    data=st.data(),
)
def test_call_record_agrees_with_the_reference(
    tmp_path: Path, monkeypatch, calls: list, data: st.DataObject
) -> None:
    path = _record(tmp_path, monkeypatch, calls)
    honest = _agree_calls(path)
    assert honest["verdict"] == "VERIFIED"
    raw = bytearray(path.read_bytes())
    i = data.draw(st.integers(0, len(raw) - 1))
    raw[i] = data.draw(st.sampled_from(b'0a"x{}:, \r\n\xff'))
    path.write_bytes(bytes(raw))
    _agree_calls(path)


def test_oversized_args_could_not_look_and_rechained_edit_is_a_mismatch(
    tmp_path: Path, monkeypatch
) -> None:
    path = _record(tmp_path, monkeypatch, [{"a": 1}, {"big": "x" * 5000}, {"b": 2}])
    [got] = _ours(path)
    assert got["verdict"] == "COULD NOT LOOK"
    assert [e["args"] for e in got["detail"]["rows_checked"]] == ["match", "not_inline", "match"]
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    rows[2]["args"] = {"b": 3}
    path.unlink()
    for r in rows:  # re-chained by the reference's writer: the chain holds
        r.pop("chain")
        crec.CallRecord(path).append(r)
    [edited] = _ours(path)
    assert edited["detail"]["call_record"]["ok"] is True
    assert edited["verdict"] == "BROKEN"
    assert edited["detail"]["rows_checked"][2]["args"] == "mismatch"


def test_one_scan_gives_the_receipt_rows_and_the_row_checks_of_two():
    """`ledger_rows.scan` (a fleet's one read) equals the receipt scan and the row
    checks read apart, on every sample ledger."""
    from pathlib import Path

    from sealscope.core.checks import ledger_rows
    from sealscope.core.lookup import iter_receipt_rows

    samples = Path(__file__).resolve().parents[2] / "sample_ledgers"
    seen = 0
    for p in sorted(samples.rglob("*.jsonl")):
        got = ledger_rows.scan(str(p))
        assert list(got.receipts) == list(iter_receipt_rows(p)), p
        assert got.checks == ledger_rows.row_checks(str(p)), p
        seen += bool(got.receipts) + bool(got.checks)
    assert seen >= 5

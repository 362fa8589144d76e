"""The self-test: frozen digest vectors (FORMATS.md 1.3, 5.5) and the planted-fault
checks of 5.5, run for real against a ledger in a temporary folder.

Every check is computed through the live code paths (`sealscope.core.digest`,
`sealscope.core.receipt`, `sealscope.core.ledger`), so a broken recipe fails here.
"""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from sealscope.core import digest as _digest
from sealscope.core import ledger as _ledger
from sealscope.core import receipt as _receipt
from sealscope.core import verdict as _verdicts

__all__ = ["SelfCheck", "SelftestResult", "run", "PRE", "POST"]

_J = "sha256:json-c14n:v1:"
_R = "sha256:raw-bytes:v1:"

# FORMATS.md 1.3
JSON_VECTORS: tuple[tuple[str, Any, str], ...] = (
    (
        'json {"b":2,"a":1}',
        {"b": 2, "a": 1},
        _J + "43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777",
    ),
    (
        "json claim with unicode",
        {"claim": "X said Y", "unicode": "éü—🔒"},
        _J + "03b6bc1350e72d1da527a6c729dd8bb3be1b0f8dd3e82000da68d32e21cc2cf6",
    ),
    (
        "json mixed array",
        [1, "two", None, True, {"k": [3.5]}],
        _J + "bc0d62567f92e63b16aa724fb3d17141713d486780f41458197d8f7d539f33d5",
    ),
    (
        "json continuity manifest",
        {
            "identity_anchors": ["I am a continuity, carried forward"],
            "open_commitments": ["ship v0.1.0"],
            "canon_pointers": ["memory/CORE.md"],
            "live_threads": ["thread-1"],
        },
        _J + "e47d6b1eabd6768050b9763dbd5d49626e7b4b1a36312d88711ca964570cd7a6",
    ),
    ("json []", [], _J + "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"),
    ("json {}", {}, _J + "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"),
)
BYTES_VECTORS: tuple[tuple[str, bytes, str], ...] = (
    (
        "bytes 'arcaeon selftest vector 1'",
        b"arcaeon selftest vector 1",
        _R + "45050994979709443a05e8a31cac09bbbae7074cd6887b6c31f83b775a2b8651",
    ),
    ("bytes empty", b"", _R + "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
)

# FORMATS.md 5.3 / 5.5 fixture
PRE: tuple[Any, ...] = ("the quick brown fox", {"role": "user", "text": "hello"}, b"\x00\x01binary")
POST: tuple[Any, ...] = ("the quick brown fox", "summary: user said hello")
ITEM_VECTORS = (
    (
        "item str (raw-bytes of UTF-8)",
        PRE[0],
        _R + "9ecb36561341d18eb65484e833efea61edc74b84cf5e6ae1b81c63533e25fc8f",
    ),
    (
        "item object (json-c14n)",
        PRE[1],
        _J + "09a32d6caf7737200a34ee38c65c82446831be896aa5d5aa6b858729ee13beb1",
    ),
    (
        "item bytes (raw-bytes)",
        PRE[2],
        _R + "f8c1ccc7df7243da4740c5b7875f88b70e3f935d99c7b37a5f7239d152d994e6",
    ),
)
PRE_DIGEST = _J + "0fa1adc5dd156a66d78b1e32a52632ce8b98fabc7dfe9d25813375e75ddc82a7"
RECEIPT_V2 = _J + "04f2e0c2b409212325e5aecbda8481119da9a5ffb6f3ede4d99ac8075f11203f"
# FORMATS.md 5.3: the sealed line, with its three time-dependent values as fields
SEALED_LINE = (
    '{"schema": "arcaeon-compact:receipt:v2", "pre": {"count": 3, "bytes": 57, "digest": '
    '"sha256:json-c14n:v1:0fa1adc5dd156a66d78b1e32a52632ce8b98fabc7dfe9d25813375e75ddc82a7"}, '
    '"post": {"count": 2, "bytes": 43, "digest": '
    '"sha256:json-c14n:v1:ba27d6d4e4b19db1e74962ce6ce5c5ba2fc093acb473ae80f4a22792f889a535"}, '
    '"dropped": {"count": 2, "bytes": 38, "items": '
    '["sha256:json-c14n:v1:09a32d6caf7737200a34ee38c65c82446831be896aa5d5aa6b858729ee13beb1", '
    '"sha256:raw-bytes:v1:f8c1ccc7df7243da4740c5b7875f88b70e3f935d99c7b37a5f7239d152d994e6"]}, '
    '"introduced": {"count": 1, "bytes": 24}, "compactor": "golden-fixture", '
    '"method": "test:v1", "kind": "compaction_receipt", "opened_at": "{opened_at}", '
    '"receipt_digest": '
    '"sha256:json-c14n:v1:04f2e0c2b409212325e5aecbda8481119da9a5ffb6f3ede4d99ac8075f11203f", '
    '"ts": "{ts}", "chain": "{chain}"}'
)
RECEIPT_V1 = _J + "9a0f4bb37b78f8433f52ae14603d20f1fc2413265e434beb9ad15613fc5947a4"


@dataclass(frozen=True)
class SelfCheck:
    """One check: its name, whether it held, and what was seen."""

    name: str
    ok: bool
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "detail": self.detail}


@dataclass(frozen=True)
class SelftestResult(_verdicts.Judged):
    """`ok` only when every check held."""

    ok: bool
    checks: tuple[SelfCheck, ...]

    def __bool__(self) -> bool:
        return self.ok

    def outcome(self) -> _verdicts.Outcome:
        return _verdicts.selftest(self.ok)

    @property
    def failed(self) -> tuple[SelfCheck, ...]:
        return tuple(c for c in self.checks if not c.ok)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "checks": [c.to_dict() for c in self.checks]}


def _equal(name: str, got: Any, want: Any) -> SelfCheck:
    return SelfCheck(name, got == want, f"got {got}" if got == want else f"want {want}, got {got}")


def _guard(name: str, fn: Callable[[], SelfCheck]) -> SelfCheck:
    """Run one check; an exception is that check failing, never the self-test."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - a self-test reports, it does not crash
        return SelfCheck(name, False, f"raised {type(e).__name__}: {e}")


def _verdict(v: _receipt.ReceiptCheck) -> str:
    return (
        f"ok={v.ok} self_consistent={v.self_consistent} content={v.content} "
        f"schema={v.schema} understatement_check={v.understatement_check} "
        f"verified_scope={v.verified_scope}"
    )


def _vector(fn: Callable[[Any], str], name: str, value: Any, want: str) -> SelfCheck:
    return _equal(name, fn(value), want)


def _item_digest(value: Any) -> str:
    return _digest.item_digest(value).digest


def _refuses_nan() -> SelfCheck:
    try:
        got = _digest.digest_json({"bad": float("nan")})
    except ValueError:
        return SelfCheck("json-c14n refuses NaN", True, "ValueError")
    return SelfCheck("json-c14n refuses NaN", False, f"digested to {got}")


def run() -> SelftestResult:
    """Run every check; never raises."""
    checks: list[SelfCheck] = []
    for name, value, want in JSON_VECTORS:
        checks.append(_guard(name, partial(_vector, _digest.digest_json, name, value, want)))
    for name, value, want in BYTES_VECTORS:
        checks.append(_guard(name, partial(_vector, _digest.digest_bytes, name, value, want)))
    checks.append(_guard("json-c14n refuses NaN", _refuses_nan))
    for name, value, want in ITEM_VECTORS:
        checks.append(_guard(name, partial(_vector, _item_digest, name, value, want)))

    with tempfile.TemporaryDirectory(prefix="sealscope-selftest-") as td:
        checks.extend(_behaviour(Path(td) / "receipts.jsonl"))
    return SelftestResult(all(c.ok for c in checks), tuple(checks))


# The behaviour checks run in order against one ledger; each may read what an earlier
# one sealed (`state`). A check whose predecessor failed fails by raising (KeyError),
# which `_guard` reports.


def _seal_honest(led: Path, state: dict[str, Any]) -> SelfCheck:
    r = _receipt.CompactionReceipt.open(list(PRE))
    r.record_kept(list(POST))
    state["row"] = r.seal(led, compactor="golden-fixture", method="test:v1")
    return _equal("pre.digest vector", state["row"]["pre"]["digest"], PRE_DIGEST)


def _sealed_digest(led: Path, state: dict[str, Any]) -> SelfCheck:
    return _equal(
        "receipt_digest vector (v2, as sealed)", state["row"]["receipt_digest"], RECEIPT_V2
    )


def _sealed_line(led: Path, state: dict[str, Any]) -> SelfCheck:
    first = led.read_bytes().split(b"\n", 1)[0].decode("utf-8")
    row = state["row"]
    want = (
        SEALED_LINE.replace("{opened_at}", str(row["opened_at"]))
        .replace("{ts}", str(row["ts"]))
        .replace("{chain}", str(row["chain"]))
    )
    link = _ledger.link(_ledger.GENESIS, row)
    good = first == want and link == row["chain"]
    return SelfCheck(
        "sealed line matches the golden row",
        good,
        f"chain {row['chain']}"
        if good
        else f"line {first[:120]!r}... chain {row['chain']} link {link}",
    )


def _v1_vector(led: Path, state: dict[str, Any]) -> SelfCheck:
    state["v1"] = _receipt.build_row(list(PRE), list(POST), "golden-fixture", "test:v1", "v1")
    return _equal("receipt_digest vector (v1 legacy)", state["v1"]["receipt_digest"], RECEIPT_V1)


def _honest(led: Path, state: dict[str, Any]) -> SelfCheck:
    v = _receipt.verify_receipt(state["row"], list(PRE), list(POST))
    return SelfCheck(
        "honest receipt verifies with content", v.ok and v.content == "match", _verdict(v)
    )


def _planted(led: Path, state: dict[str, Any]) -> SelfCheck:
    liar = _receipt.CompactionReceipt.open(list(PRE))
    liar.record_kept(list(PRE))  # claims nothing was dropped
    state["lie"] = liar.seal(led, compactor="liar", method="test:v1")
    v = _receipt.verify_receipt(state["lie"], list(PRE), list(PRE[:2]))
    return SelfCheck(
        "planted drop is caught with content", (not v.ok) and v.content == "mismatch", _verdict(v)
    )


def _lie_alone(led: Path, state: dict[str, Any]) -> SelfCheck:
    v = _receipt.verify_receipt(state["lie"])
    return SelfCheck(
        "planted drop passes without content (by design)",
        v.ok and v.content == "skipped",
        _verdict(v),
    )


def _legacy(led: Path, state: dict[str, Any]) -> SelfCheck:
    v = _receipt.verify_receipt(state["v1"])
    return SelfCheck(
        "legacy v1 row verifies",
        v.ok
        and v.self_consistent
        and v.schema == "v1"
        and v.understatement_check == "truncation-only",
        _verdict(v),
    )


def _summarizer(led: Path, state: dict[str, Any]) -> SelfCheck:
    r = _receipt.CompactionReceipt.open(["a" * 100, "b" * 400])
    r.record_kept(["a" * 100, "sum"])
    state["sum"] = r.seal(led, compactor="summarizer", method="llm-summary")
    v = _receipt.verify_receipt(state["sum"])
    ib = state["sum"]["introduced"].get("bytes")
    return SelfCheck(
        "honest v2 summarizer receipt verifies",
        v.ok and v.schema == "v2" and v.understatement_check == "full" and ib == 3,
        f"{_verdict(v)} introduced.bytes={ib}",
    )


def _forged(led: Path, state: dict[str, Any]) -> SelfCheck:
    row = copy.deepcopy(state["sum"])
    row["dropped"] = {**row["dropped"], "bytes": 1}
    row["receipt_digest"] = _digest.digest_json(_receipt.core_of(row))
    v = _receipt.verify_receipt(row)
    return SelfCheck(
        "understated dropped.bytes caught without content (v2)",
        (not v.ok) and (not v.self_consistent) and v.schema == "v2",
        _verdict(v),
    )


def _chain(led: Path, state: dict[str, Any]) -> SelfCheck:
    res = _ledger.verify(led)
    return SelfCheck(
        "self-test ledger verifies",
        res.ok is True and res.rows == 3,
        f"ok={res.ok} rows={res.rows} breaks={res.breaks}",
    )


_BEHAVIOUR: tuple[tuple[str, Callable[[Path, dict[str, Any]], SelfCheck]], ...] = (
    ("pre.digest vector", _seal_honest),
    ("receipt_digest vector (v2, as sealed)", _sealed_digest),
    ("sealed line matches the golden row", _sealed_line),
    ("receipt_digest vector (v1 legacy)", _v1_vector),
    ("honest receipt verifies with content", _honest),
    ("planted drop is caught with content", _planted),
    ("planted drop passes without content (by design)", _lie_alone),
    ("legacy v1 row verifies", _legacy),
    ("honest v2 summarizer receipt verifies", _summarizer),
    ("understated dropped.bytes caught without content (v2)", _forged),
    ("self-test ledger verifies", _chain),
)


def _behaviour(led: Path) -> list[SelfCheck]:
    """Every behaviour check in order against the ledger at `led`."""
    state: dict[str, Any] = {}
    return [_guard(name, partial(fn, led, state)) for name, fn in _BEHAVIOUR]

"""The self-test runs for real and fails when a recipe is broken."""

from __future__ import annotations

import json

from sealscope.core import digest, jsonio, selftest


def test_selftest_passes_with_every_check():
    res = selftest.run()
    assert res.ok and bool(res) and res.failed == ()
    names = [c.name for c in res.checks]
    assert len(names) == len(set(names)) == 23
    for must in (
        "json []",
        "bytes empty",
        "json-c14n refuses NaN",
        "item bytes (raw-bytes)",
        "pre.digest vector",
        "receipt_digest vector (v2, as sealed)",
        "receipt_digest vector (v1 legacy)",
        "sealed line matches the golden row",
        "honest receipt verifies with content",
        "planted drop is caught with content",
        "planted drop passes without content (by design)",
        "legacy v1 row verifies",
        "honest v2 summarizer receipt verifies",
        "understated dropped.bytes caught without content (v2)",
        "self-test ledger verifies",
    ):
        assert must in names
    d = res.to_dict()
    assert list(d) == ["ok", "checks"] and d["ok"] is True
    assert all(list(c) == ["name", "ok", "detail"] for c in d["checks"])
    json.dumps(d)


def _broken_canonical(value):
    # default separators instead of "," / ":" -- a plausible recipe slip
    return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False).encode()


def test_broken_recipe_fails_the_selftest(monkeypatch):
    monkeypatch.setattr(digest, "dumps_canonical", _broken_canonical)
    res = selftest.run()
    assert not res.ok
    failed = {c.name for c in res.failed}
    assert {
        'json {"b":2,"a":1}',
        "json mixed array",
        "item object (json-c14n)",
        "pre.digest vector",
        "receipt_digest vector (v2, as sealed)",
        "receipt_digest vector (v1 legacy)",
    } <= failed
    assert "bytes empty" not in failed  # raw-bytes does not use the canonical form
    assert json.loads(json.dumps(res.to_dict()))["ok"] is False


def test_broken_raw_bytes_fails(monkeypatch):
    monkeypatch.setattr(digest, "RAW_BYTES_PREFIX", "sha256:raw:v1:")
    res = selftest.run()
    assert not res.ok and "bytes empty" in {c.name for c in res.failed}


def test_nan_accepted_fails_and_exceptions_are_contained(monkeypatch):
    monkeypatch.setattr(
        digest,
        "dumps_canonical",
        lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(),
    )
    res = selftest.run()
    assert [c.name for c in res.failed] == ["json-c14n refuses NaN"]

    def boom(*_a, **_k):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(selftest._ledger, "append", boom)
    res = selftest.run()
    assert not res.ok
    bad = {c.name: c.detail for c in res.failed}
    assert bad["pre.digest vector"] == "raised RuntimeError: disk on fire"


def test_jsonio_untouched():
    assert jsonio.dumps_canonical({"b": 1, "a": 2}) == b'{"a":2,"b":1}'

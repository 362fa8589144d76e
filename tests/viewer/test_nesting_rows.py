"""The viewer reads a deeply nested line as the verifier does: a row where verify
counts a row, `unparseable` where verify says so (core.nesting decides both)."""

from __future__ import annotations

from sealscope.core import ledger as L
from sealscope.viewer.source import LedgerSource, status_of

from tests.core.test_nesting import CASES


def test_row_states_follow_the_verifier(tmp_path):
    p = tmp_path / "deep.jsonl"
    p.write_text("\n".join(c[0] for c in CASES.values()) + "\n")
    r = L.verify(p)
    texts = {f.line: f.text for f in r.findings}
    src = LedgerSource(p)
    src.index()
    objects = 0
    for n, (name, (_line, _first_break, is_row)) in enumerate(CASES.items(), 1):
        info = src.row(n)
        assert (info.state == "object") == is_row, name
        objects += info.state == "object"
        status = status_of(info, "break" if n in texts else None, r.first_chained_line, True)
        if texts.get(n, "").endswith(("unparseable", "not a JSON object")):
            assert status == "unparseable", name
        else:
            assert status in ("ok", "break"), name
        assert info.summary is not None
    assert objects == r.rows
    assert r.rows == sum(c[2] for c in CASES.values())

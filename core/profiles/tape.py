"""Adapter tapes, reconciled two at a time (KINDS-3.md §20, `arcaeon reconcile A B`
without a pin).

Each side's tape holds one `arcaeon-tape/1` row per call, in call-index order, with the
digest of the request and of the response as that side saw them. The rules, in order:

* each tape: missing or a folder → could not look; a line nested too deep or holding
  an unparseable duplicate key → could not look (`unreadable`); the chain is walked
  strictly (every row chained): an empty tape is zero calls, a chain that does not
  verify is ALTERED at its first break (the side named when any row tells it); every
  line must then be a tape row of one side (an absent key → `name_not_found`);
* indices run 1, 2, 3: a skip is MISSING at the first skipped call, a repeat or a step
  back ALTERED;
* two tapes of one side → could not look (`missing`); both empty → `empty`;
* calls are aligned by request digest, not position (a lost request shifts the tool's
  numbering): same request and response match; a response on one side only is
  MISSING on the other; two responses ALTERED; the nearer realignment is taken; a call
  on both tapes at different places is one ALTERED; what is left is MISSING on the
  short side.

Verdict: the earliest finding (ALTERED before MISSING at one call, `both` when both
sides are short there), else COULD_NOT_LOOK when anything could not be looked at or
the tapes could not be paired, else MATCHED. Tapes cut in agreement still match
(quirk 66). Rows are kept as (index, request, response) only; the alignment looks
ahead through an index of request digests, never by rescanning a tape.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

from sealscope.core import ledger as _ledger
from sealscope.core.profiles import reading as _r

__all__ = ["PROFILE", "TAPE_FORMAT", "SIDES", "WORDS", "is_tape_row", "reconcile"]

PROFILE = "tape"
TAPE_FORMAT = "arcaeon-tape/1"
SIDES = ("agent", "tool")
MATCHED, MISSING, ALTERED, COULD_NOT_LOOK = "MATCHED", "MISSING", "ALTERED", "COULD_NOT_LOOK"
WORDS = (MATCHED, MISSING, ALTERED, COULD_NOT_LOOK)
EXIT = {MATCHED: 0, MISSING: 1, ALTERED: 1, COULD_NOT_LOOK: 3}
_ROW_KEYS = ("evt", "tape", "side", "idx", "req", "resp")
_LINE = re.compile(r"line (\d+)")


@dataclass(frozen=True)
class Call:
    idx: int
    req: str
    resp: str | None


@dataclass
class Finding:
    verdict: str
    at: int | None
    side: str | None
    reason: str
    index_side: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "at": self.at,
            "side": self.side,
            "index_side": self.index_side,
            "reason": self.reason,
        }


@dataclass
class _Tape:
    label: str
    path: str
    side: str | None = None
    rows: list[Call] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    broken: bool = False
    cnl: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        return self.side or self.label

    def refuse(self, looked_for: Any, word: str, reason: str, where: str | None = None) -> _Tape:
        self.cnl = _r.refusal(looked_for, where or self.path, word, reason)
        return self


def is_tape_row(row: Any) -> bool:
    """A well-formed tape row: the format, a known side, an index ≥ 1, digests."""
    if not isinstance(row, dict):
        return False
    idx = row.get("idx")
    return (
        row.get("evt") == "tape_call"
        and row.get("tape") == TAPE_FORMAT
        and row.get("side") in SIDES
        and isinstance(idx, int)
        and not isinstance(idx, bool)
        and idx >= 1
        and isinstance(row.get("req"), str)
        and (row.get("resp") is None or isinstance(row.get("resp"), str))
    )


def _peek_side(path: str) -> str | None:
    try:
        for raw in _r.text_lines(path):
            try:
                row = _r.plain(raw)
            except ValueError:
                continue
            if isinstance(row, dict) and row.get("side") in SIDES:
                return str(row["side"])
    except OSError:
        pass
    return None


def _load(label: str, path: str, findings: list[Finding]) -> _Tape:
    t = _Tape(label, path)
    gone = _r.stat_refusal(label, path, "a tape")
    if gone is not None:
        t.cnl = gone
        return t
    with _r.one_file(path) as src:
        return _load_from(t, src, findings)


def _load_from(t: _Tape, src: str, findings: list[Finding]) -> _Tape:
    """`_load`'s reads, every one through `src` (one open file)."""
    label = t.label
    try:
        bad = _r.cannot_read(label, src)
    except OSError:
        bad = None  # the chain walk reports it unreadable below
    if bad is not None:
        return t.refuse(f"{label} line {bad[0]}", _r.UNREADABLE, bad[1])
    res = _ledger.verify(src, strict=True)
    if res.ok is None and res.verified_scope == "empty":
        return t
    if res.ok is not True:
        fb = res.first_break or "chain does not verify"
        if res.unreadable or fb.startswith("unreadable"):
            return t.refuse(label, _r.UNREADABLE, f"{label} {fb}")
        t.side = _peek_side(src)
        m = _LINE.search(fb)
        t.broken = True
        findings.append(
            Finding(
                ALTERED,
                int(m.group(1)) if m else None,
                t.name,
                f"{t.name} tape does not verify ({fb}); a tape edited after it was "
                "written cannot be reconciled",
                index_side=t.name,
            )
        )
        return t
    try:
        return _read_rows(t, src)
    except OSError as e:
        return t.refuse(label, _r.UNREADABLE, f"{label} unreadable: {e}")


def _read_rows(t: _Tape, src: str) -> _Tape:
    n = 0
    for raw in _r.text_lines(src):
        if not raw.strip():
            continue
        n += 1
        try:
            row = _r.plain(raw)  # unstripped: whitespace JSON does not take is refused
        except ValueError:
            return t.refuse(
                f"{t.label} row {n}",
                _r.UNREADABLE,
                f"{t.label} row {n} verifies but does not read a second time "
                "[whitespace_outside_json]",
            )
        where = f"{t.path} row {n}"
        if not is_tape_row(row):
            absent = (
                next((k for k in _ROW_KEYS if k not in row), None)
                if isinstance(row, dict)
                else None
            )
            why = f"{t.label} row {n} is not an {TAPE_FORMAT} row"
            if absent is not None:
                return t.refuse(absent, _r.NAME_NOT_FOUND, why, where)
            return t.refuse(f"an {TAPE_FORMAT} row", _r.UNREADABLE, why, where)
        if t.side is None:
            t.side = row["side"]
        elif row["side"] != t.side:
            return t.refuse(
                f"{t.side}-side row",
                _r.UNREADABLE,
                f"{t.label} mixes sides ({t.side} and {row['side']}) at row {n}",
                where,
            )
        t.rows.append(Call(row["idx"], row["req"], row.get("resp")))
    return t


def _walk_index(t: _Tape, findings: list[Finding]) -> None:
    expect = 1
    for row in t.rows:
        k = row.idx
        if k == expect:
            t.calls.append(row)
            expect += 1
        elif k > expect:
            findings.append(
                Finding(
                    MISSING,
                    expect,
                    t.name,
                    f"{t.name} tape skips from call {expect - 1} to call {k}",
                    index_side=t.name,
                )
            )
            t.calls.append(row)
            expect = k + 1
        elif t.calls and k == t.calls[-1].idx:
            findings.append(
                Finding(ALTERED, k, t.name, f"{t.name} tape records call {k} twice", t.name)
            )
        else:
            findings.append(
                Finding(
                    ALTERED,
                    k,
                    t.name,
                    f"{t.name} tape has call {k} after call {expect - 1}: index out of order",
                    t.name,
                )
            )


def _positions(calls: list[Call]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(calls):
        out[c.req].append(i)
    return out


def _next_at(index: dict[str, list[int]], req: str, after: int) -> int | None:
    """The distance from `after` to the next position holding `req`, or None."""
    pos = index.get(req)
    if not pos:
        return None
    k = bisect.bisect_right(pos, after)
    return pos[k] - after if k < len(pos) else None


def _align(agent: list[Call], tool: list[Call], findings: list[Finding]) -> int:
    """Walk agent and tool calls in index order, realigning by request digest; the
    calls matched."""
    ia, it = _positions(agent), _positions(tool)
    i = j = matched = 0
    only_a: list[Call] = []
    only_t: list[Call] = []
    while i < len(agent) and j < len(tool):
        a, t = agent[i], tool[j]
        if a.req == t.req:
            if a.resp == t.resp:
                matched += 1
            elif a.resp is None or t.resp is None:
                short = "agent" if a.resp is None else "tool"
                findings.append(
                    Finding(
                        MISSING,
                        a.idx,
                        short,
                        f"call {a.idx}'s response is on one tape only ({short} tape has none)",
                        index_side="agent",
                    )
                )
            else:
                findings.append(
                    Finding(
                        ALTERED,
                        a.idx,
                        None,
                        f"call {a.idx}: same request, different response",
                        index_side="agent",
                    )
                )
            i += 1
            j += 1
            continue
        da = _next_at(ia, t.req, i)
        dt = _next_at(it, a.req, j)
        if da is None and dt is None:
            findings.append(
                Finding(
                    ALTERED, a.idx, None, f"call {a.idx}: the request differs", index_side="agent"
                )
            )
            i += 1
            j += 1
        elif dt is None or (da is not None and da <= dt):
            assert da is not None
            only_a.extend(agent[i : i + da])
            i += da
        else:
            only_t.extend(tool[j : j + dt])
            j += dt
    only_a.extend(agent[i:])
    only_t.extend(tool[j:])
    waiting: dict[str, deque[int]] = defaultdict(deque)
    for k, y in enumerate(only_t):
        waiting[y.req].append(k)
    taken: set[int] = set()
    left_a: list[Call] = []
    for x in only_a:
        q = waiting.get(x.req)
        if not q:
            left_a.append(x)
            continue
        k = q.popleft()
        taken.add(k)
        findings.append(
            Finding(
                ALTERED,
                x.idx,
                None,
                f"call {x.idx} is on both tapes at different places (tool call "
                f"{only_t[k].idx}): the order was altered",
                index_side="agent",
            )
        )
    for x in left_a:
        findings.append(
            Finding(
                MISSING,
                x.idx,
                "tool",
                f"call {x.idx} is on the agent tape and not on the tool tape",
                index_side="agent",
            )
        )
    for k, y in enumerate(only_t):
        if k not in taken:
            findings.append(
                Finding(
                    MISSING,
                    y.idx,
                    "agent",
                    f"tool call {y.idx} is on the tool tape and not on the agent tape",
                    index_side="tool",
                )
            )
    return matched


def _headline(findings: list[Finding]) -> Finding:
    first = min(
        findings, key=lambda f: (f.at if f.at is not None else 0, 0 if f.verdict == ALTERED else 1)
    )
    twins = {f.side for f in findings if f.verdict == first.verdict and f.at == first.at and f.side}
    if twins >= {"agent", "tool"}:
        return Finding(
            first.verdict, first.at, "both", first.reason + " (both tapes)", first.index_side
        )
    return first


def reconcile(path_a: str, path_b: str) -> dict[str, Any]:
    """The reconciliation of two tapes (a = the earlier path), as a dict of the
    reference's result fields. Never raises."""
    try:
        return _reconcile(path_a, path_b)
    except Exception as e:  # noqa: BLE001 - an answer, never a traceback
        why = f"reconcile could not finish: {type(e).__name__} [internal_error]"
        return _result(COULD_NOT_LOOK, reason=why, reason_word=_r.UNREADABLE)


def _result(verdict: str, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "verdict": verdict,
        "at": None,
        "side": None,
        "reason": "",
        "matched": 0,
        "counts": {},
        "findings": [],
        "could_not_look": [],
        "reason_word": None,
        "exit_code": EXIT[verdict],
    }
    out.update(fields)
    return out


def _reconcile(path_a: str, path_b: str) -> dict[str, Any]:
    findings: list[Finding] = []
    cnl: list[dict[str, Any]] = []
    tapes = [_load("tape_a", path_a, findings), _load("tape_b", path_b, findings)]
    cnl.extend(t.cnl for t in tapes if t.cnl)
    readable = [t for t in tapes if not t.cnl and not t.broken]
    for t in readable:
        _walk_index(t, findings)
    agent = next((t for t in tapes if t.side == "agent"), None)
    tool = next((t for t in tapes if t.side == "tool"), None)
    sides = [t.side for t in tapes if t.side]
    both = f"{path_a}, {path_b}"
    if len(sides) == 2 and sides[0] == sides[1]:
        other = "tool" if sides[0] == "agent" else "agent"
        cnl.append(
            _r.refusal(
                f"a {other}-side tape",
                both,
                _r.MISSING,
                f"both tapes are {sides[0]}-side tapes; reconcile needs one of each",
            )
        )
        agent = tool = None
    if len(readable) == 2 and agent is None and tool is not None:
        agent = next(t for t in readable if t is not tool and t.side is None)
    elif len(readable) == 2 and tool is None and agent is not None:
        tool = next(t for t in readable if t is not agent and t.side is None)
    if len(readable) == 2 and not tapes[0].rows and not tapes[1].rows:
        cnl.append(_r.refusal("tape rows", both, _r.EMPTY, "both tapes are empty"))
    matched = 0
    can_align = (
        agent is not None
        and tool is not None
        and agent in readable
        and tool in readable
        and bool(agent.rows or tool.rows)
    )
    if can_align:
        assert agent is not None and tool is not None
        agent.side, tool.side = "agent", "tool"
        matched = _align(agent.calls, tool.calls, findings)
    counts = {t.name: len(t.rows) for t in tapes}
    ordered = sorted(findings, key=lambda f: (f.at or 0, f.verdict))
    out = _result(
        MATCHED,
        matched=matched,
        counts=counts,
        findings=[f.to_dict() for f in ordered],
        could_not_look=[c["reason"] for c in cnl],
    )
    if findings:
        h = _headline(findings)
        out.update(
            verdict=h.verdict, at=h.at, side=h.side, reason=h.reason, exit_code=EXIT[h.verdict]
        )
    elif cnl or not can_align:
        first = (
            cnl[0]
            if cnl
            else _r.refusal(
                "an agent-side and a tool-side tape",
                both,
                _r.MISSING,
                "the two tapes could not be paired",
            )
        )
        out.update(
            verdict=COULD_NOT_LOOK,
            reason=first["reason"],
            reason_word=first["reason_word"],
            exit_code=EXIT[COULD_NOT_LOOK],
        )
    else:
        out["reason"] = f"{matched} calls on each tape, same digests"
    return out

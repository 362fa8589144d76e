"""An AAT export and its gaps file rebuilt from a ledger's lines, streamed (KINDS.md
§8.2 check 6, §10.1): what an evidence pack's `aat export` check compares the
pack's `aat.jsonl` and `aat_gaps.json` with.

The export: one record per ledger line (split on LF) that parses (strict UTF-8, a
Python parse) as an object, mapped by `aat.record_of`, chained by `prev_hash`; a
value JCS cannot write exactly is left out of its record and *refused*; a line that
is not an object is *skipped*. A line of whitespace alone is skipped without being
parsed (no JSON text is whitespace alone), so blank lines cost nothing.

The gaps file is the JSON document (two-space indent, UTF-8 unescaped, one final
LF) `{format, scope, which_chain, export, aat_chain, source_chain, gaps}`, whose
`gaps` are COULD NOT LOOK entries (`reason_word` `bounded`), in order: one per field
the export never writes (`where` "every record"); one per field written only when
held, naming the lines whose record lacks it (a value refused there is not counted
as lacking); one per refused value; one naming the skipped lines. `aat_chain` is
`{algorithm, records, head}`, `source_chain` the ledger chain's `{ok, rows,
first_break}`.

Memory: the lines each entry names are held as runs of consecutive numbers (a field
a ledger never holds is one run), never as the document; the document is produced
piece by piece (`gaps_pieces`) for the caller to hash or compare.
"""

from __future__ import annotations

import hashlib
import json
import re
from array import array
from collections.abc import Iterator
from typing import Any

from sealscope.core.checks import aat as _aat

__all__ = ["AAT_CHAIN_ALGORITHM", "Runs", "ExportRebuild"]

AAT_FORMAT = "agent-audit-trail"
AAT_SCOPE = "a subset of draft-sharif-agent-audit-trail-05 fields; not AAT-conformant"
AAT_CHAIN_ALGORITHM = "prev_hash = hex(sha256(jcs(previous record))); null at genesis"
WHICH_CHAIN = (
    "Two chains ride in this export. The AAT chain (prev_hash, SHA-256 over RFC 8785 "
    "JCS) was computed at export: it proves the export was not altered after export, "
    "and nothing about the ledger before it. The original chain is the `chain` field "
    "on each record: only it speaks for the rows as they were written."
)
#: The draft's fields the export never writes, each with the reason its gap gives.
NEVER_WRITTEN = (
    ("record_id", "a UUIDv4 minted at export would not be original to the row"),
    ("agent_version", "the rows do not record which version of the agent ran"),
    ("trust_level", "we issue no identity passports, so no level above L0 or L1 is known"),
    ("record_phase", "when each row is written relative to the act has not been audited"),
    ("signature", "rows are not signed (the sign extra is not wired to rows)"),
    ("signer_kid", "rows are not signed, so there is no signing key id"),
    ("human_override", "the rows carry no field for it"),
    ("risk_score", "the rows carry no field for it"),
    ("trust_assignment", "the rows carry no field for it"),
    ("batch", "the rows carry no field for it"),
    (
        "external_timestamp",
        "the daily anchor is a pointer, not a timestamp token, so it is not written as one",
    ),
)
#: The fields a record carries when, and only when, its row holds them.
WRITTEN_WHEN_HELD = (
    "timestamp",
    "agent_id",
    "session_id",
    "action_type",
    "action_detail",
    "response_hash",
    "input_hash",
    "output_hash",
    "outcome",
    "sequence_number",
    "recording_component",
)
_HOLE = re.compile(r'"\\u0000([WL])(\d+)\\u0000"')


class Runs:
    """Increasing line numbers, held as runs of consecutive numbers."""

    def __init__(self) -> None:
        self._starts = array("q")
        self._ends = array("q")
        self.count = 0

    def add(self, n: int) -> None:
        self.add_range(n, n)

    def add_range(self, first: int, last: int) -> None:
        """Add first..last (inclusive), all past the numbers held."""
        if self._ends and self._ends[-1] == first - 1:
            self._ends[-1] = last
        else:
            self._starts.append(first)
            self._ends.append(last)
        self.count += last - first + 1

    def spans(self) -> Iterator[tuple[int, int]]:
        """Each run as (first, last)."""
        yield from zip(self._starts, self._ends, strict=True)

    def __iter__(self) -> Iterator[int]:
        for s, e in self.spans():
            yield from range(s, e + 1)


def _gap(looked_for: str, where: str, reason: str) -> dict[str, Any]:
    return {"looked_for": looked_for, "where": where, "reason_word": "bounded", "reason": reason}


_SUFFIXES = [f"{k:03d}" for k in range(1000)]


def _joined(runs: Runs, sep: str) -> Iterator[str]:
    """The numbers as text joined by `sep`, in pieces. A whole thousand (N000 to
    N999, N ≥ 1) is written by one join of the fixed three-digit endings with N
    in the separator, so a long run costs copying, not a conversion per number."""
    first = True
    for lo, hi in runs.spans():
        n = lo
        while n <= hi:
            if n >= 1000 and n % 1000 == 0 and n + 999 <= hi:
                head = str(n // 1000)
                piece = head + (sep + head).join(_SUFFIXES)
                n += 1000
            else:
                stop = min(hi, n - n % 1000 + 999)
                piece = sep.join(map(str, range(n, stop + 1)))
                n = stop + 1
            yield piece if first else sep + piece
            first = False


def _phrase_pieces(runs: Runs) -> Iterator[str]:
    """`"ledger line N"` or `"ledger lines A, B, …"`, quoted, in pieces."""
    yield '"ledger line ' if runs.count == 1 else '"ledger lines '
    yield from _joined(runs, ", ")
    yield '"'


def _list_pieces(runs: Runs) -> Iterator[str]:
    """The lines as `json.dumps(indent=2)` writes a list at an entry's depth."""
    yield "[\n        "
    yield from _joined(runs, ",\n        ")
    yield "\n      ]"


class ExportRebuild:
    """Feed a ledger's lines in order (`feed`); each gives its export line or None;
    then `head`, `records` and `gaps_pieces` say what the export and its gaps are."""

    def __init__(self) -> None:
        self.head: str | None = None
        self.records = 0
        self.skipped = Runs()
        self.lacking = {f: Runs() for f in WRITTEN_WHEN_HELD}
        self.refused: list[tuple[int, str, str]] = []  # (line, field, why)

    def skip_blank(self, first: int, last: int) -> None:
        """Lines first..last are of whitespace alone: skipped, none parsed."""
        self.skipped.add_range(first, last)

    def feed(self, n: int, line: bytes) -> bytes | None:
        """Line `n` of the ledger (without its LF): its JCS export line, or None when
        it makes no record. Raises TypeError where the mapping meets an unhashable
        `evt`/`event`, and RecursionError for nesting past the parser's depth."""
        if not line.strip():
            self.skipped.add(n)
            return None
        try:
            row = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            self.skipped.add(n)
            return None
        if not isinstance(row, dict):
            self.skipped.add(n)
            return None
        rec = _aat.record_of(row, n)
        rec["prev_hash"] = self.head
        refused_here: set[str] = set()
        while True:
            try:
                out = _aat.jcs(rec)
                break
            except _aat.JcsError as e:
                top = _aat.drop_refused(rec, e.path)
                refused_here.add(top)
                self.refused.append((n, top, e.why))
        for f in WRITTEN_WHEN_HELD:
            if f not in rec and f not in refused_here:
                self.lacking[f].add(n)
        self.records += 1
        self.head = hashlib.sha256(out).hexdigest()
        return out

    def gaps_pieces(self, export_name: str, source_chain: dict[str, Any]) -> Iterator[bytes]:
        """The gaps file's bytes (the module docstring's document), in pieces."""
        held: dict[int, Runs] = {}
        gaps = [
            _gap(f"AAT field {f}", "every record", f"left out: {why}") for f, why in NEVER_WRITTEN
        ]

        def hole(runs: Runs, looked_for: str, reason: str) -> None:
            k = len(held)
            held[k] = runs
            gaps.append({**_gap(looked_for, f"\0W{k}\0", reason), "lines": f"\0L{k}\0"})

        for f in WRITTEN_WHEN_HELD:
            if self.lacking[f].count:
                hole(
                    self.lacking[f],
                    f"AAT field {f}",
                    "left out: the row holds no value for it, and none is guessed",
                )
        for n, field, why in self.refused:
            gaps.append(
                {
                    **_gap(
                        f"AAT field {field}",
                        f"ledger line {n}",
                        f"left out: JCS cannot write it exactly ({why}), and it is not rounded",
                    ),
                    "lines": [n],
                }
            )
        if self.skipped.count:
            hole(
                self.skipped,
                "an AAT record",
                "left out: the line is not a JSON object, so no record was made from it",
            )
        doc = {
            "format": AAT_FORMAT,
            "scope": AAT_SCOPE,
            "which_chain": WHICH_CHAIN,
            "export": export_name,
            "aat_chain": {
                "algorithm": AAT_CHAIN_ALGORITHM,
                "records": self.records,
                "head": self.head,
            },
            "source_chain": source_chain,
            "gaps": gaps,
        }
        text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
        at = 0
        for m in _HOLE.finditer(text):
            yield text[at : m.start()].encode("utf-8")
            runs = held[int(m.group(2))]
            for piece in _phrase_pieces(runs) if m.group(1) == "W" else _list_pieces(runs):
                yield piece.encode("utf-8")
            at = m.end()
        yield text[at:].encode("utf-8")

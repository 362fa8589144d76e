"""Hostile evidence for the strict-JSON tests (issue 45): every kind of evidence the
samples hold, with a value in one field replaced by what Python's JSON parser reads
but RFC 8259 does not have: the bare tokens `NaN`, `Infinity`, `-Infinity`, the number
`1e400` (read as infinity), `-0.0`, lone surrogates (`\\ud800`, `\\udcff`) and deep
nesting. Ledgers are re-chained after the change, as an attacker would.

`write_all(folder)` writes them all, one folder per hostile value, and says what it
wrote; nothing here runs sealscope.
"""

from __future__ import annotations

import json
import shutil
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sealscope.core.chain import GENESIS, link

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"

INF_TEXT = "__1e400__"  # stands for the literal 1e400 until the text is written


def _deep(levels: int) -> Any:
    value: Any = [float("nan")]
    for _ in range(levels - 1):
        value = [value]
    return value


# name -> the value (INF_TEXT is written as the bare number 1e400)
HOSTILE: dict[str, Any] = {
    "nan": float("nan"),
    "inf": float("inf"),
    "-inf": float("-inf"),
    "1e400": INF_TEXT,
    "-0.0": -0.0,
    "lone": "x\ud800y\udcff",
    "mixed": {"n": float("nan"), "a": [float("inf"), -0.0, "\udc80"]},
    "deep": _deep(300),
    "deeper": _deep(960),
}
NAMES = list(HOSTILE)


def dumps_hostile(value: Any, indent: int | None = None) -> str:
    """JSON as Python writes it, NaN tokens and all, the 1e400 stand-in as the number."""
    return json.dumps(value, indent=indent).replace(f'"{INF_TEXT}"', "1e400")


# ------------------------------------------------------------------ JSON documents

# the JSON evidence files of the samples, each with the files it names beside it
JSON_SAMPLES: dict[str, tuple[str, ...]] = {
    "kinds/portable-receipt.json": (
        "kinds/portable.ledger.jsonl",
        "kinds/portable.ledger.jsonl.witness.jsonl",
    ),
    "kinds/receipt.json": (),
    "kinds/distill-receipt.json": (),
    "kinds/continuity-verdict.json": (),
    "kinds/artefact-decision.json": ("kinds/artefacts.jsonl", "kinds/artefact-report.md"),
    "seals/seal-day1.json": (),
}

# fields every hostile value goes into (the fuzzer's finds); other fields get two each
FOCUS = {("body_digest",), ("kind",), ("witness", "status"), ("schema",)}


def _paths(doc: dict[str, Any]) -> list[tuple[str, ...]]:
    """Every top-level key, and every key of an object one level down."""
    out: list[tuple[str, ...]] = []
    for k, v in doc.items():
        out.append((k,))
        if isinstance(v, dict):
            out += [(k, k2) for k2 in v]
    return out


def _with(doc: Any, path: tuple[str, ...], value: Any) -> Any:
    doc = json.loads(json.dumps(doc))
    at = doc
    for k in path[:-1]:
        at = at[k]
    at[path[-1]] = value
    return doc


def json_variants(doc: dict[str, Any]) -> list[tuple[str, Any]]:
    """(label, document) for each field and hostile value the rule above picks."""
    out = []
    for i, path in enumerate(_paths(doc)):
        names = (
            NAMES
            if path in FOCUS or len(path) == 1
            else [
                NAMES[i % len(NAMES)],
                NAMES[(i + 4) % len(NAMES)],
            ]
        )
        for name in names:
            out.append((f"{'.'.join(path)}={name}", _with(doc, path, HOSTILE[name])))
    return out


# ------------------------------------------------------------------------ ledgers


def chained_lines(rows: list[dict[str, Any]]) -> str:
    """The rows as a ledger whose chain holds, each line as Python writes it."""
    prev = GENESIS
    lines = []
    for row in rows:
        real = json.loads(dumps_hostile(row))  # the value a reader will see (1e400 is inf)
        row = dict(row, chain=link(prev, real))
        prev = row["chain"]
        lines.append(dumps_hostile(row))
    return "\n".join(lines) + "\n"


def _receipt_row() -> dict[str, Any]:
    for line in (SAMPLES / "session.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("kind") == "compaction_receipt":
            row.pop("chain")
            return row
    raise AssertionError("session.jsonl holds a compaction receipt")


def ledger_variants() -> list[tuple[str, str]]:
    """(label, ledger text): note rows carrying each value, and a compaction receipt
    row with each value in one of its fields, all chained."""
    out = []
    notes = [{"kind": "note", "ts": "2026-03-01T09:00:00Z", "v": v} for v in HOSTILE.values()]
    out.append(("notes", chained_lines(notes)))
    receipt = _receipt_row()
    for i, path in enumerate(_paths(receipt)):
        name = NAMES[i % len(NAMES)]
        row = _with(receipt, path, HOSTILE[name])
        out.append((f"receipt.{'.'.join(path)}={name}", chained_lines([{"kind": "open"}, row])))
    # a v2 receipt row with every value at once in its counts
    row = _with(receipt, ("pre", "bytes"), float("inf"))
    row = _with(row, ("post", "count"), float("nan"))
    row = _with(row, ("dropped", "bytes"), INF_TEXT)
    row = _with(row, ("schema",), "arcaeon-compact:receipt:v2")
    out.append(("receipt.v2-counts", chained_lines([row])))
    return out


# ------------------------------------------------------------------ packs, bundles, AAT


def aat_variants() -> list[tuple[str, str]]:
    """The AAT export with one field of one record replaced (its chain left as it was)."""
    lines = (SAMPLES / "packs" / "session-aat.jsonl").read_text(encoding="utf-8").splitlines()
    out = []
    for i, name in enumerate(NAMES):
        n = i % len(lines)
        row = json.loads(lines[n])
        key = sorted(row)[i % len(row)]
        row[key] = HOSTILE[name]
        changed = [*lines[:n], dumps_hostile(row), *lines[n + 1 :]]
        out.append((f"aat.{n}.{key}={name}", "\n".join(changed) + "\n"))
    return out


def _member_variants(doc: dict[str, Any], limit: int) -> list[tuple[str, Any]]:
    return [
        (f"{k}={NAMES[i % len(NAMES)]}", _with(doc, (k,), HOSTILE[NAMES[i % len(NAMES)]]))
        for i, k in enumerate(list(doc)[:limit])
    ]


Writer = Callable[[Path], Path]  # writes one case at (a name without suffix), says where


def bundle_variants() -> list[tuple[str, Writer]]:
    """Copies of the sample bundle, each with one field of integrity.json or
    manifest.json replaced."""
    src = SAMPLES / "packs" / "session-bundle"
    out: list[tuple[str, Writer]] = []
    for member in ("integrity.json", "manifest.json"):
        doc = json.loads((src / member).read_text(encoding="utf-8"))
        for label, changed in _member_variants(doc, 12):

            def write(dst: Path, member: str = member, changed: Any = changed) -> Path:
                shutil.copytree(src, dst)
                (dst / member).write_text(dumps_hostile(changed), encoding="utf-8")
                return dst

            out.append((f"bundle-{member.split('.')[0]}-{label}", write))
    return out


def pack_variants() -> list[tuple[str, Writer]]:
    """Copies of the sample pack zip, each with one field of one JSON member replaced."""
    with zipfile.ZipFile(SAMPLES / "packs" / "session-pack.zip") as z:
        members = {n: z.read(n) for n in z.namelist()}
    out: list[tuple[str, Writer]] = []
    for member in ("integrity.json", "manifest.json", "could_not_look.json"):
        doc = json.loads(members[member])
        if not isinstance(doc, dict):
            continue
        for label, changed in _member_variants(doc, 8):

            def write(dst: Path, member: str = member, changed: Any = changed) -> Path:
                dst = dst.with_name(dst.name + ".zip")
                with zipfile.ZipFile(dst, "w") as z:
                    for n, data in members.items():
                        z.writestr(n, dumps_hostile(changed).encode() if n == member else data)
                return dst

            out.append((f"pack-{member.split('.')[0]}-{label}", write))
    return out


# ------------------------------------------------------------------------ the lot


@dataclass
class Group:
    """The cases of one hostile value (`all`: rows carrying every value at once),
    under one folder: every evidence path, and the ledgers among them."""

    folder: Path
    files: list[Path] = field(default_factory=list)
    ledgers: list[Path] = field(default_factory=list)


def _label_name(label: str) -> str:
    return label.rsplit("=", 1)[1] if "=" in label else "all"


def write_all(folder: Path) -> dict[str, Group]:
    """Every hostile case under `folder`, one sub-folder per hostile value (with the
    stack Python's JSON writer needs for the deepest of them)."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20_000))
    try:
        return _write_all(folder)
    finally:
        sys.setrecursionlimit(old)


def _write_all(folder: Path) -> dict[str, Group]:
    groups = {name: Group(folder / name) for name in [*NAMES, "all"]}
    for g in groups.values():
        g.folder.mkdir()
    n = 0

    def place(label: str, sub: str) -> tuple[Group, Path]:
        nonlocal n
        n += 1
        g = groups[_label_name(label)]
        (g.folder / sub).mkdir(exist_ok=True)
        return g, g.folder / sub / f"{n:04d}-{label.replace('/', '_')}"

    for sample, beside in JSON_SAMPLES.items():
        src = SAMPLES / sample
        doc = json.loads(src.read_text(encoding="utf-8"))
        for label, changed in [("whole=nan", float("nan")), *json_variants(doc)]:
            g, p = place(label, src.stem)
            for other in beside:
                if not (p.parent / Path(other).name).exists():
                    shutil.copy(SAMPLES / other, p.parent / Path(other).name)
            p = p.with_name(p.name + ".json")
            p.write_text(dumps_hostile(changed), encoding="utf-8")
            g.files.append(p)
    for label, text in ledger_variants() + aat_variants():
        g, p = place(label, "ledgers")
        p = p.with_name(p.name + ".jsonl")
        p.write_text(text, encoding="utf-8")
        g.files.append(p)
        if not label.startswith("aat."):
            g.ledgers.append(p)
    for label, write in bundle_variants() + pack_variants():
        g, p = place(label, "packs")
        g.files.append(write(p))
    return groups

"""Generated long-tail evidence for the profile differential tests (KINDS-3.md §16–§22),
written with the reference's own writers (a test-only oracle, a pinned dev dependency), and the
tamperings applied to it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

TS = "2026-03-01T10:00:00Z"


def arcaeon() -> Any:
    import arcaeon as reference

    return reference


def rows_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def rechain(path: Path, rows: list[dict[str, Any]]) -> Path:
    """`rows` written afresh through the reference's `Ledger.append` (new chains)."""
    from arcaeon.record.ledger import Ledger

    path.unlink(missing_ok=True)
    lg = Ledger(path)
    for r in rows:
        lg.append({k: v for k, v in r.items() if k != "chain"})
    return path


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- tamperings
# each takes the honest file and a fresh path, writes the tampered copy, returns it


def _lines(src: Path) -> list[str]:
    return [x for x in src.read_text(encoding="utf-8").split("\n") if x.strip()]


def edit_in_place(field: str, value: Any, line: int = 1) -> Callable[[Path, Path], Path]:
    def go(src: Path, dst: Path) -> Path:
        lines = _lines(src)
        k = min(line, len(lines)) - 1
        row = json.loads(lines[k])
        row[field] = value
        lines[k] = json.dumps(row, ensure_ascii=False)
        return write_lines(dst, lines)

    return go


def delete_line(line: int) -> Callable[[Path, Path], Path]:
    def go(src: Path, dst: Path) -> Path:
        lines = _lines(src)
        del lines[min(line, len(lines)) - 1]
        return write_lines(dst, lines)

    return go


def cut_tail(n: int) -> Callable[[Path, Path], Path]:
    def go(src: Path, dst: Path) -> Path:
        return write_lines(dst, _lines(src)[:-n])

    return go


def crlf(src: Path, dst: Path) -> Path:
    dst.write_bytes(src.read_bytes().replace(b"\n", b"\r\n"))
    return dst


def swap_first_two(src: Path, dst: Path) -> Path:
    lines = _lines(src)
    lines[0], lines[1] = lines[1], lines[0]
    return write_lines(dst, lines)


def ff_byte(src: Path, dst: Path) -> Path:
    data = src.read_bytes()
    at = data.index(b'"', data.index(b"\n") + 2) + 1  # inside a string of row 2
    dst.write_bytes(data[:at] + b"\xff" + data[at:])
    return dst


def cut_last_line_half(src: Path, dst: Path) -> Path:
    data = src.read_bytes().rstrip(b"\n")
    start = data.rfind(b"\n") + 1
    dst.write_bytes(data[: start + (len(data) - start) // 2])
    return dst


def deep_line(src: Path, dst: Path) -> Path:
    dst.write_bytes(src.read_bytes() + b"[" * 600 + b"]" * 600 + b"\n")
    return dst


def rechain_edit(field: str, value: Any, line: int) -> Callable[[Path, Path], Path]:
    def go(src: Path, dst: Path) -> Path:
        rows = rows_of(src)
        rows[line - 1][field] = value
        return rechain(dst, rows)

    return go


def rechain_shared(step_kind: str, key: str, value: Any) -> Callable[[Path, Path], Path]:
    """A deal/handshake row's shared body edited and every chain recomputed (its
    step_digest left stale)."""

    def go(src: Path, dst: Path) -> Path:
        rows = rows_of(src)
        for r in rows:
            if r.get("kind") == step_kind:
                body = r["shared"]
                target = body.get("terms") if isinstance(body.get("terms"), dict) else body
                target[key] = value
                break
        return rechain(dst, rows)

    return go


def honest(src: Path, dst: Path) -> Path:
    dst.write_bytes(src.read_bytes())
    return dst


TAMPERINGS: dict[str, Callable[[Path, Path], Path]] = {
    "honest": honest,
    "crlf": crlf,
    "swap": swap_first_two,
    "ff": ff_byte,
    "cut-half": cut_last_line_half,
    "cut-tail": cut_tail(1),
    "delete-2": delete_line(2),
    "deep": deep_line,
    "ts-edited": edit_in_place("ts", "2030-01-01T00:00:00Z", 2),
}


def rows_of_lenient(path: Path) -> list[Any]:
    """The rows the reference's `Ledger` iteration yields (its own reader)."""
    from arcaeon.record.ledger import Ledger

    return list(Ledger(path))


def first_object(path: Path) -> Any:
    for raw in path.read_bytes().split(b"\n"):
        try:
            value = json.loads(raw.decode("utf-8", "replace").strip())
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None

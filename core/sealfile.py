"""Seal-side files: continuity snapshot files, restatements, tiers and manifests.

Each file is UTF-8 JSON read with CPython's parser. A snapshot file is loaded and
validated into a `SealFile` whose `status` is ok / invalid / unreadable (never an
exception); the other readers raise ValueError with a one-line reason.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from sealscope.core import bound_reads as _bound
from sealscope.core import lines as _lines
from sealscope.core import verdict as _verdict
from sealscope.core.continuity import SNAPSHOT_SCHEMA, ContinuitySnapshot
from sealscope.core.jsonio import loads as _loads

__all__ = [
    "Unreadable",
    "read_json_file",
    "SealFile",
    "load_seal",
    "unusable",
    "load_tiers",
    "load_restated",
    "load_manifest",
]


class Unreadable(Exception):
    """The file could not be read at all (missing, a folder, no permission)."""


def read_json_file(path: str | os.PathLike[str]) -> Any:
    """Parse a UTF-8 JSON file. `Unreadable` when it cannot be read; ValueError
    (`not UTF-8: …` / `not JSON: …`) when it is not UTF-8 JSON."""
    try:
        with _lines.open_regular(path) as fh:
            data = fh.read()
    except OSError as e:
        raise Unreadable(f"cannot read {os.fspath(path)}: {e.strerror or e}") from None
    _bound.note_bytes(path, data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"not UTF-8: {e}") from None
    try:
        return _loads(text)
    except ValueError as e:
        raise ValueError(f"not JSON: {e}") from None


@dataclass(frozen=True)
class SealFile(_verdict.Judged):
    """One snapshot file's fate: `status` ok / invalid / unreadable; `snap` when ok,
    `error` (the exact reason) otherwise, `raw` the parsed JSON when it parsed."""

    path: str
    status: str
    snap: ContinuitySnapshot | None = None
    error: str | None = None
    raw: Any = None

    def outcome(self) -> _verdict.Outcome:
        """`sealscope snapshot`'s verdict: valid 0, invalid 1, unreadable 3."""
        return _verdict.seal(self.status)

    def summary(self) -> dict[str, Any]:
        """`sealscope snapshot --json`'s object."""
        label = id_scheme = probes = digest = None
        if self.snap is not None:
            s = self.snap
            label, id_scheme, digest = s.label, s.id_scheme, s.digest
            probes = len(s.probes)
        elif isinstance(self.raw, dict) and self.raw.get("schema") == SNAPSHOT_SCHEMA:
            label = self.raw.get("label")
            id_scheme = self.raw.get("id_scheme", "index")
            p = self.raw.get("probes")
            probes = len(p) if isinstance(p, list) else None
        return {
            "path": self.path,
            "valid": self.status == "ok",
            "digest": digest,
            "error": self.error,
            "label": label,
            "id_scheme": id_scheme,
            "probes": probes,
        }


def load_seal(path: str | os.PathLike[str]) -> SealFile:
    """Read, parse, load and validate a snapshot file (never raises)."""
    p = os.fspath(path)
    try:
        raw = read_json_file(p)
    except Unreadable as e:
        return SealFile(p, "unreadable", error=str(e))
    except ValueError as e:
        return SealFile(p, "invalid", error=str(e))
    try:
        snap = ContinuitySnapshot.from_dict(raw)
        snap.digest  # noqa: B018 - a registration that cannot be digested is invalid
    except Exception as e:  # noqa: BLE001 - any refusal makes the file invalid
        return SealFile(p, "invalid", error=str(e) or type(e).__name__, raw=raw)
    return SealFile(p, "ok", snap=snap, raw=raw)


def unusable(*seals: SealFile) -> tuple[str, int] | None:
    """Why these seals cannot be used together (diffed): the reasons of those not ok,
    joined, and the worst of their exit codes (1 invalid over 3 unreadable); None
    when every one is ok."""
    bad = [x for x in seals if x.status != "ok"]
    if not bad:
        return None
    return "; ".join(f"{x.path}: {x.error}" for x in bad), _verdict.worst(x.exit_code for x in bad)


def _read_side(path: str, what: str) -> Any:
    try:
        return read_json_file(path)
    except Unreadable as e:
        raise ValueError(str(e)) from None
    except ValueError as e:
        raise ValueError(f"{what} file {path}: {e}") from None


def load_tiers(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A tiers file: a JSON object `{tier: [field, ...]}`. ValueError otherwise."""
    p = os.fspath(path)
    tiers = _read_side(p, "tiers")
    if not isinstance(tiers, dict) or not all(
        isinstance(v, list) and all(isinstance(f, str) for f in v) for v in tiers.values()
    ):
        raise ValueError(f"tiers file {p} must be a JSON object {{tier: [field, ...]}}")
    return tiers


def load_restated(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A restatement file: a JSON object of probe id → answer text. ValueError otherwise."""
    p = os.fspath(path)
    restated = _read_side(p, "restated")
    if not isinstance(restated, dict):
        raise ValueError(f"restated file {p} must be a JSON object {{probe_id: answer}}")
    for k, v in restated.items():
        if not isinstance(v, str):
            raise ValueError(
                f"restated file {p}: the answer for {k!r} is {type(v).__name__}, not text"
            )
    return restated


def load_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A newer manifest: a manifest JSON object, or a snapshot file (its manifest)."""
    p = os.fspath(path)
    doc = _read_side(p, "manifest")
    if isinstance(doc, dict) and doc.get("schema") == SNAPSHOT_SCHEMA:
        doc = doc.get("manifest")
        if not isinstance(doc, dict):
            raise ValueError(f"snapshot file {p} carries no manifest object")
    if not isinstance(doc, dict):
        raise ValueError(f"manifest file {p} must be a JSON object (a manifest, or a snapshot)")
    return doc

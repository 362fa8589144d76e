"""Probes: one exact_match question per declared manifest item (§6.1–6.2, §6.4.1)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sealscope.core.digest import digest_json

__all__ = ["derive_probes", "restate", "probe_set_digest"]


def _answer_text(value: Any) -> str:
    """A declared value as answer text: a string as-is, anything else as sorted-key
    JSON with default separators and raw non-ASCII."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _check_scheme(id_scheme: Any) -> None:
    if id_scheme not in ("index", "content"):
        raise ValueError(f"id_scheme must be 'index' or 'content', got {id_scheme!r}")


def _list_item(
    key: Any, idx: int, item: Any, id_scheme: str, seen: dict[str, Any]
) -> tuple[str, str, str]:
    """(id, answer, prompt) of list element `idx` of `key` (§6.1 table)."""
    if isinstance(item, dict) and set(item.keys()) == {"id", "value"}:
        pid = f"{key}:{item['id']}"
        return (
            pid,
            _answer_text(item["value"]),
            f"Restate the declared manifest item {pid!r} exactly.",
        )
    answer = _answer_text(item)
    if id_scheme == "content":
        base = f"{key}:{hashlib.sha256(answer.encode('utf-8')).hexdigest()[:12]}"
        n = seen[base] = seen.get(base, 0) + 1
        pid = base if n == 1 else f"{base}#{n}"
        return pid, answer, f"Restate the declared manifest item {pid!r} exactly."
    return f"{key}:{idx}", answer, f"Restate the declared manifest item {key}[{idx}] exactly."


def _walk_manifest(manifest: Mapping[str, Any], id_scheme: str) -> Iterator[tuple[str, Any, str]]:
    """Yield (id, answer, prompt) in derivation order: sorted keys, then list order."""
    for key in sorted(manifest.keys()):
        value = manifest[key]
        if isinstance(value, list):
            seen: dict[str, Any] = {}
            for idx, item in enumerate(value):
                yield _list_item(key, idx, item, id_scheme, seen)
        else:
            yield key, _answer_text(value), f"Restate the declared manifest field {key!r} exactly."


def derive_probes(manifest: Mapping[str, Any], id_scheme: str = "index") -> list[dict[str, Any]]:
    """One exact_match probe per declared item, in derivation order (§6.1).
    Refuses a bad scheme and a manifest declaring zero items."""
    _check_scheme(id_scheme)
    probes = [
        {"id": pid, "prompt": prompt, "scoring": {"type": "exact_match", "answer": answer}}
        for pid, answer, prompt in _walk_manifest(manifest, id_scheme)
    ]
    if not probes:
        raise ValueError("manifest declared zero items — nothing to snapshot")
    return probes


def restate(manifest: Mapping[str, Any], id_scheme: str = "index") -> dict[str, str]:
    """`{probe id: answer}` for a manifest with the sealing derivation (§6.2): no
    uniqueness check (a later duplicate overwrites), `{}` for an empty manifest."""
    _check_scheme(id_scheme)
    if not isinstance(manifest, Mapping):
        raise TypeError("manifest must be a dict")
    return {pid: answer for pid, answer, _p in _walk_manifest(manifest, id_scheme)}


def _require_unique(probes: Sequence[dict[str, Any]]) -> None:
    """Ids, then prompts, must be unique across the probe set."""
    for name in ("id", "prompt"):
        seen: set[Any] = set()
        for p in probes:
            v = p[name]
            if v in seen:
                raise ValueError(
                    f"duplicate probe {name} {v!r} — refusing to seal a "
                    f"snapshot that could never be verified"
                )
            seen.add(v)


def probe_set_digest(probes: Sequence[dict[str, Any]]) -> str:
    """json-c14n of the `{id, prompt, scoring}` objects sorted by id (§6.4.1)."""
    return digest_json(
        [
            {"id": p["id"], "prompt": p["prompt"], "scoring": p["scoring"]}
            for p in sorted(probes, key=lambda p: p["id"])
        ]
    )


def _coerce_probes(probes: Any) -> list[dict[str, Any]]:
    """Caller probes: dicts (or objects with id/prompt/scoring attributes), id and
    prompt turned into text."""
    out = []
    for p in probes:
        if isinstance(p, dict):
            out.append({"id": str(p["id"]), "prompt": str(p["prompt"]), "scoring": p["scoring"]})
        elif all(hasattr(p, a) for a in ("id", "prompt", "scoring")):
            out.append({"id": p.id, "prompt": p.prompt, "scoring": p.scoring})
        else:
            raise TypeError(f"probe must be a Probe or dict, got {type(p).__name__}")
    return out

"""Sealing a declared manifest as a continuity snapshot (§6.3, §6.5) and loading one
back (§6.6)."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sealscope.core import ledger as _ledger
from sealscope.core import lines as _lines
from sealscope.core.clock import utc_stamp
from sealscope.core.continuity.baseline import _register
from sealscope.core.continuity.probes import (
    _check_scheme,
    _coerce_probes,
    _require_unique,
    derive_probes,
    probe_set_digest,
)
from sealscope.core.continuity.schema import SNAPSHOT_SCHEMA
from sealscope.core.digest import digest_json
from sealscope.core.jsonio import loads as _loads

__all__ = ["ContinuitySnapshot", "snapshot"]


@dataclass(frozen=True)
class ContinuitySnapshot:
    """A sealed manifest: its probes and the baseline registered over them (§6.5).
    `digest` covers schema, manifest and probe-set digests, registration items and
    aggregate, and `id_scheme` when it is not `index`."""

    schema: str
    label: Any
    manifest: Any
    manifest_digest: Any
    probes: Any
    probe_set_digest: Any
    registration: Any
    ledger_chain: Any
    ledger_path: Any
    created_at: Any
    id_scheme: Any = "index"

    @property
    def digest(self) -> str:
        reg = self.registration if isinstance(self.registration, dict) else {}
        core = {
            "schema": self.schema,
            "manifest_digest": self.manifest_digest,
            "probe_set_digest": self.probe_set_digest,
            "registration_items": reg.get("items"),
            "registration_aggregate": reg.get("aggregate"),
        }
        if self.id_scheme != "index":
            core["id_scheme"] = self.id_scheme
        return digest_json(core)

    def to_dict(self) -> dict[str, Any]:
        """The snapshot JSON (§6.5 key order), with a fresh `digest`; a copy."""
        return {
            "schema": self.schema,
            "label": self.label,
            "manifest": copy.deepcopy(self.manifest),
            "manifest_digest": self.manifest_digest,
            "probes": copy.deepcopy(self.probes),
            "probe_set_digest": self.probe_set_digest,
            "registration": copy.deepcopy(self.registration),
            "ledger_chain": self.ledger_chain,
            "ledger_path": self.ledger_path,
            "created_at": self.created_at,
            "id_scheme": self.id_scheme,
            "digest": self.digest,
        }

    def to_json(self, indent: int | None = 2) -> str:
        # the snapshot evidence format, as the reference writes it (not dumps_output)
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json(), encoding="utf-8")

    def validate(self) -> None:
        """Raise ValueError unless the content reproduces the digests it claims
        (§6.6, checks in the reference's order). The stored `digest`, probe
        derivability and registration scores are not checked."""
        if self.schema != SNAPSHOT_SCHEMA:
            raise ValueError(f"not an arcaeon-continuity snapshot (schema={self.schema!r})")
        if not isinstance(self.manifest, dict):
            raise ValueError("manifest must be a dict")
        _check_scheme(self.id_scheme)
        if not isinstance(self.probes, list) or not self.probes:
            raise ValueError("probes must be a non-empty list")
        for p in self.probes:
            if not (isinstance(p, dict) and {"id", "prompt", "scoring"} <= set(p)):
                raise ValueError("every probe needs id, prompt and scoring")
        got = digest_json(self.manifest)
        if got != self.manifest_digest:
            raise ValueError(
                "manifest_digest does not reproduce from the manifest — the "
                f"snapshot was altered (claims {self.manifest_digest}, "
                f"content digests to {got})"
            )
        try:
            got = probe_set_digest(self.probes)
        except TypeError as e:  # ids of mixed types cannot be ordered
            raise ValueError(f"probe_set_digest cannot be recomputed: {e}") from None
        if got != self.probe_set_digest:
            raise ValueError(
                "probe_set_digest does not reproduce from the probes — the "
                f"snapshot was altered (claims {self.probe_set_digest}, "
                f"content digests to {got})"
            )
        reg = self.registration if isinstance(self.registration, dict) else {}
        if reg.get("probe_set_digest") != self.probe_set_digest:
            raise ValueError(
                "registration is for a different probe set than the snapshot "
                "carries — the sealed baseline and the exam disagree"
            )
        items = reg.get("items") or []
        if (
            not isinstance(items, list)
            or not all(isinstance(it, dict) for it in items)
            or sorted(str(it.get("id")) for it in items)
            != sorted(str(p["id"]) for p in self.probes)
        ):
            raise ValueError("registration items do not cover exactly the snapshot's probes")

    @classmethod
    def from_dict(cls, d: Any, validate: bool = True) -> ContinuitySnapshot:
        """Load a snapshot object; refuses a non-object, a wrong schema and a
        missing required field, then runs validate() unless told not to."""
        if not isinstance(d, dict):
            raise ValueError(
                "not an arcaeon-continuity snapshot (expected a JSON object, "
                f"got {type(d).__name__})"
            )
        if d.get("schema") != SNAPSHOT_SCHEMA:
            raise ValueError(f"not an arcaeon-continuity snapshot (schema={d.get('schema')!r})")
        for key in (
            "label",
            "manifest",
            "manifest_digest",
            "probes",
            "probe_set_digest",
            "registration",
            "created_at",
        ):
            if key not in d:
                raise ValueError(f"malformed snapshot: missing field {key!r}")
        snap = cls(
            schema=d["schema"],
            label=d["label"],
            manifest=d["manifest"],
            manifest_digest=d["manifest_digest"],
            probes=d["probes"],
            probe_set_digest=d["probe_set_digest"],
            registration=d["registration"],
            ledger_chain=d.get("ledger_chain"),
            ledger_path=d.get("ledger_path"),
            created_at=d["created_at"],
            id_scheme=d.get("id_scheme", "index"),
        )
        if validate:
            snap.validate()
        return snap

    @classmethod
    def from_json(cls, text: str | bytes, validate: bool = True) -> ContinuitySnapshot:
        return cls.from_dict(_loads(text), validate=validate)

    @classmethod
    def load(cls, path: str | Path, validate: bool = True) -> ContinuitySnapshot:
        return cls.from_json(_lines.read_text(path), validate=validate)


def snapshot(
    manifest: Any,
    ledger_path: str | Path | None = None,
    label: str = "continuity",
    probes: Any = None,
    id_scheme: str = "index",
) -> ContinuitySnapshot:
    """Seal `manifest` (§6.3): derive (or take) probes, refuse duplicates, register
    the baseline, refuse any probe that could not be scored (coverage fence),
    and append a `continuity_snapshot` row to `ledger_path` when given."""
    if not isinstance(manifest, dict):
        raise TypeError("manifest must be a dict")
    manifest_digest = digest_json(manifest)
    probe_list = (
        _coerce_probes(probes)
        if probes is not None
        else derive_probes(manifest, id_scheme=id_scheme)
    )
    _require_unique(probe_list)
    if not isinstance(label, str):
        raise TypeError(f"label must be a str, got {type(label).__name__}")
    reg = _register(probe_list, label)
    agg = reg["aggregate"]
    if agg["n_errors"]:
        bad = [it for it in reg["items"] if it.get("error")]
        named = ", ".join(f"{it.get('id')!r} ({it.get('error')})" for it in bad[:5])
        more = f", and {len(bad) - 5} more" if len(bad) > 5 else ""
        raise ValueError(
            f"{agg['n_errors']} of {agg['n']} probe(s) could not be scored while sealing "
            f"the baseline, so a later verdict would silently omit them and still report "
            f"exact_match: {named}{more}. Every probe must be answerable at seal time -- "
            f"supply a runner that can answer them, or drop them from the probe set."
        )
    chain = None
    if ledger_path is not None:
        chain = _ledger.append(
            ledger_path,
            {
                "kind": "continuity_snapshot",
                "label": label,
                "manifest_digest": manifest_digest,
                "probe_set_digest": reg["probe_set_digest"],
                "aggregate_mean": agg["mean"],
            },
        )
    return ContinuitySnapshot(
        schema=SNAPSHOT_SCHEMA,
        label=label,
        manifest=manifest,
        manifest_digest=manifest_digest,
        probes=[
            {"id": p["id"], "prompt": p["prompt"], "scoring": p["scoring"]} for p in probe_list
        ],
        probe_set_digest=reg["probe_set_digest"],
        registration=reg,
        ledger_chain=chain,
        ledger_path=str(ledger_path) if ledger_path else None,
        created_at=utc_stamp(),
        id_scheme=id_scheme,
    )

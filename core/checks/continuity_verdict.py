"""Stored continuity verdicts (`continuity-verdict`, KINDS.md §5) and the
`continuity_verify` ledger rows that repeat their envelope.

A verdict file loads by the reference loader's rules (FORMATS.md §6.12), in order:
the v1 schema; `faithful`, `valid`, `divergences`, `receipt` present; `valid` a bool and
`faithful` a bool or null; divergences a list of objects; `notes` a list and `policy` an
object when present; `policy.strict` a bool; no `faithful` true with `valid` false; a
bool `faithful` that agrees with "no divergences"; then with a `comparison` tag: a known
tag, null exactly when invalid, `divergence` exactly when there are divergences,
`faithful` paired with the tag (`exact_match` true, `containment_only` null, else
false/null) and with `policy.strict`; without one (legacy), `faithful` a bool, and a
legacy `faithful` true refused (no snapshot is given to `check`); last, a present
`verdict_digest` must equal the one recomputed from the loaded envelope. A refusal is
BROKEN (`error` `UnsupportedVerdictVersion` or `ValueError`); a loaded verdict takes
the `continuity` verb's exit rule: exact_match VERIFIED, containment_only COULD NOT
LOOK, a divergence or an invalid comparison BROKEN.

A `continuity_verify` row cannot be checked alone (it lacks `probe_set_digest` and the
divergence ids): it is matched to the first held verdict (a verdict PATH, or a `*.json`
verdict in `--artefacts DIR`) whose recomputed digest equals its `verdict_digest`, and
then must repeat that verdict's envelope and divergence count (`matched` VERIFIED,
`mismatch` BROKEN); unmatched it COULD NOT LOOK.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from sealscope.core import verdict as _verdict
from sealscope.core.checks._read import NotADocument, read_document
from sealscope.core.checks.result import CheckContext, KindCheck
from sealscope.core.continuity.continuation import VERDICT_COMPARISONS, ContinuationVerdict
from sealscope.core.continuity.schema import VERDICT_SCHEMA

__all__ = [
    "Refused",
    "UnsupportedVerdictVersion",
    "load_verdict",
    "check",
    "HeldVerdict",
    "held_verdicts",
    "row_entry",
]

KIND = "continuity-verdict"


class Refused(ValueError):
    """The loader refused the verdict; `name` is the reference's exception class."""

    name = "ValueError"


class UnsupportedVerdictVersion(Refused):
    """A verdict the reference loader cannot honestly evaluate (its own class name)."""

    name = "UnsupportedVerdictVersion"


def _contradiction(text: str) -> UnsupportedVerdictVersion:
    return UnsupportedVerdictVersion(text)


def _check_fields(d: dict[str, Any]) -> tuple[Any, bool, list[Any]]:
    if d.get("schema") != VERDICT_SCHEMA:
        raise _contradiction(f"stored verdict schema {d.get('schema')!r} is not {VERDICT_SCHEMA!r}")
    for key in ("faithful", "valid", "divergences", "receipt"):
        if key not in d:
            raise Refused(f"malformed verdict: missing field {key!r}")
    faithful, valid, divs = d["faithful"], d["valid"], d["divergences"]
    if not (isinstance(faithful, bool) or faithful is None) or not isinstance(valid, bool):
        raise Refused("malformed verdict: valid must be a bool, faithful a bool or null")
    if not isinstance(divs, list) or not all(isinstance(x, dict) for x in divs):
        raise Refused("malformed verdict: divergences must be a list of objects")
    if d.get("notes") is not None and not isinstance(d["notes"], list):
        raise Refused("malformed verdict: notes must be a list")
    pol = d.get("policy")
    if pol is not None and not isinstance(pol, dict):
        raise Refused("malformed verdict: policy must be an object")
    if isinstance(pol, dict) and "strict" in pol and not isinstance(pol["strict"], bool):
        raise _contradiction(f"policy.strict is {pol['strict']!r}, not a bool")
    if faithful is True and not valid:
        raise _contradiction("faithful=True with valid=False")
    if valid and isinstance(faithful, bool) and faithful != (len(divs) == 0):
        raise _contradiction(f"faithful={faithful} with {len(divs)} divergence(s)")
    return faithful, valid, divs


def _tagged(d: dict[str, Any], faithful: Any, valid: bool, divs: list[Any]) -> Any:
    comparison = d["comparison"]
    if comparison is not None and comparison not in VERDICT_COMPARISONS:
        raise _contradiction(f"unknown comparison tag {comparison!r}")
    if (comparison is None) != (valid is False):
        raise _contradiction(f"comparison={comparison!r} with valid={valid}")
    if valid and (comparison == "divergence") != (len(divs) > 0):
        raise _contradiction(f"comparison={comparison!r} with {len(divs)} divergence(s)")
    if comparison == "exact_match":
        tag_ok = faithful is True
    elif comparison == "containment_only":
        tag_ok = faithful is None
    else:
        tag_ok = faithful is False or faithful is None
    if not tag_ok:
        raise _contradiction(f"faithful={faithful!r} vs comparison={comparison!r}")
    pol = d.get("policy")
    if isinstance(pol, dict) and "strict" in pol:
        if pol["strict"] and not isinstance(faithful, bool):
            raise _contradiction("policy.strict=True but faithful is not a bool")
        if not pol["strict"] and faithful is not None:
            raise _contradiction("policy.strict=False but faithful is not None")
    return comparison


def load_verdict(d: Any) -> ContinuationVerdict:
    """The verdict of a stored verdict dict (rules in the module docstring). Raises
    `Refused` (its `name` the reference's class) on refusal."""
    if not isinstance(d, dict):
        raise Refused(f"verdict must be an object, got {type(d).__name__}")
    faithful, valid, divs = _check_fields(d)
    if "comparison" in d:
        comparison = _tagged(d, faithful, valid, divs)
    elif not isinstance(faithful, bool):
        raise _contradiction("faithful=None but no comparison tag")
    elif faithful:
        raise _contradiction(
            "legacy faithful=True refused: no paired snapshot to "
            "re-derive the manifest-fidelity leg"
        )
    else:
        comparison = "divergence" if valid else None
    v = ContinuationVerdict(
        schema=d["schema"],
        faithful=faithful,
        valid=valid,
        divergences=tuple(divs),
        receipt=d["receipt"] if isinstance(d["receipt"], dict) else {},
        notes=tuple(d.get("notes") or ()),
        comparison=comparison,
        manifest_digest=d.get("manifest_digest"),
        probe_set_digest=d.get("probe_set_digest"),
        policy=d.get("policy"),
    )
    claimed = d.get("verdict_digest")
    if claimed is None:  # nothing claimed: the loader recomputes nothing
        return v
    try:
        recomputed = v.verdict_digest
    except (ValueError, TypeError) as e:
        raise Refused(f"the envelope cannot be canonicalised: {e}") from None
    if recomputed != claimed:
        raise _contradiction(
            f"verdict_digest does not reproduce (claims {claimed}, content digests to {recomputed})"
        )
    return v


def _bound(d: dict[str, Any], v: ContinuationVerdict) -> str:
    return "unbound: no verdict_digest" if d.get("verdict_digest") is None else ""


def check_value(path: str, d: Any) -> KindCheck:
    """The check of one parsed verdict document."""
    try:
        v = load_verdict(d)
    except Refused as e:
        return KindCheck(
            path,
            KIND,
            False,
            {"loaded": False, "error": e.name, "verdict_digest": None, "refusal": str(e)},
            reason=str(e),
        )
    try:
        digest = v.verdict_digest
    except (ValueError, TypeError) as e:  # the recomputation raises: could not look
        return KindCheck(
            path,
            KIND,
            None,
            {"loaded": True, "error": type(e).__name__, "verdict_digest": None},
            reason=str(e),
        )
    out = _verdict.continuation(v)
    word = {_verdict.HELD: _verdict.VERIFIED, _verdict.WRONG: _verdict.BROKEN}.get(
        out.exit_code, _verdict.COULD_NOT_LOOK
    )
    detail = {
        "loaded": True,
        "error": None,
        "faithful": v.faithful,
        "valid": v.valid,
        "comparison": v.comparison,
        "verdict_digest": digest,
        "finding": out.verdict,
        "divergences": [dict(x) for x in v.divergences],
        "manifest_digest": v.manifest_digest,
        "probe_set_digest": v.probe_set_digest,
        "policy": v.policy,
    }
    reason = {
        "exact_match": "faithful (exact match)",
        "containment_only": "containment only (loose scoring): not an exact restatement",
    }.get(v.comparison or "", "")
    if not reason:
        reason = (
            f"divergence: {len(v.divergences)} recorded"
            if v.valid
            else "the comparison itself is invalid"
        )
    return KindCheck(path, KIND, True, detail, word=word, bound=_bound(d, v), reason=reason)


def check(path: str, ctx: CheckContext) -> KindCheck:
    """Check a stored verdict file (KINDS.md §5.2)."""
    try:
        _text, d = read_document(path)
    except (OSError, NotADocument) as e:
        return KindCheck(
            path, None, None, {"reason_word": "unreadable"}, reason=f"cannot read the verdict: {e}"
        )
    return check_value(path, d)


# ----------------------------------------------------------------------- rows


@dataclass(frozen=True)
class HeldVerdict:
    """A held verdict that loaded with a recomputed digest, and where it came from."""

    path: str
    verdict: ContinuationVerdict
    digest: str


def _held_one(path: str) -> HeldVerdict | None:
    try:
        _text, d = read_document(path)
        v = load_verdict(d)
        digest = v.verdict_digest
    except (OSError, ValueError):
        return None
    return HeldVerdict(path, v, digest) if digest is not None else None


def held_verdicts(ctx: CheckContext) -> list[HeldVerdict]:
    """Every held verdict (KINDS.md §5.3): the verdict PATHs, then each `*.json` file
    directly inside `--artefacts DIR` whose schema names a continuity verdict."""
    paths = list(ctx.verdict_files)
    if ctx.artefacts is not None:
        try:
            names = sorted(os.listdir(ctx.artefacts))
        except OSError:
            names = []
        for name in names:
            full = os.path.join(ctx.artefacts, name)
            if name.lower().endswith(".json") and os.path.isfile(full) and _names_verdict(full):
                paths.append(full)
    return [h for h in map(_held_one, paths) if h is not None]


def _names_verdict(path: str) -> bool:
    try:
        _text, d = read_document(path)
    except (OSError, ValueError):
        return False
    schema = d.get("schema") if isinstance(d, dict) else None
    return isinstance(schema, str) and schema.startswith("arcaeon-continuity:verdict:")


_ENVELOPE = ("schema", "manifest_digest", "faithful", "valid", "comparison", "policy")


def _same(a: Any, b: Any) -> bool:
    """JSON equality keeping true, 1 and 1.0 apart."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def row_entry(line: int, row: dict[str, Any], held: list[HeldVerdict]) -> dict[str, Any]:
    """The `rows_checked` entry of one `continuity_verify` row (KINDS.md §5.3)."""
    claimed = row.get("verdict_digest")
    match = next((h for h in held if claimed is not None and h.digest == claimed), None)
    if match is None:
        return {
            "line": line,
            "check": "continuity-verify",
            "ok": None,
            "verdict": _verdict.COULD_NOT_LOOK,
            "match": "unmatched",
            "note": "no held verdict has this verdict_digest",
        }
    v = match.verdict.to_dict()
    differs = [k for k in _ENVELOPE if not _same(row.get(k), v.get(k))]
    if not _same(row.get("n_divergences"), len(match.verdict.divergences)):
        differs.append("n_divergences")
    ok = not differs
    return {
        "line": line,
        "check": "continuity-verify",
        "ok": ok,
        "verdict": _verdict.VERIFIED if ok else _verdict.BROKEN,
        "match": "matched" if ok else "mismatch",
        "verdict_file": match.path,
        "differs": differs,
    }

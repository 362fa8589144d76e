"""An in-toto verification summary (SLSA VSA v1) from `Suite`s: the subjects are the
digests the verifier took of the bytes it read.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from sealscope.ci_suites import Suite
from sealscope.core import verdict as _verdict
from sealscope.core.lines import open_regular

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
VSA_TYPE = "https://slsa.dev/verification_summary/v1"
VERIFIER_ID = "https://pypi.org/project/sealscope/"


def sha256_file(path: str) -> str:
    """The SHA-256 of a regular file's bytes (a FIFO or device: `lines.NotRegularFile`,
    an OSError, raised on the open, never a wait)."""
    h = hashlib.sha256()
    with open_regular(path) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def vsa_name(path: str) -> dict[str, str]:
    """A file name as a VSA carries it: the name itself when its bytes are UTF-8;
    else (`name`) those bytes percent-encoded (`%` itself too), with `name_hex`, the
    raw bytes in hex, beside it, so a JSON reader gets the bytes back, not lone
    surrogates."""
    import os
    from urllib.parse import quote

    try:
        path.encode("utf-8")
        return {"name": path}
    except UnicodeEncodeError:
        raw = os.fsencode(path)
        return {"name": quote(raw, safe="/"), "name_hex": raw.hex()}


def vsa_statement(
    suites: Sequence[Suite], *, version: str, policy: dict[str, Any], now: datetime | None = None
) -> dict[str, Any]:
    """An unsigned in-toto Statement v1 whose predicate is a SLSA verification summary:
    each file verified a subject (its path and the SHA-256 of its bytes), the policy
    that ran, PASSED only when every file held in full; no verified levels.

    A ledger's digest is the one its verification computed from the bytes it read,
    in the same pass through the same descriptor (`Suite.digested`); a ledger whose
    bytes could not be bound to one file (replaced or changed while read) is no
    subject and makes the result FAILED. Other files are hashed here, through
    `lines.open_regular`. A file that cannot be read (gone, or a remote URL) is no
    subject either (a subject needs a digest): it is listed under
    `predicate.sealscope.results` with a null digest, and the result is FAILED
    unless it held. A result resumed from a checkpoint says so (`resumed`), as does
    the policy."""
    when = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    subjects, results = [], []
    unbound = False
    for s in suites:
        digest: str | None
        for member, sha in s.subjects or ():  # a unit folder: each listed member
            subjects.append({"name": vsa_name(member)["name"], "digest": {"sha256": sha}})
        if s.subjects is not None:
            digest = None
        elif s.digested:
            digest = s.sha256
            unbound = unbound or digest is None
        else:
            try:
                digest = sha256_file(s.path) if "://" not in s.path else None
            except OSError:
                digest = None
        name = vsa_name(s.path)
        if digest is not None:
            subjects.append(
                {"name": name["name"], "digest": {"sha256": digest}}
                | ({"annotations": {"name_hex": name["name_hex"]}} if "name_hex" in name else {})
            )
        row: dict[str, Any] = {
            "path": name["name"],
            "sha256": digest,
            "verdict": s.verdict,
            "exit_code": s.exit_code,
            "checks": [{"name": c.name, "outcome": c.outcome} for c in s.cases],
        }
        if "name_hex" in name:
            row["path_hex"] = name["name_hex"]
        if s.resumed is not None:
            row["resumed"] = s.resumed
        results.append(row)
    passed = bool(suites) and not unbound and all(s.exit_code == _verdict.HELD for s in suites)
    from_cp = [
        {"path": vsa_name(s.path)["name"], **s.resumed}
        for s in suites
        if s.resumed is not None and s.resumed.get("resumed")
    ]
    if from_cp:  # a verdict from a checkpoint is not a full verification: say so
        policy = dict(policy, resumed_from_checkpoint=from_cp)
    return {
        "_type": STATEMENT_TYPE,
        "subject": subjects,
        "predicateType": VSA_TYPE,
        "predicate": {
            "verifier": {"id": VERIFIER_ID, "version": {"sealscope": version}},
            "timeVerified": when,
            "resourceUri": "file:"
            + (vsa_name(suites[0].path)["name"] if len(suites) == 1 else "."),
            "policy": {
                "uri": "https://pypi.org/project/sealscope/#policy",
                "digest": {
                    "sha256": hashlib.sha256(
                        json.dumps(policy, sort_keys=True).encode()
                    ).hexdigest()
                },
            },
            "inputAttestations": [],
            "verificationResult": "PASSED" if passed else "FAILED",
            "verifiedLevels": [],
            "slsaVersion": "1.0",
            "sealscope": {"policy": policy, "results": results},
        },
    }

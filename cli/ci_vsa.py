"""An in-toto verification summary (SLSA VSA v1) from `Suite`s: the subjects are the
digests the verifier took of the bytes it read.

The verifier is named (`predicate.verifier.id`) by the id the user sets
(`--verifier-id URI`), else by the project's repository URL as the install's metadata
carries it (pyproject.toml `[project.urls]` "Repository"), else by the package URL
`pkg:generic/sealscope`: an id that names the tool without claiming a web page that
does not exist (sealscope is on no package index).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from sealscope.ci_suites import Suite
from sealscope.core import verdict as _verdict
from sealscope.core.lines import open_regular

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
VSA_TYPE = "https://slsa.dev/verification_summary/v1"
# the id when neither the user nor the install's metadata gives one (see above)
VERIFIER_ID = "pkg:generic/sealscope"
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s\x00-\x1f\x7f]+")


def verifier_uri(text: str) -> str:
    """`--verifier-id`'s value: a URI (a scheme, `:`, then no space or control
    character), else an argparse error (usage, exit 2)."""
    if not _URI.fullmatch(text):
        raise argparse.ArgumentTypeError(
            "not a URI (e.g. https://example.org/our-sealscope or urn:example:auditor)"
        )
    return text


def repository_url() -> str | None:
    """The project's repository URL from the installed metadata (`Project-URL:
    Repository, URL`), or None when the install carries none."""
    from importlib import metadata

    try:
        urls = metadata.metadata("sealscope").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:  # run from a bare source tree
        return None
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("repository", "source", "source code") and url.strip():
            return url.strip()
    return None


def verifier_id(given: str | None = None) -> str:
    """The VSA's verifier id: `given` (`--verifier-id`), else the repository URL,
    else `VERIFIER_ID`."""
    return given or repository_url() or VERIFIER_ID


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
    suites: Sequence[Suite],
    *,
    version: str,
    policy: dict[str, Any],
    now: datetime | None = None,
    verifier: str | None = None,
) -> dict[str, Any]:
    """An unsigned in-toto Statement v1 whose predicate is a SLSA verification summary:
    each file verified a subject (its path and the SHA-256 of its bytes), the policy
    that ran, PASSED only when every file held in full; no verified levels.

    A ledger's digest is the one its verification computed from the bytes it read,
    in the same pass through the same descriptor (`Suite.digested`); a kind's check
    names the files it judged by the digests it took of the bytes it read
    (`Suite.subjects`: a unit folder each member it read); a file whose bytes could
    not be bound (replaced or changed while read) is no subject and makes the result
    FAILED. Nothing a check judged is hashed again here; only the files of verbs
    whose suites carry no digest (receipts, harn, export) are hashed here, through
    `lines.open_regular`. A file that cannot be read (gone, or a remote URL) is no
    subject either (a subject needs a digest): it is listed under
    `predicate.sealscope.results` with a null digest, and the result is FAILED
    unless it held. A result resumed from a checkpoint says so (`resumed`), as does
    the policy. The verifier is `verifier_id(verifier)`; the policy is named by its
    digest (the policy itself is under `predicate.sealscope.policy`), not by a URI
    that would point at no page."""
    when = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    subjects: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    unbound = False

    def subject(path: str, sha: str) -> dict[str, Any]:
        name = vsa_name(path)
        return {"name": name["name"], "digest": {"sha256": sha}} | (
            {"annotations": {"name_hex": name["name_hex"]}} if "name_hex" in name else {}
        )

    for s in suites:
        digest: str | None
        if s.subjects is not None:  # a kind's check: the files it judged, as it read them
            subjects.extend(subject(member, sha) for member, sha in s.subjects)
            unbound = unbound or not s.subjects
            own = [sha for member, sha in s.subjects if member == s.path]
            digest = own[0] if len(own) == 1 else None
        elif s.digested:
            digest = s.sha256
            unbound = unbound or digest is None
        else:
            try:
                digest = sha256_file(s.path) if "://" not in s.path else None
            except OSError:
                digest = None
        name = vsa_name(s.path)
        if digest is not None and s.subjects is None:
            subjects.append(subject(s.path, digest))
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
            "verifier": {"id": verifier_id(verifier), "version": {"sealscope": version}},
            "timeVerified": when,
            "resourceUri": "file:"
            + (vsa_name(suites[0].path)["name"] if len(suites) == 1 else "."),
            "policy": {
                "name": "sealscope-policy",
                "mediaType": "application/json",
                "digest": {
                    "sha256": hashlib.sha256(  # a digest of the policy, not output
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

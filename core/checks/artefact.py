"""Artefact bindings (KINDS.md §6, FORMATS.md §4): a ledger row whose `artefact` is an
object, and the held-artefact check against `--artefacts DIR`.

First the offline leg, in the reference's order: the binding is an object; its `digest`
a string of four `:` parts (else `malformed_digest`); algorithm `sha256`
(`unknown_algorithm`), recipe `raw-bytes` or `json-c14n` (`unknown_recipe`), version
`v1` (`unknown_recipe_version`), a hex part of exactly 64 characters matching
`^[0-9a-fA-F]+$` — whose `$` also matches before one final newline, so 63 hex digits and
`\\n` pass, as the reference's do (`malformed_digest`); then `subject` an object,
`subject.digest` an object, `subject.digest.sha256` a string, each when present
(`malformed_digest`), equal to the hex part case-insensitively
(`subject_digest_mismatch`). The binding's own `recipe` field is never read.

Then, only when that passed, the held leg: a regular file directly in the folder is
recomputed by the digest's recipe (raw-bytes: its bytes; json-c14n: its Python-parsed
UTF-8 JSON, canonicalised; a file that does not parse cannot match). A usable
`subject.name` (a non-empty string, not a URL) whose last component (`PurePath.name`:
`sub/report.pdf/` names `report.pdf`) is a file of the folder decides alone: `match`
or `mismatch`; otherwise any file of the folder with that digest is a
`match`, none `not_held` — as is everything with no folder. No URL is ever fetched.
A held file is read and hashed once per run (`held_hex`), however many bindings name
or search it.

One file held for one binding (`held_file_entry`: the viewer's drop on a binding row)
is that binding's artefact by the auditor's word, so it decides alone, whatever its
name: its recomputed hex equal to the digest's → `match`, else `mismatch` (BROKEN).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import PurePosixPath
from typing import Any

from sealscope.core import lines as _lines
from sealscope.core import verdict as _verdict
from sealscope.core.jsonio import dumps_canonical, loads

__all__ = [
    "verify_artefact",
    "held_state",
    "row_entry",
    "held_file_entry",
    "held_hex",
    "held_name",
    "recompute",
    "HeldDigests",
    "NOT_HELD_BOUND",
]

NOT_HELD_BOUND = "artefact not held"
_HEX = re.compile(r"^[0-9a-fA-F]+$")
_RECIPES = {"raw-bytes": ("v1",), "json-c14n": ("v1",)}
_HELD_LIMIT = 256 << 20  # a held artefact larger than this is not read (cannot match)


def verify_artefact(artefact: Any) -> dict[str, Any]:
    """The offline leg: `{"verdict", "digest_ok", "reason", "recipe", "refetch",
    "notes"}` (rules in the module docstring). Never raises."""
    notes: list[str] = []
    out: dict[str, Any] = {
        "verdict": None,
        "digest_ok": False,
        "reason": None,
        "recipe": None,
        "refetch": "skipped",
        "notes": notes,
    }

    def fail(reason: str, note: str) -> dict[str, Any]:
        out["reason"] = out["verdict"] = reason
        notes.append(note)
        return out

    if not isinstance(artefact, dict):
        return fail(
            "malformed_digest", f"artefact must be an object, got {type(artefact).__name__}"
        )
    ds = artefact.get("digest")
    if "digest" not in artefact or not isinstance(ds, str) or len(ds.split(":")) != 4:
        return fail("malformed_digest", "unparseable artefact digest")
    algo, recipe, ver, hexd = ds.split(":")
    out["recipe"] = f"{algo}:{recipe}:{ver}"
    if algo != "sha256":
        return fail("unknown_algorithm", f"unknown digest algorithm {algo!r}")
    if recipe not in _RECIPES:
        return fail("unknown_recipe", f"unknown recipe {recipe!r}")
    if ver not in _RECIPES[recipe]:
        return fail("unknown_recipe_version", f"recipe {recipe} version {ver} is not reproducible")
    if len(hexd) != 64 or not _HEX.match(hexd):
        return fail("malformed_digest", "digest hex is not 64 hex characters for sha256")
    subj = artefact.get("subject")
    if subj is not None and not isinstance(subj, dict):
        return fail("malformed_digest", "subject is present but is not an object")
    sd = (subj or {}).get("digest")
    if sd is not None and not isinstance(sd, dict):
        return fail("malformed_digest", "subject.digest is present but is not an object")
    sh = (sd or {}).get("sha256")
    if sh is not None and not isinstance(sh, str):
        return fail("malformed_digest", "subject.digest.sha256 is not a string")
    if sh is not None and sh.casefold() != hexd.casefold():
        return fail(
            "subject_digest_mismatch",
            "subject.digest.sha256 does not match the digest string's hex",
        )
    out["digest_ok"] = True
    out["verdict"] = "digest_consistent"
    return out


#: The digests of held files one run took, by (device, inode, size, mtime_ns, recipe)
#: of the open file: a file is read and hashed once per run however many bindings
#: name or search it (`CheckContext.held_digests`).
HeldDigests = dict[tuple[int, int, int, int, str], str | None]


def recompute(data: bytes, recipe: str) -> str | None:
    """The sha256 hex of a held file's bytes by `recipe` (json-c14n: parsed from UTF-8
    and canonicalised); None when they do not parse."""
    if recipe == "json-c14n":
        try:
            data = dumps_canonical(loads(data.decode("utf-8")))
        except (ValueError, RecursionError):
            return None
    return hashlib.sha256(data).hexdigest()


def held_hex(path: str, recipe: str, cache: HeldDigests | None = None) -> str | None:
    """The sha256 hex of a held file by `recipe`; None when it cannot be recomputed
    (not a regular file, unreadable, past `_HELD_LIMIT`, not parsing). With `cache`,
    a file whose open descriptor has the (device, inode, size, mtime_ns) of one
    already hashed for that recipe is not read again."""
    try:
        with _lines.open_regular(path) as fh:
            st = os.fstat(fh.fileno())
            key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, recipe)
            if cache is not None and key in cache:
                return cache[key]
            data = fh.read(_HELD_LIMIT + 1)
    except OSError:
        return None
    got = None if len(data) > _HELD_LIMIT else recompute(data, recipe)
    if cache is not None:
        cache[key] = got
    return got


def held_name(subject: Any) -> str | None:
    """The file name a binding's `subject.name` gives in the folder (KINDS.md §6.2):
    the last component of a non-empty string that is not an http(s) URL, as
    `PurePath.name` reads it (`report.pdf/` and `./report.pdf/.` name `report.pdf`);
    None when there is none."""
    name = subject.get("name") if isinstance(subject, dict) else None
    if not isinstance(name, str) or not name or name.startswith(("http://", "https://")):
        return None
    return PurePosixPath(name).name or None


def held_state(
    artefact: dict[str, Any], folder: str | None, cache: HeldDigests | None = None
) -> str:
    """`match`, `mismatch` or `not_held` of a binding whose offline leg passed
    (`cache`: the run's digests of held files, `held_hex`)."""
    if folder is None:
        return "not_held"
    _alg, recipe, _ver, hexd = artefact["digest"].split(":")
    want = hexd.strip().lower()
    name = held_name(artefact.get("subject"))
    if name is not None:
        named = os.path.join(folder, name)
        if os.path.isfile(named):
            return "match" if held_hex(named, recipe, cache) == want else "mismatch"
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return "not_held"
    for n in names:
        full = os.path.join(folder, n)
        if os.path.isfile(full) and held_hex(full, recipe, cache) == want:
            return "match"
    return "not_held"


def row_entry(
    line: int,
    artefact: dict[str, Any],
    folder: str | None,
    cache: HeldDigests | None = None,
    *,
    held_file: str | None = None,
) -> dict[str, Any]:
    """The `rows_checked` entry of one artefact binding (KINDS.md §6.3); with
    `held_file`, that one file is the artefact held (`held_file_entry`); `cache` the
    run's digests of held files (`held_hex`)."""
    res = verify_artefact(artefact)
    if not res["digest_ok"]:
        held = "not_held"
    elif held_file is not None:
        held = _file_state(artefact, held_file)
    else:
        held = held_state(artefact, folder, cache)
    ok = bool(res["digest_ok"])
    word = _verdict.BROKEN if not ok or held == "mismatch" else _verdict.VERIFIED
    subject = artefact.get("subject")
    return {
        "line": line,
        "check": "artefact",
        "ok": ok,
        "verdict": word,
        "artefact_verdict": res["verdict"],
        "reason": res["reason"],
        "held": held,
        "digest": artefact.get("digest"),
        "name": subject.get("name") if isinstance(subject, dict) else None,
        "bound": NOT_HELD_BOUND if word == _verdict.VERIFIED and held == "not_held" else "",
    }


def _file_state(artefact: dict[str, Any], path: str) -> str:
    _alg, recipe, _ver, hexd = artefact["digest"].split(":")
    return "match" if held_hex(path, recipe) == hexd.strip().lower() else "mismatch"


def held_file_entry(line: int, artefact: Any, path: str) -> dict[str, Any]:
    """The entry of the binding on `line` checked against the one file `path` the
    auditor holds for it (module docstring): `held` `match` (VERIFIED) or `mismatch`
    (BROKEN), after the offline leg (a binding that fails it is BROKEN, `not_held`);
    `held_file` names the file. A file that cannot be read or parsed by the recipe
    does not match."""
    if not isinstance(artefact, dict):
        artefact = {"digest": None}
    return {**row_entry(line, artefact, None, held_file=path), "held_file": path}

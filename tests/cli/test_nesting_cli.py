"""Rows nested 980..1000 levels deep: `sealscope verify` (plain and --strict) and
`sealscope receipts` against the reference's own command, both run as subprocesses so
each sits at its real stack depth.

The reference side runs in ONE subprocess that calls `arcaeon.cli.main(["verify", F])`
from module level, exactly as the `arcaeon` console script calls `main()` from its
module frame; so the stack at `verify_file` is the command's (<module> -> main ->
_verify -> verify_file). That equivalence is measured, not assumed: the real
`arcaeon verify` is run on the four files where one frame more or less would change
the answer (arrays 990/991 for the walk's parse and hash, declarations 989/990 for the
pre-scan) and must print what the driver printed. (Measured while writing this: all
336 verdicts of the 168 files here, plain and --strict, are identical between 336 runs
of the real command and one driver run, in either file order.)
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import arcaeon.cli  # noqa: F401  (the oracle, a pinned dev dependency)
import pytest

from tests.conftest import sealscope_cmd

DEPTHS = range(980, 1001)
FIELDS = (
    "ok",
    "rows",
    "chained",
    "prechain",
    "first_break",
    "breaks",
    "verified_scope",
    "declared_breaks",
    "declared",
)
EXIT = {"VERIFIED": 0, "BROKEN": 1, "COULD NOT LOOK": 3}
ENV = dict(os.environ, ARCAEON_JOURNAL="0")  # the reference must not write its journal


def _link(prev: str, body: str) -> str:
    return hashlib.sha256((prev + body).encode()).hexdigest()[:32]


def _row(body: str, prev: str = "genesis") -> str:
    """A chained line whose body is `body` (already in the chain's sorted dump form)."""
    return body[:-1] + f', "chain": "{_link(prev, body)}"}}'


def _arr(n: int) -> str:
    return "[" * n + "]" * n


def _obj(n: int, inner: str = "1") -> str:
    return '{"a": ' * n + inner + "}" * n


ORPHAN = '{"note": "hand"}'
ORPHAN_SHA = hashlib.sha256(ORPHAN.encode()).hexdigest()


def _declaration_file(deep: str) -> str:
    """An honest row, a hand-appended orphan, and a chained declaration excusing it
    that carries a deeply nested extra field."""
    body = (
        '{"deep": ' + deep + ', "op": "chain_break_declared", "orphan_line": 2, '
        f'"orphan_sha256": "{ORPHAN_SHA}", "why": "by hand"}}'
    )
    return "\n".join([_row('{"i": 1}'), ORPHAN, _row(body)]) + "\n"


def _cases(n: int) -> dict[str, str]:
    """Every shape at `n` levels of `[`/`{` inside the row object (the whole line for
    the non-object line)."""
    dup_line = '{"a": ' + '{"a": ' * (n - 1) + '{"x": 1, "x": 2}' + "}" * (n - 1) + "}"
    dup_body = '{"a": ' + '{"a": ' * (n - 1) + '{"x": 2}' + "}" * (n - 1) + "}"
    return {
        "arr": _row('{"a": ' + _arr(n) + "}") + "\n",
        "obj": _row('{"a": ' + _obj(n) + "}") + "\n",
        "dup": dup_line[:-1] + f', "chain": "{_link("genesis", dup_body)}"}}\n',
        "nonobj": _arr(n) + "\n",
        "declarr": _declaration_file(_arr(n)),
        "declobj": _declaration_file(_obj(n)),
        "rcptarr": _row('{"deep": ' + _arr(n) + ', "kind": "compaction_receipt"}') + "\n",
        "rcptobj": _row('{"deep": ' + _obj(n) + ', "kind": "compaction_receipt"}') + "\n",
    }


_DRIVER = r"""
import contextlib, io, json, sys
from arcaeon.cli import main
out = []
for f in sys.argv[1:]:
    for flags in ([], ["--strict"]):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            rc = main(["verify", f, *flags])
        out.append({"file": f, "flags": flags, "rc": rc, "report": json.loads(buf.getvalue())})
print(json.dumps(out))
"""

# verify_receipt over a row the reference's verifier parsed (the rows it lists); read
# here with room to spare, as the row only has to be the value the verifier read.
_RECEIPTS = r"""
import json, sys
sys.setrecursionlimit(5000)
from arcaeon.prove.compact import verify_receipt
print(json.dumps([verify_receipt(json.loads(open(f).read())) for f in sys.argv[1:]]))
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    root = tmp_path_factory.mktemp("nesting")
    files: dict[tuple[str, int], Path] = {}
    for n in DEPTHS:
        for shape, text in _cases(n).items():
            p = root / f"{shape}-{n}.jsonl"
            p.write_text(text, encoding="utf-8")
            files[shape, n] = p
    paths = list(files.values())
    ref = subprocess.run(
        [sys.executable, "-c", _DRIVER, *map(str, paths)],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
        check=False,
    )
    assert ref.returncode == 0, ref.stderr
    reference = {(r["file"], tuple(r["flags"])): r for r in json.loads(ref.stdout)}
    return root, files, reference


def _sealscope(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*sealscope_cmd().split(), *argv],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def test_driver_sits_where_the_real_command_sits(probe):
    """One frame more or less at verify_file would flip one of these four."""
    root, files, reference = probe
    arcaeon = Path(sys.executable).parent / "arcaeon"
    exe = [str(arcaeon)] if arcaeon.is_file() else [sys.executable, "-m", "arcaeon"]
    seen = set()
    for key in (("arr", 990), ("arr", 991), ("declarr", 989), ("declarr", 990)):
        p = files[key]
        real = subprocess.run(
            [*exe, "verify", str(p)],
            env=ENV,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=root,
            check=False,
        )
        want = reference[str(p), ()]
        assert real.returncode == want["rc"], key
        assert json.loads(real.stdout) == want["report"], key
        seen.add((want["report"]["first_break"], want["report"]["verified_scope"]))
    assert seen == {
        ("line 1: unhashable row (RecursionError)", "full"),
        ("line 1: unparseable", "full"),
        (None, "bounded_declared_break"),
        ("line 2: unchained row after chain began", "full"),
    }


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict"])
def test_verify_matches_the_reference_command_980_to_1000(probe, strict):
    root, files, reference = probe
    flags = ("--strict",) if strict else ()
    paths = list(files.values())
    p = _sealscope("verify", *flags, "--json", *map(str, paths), cwd=root)
    ours = json.loads(p.stdout)
    assert len(ours) == len(paths)
    codes = []
    for (shape, n), path, got in zip(files, paths, ours, strict=True):
        want = reference[str(path), flags]
        assert {k: got[k] for k in FIELDS} == {k: want["report"][k] for k in FIELDS}, (
            shape,
            n,
            strict,
        )
        assert got["verdict"] == want["report"]["verdict"], (shape, n, strict)
        assert EXIT[got["verdict"]] == want["rc"], (shape, n, strict)
        codes.append(want["rc"])
    # several files: 1 (a break) outranks 3 (could not look) outranks 0
    assert p.returncode == (1 if 1 in codes else 3 if 3 in codes else 0) == 1
    # every regime the reference shows is present, so the test can tell them apart
    breaks = {r["report"]["first_break"] for r in reference.values()}
    assert {
        "line 1: unhashable row (RecursionError)",
        "line 1: unparseable",
        "line 1: duplicate key 'x'",
        "line 1: not a JSON object",
        None,
    } <= breaks


@pytest.mark.parametrize(
    "key", [("arr", 989), ("obj", 990), ("declarr", 989), ("declarr", 990), ("nonobj", 991)]
)
def test_verify_exit_code_one_file(probe, key):
    root, files, reference = probe
    for flags in ((), ("--strict",)):
        p = _sealscope("verify", *flags, str(files[key]), cwd=root)
        assert p.returncode == reference[str(files[key]), flags]["rc"], (key, flags)
        assert "Traceback" not in p.stderr


def test_receipts_lists_the_rows_the_reference_verifier_parses(probe):
    root, files, reference = probe
    keys = [(s, n) for s in ("rcptarr", "rcptobj") for n in DEPTHS]
    parsed = [k for k in keys if reference[str(files[k]), ()]["report"]["rows"] == 1]
    # both regimes occur: listed, and not a row at all
    assert ("rcptarr", 990) in parsed and ("rcptarr", 991) not in parsed
    assert ("rcptobj", 989) in parsed and ("rcptobj", 990) not in parsed
    ref = subprocess.run(
        [sys.executable, "-c", _RECEIPTS, *(str(files[k]) for k in parsed)],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
        check=False,
    )
    assert ref.returncode == 0, ref.stderr
    by_key = dict(zip(parsed, json.loads(ref.stdout), strict=True))

    combined = root / "receipts.jsonl"
    combined.write_text("".join(files[k].read_text() for k in keys), encoding="utf-8")
    p = _sealscope("receipts", str(combined), "--json", cwd=root)
    want = [{"line": i, **by_key[k]} for i, k in enumerate(keys, 1) if k in by_key]
    assert json.loads(p.stdout) == want
    assert all(not r["ok"] and r["notes"] == ["unknown schema None — cannot verify"] for r in want)
    assert p.returncode == 1

    for k in (("rcptarr", 990), ("rcptarr", 991), ("rcptobj", 989), ("rcptobj", 990)):
        p = _sealscope("receipts", str(files[k]), "--json", cwd=root)
        listed = [{"line": 1, **by_key[k]}] if k in by_key else []
        assert json.loads(p.stdout) == listed, k
        assert p.returncode == (1 if listed else 3), k

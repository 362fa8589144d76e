"""Every JSON document sealscope prints or writes is strict RFC 8259 JSON whatever the
evidence holds (CLI.md, first paragraph; issue 45): the installed command is run on the
samples, the public corpora and hostile evidence of every kind (`strict_json_cases`),
and every `--json` output, report and VSA is read by a parser that refuses `NaN`,
`Infinity` and `-Infinity` and takes only strict UTF-8, and by `jq` where it is
installed."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.strict_json_cases import NAMES, SAMPLES, Group, write_all
from tests.conftest import CORPUS

ROOT = Path(__file__).resolve().parents[2]
EXE = Path(sys.executable).parent / "sealscope"
JQ = shutil.which("jq")
JQ_DEPTH = 256  # jq 1.6 refuses to parse deeper nesting


def run(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    cmd = [str(EXE)] if EXE.is_file() else [sys.executable, "-m", "sealscope"]
    p = subprocess.run(
        [*cmd, *argv],
        capture_output=True,
        timeout=600,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        check=False,
        env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "TERM": "dumb"},
    )
    assert b"Traceback" not in p.stderr, p.stderr.decode("utf-8", "replace")[-3000:]
    assert p.returncode in (0, 1, 3), (argv, p.returncode, p.stderr[-2000:])
    return p


# ------------------------------------------------------------------ strict readers


def _refuse(token: str) -> Any:
    raise ValueError(f"not RFC 8259 JSON: the bare token {token}")


def strict_loads(text: str) -> Any:
    """RFC 8259 only: no NaN/Infinity tokens. Our outputs may nest as deep as the
    evidence they echo, so the parser gets the stack for it."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20_000))
    try:
        return json.loads(text, parse_constant=_refuse)
    finally:
        sys.setrecursionlimit(old)


def _walk(doc: Any):
    """Every (value, depth) in the document, without recursion."""
    todo = [(doc, 1)]
    while todo:
        v, d = todo.pop()
        yield v, d
        if isinstance(v, dict):
            todo += [(x, d + 1) for x in v.values()] + [(k, d + 1) for k in v]
        elif isinstance(v, list):
            todo += [(x, d + 1) for x in v]


_LONE_HIGH = re.compile("[\ud800-\udbff](?![\udc00-\udfff])")


def _jq_reads(data: bytes, docs: list[Any]) -> None:
    """jq reads the output; where it does not, the reason is one of jq 1.6's own
    limits and the document really holds what that limit refuses."""
    if JQ is None:
        return
    p = subprocess.run([JQ, "-c", "."], input=data, capture_output=True, check=False)
    if p.returncode == 0:
        return
    err = p.stderr.decode("utf-8", "replace")
    if "Exceeds depth limit for parsing" in err:
        assert max(d for doc in docs for _, d in _walk(doc)) > JQ_DEPTH, err
    elif "surrogate pair escape" in err:  # jq refuses a lone high surrogate's escape
        assert any(
            isinstance(v, str) and _LONE_HIGH.search(v) for doc in docs for v, _ in _walk(doc)
        ), err
    else:
        pytest.fail(f"jq refused the output: {err}")


def strict(data: bytes, lines: bool = False) -> list[Any]:
    """The documents of an output (one, or one per line), read strictly."""
    text = data.decode("utf-8")  # strict UTF-8: no lone surrogate's bytes
    docs = [strict_loads(line) for line in text.splitlines()] if lines else [strict_loads(text)]
    _jq_reads(data, docs)
    return docs


# ---------------------------------------------------------------------- the verbs


def check_all(paths: list[Path], tmp: Path) -> list[Any]:
    vsa = tmp / "check-vsa.json"
    p = run("check", *map(str, paths), "--json", "--vsa", str(vsa))
    [doc] = strict(p.stdout)
    assert len(doc) == len(paths)
    if vsa.exists():
        strict(vsa.read_bytes())
    return doc


def verify_all(ledgers: list[Path]) -> None:
    if ledgers:
        strict(run("verify", *map(str, ledgers), "--json").stdout)


def receipts_each(ledgers: list[Path]) -> None:
    for ledger in ledgers:
        strict(run("receipts", str(ledger), "--json").stdout)


def fleet_of(folder: Path, tmp: Path) -> None:
    vsa = tmp / "fleet-vsa.json"
    p = run("fleet", str(folder), "--json", "--vsa", str(vsa))
    docs = strict(p.stdout, lines=True)
    assert "summary" in docs[-1]
    if vsa.exists():
        strict(vsa.read_bytes())


def export_json(path: Path, tmp: Path) -> None:
    p = run("export", str(path), "--format", "json")
    if p.stdout:
        strict(p.stdout)
    out = tmp / f"report-{path.name}.json"
    run("export", str(path), "--format", "json", "--output", str(out))
    if out.exists():
        strict(out.read_bytes())


# --------------------------------------------------------------------- hostile cases


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Group]:
    return write_all(tmp_path_factory.mktemp("hostile"))


@pytest.mark.parametrize("name", [*NAMES, "all"])
def test_every_verb_writes_strict_json_for_hostile_evidence(hostile, name, tmp_path):
    g = hostile[name]
    check_all(g.files, tmp_path)
    verify_all([p for p in g.files if p.suffix == ".jsonl"])
    receipts_each(g.ledgers)
    fleet_of(g.folder, tmp_path)
    for sub in ("portable-receipt", "receipt", "ledgers", "packs"):
        picked = sorted((g.folder / sub).glob("*")) if (g.folder / sub).is_dir() else []
        picked = [p for p in picked if p.suffix != ".jsonl" or sub == "ledgers"]
        if picked:
            export_json(picked[-1], tmp_path)


def _entries(p: subprocess.CompletedProcess[bytes]) -> dict[str, bytes]:
    """Each entry's line by its path (lines, not values: these nest too deep to compare)."""
    docs = strict(p.stdout, lines=True)
    return dict(zip((d["path"] for d in docs[:-1]), p.stdout.splitlines(), strict=False))


def test_evidence_nested_too_deep_to_pickle_comes_back_from_every_pool(hostile):
    """A result holding evidence nested near the parser's limit cannot be pickled
    back from a worker process; the local pool and a Dask cluster run that batch in
    the caller instead: the same entries, no traceback."""
    folder = hostile["deeper"].folder
    local = _entries(run("fleet", str(folder), "--json"))
    assert {str(p) for p in hostile["deeper"].files} <= set(local)
    assert _entries(run("fleet", str(folder), "--json", "--scheduler", "local:2")) == local


# what each hostile value reads back as in the output
WRITTEN_AS = {
    "nan": "NaN",
    "inf": "Infinity",
    "-inf": "-Infinity",
    "1e400": "Infinity",
    "lone": "x\ud800y\udcff",
}


def _portable(hostile: dict[str, Group], field: str, name: str) -> Path:
    [path] = [
        p
        for p in hostile[name].files
        if p.parent.name == "portable-receipt" and p.name.endswith(f"-{field}={name}.json")
    ]
    return path


@pytest.mark.parametrize("name", [*WRITTEN_AS, "-0.0"])
def test_a_portable_receipts_echoed_fields_are_strings_not_tokens(hostile, name, tmp_path):
    """The fuzzer's find: body_digest, kind and witness.status of a portable receipt
    echoed into `detail` as bare tokens. Now strings (-0.0 a number, its sign kept)."""
    paths = [_portable(hostile, f, name) for f in ("body_digest", "kind", "witness.status")]
    digest, kind, status = check_all(paths, tmp_path)
    got = [
        digest["detail"]["body_digest"],
        kind["detail"]["receipt_kind"],
        status["detail"]["witness"]["claimed"]["status"],
    ]
    if name == "-0.0":
        assert all(g == 0.0 and math.copysign(1, g) == -1 for g in got), got
    else:
        assert got == [WRITTEN_AS[name]] * 3
    assert [d["verdict"] for d in (digest, kind, status)] != ["VERIFIED"] * 3


# ------------------------------------------------------------- samples and corpora


def _evidence_files(folder: Path, skip: tuple[Path, ...] = ()) -> list[Path]:
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file()
        and p.suffix not in (".py", ".pyc")
        and "__pycache__" not in p.parts
        and not any(s in p.parents for s in skip)
    )


def test_the_samples_are_written_as_strict_json(tmp_path):
    files = _evidence_files(SAMPLES)
    check_all(files, tmp_path)
    ledgers = [p for p in files if p.suffix == ".jsonl"]
    verify_all(ledgers)
    receipts_each([SAMPLES / "session.jsonl", SAMPLES / "liar.jsonl"])
    fleet_of(SAMPLES, tmp_path)
    for name in ("session.jsonl", "kinds/portable-receipt.json", "packs/session-pack.zip"):
        export_json(SAMPLES / name, tmp_path)


@pytest.mark.parametrize("sub", ["", "kinds", "kinds3"])
def test_the_public_corpora_are_written_as_strict_json(sub, tmp_path):
    folder = CORPUS / sub if sub else CORPUS
    if not folder.is_dir():
        pytest.skip(f"{folder} is not present")
    skip = () if sub else (CORPUS / "kinds", CORPUS / "kinds3")
    files = _evidence_files(folder, skip)
    check_all(files, tmp_path)
    verify_all([p for p in files if p.suffix == ".jsonl"])
    if not sub:
        receipts_each(sorted((CORPUS / "receipts").glob("*.jsonl")))
    fleet_of(folder, tmp_path)


@pytest.mark.parametrize("mid", ["NaN", "-Infinity", "1e400", "[" * 900 + "1" + "]" * 900])
def test_the_mcp_servers_replies_are_strict_json(mid):
    """A JSON-RPC id is echoed in the reply: a non-finite one as its string, a deep
    one written whole."""
    from sealscope import mcp_server

    for method in ("initialize", "no/such/method"):
        reply = mcp_server.handle_line(f'{{"jsonrpc": "2.0", "id": {mid}, "method": "{method}"}}')
        assert reply is not None
        [doc] = strict(reply.encode("ascii"))
        assert doc["id"] == {"NaN": "NaN", "-Infinity": "-Infinity", "1e400": "Infinity"}.get(
            mid, doc["id"]
        )

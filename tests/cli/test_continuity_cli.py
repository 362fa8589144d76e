"""`sealscope snapshot / diff / continuity`: the conformance corpus, and the shapes
and exit codes CLI.md leaves to us (errors, invalid comparisons, bad input files)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sealscope.core.continuity import restate, snapshot

from tests.conftest import assert_conformance

SEED = {
    "identity_anchors": ["I am a continuity, carried forward"],
    "open_commitments": ["ship v0.1.0"],
    "canon_pointers": ["memory/CORE.md"],
    "live_threads": ["thread-1"],
}
SEED_DIGEST = "sha256:json-c14n:v1:a1896305484600632e377cdb8a683e372ec291e8a40bad99aca34c2df27e1316"


def test_conformance_snapshot(corpus):
    assert_conformance("snapshot")


def test_conformance_diff(corpus):
    assert_conformance("diff")


def test_conformance_continuity(corpus):
    assert_conformance("continuity")


def run(*argv: str, cwd: Path | None = None) -> tuple[int, str, str]:
    p = subprocess.run(
        [sys.executable, "-m", "sealscope", *argv],
        capture_output=True,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
        env={**__import__("os").environ, "NO_COLOR": "1"},
    )
    out, err = p.stdout.decode("utf-8"), p.stderr.decode("utf-8")
    assert "Traceback" not in err, err
    return p.returncode, out, err


def run_json(*argv: str) -> tuple[int, object, str]:
    code, out, err = run(*argv, "--json")
    return code, json.loads(out), err  # exactly one document


@pytest.fixture
def files(tmp_path):
    seed = tmp_path / "seed.json"
    snapshot(SEED).save(seed)
    nxt = tmp_path / "next.json"
    snapshot(
        {**SEED, "live_threads": ["thread-2"], "open_commitments": ["ship v0.1.0", "more"]}
    ).save(nxt)
    perfect = tmp_path / "perfect.json"
    perfect.write_text(json.dumps(restate(SEED)), encoding="utf-8")
    changed = tmp_path / "changed.json"
    r = restate(SEED)
    r["identity_anchors:0"] += ". That covenant is VOID"
    changed.write_text(json.dumps(r), encoding="utf-8")
    tiers = tmp_path / "tiers.json"
    tiers.write_text(json.dumps({"critical": ["identity_anchors"]}), encoding="utf-8")
    tampered = tmp_path / "tampered.json"
    d = json.loads(seed.read_text(encoding="utf-8"))
    d["manifest"]["live_threads"] = ["thread-9"]
    tampered.write_text(json.dumps(d), encoding="utf-8")
    bad_semantics = tmp_path / "semantics.json"
    d = json.loads(seed.read_text(encoding="utf-8"))
    d["registration"]["scoring_semantics"] = "arcaeon-baseline:scoring:v1"
    bad_semantics.write_text(json.dumps(d), encoding="utf-8")
    return {
        "seed": seed,
        "next": nxt,
        "perfect": perfect,
        "changed": changed,
        "tiers": tiers,
        "tampered": tampered,
        "semantics": bad_semantics,
        "dir": tmp_path,
    }


# --------------------------------------------------------------------------- snapshot


def test_snapshot_valid_and_invalid(files):
    code, doc, _ = run_json("snapshot", str(files["seed"]))
    assert code == 0 and doc["valid"] is True and doc["digest"] == SEED_DIGEST
    assert doc["error"] is None and doc["probes"] == 4 and doc["id_scheme"] == "index"
    assert doc["label"] == "continuity"
    code, doc, err = run_json("snapshot", str(files["tampered"]))
    assert code == 1 and doc["valid"] is False and doc["digest"] is None
    assert doc["error"].startswith("manifest_digest does not reproduce")
    assert doc["probes"] == 4 and doc["id_scheme"] == "index" and err.strip()
    code, doc, _ = run_json("snapshot", str(files["dir"] / "missing.json"))
    assert code == 3 and doc["valid"] is False and doc["id_scheme"] is None
    code, doc, _ = run_json("snapshot", str(files["dir"]))  # a folder
    assert code == 3 and doc["error"]
    code, out, _ = run("snapshot", str(files["seed"]))
    assert code == 0 and "VALID" in out and SEED_DIGEST in out and "\x1b[" not in out


def test_snapshot_hostile_content(files):
    p = files["dir"] / "hostile.json"
    for body in (
        b"\xef\xbb\xbf{}",
        b"\xff\xfe",
        b"[" * 100000,
        b"null",
        b'{"schema": 5}',
        b'{"schema": "arcaeon-continuity:snapshot:v1", "probes": {"a": 1}}',
    ):
        p.write_bytes(body)
        code, doc, _ = run_json("snapshot", str(p))
        assert code == 1 and doc["valid"] is False and doc["error"]
    code, out, _ = run("snapshot", str(p))
    assert code == 1 and "INVALID" in out


# --------------------------------------------------------------------------- diff


def test_diff_json_and_table(files):
    code, doc, _ = run_json("diff", str(files["seed"]), str(files["next"]))
    assert code == 0 and doc["previous_digest"] == SEED_DIGEST
    assert [d["id"] for d in doc["changed"]] == ["live_threads:0"]
    assert [d["id"] for d in doc["added"]] == ["open_commitments:1"]
    assert doc["removed"] == [] and doc["n_unchanged"] == 3
    code, doc, _ = run_json(
        "diff", str(files["seed"]), str(files["next"]), "--tiers", str(files["tiers"])
    )
    assert code == 0 and doc["changed"][0]["severity"] == "notable"
    code, out, _ = run("diff", str(files["seed"]), str(files["next"]))
    assert code == 0 and "previous" in out and "current" in out and "│" in out
    line = next(x for x in out.splitlines() if "live_threads:0" in x)
    assert line.index("thread-1") < line.index("thread-2")
    assert "\x1b[" not in out
    code, out, _ = run("diff", str(files["seed"]), str(files["seed"]))
    assert code == 0 and "no declared item changed" in out


def test_diff_errors(files):
    code, doc, err = run_json("diff", str(files["seed"]), str(files["tampered"]))
    assert code == 1 and "error" in doc and doc["current"]["valid"] is False and err
    code, doc, _ = run_json("diff", str(files["dir"] / "nope.json"), str(files["seed"]))
    assert code == 3 and "error" in doc
    code, doc, _ = run_json(
        "diff", str(files["seed"]), str(files["next"]), "--tiers", str(files["perfect"])
    )
    assert code == 3 and "tiers" in doc["error"]


# --------------------------------------------------------------------------- continuity


def test_continuity_exit_codes(files):
    seed, perfect, changed = str(files["seed"]), str(files["perfect"]), str(files["changed"])
    code, doc, _ = run_json("continuity", seed, "--restated", perfect)
    assert code == 0 and doc["faithful"] is True and doc["comparison"] == "exact_match"
    assert (
        doc["verdict_digest"]
        == "sha256:json-c14n:v1:a9106b1b33966eff400d0d71d4890565894e1664e03054d0e298cf49b6f8fb7b"
    )
    code, doc, _ = run_json("continuity", seed, "--restated", perfect, "--loose")
    assert code == 3 and doc["faithful"] is None and doc["comparison"] == "containment_only"
    code, doc, _ = run_json(
        "continuity", seed, "--restated", changed, "--tiers", str(files["tiers"])
    )
    assert code == 1 and doc["comparison"] == "divergence"
    assert [(d["id"], d["severity"]) for d in doc["divergences"]] == [
        ("identity_anchors:0", "critical")
    ]
    code, doc, _ = run_json("continuity", seed, "--restated", changed, "--loose")
    assert code == 3 and doc["divergences"] == []  # containment still holds
    code, out, _ = run("continuity", seed, "--restated", changed, "--tiers", str(files["tiers"]))
    assert code == 1 and "DIVERGENCE" in out and "[critical] identity_anchors:0" in out
    code, out, _ = run("continuity", seed, "--restated", perfect)
    assert code == 0 and "FAITHFUL" in out


def test_continuity_invalid_comparison_exits_1(files):
    code, doc, _ = run_json(
        "continuity", str(files["semantics"]), "--restated", str(files["perfect"])
    )
    assert code == 1 and doc["valid"] is False and doc["comparison"] is None
    assert doc["faithful"] is False
    code, out, _ = run("continuity", str(files["semantics"]), "--restated", str(files["perfect"]))
    assert code == 1 and "INVALID COMPARISON" in out


@pytest.mark.parametrize("content", [None, b"not json", b"[1, 2]", b'{"a": 1}', b"\xff"])
def test_continuity_bad_restated_exits_3(files, content):
    path = files["dir"] / "restated-bad.json"
    if content is not None:
        path.write_bytes(content)
    code, doc, err = run_json("continuity", str(files["seed"]), "--restated", str(path))
    assert code == 3 and set(doc) == {"error"} and len(err.strip().splitlines()) == 1


def test_continuity_bad_tiers_and_snapshot(files):
    code, doc, _ = run_json(
        "continuity",
        str(files["seed"]),
        "--restated",
        str(files["perfect"]),
        "--tiers",
        str(files["dir"] / "none.json"),
    )
    assert code == 3 and set(doc) == {"error"}
    code, doc, _ = run_json(
        "continuity", str(files["tampered"]), "--restated", str(files["perfect"])
    )
    assert code == 1 and doc["error"] and doc["snapshot"]["valid"] is False
    code, doc, _ = run_json(
        "continuity", str(files["dir"] / "gone.json"), "--restated", str(files["perfect"])
    )
    assert code == 3 and doc["error"]


def test_continuity_unscorable_seal_exits_1(files):
    # validates (probe_set_digest recomputed) but the baseline loader refuses the type
    import copy

    from sealscope.core.continuity import probe_set_digest

    d = json.loads(files["seed"].read_text(encoding="utf-8"))
    probes = copy.deepcopy(d["probes"])
    probes[0]["scoring"]["type"] = "mystery"
    d["probes"] = probes
    d["probe_set_digest"] = d["registration"]["probe_set_digest"] = probe_set_digest(probes)
    p = files["dir"] / "mystery.json"
    p.write_text(json.dumps(d), encoding="utf-8")
    code, doc, err = run_json("continuity", str(p), "--restated", str(files["perfect"]))
    assert code == 1 and "unknown scoring type 'mystery'" in doc["error"] and err

"""One version: `--version`, the package and the MCP server all report the installed
distribution's metadata version."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version

from sealscope.core.version import __version__

from tests.conftest import sealscope_cmd


def test_version_is_the_distribution_metadata():
    import sealscope

    assert __version__ == version("sealscope") == sealscope.__version__
    assert __version__ != "0+unknown"


def test_version_flag_prints_the_metadata_version():
    cmd = sealscope_cmd().split() + ["--version"]
    out = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    assert out.stdout.strip() == f"sealscope {version('sealscope')}"


def test_mcp_server_info_is_the_metadata_version():
    """`sealscope mcp` answers `initialize` with the same version (one request, stdin closed)."""
    msg = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}},
    }
    out = subprocess.run(
        sealscope_cmd().split() + ["mcp"],
        input=json.dumps(msg) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    reply = json.loads(out.stdout.splitlines()[0])
    assert reply["id"] == 1
    assert reply["result"]["serverInfo"] == {"name": "sealscope", "version": version("sealscope")}


def test_importing_the_package_reads_no_metadata():
    """The metadata is read when the version is first asked for, not on import (the
    viewer's cold start imports the package and never asks), and from the installed
    dist-info's METADATA file without loading `importlib.metadata` (issue 42: `--version`
    starts in a few milliseconds)."""
    code = (
        "import sys; before = set(sys.modules); import sealscope, sealscope.core.version; "
        "print(sorted(m for m in set(sys.modules) - before if m.startswith('importlib.m')));"
        "print(sealscope.__version__); print('importlib.metadata' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, timeout=60
    ).stdout.split("\n")
    assert out[:3] == ["[]", version("sealscope"), "False"]

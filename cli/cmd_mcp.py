"""`sealscope mcp`: the MCP tool server on stdin/stdout (see sealscope.mcp_server).

The call record goes to $SEALSCOPE_CALL_RECORD, else $ARCAEON_CALL_RECORD, else
`continuity.calls.jsonl` in the working directory.
"""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mcp", help="serve the continuity tools over MCP (JSON-RPC on stdio)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from sealscope.mcp_server import serve

    return serve(sys.stdin, sys.stdout)

"""`sealscope serve [PATH ...]`: the viewer in a browser, through textual-serve.

Each browser tab gets its own viewer process on the same paths as `sealscope view`.
Rules:
- The paths never pass through a shell: textual-serve runs a command string through
  one, so that string is fixed (this interpreter, `-m sealscope.cmd_serve`) and the
  paths travel as JSON in the environment variable `SEALSCOPE_SERVE_PATHS`.
- Loopback by default; any other address needs `--allow-remote` too and prints that
  there is no authentication. On a loopback bind only requests naming a loopback host
  (or the `--public-url` host) are answered, and the WebSocket only from a page of the
  same origin, so another web site open in the auditor's browser cannot drive it.
  With `--allow-remote` the Host names answered are still a list (the `--public-url`
  host, the bound address, IP literals), so DNS rebinding cannot reach it either.
- The page is our template (`serve_templates/`): it names no host outside the server
  (fonts from textual-serve's package, else the system's monospace); its WebSocket may
  connect to the page's own origin only, and no other page may frame it
  (`frame-ancestors 'none'`, `X-Frame-Options: DENY`). `/static/` lists no folder.
- At most `--max-sessions` viewers run at once (default 8): each is a process, so a
  flood of WebSockets is refused (503), not given one viewer each.
- textual-serve is the optional extra `sealscope[serve]`; without it: one line saying
  what to install, exit 3 (the check could not run here; the arguments were fine).
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sealscope.core import verdict
from sealscope.output import error_line

PATHS_ENV = "SEALSCOPE_SERVE_PATHS"
INSTALL_HINT = 'browser mode needs textual-serve: pip install "sealscope[serve]"'
TEMPLATES = Path(__file__).resolve().parent / "serve_templates"
LOOPBACK_NAMES = ("localhost",)
MAX_SESSIONS = 8


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="serve the viewer to a web browser (needs the serve extra)",
        description="Serve the audit viewer to a web browser: each browser "
        "tab runs its own viewer on the given paths (as `sealscope "
        "view`; default: the samples). Binds 127.0.0.1 unless "
        "--allow-remote is given. There is no authentication.",
    )
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a ledger, snapshot or harn file, or a folder of them",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1; another needs --allow-remote)",
    )
    p.add_argument("--port", type=int, default=8000, help="port to bind (default 8000)")
    p.add_argument(
        "--public-url",
        metavar="URL",
        help="the URL browsers reach the server at (behind a reverse proxy)",
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow binding a non-loopback address: anyone reaching the port reads the evidence",
    )
    p.add_argument(
        "--max-sessions",
        type=int,
        default=MAX_SESSIONS,
        metavar="N",
        help=f"viewers running at once, one process per browser tab "
        f"(default {MAX_SESSIONS}); more are refused",
    )
    p.set_defaults(func=run)


def is_loopback(host: str) -> bool:
    """True for `localhost` and any address in 127.0.0.0/8 or ::1."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_of(netloc: str) -> str:
    """The host part of a `Host` header or URL netloc, without port or brackets."""
    try:
        return (urlsplit("//" + netloc).hostname or "").lower()
    except ValueError:
        return ""


def child_command() -> str:
    """The fixed command textual-serve runs (through a shell) for each browser tab."""
    return f"exec {shlex.quote(sys.executable)} -m sealscope.cmd_serve"


def run(args: argparse.Namespace) -> int:
    from sealscope.cmd_view import viewer_paths

    if not 0 < args.port < 65536:
        error_line(f"--port must be between 1 and 65535, not {args.port}")
        return verdict.USAGE
    if args.public_url and urlsplit(args.public_url).scheme not in ("http", "https"):
        error_line("--public-url must start with http:// or https://")
        return verdict.USAGE
    if args.max_sessions < 1:
        error_line(f"--max-sessions must be at least 1, not {args.max_sessions}")
        return verdict.USAGE
    if not is_loopback(args.host) and not args.allow_remote:
        error_line(
            f"refusing to bind {args.host}: it is not a loopback address and the "
            "server has no authentication; add --allow-remote to do it anyway"
        )
        return verdict.USAGE
    paths = viewer_paths(args.paths)
    if paths is None:
        return verdict.COULD_NOT
    try:
        import textual_serve.server  # noqa: F401
    except ImportError:
        error_line(INSTALL_HINT)
        return verdict.COULD_NOT
    if not is_loopback(args.host):
        sys.stderr.write(
            f"warning: serving on {args.host}:{args.port} with NO authentication: anyone who "
            "reaches this port reads the evidence, and can open any file this user can "
            "read. Put it behind an authenticating reverse proxy (see the README).\n"
        )
    server = make_server(
        [str(p.resolve()) for p in paths],
        host=args.host,
        port=args.port,
        public_url=args.public_url,
        max_sessions=args.max_sessions,
    )
    os.environ[PATHS_ENV] = json.dumps(server.paths)  # read by each app process, not output
    try:
        server.serve()
    except OSError as e:
        error_line(f"cannot listen on {_netloc(args.host, args.port)}: {e.strerror or e}")
        return verdict.COULD_NOT
    return verdict.HELD


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
        return True
    except ValueError:
        return False


def make_server(
    paths: list[str],
    *,
    host: str,
    port: int,
    public_url: str | None,
    max_sessions: int = MAX_SESSIONS,
) -> Any:
    """A textual-serve Server for `paths` with our page and request checks."""
    import aiohttp_jinja2
    from aiohttp import web
    from textual_serve.server import Server

    # Host header names answered: loopback names, the bound address, the public URL's
    # host; an IP literal too when serving remotely (no name to rebind)
    allowed = {"localhost", "127.0.0.1", "::1", host_of(host) or host}
    if public_url:
        allowed.add(host_of(urlsplit(public_url).netloc))
    remote = not is_loopback(host)
    statics: list[Path] = []

    @web.middleware
    async def guard(request: web.Request, handler: Any) -> web.StreamResponse:
        name = host_of(request.host)
        if name not in allowed and not is_loopback(name) and not (remote and _is_ip(name)):
            raise web.HTTPForbidden(text="unknown host\n")
        if request.path == "/static" or request.path.startswith("/static/"):
            rel = request.path[len("/static") :].lstrip("/")
            if not rel or any((root / rel).is_dir() for root in statics):
                raise web.HTTPNotFound(text="no listing\n")
        origin = request.headers.get("Origin")
        if request.path == "/ws" and origin is not None:
            ok = {request.host.lower()}
            if public_url:
                ok.add(urlsplit(public_url).netloc.lower())
            if urlsplit(origin).netloc.lower() not in ok:
                raise web.HTTPForbidden(text="cross-origin WebSocket refused\n")
        response = await handler(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Content-Security-Policy", "frame-ancestors 'none'")
        return response

    class SealscopeServer(Server):
        paths: list[str]
        sessions = 0

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            statics.append(Path(self.statics_path))
            app.middlewares.append(guard)
            return app

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            if self.sessions >= max_sessions:
                raise web.HTTPServiceUnavailable(
                    text=f"{max_sessions} viewers are running: no more sessions\n"
                )
            self.sessions += 1
            try:
                return await super().handle_websocket(request)
            finally:
                self.sessions -= 1

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            try:
                font_size = min(max(int(request.query.get("fontsize", "16")), 6), 64)
            except ValueError:
                font_size = 16
            base = public_url.rstrip("/") if public_url else ""
            ws = ""
            if public_url:
                scheme, rest = base.split(":", 1)
                ws = ("wss:" if scheme == "https" else "ws:") + rest + "/ws"
                origin = ("wss://" if scheme == "https" else "ws://") + urlsplit(public_url).netloc
            else:
                origin = ("wss://" if request.secure else "ws://") + request.host
            return aiohttp_jinja2.render_template(
                "index.html",
                request,
                {
                    "font_size": font_size,
                    "static_url": (base + "/static/") if base else "static/",
                    "websocket_url": ws,
                    "title": "sealscope",
                    "ws_origin": origin,
                },
            )

        async def on_startup(self, app: web.Application) -> None:
            url = public_url or f"http://{_netloc(host, port)}/"
            self.console.print(
                f"sealscope serving {len(self.paths)} path(s) at {url}",
                highlight=False,
                markup=False,
            )
            self.console.print("Press Ctrl+C to stop.", highlight=False, markup=False)

    server = SealscopeServer(
        child_command(),
        host=host,
        port=port,
        title="sealscope",
        public_url=public_url or f"http://{_netloc(host, port)}",
        templates_path=TEMPLATES,
    )
    server.paths = paths
    return server


def _netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def child_main() -> int:
    """One browser tab's viewer: the paths from $SEALSCOPE_SERVE_PATHS (a JSON list)."""
    try:
        paths = [Path(p) for p in json.loads(os.environ[PATHS_ENV])]
    except (KeyError, ValueError, TypeError):
        error_line(f"{PATHS_ENV} must hold a JSON list of paths")
        return verdict.USAGE
    from sealscope.viewer.app import SealscopeApp

    SealscopeApp(paths, first_paint=True).run()  # as `sealscope` in a terminal
    return verdict.HELD


if __name__ == "__main__":
    sys.exit(child_main())

"""`groundnote serve` and `groundnote mcp`: the main job, and MCP over stdio for desktop clients."""

from __future__ import annotations

import errno
import json
import os
import socket
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import click
import uvicorn
from rich.console import Console

from groundnote.auth import Right, create_grant, list_grants
from groundnote.config import load_config, url_for
from groundnote.domain.errors import AuthRequired
from groundnote.runtime import Runtime
from groundnote.surfaces.cli.admin import LOCAL_PERSON, approval_login_link
from groundnote.surfaces.cli.demo import DEMO_SCOPE, load_demo
from groundnote.surfaces.cli.served import record_served
from groundnote.surfaces.cli.session import CliSession
from groundnote.surfaces.http import create_app
from groundnote.surfaces.http.server import uvicorn_config
from groundnote.surfaces.mcp import front
from groundnote.surfaces.mcp.front import Front
from groundnote.surfaces.mcp.server import build_server, checked_each_call
from groundnote.surfaces.mcp.stdio import serve_stdio

__all__ = ["AGENT_GRANT", "client_config", "groundnote_command", "mcp_command", "serve_command"]

# The grant of the MCP client configuration serve prints: named so that a person on the
# approval page tells the agent's writes from the operator's.
AGENT_GRANT = "agent-mcp"


def agent_grant(runtime: Runtime) -> str | None:
    """Create the agent's grant (propose on every scope, MCP only) unless it exists; its token.

    Only the token's hash is kept, so a later start cannot show it again and mints none.
    """
    home = runtime.home
    if any(g.id == f"grant:{AGENT_GRANT}" for g in list_grants(home.instance)):
        return None
    _, token = create_grant(
        home.instance,
        AGENT_GRANT,
        rights={"*": Right.PROPOSE},
        channels=["mcp"],
        org="local",
        now=home.clock.instant(),
    )
    return token


def groundnote_command() -> tuple[str, list[str]]:
    """The absolute command that starts this groundnote: a client's PATH may not have it."""
    script = Path(sys.executable).absolute().with_name("groundnote")
    if script.is_file() and os.access(script, os.X_OK):
        return str(script), []
    return str(Path(sys.executable).absolute()), ["-m", "groundnote"]


def client_config(
    home: Path, base_url: str, token: str, database_url: str | None = None
) -> dict[str, Any]:
    """`database_url`: the one serve was started with on its command line (a URL from
    groundnote.json or the environment reaches the client's process the same way)."""
    command, prefix = groundnote_command()
    database = ["--database-url", database_url] if database_url else []
    return {
        "mcpServers": {
            "groundnote": {
                "command": command,
                "args": [*prefix, "--home", str(home), *database, "mcp"],
                "env": {"GROUNDNOTE_TOKEN": token},
            },
            "groundnote-http": {
                "type": "http",
                "url": f"{base_url}/mcp",
                "headers": {"Authorization": f"Bearer {token}"},
            },
        }
    }


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything is printed or written."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            hint = "another `groundnote serve` or another program listens there"
        elif exc.errno == errno.EADDRNOTAVAIL:
            hint = "this machine has no such address"
        else:
            hint = exc.strerror or str(exc)
        raise click.ClickException(
            f"cannot listen on {host}:{port}: {hint}. Choose another with --port N "
            "(--port 0 takes a free one) or --host H, or set server.port in groundnote.json."
        ) from exc
    sock.listen(2048)
    return sock


def _scopes_line(runtime: Runtime, demo: str | None) -> str:
    names = runtime.home.scope_names()
    if not names:
        return (
            "none yet. Make one with `groundnote scope create NAME`, or start with --demo "
            f"for a small fictional company in scope {DEMO_SCOPE}"
        )
    return ", ".join(f"{n} ({demo})" if n == DEMO_SCOPE and demo else n for n in names)


@click.command("serve", help="Serve HTTP, MCP (streamable HTTP at /mcp) and the approval pages.")
@click.option(
    "--host", default=None, help="Address to bind (default from groundnote.json: 127.0.0.1)."
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=None,
    help="Port (default from groundnote.json: 8765; 0: a free one).",
)
@click.option(
    "--demo",
    is_flag=True,
    help=f"Load a small fictional company into scope {DEMO_SCOPE} (once), to try things on.",
)
@click.pass_obj
def serve_command(session: CliSession, host: str | None, port: int | None, demo: bool) -> None:
    configured = load_config(session.home, database_url=session.database_url).server
    host = host or configured.host
    sock = _bind(host, configured.port if port is None else port)
    port = int(sock.getsockname()[1])
    session.creates_home, session.follows_served = True, False
    new_home = not session.is_home()
    runtime = session.runtime
    runtime.config.server = configured.model_copy(update={"host": host, "port": port})
    record_served(runtime.home.path, host, port, runtime.home.clock.instant())
    base = runtime.config.public_url or url_for(host, port)
    login = approval_login_link(runtime, base)  # creates the local person on first use
    demo_state = None
    if demo:
        report = load_demo(runtime, LOCAL_PERSON)
        if report.loaded:
            demo_state = "the demo company, loaded now"
        elif report.company:
            demo_state = "the demo company"
        else:
            demo_state = "holds other data, so the demo company was not loaded"
    token = agent_grant(runtime)
    home = runtime.home.path.resolve()

    out = Console(soft_wrap=True)  # URLs and tokens must stay whole to be copied
    out.print(f"[bold]Groundnote[/bold] home {home}" + ("  (new)" if new_home else ""))
    out.print(f"Scopes        {_scopes_line(runtime, demo_state)}")
    out.print(f"HTTP API      {base}/v1  (OpenAPI: {base}/openapi.json)")
    out.print(f"MCP endpoint  {base}/mcp  (streamable HTTP, bearer token)")
    out.print(
        f"Approval      {login}  (one-time login link for person:{LOCAL_PERSON}, "
        f"who decides; `groundnote person link {LOCAL_PERSON}` prints a new one)"
    )
    if token:
        out.print(
            f"\nMCP client configuration, for grant:{AGENT_GRANT} (propose on every scope, "
            "MCP only). Its token is shown this once; only its hash is kept:"
        )
        out.print_json(json.dumps(client_config(home, base, token, session.database_url)))
    else:
        out.print(
            f"\nThe token of grant:{AGENT_GRANT} was shown at the first start (only its hash "
            "is kept). For another client, make a grant and put its token into this "
            "configuration:\n"
            "  groundnote grant create NAME --scope SCOPE:propose --channel mcp"
        )
        out.print_json(json.dumps(client_config(home, base, "TOKEN", session.database_url)))
    out.print(
        "An HTTP API token: groundnote grant create NAME --scope SCOPE:read --channel api",
        highlight=False,
    )
    threading.Thread(target=runtime.warm, name="warm", daemon=True).start()
    server = uvicorn.Server(uvicorn_config(create_app(runtime), host, port, runtime.config.server))
    server.run(sockets=[sock])


@click.command("mcp", help="Serve MCP over stdio with the rights of one grant.")
@click.option("--token", envvar="GROUNDNOTE_TOKEN", help="The grant's token (or GROUNDNOTE_TOKEN).")
@click.pass_obj
def mcp_command(session: CliSession, token: str | None) -> None:
    runtime = session.runtime
    try:
        principal = runtime.presented(token or session.token)
    except AuthRequired as exc:
        click.echo(f"groundnote mcp: {exc.message} {exc.remedy}", err=True)
        sys.exit(2)
    if principal is None:
        click.echo(
            "groundnote mcp: a token is needed (--token or GROUNDNOTE_TOKEN): the one "
            "`groundnote serve` printed at its first start, or one from "
            "`groundnote grant create NAME --scope SCOPE:propose --channel mcp`.",
            err=True,
        )
        sys.exit(2)
    server = build_server(runtime, checked_each_call(runtime, token or session.token))
    readable = principal.readable_scopes(runtime.home.scope_names())
    threading.Thread(target=runtime.warm, args=(readable,), name="warm", daemon=True).start()
    anyio.run(serve_stdio, server, front.claimed or Front.claim())

"""`groundnote serve` and `groundnote mcp`: the main job, and MCP over stdio for desktop clients."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import click
import uvicorn
from mcp.server.stdio import stdio_server
from rich.console import Console

from groundnote.auth import Right, create_grant, list_grants
from groundnote.runtime import Runtime
from groundnote.surfaces.cli.admin import approval_login_link
from groundnote.surfaces.cli.session import CliSession
from groundnote.surfaces.http import create_app
from groundnote.surfaces.mcp import build_server

__all__ = ["mcp_command", "serve_command"]

DEMO_SCOPE = "demo"
OPERATOR_GRANT = "local-operator"


def first_run(runtime: Runtime) -> str | None:
    """Create the demo scope and the local operator grant if the home has none; the new token."""
    home = runtime.home
    if not home.scope_names():
        home.create_scope(DEMO_SCOPE)
    if any(g.id == f"grant:{OPERATOR_GRANT}" for g in list_grants(home.instance)):
        return None
    _, token = create_grant(
        home.instance,
        OPERATOR_GRANT,
        rights={"*": Right.PROPOSE},
        channels=["mcp", "api", "cli"],
        org="local",
        now=home.clock.instant(),
    )
    return token


def client_config(home: Path, base_url: str, token: str) -> dict[str, Any]:
    return {
        "mcpServers": {
            "groundnote": {
                "command": "groundnote",
                "args": ["--home", str(home), "mcp", "--token", token],
            },
            "groundnote-http": {
                "type": "http",
                "url": f"{base_url}/mcp",
                "headers": {"Authorization": f"Bearer {token}"},
            },
        }
    }


@click.command("serve", help="Serve HTTP, MCP (streamable HTTP at /mcp) and the approval pages.")
@click.option(
    "--host", default=None, help="Address to bind (default from groundnote.json: 127.0.0.1)."
)
@click.option("--port", type=int, default=None, help="Port (default from groundnote.json: 8765).")
@click.pass_obj
def serve_command(session: CliSession, host: str | None, port: int | None) -> None:
    runtime = session.runtime
    server = runtime.config.server
    host = host or server.host
    port = port or server.port
    runtime.config.server = server.model_copy(update={"host": host, "port": port})
    token = first_run(runtime)
    base = runtime.config.public_url or f"http://{host}:{port}"
    out = Console(soft_wrap=True)  # URLs and tokens must stay whole to be copied
    out.print(f"[bold]Groundnote[/bold] home {runtime.home.path.resolve()}")
    out.print(f"HTTP API      {base}/v1  (OpenAPI: {base}/openapi.json)")
    out.print(f"MCP endpoint  {base}/mcp  (streamable HTTP, bearer token)")
    out.print(f"Approval      {approval_login_link(runtime, base)}  (one-time login link)")
    if token:
        out.print(
            "\nMCP client configuration (the token is shown this once; only its hash is kept):"
        )
        out.print_json(json.dumps(client_config(runtime.home.path.resolve(), base, token)))
    else:
        out.print(
            "\nThe operator token was shown at the first start. For a new one: "
            "groundnote grant create NAME --scope demo:propose --channel mcp,api"
        )
    threading.Thread(target=runtime.warm, name="warm", daemon=True).start()
    uvicorn.run(create_app(runtime), host=host, port=port, log_level="warning")


@click.command("mcp", help="Serve MCP over stdio with the rights of one grant.")
@click.option("--token", envvar="GROUNDNOTE_TOKEN", help="The grant's token (or GROUNDNOTE_TOKEN).")
@click.pass_obj
def mcp_command(session: CliSession, token: str | None) -> None:
    runtime = session.runtime
    principal = runtime.authenticate(token or session.token)
    if principal is None:
        click.echo(
            "groundnote mcp: a valid token is needed (--token or GROUNDNOTE_TOKEN); "
            "create one with `groundnote grant create NAME --scope SCOPE:propose --channel mcp`.",
            err=True,
        )
        sys.exit(2)
    server = build_server(runtime, lambda _ctx: principal)
    readable = principal.readable_scopes(runtime.home.scope_names())
    threading.Thread(target=runtime.warm, args=(readable,), name="warm", daemon=True).start()

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)

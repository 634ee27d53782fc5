"""biomd as the memory of other assistants: `biomd mcp` (the server, the default) and
`biomd mcp config --for NAME` (the snippet that connects an assistant to it)."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from biomd.frontends.cli.common import err, out, settings_of
from biomd.frontends.cli.groups import Group


class McpGroup(Group):
    default = "serve"  # `biomd mcp` is in every assistant's config: it starts the server


mcp_app = typer.Typer(
    cls=McpGroup,
    help="Your memory for other assistants (Claude, Codex, Cursor…) over MCP: the server on "
    "stdio (serve, the default), and the snippet that connects an assistant (config).",
)


@mcp_app.command()
def serve(
    ctx: typer.Context,
    allow_notes: Annotated[
        bool,
        typer.Option(
            "--allow-notes", help="Add the remember(note) tool, which keeps a note as a source."
        ),
    ] = False,
) -> None:
    """Serve your memory over MCP on stdio (an assistant starts it). Read-only unless
    --allow-notes."""
    from biomd.frontends.mcp_server import run_stdio

    run_stdio(settings_of(ctx), allow_notes)


@mcp_app.command()
def config(
    ctx: typer.Context,
    name: Annotated[
        str,
        typer.Option(
            "--for", help="claude-desktop, claude-code, cursor or codex.", show_default=False
        ),
    ],
) -> None:
    """Print the exact snippet that connects an assistant to biomd, and where it goes."""
    from biomd.app.assistants import mcp_config

    chosen = ctx.find_root().params.get("data_dir") or os.environ.get("BIOMD_DATA_DIR")
    data_dir = settings_of(ctx).data_dir if chosen else None  # else the config file's
    made = mcp_config.snippet(name, mcp_config.launch(data_dir))
    err.print(made.lead, markup=False)
    out.print(made.text, markup=False, soft_wrap=True)

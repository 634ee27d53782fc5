"""biomd as the memory of other assistants: `biomd mcp` (the server, the default), `biomd mcp
config --for NAME` (the snippet that connects an assistant to it), and `biomd hermes install`
and `uninstall` (Hermes Agent's memory provider), `biomd openclaw install` and `uninstall`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from biomd.app.engine import Engine
from biomd.frontends.cli.common import err, out, print_table, run, settings_of
from biomd.frontends.cli.groups import Group


def chosen_data_dir(ctx: typer.Context) -> Path | None:
    """The data folder chosen on the command line or in the environment, which an assistant
    starting biomd would not know; None where it is the config file's (or the default)."""
    chosen = ctx.find_root().params.get("data_dir") or os.environ.get("BIOMD_DATA_DIR")
    return settings_of(ctx).data_dir if chosen else None


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
    allow_sessions: Annotated[
        bool,
        typer.Option(
            "--allow-sessions",
            help="Add keep_session, with which biomd's Hermes Agent provider keeps sessions.",
        ),
    ] = False,
) -> None:
    """Serve your memory over MCP on stdio (an assistant starts it). Read-only unless
    --allow-notes."""
    from biomd.frontends.mcp_server import run_stdio

    run_stdio(settings_of(ctx), allow_notes, allow_sessions)


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

    made = mcp_config.snippet(name, mcp_config.launch(chosen_data_dir(ctx)))
    err.print(made.lead, markup=False)
    out.print(made.text, markup=False, soft_wrap=True)


hermes_app = typer.Typer(
    cls=Group,
    help="biomd as Hermes Agent's memory: its provider, installed into Hermes's plugins.",
)
HermesHome = Annotated[
    Path | None,
    typer.Option("--hermes-home", help="Hermes's home (default: HERMES_HOME, else ~/.hermes)."),
]


@hermes_app.command("install")
def hermes_install(
    ctx: typer.Context,
    hermes_home: HermesHome = None,
    learn: Annotated[
        bool | None,
        typer.Option(
            "--learn/--no-learn",
            help="Keep each Hermes session as a source (default: BIOMD_ASSISTANTS_LEARN, yes).",
            show_default=False,
        ),
    ] = None,
    allow_notes: Annotated[
        bool, typer.Option("--allow-notes", help="Give Hermes the biomd_remember tool.")
    ] = False,
    recall_chars: Annotated[
        int | None,
        typer.Option(
            "--recall-chars",
            help="What Hermes is shown before each reply, at most (BIOMD_ASSISTANTS_RECALL_CHARS).",
            show_default=False,
        ),
    ] = None,
    select: Annotated[
        bool | None,
        typer.Option(
            "--select/--no-select",
            help="Make biomd Hermes's memory provider now (default: ask).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Install biomd as a Hermes Agent memory provider: who you are, cited, in its system
    prompt, and what bears on each message before it replies."""
    from biomd.app.assistants import hermes, mcp_config

    home = hermes.hermes_home(hermes_home)
    launch = mcp_config.launch(chosen_data_dir(ctx))
    chosen = settings_of(ctx).assistants
    learn = chosen.learn if learn is None else learn
    done = hermes.install(
        home,
        launch,
        learn=learn,
        notes=allow_notes,
        recall_chars=recall_chars or chosen.recall_chars,
    )
    out.print(f"Installed biomd's memory provider in {done.folder}.", markup=False)
    if not learn:
        out.print("Hermes sessions are not kept (--no-learn).", markup=False)
    if hermes.selected(home):
        out.print("Hermes already uses biomd as its memory. Start a new session.", markup=False)
        return
    if select is None and sys.stdin.isatty():
        select = typer.confirm("Make biomd Hermes's memory provider now?", default=True)
    why = hermes.select(home) if select else "not asked to"
    if why is None:
        out.print("Hermes now uses biomd as its memory. Start a new session.", markup=False)
        return
    out.print(
        f"One step is left ({why}): run `{hermes.SELECT}`, or put this in "
        f"{home / 'config.yaml'}:\n{hermes.SELECTED_BY_HAND}",
        markup=False,
    )


@hermes_app.command("uninstall")
def hermes_uninstall(hermes_home: HermesHome = None) -> None:
    """Remove biomd's memory provider from Hermes Agent."""
    from biomd.app.assistants import hermes

    home = hermes.hermes_home(hermes_home)
    removed = hermes.uninstall(home)
    if removed is None:
        out.print(f"biomd's provider is not installed in {home}.", markup=False)
    else:
        out.print(f"Removed {removed}.", markup=False)
    if hermes.selected(home):
        out.print(
            "Hermes's config.yaml still names biomd as its memory provider: run "
            "`hermes config set memory.provider ''` (or `hermes memory setup`) to choose another.",
            markup=False,
        )


openclaw_app = typer.Typer(
    cls=Group,
    help="biomd for OpenClaw: its MCP server, and your portrait in the workspace's USER.md.",
)
Workspace = Annotated[
    Path | None,
    typer.Option(
        "--workspace", help="OpenClaw's agent workspace (default: the one OpenClaw uses)."
    ),
]


@openclaw_app.command("install")
def openclaw_install(ctx: typer.Context, workspace: Workspace = None) -> None:
    """Register biomd's MCP server with OpenClaw and put your portrait in USER.md (between
    markers; the rest of the file is yours), kept up to date as bio.md changes."""
    from biomd.app.assistants import mcp_config, openclaw

    registered = openclaw.register(mcp_config.launch(chosen_data_dir(ctx)))
    if registered.tools:
        out.print(
            f"OpenClaw has biomd's MCP server: {len(registered.tools)} tools "
            f"({', '.join(registered.tools[:4])}…).",
            markup=False,
        )
    else:
        err.print(
            f"OpenClaw saved biomd's MCP server but could not start it: {registered.said}",
            markup=False,
        )
    folder = workspace or openclaw.configured_workspace() or openclaw.workspace()
    user_md = folder.expanduser().absolute() / "USER.md"

    run(ctx, lambda engine: engine.assistants.keep_openclaw_portrait(user_md))
    out.print(f"Your portrait is in {user_md}, between biomd's markers.", markup=False)


@openclaw_app.command("uninstall")
def openclaw_uninstall(ctx: typer.Context, workspace: Workspace = None) -> None:
    """Remove biomd's MCP server from OpenClaw and biomd's block from USER.md."""
    from biomd.app.assistants import openclaw

    async def forget(engine: Engine) -> Path | None:
        kept = engine.assistants.openclaw_portrait()
        engine.assistants.forget_openclaw_portrait()
        return kept

    kept = run(ctx, forget)
    user_md = (workspace / "USER.md") if workspace else kept
    user_md = user_md or (openclaw.configured_workspace() or openclaw.workspace()) / "USER.md"
    server = openclaw.unregister()
    block = openclaw.remove_block(user_md)
    said = [
        "Removed biomd's MCP server from OpenClaw." if server else "OpenClaw had no biomd server.",
        f"Removed biomd's block from {user_md}." if block else f"{user_md} had no biomd block.",
    ]
    out.print("\n".join(said), markup=False)


def assistants(
    ctx: typer.Context,
    hermes_home: HermesHome = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Which of your assistants are connected to biomd, what each last read, and when."""
    from dataclasses import asdict

    found = run(ctx, lambda engine: engine.assistants.connected(hermes_home))
    if as_json:
        print(json.dumps(asdict(found), default=str, ensure_ascii=False, indent=2))
        return
    if found.hermes:
        chosen = "its memory" if found.hermes_selected else "installed, not selected yet"
        out.print(f"Hermes Agent: {chosen} ({found.hermes}).", markup=False)
    else:
        out.print("Hermes Agent: not installed (`biomd hermes install`).", markup=False)
    if found.openclaw:
        out.print(f"OpenClaw: your portrait is kept in {found.openclaw}.", markup=False)
    else:
        out.print("OpenClaw: not installed (`biomd openclaw install`).", markup=False)
    if not found.seen:
        out.print(
            "No assistant has read anything yet (`biomd mcp config --for NAME` connects one).",
            markup=False,
        )
        return
    out.print("\nWhat each last read (over MCP):", markup=False)
    print_table(
        ("assistant", "last read", "when (UTC)", "calls"),
        [(s.client, s.tool, s.at[:16].replace("T", " "), str(s.calls)) for s in found.seen],
    )

"""The exact snippet that connects an assistant to `biomd mcp`, by the assistant's name: the
absolute path to biomd, and no `env` block (the server reads the same config file wherever
it is started), but for a data folder or config folder chosen on the command line or in the
environment, which the snippet passes on."""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from biomd.errors import BiomdError
from biomd.models.codex import toml_value
from biomd.settings import CONFIG_DIR_VARIABLE


@dataclass(frozen=True)
class Launch:
    """How an assistant starts biomd's MCP server."""

    command: str
    args: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Snippet:
    """What to paste, and the sentence that says where."""

    text: str
    lead: str


def biomd_command() -> list[str]:
    """The absolute command that runs this biomd: its console script beside this Python (a
    venv's bin/, or Scripts\\ on Windows), else this Python with `-m biomd`."""
    here = Path(sys.executable)
    for name in ("biomd", "biomd.exe"):
        script = here.with_name(name)
        if script.is_file():
            return [str(script.absolute())]
    return [str(here.absolute()), "-m", "biomd"]


def launch(data_dir: Path | None = None, environ: Mapping[str, str] = os.environ) -> Launch:
    """biomd's MCP server, run from any folder: `--data-dir` where one was chosen on the
    command line; BIOMD_CONFIG_DIR where the environment sets it (the only setting that
    can't be in the config file)."""
    command, *first = biomd_command()
    folder = ["--data-dir", str(data_dir.absolute())] if data_dir else []
    env = (
        {CONFIG_DIR_VARIABLE: environ[CONFIG_DIR_VARIABLE]}
        if environ.get(CONFIG_DIR_VARIABLE)
        else {}
    )
    return Launch(command, (*first, *folder, "mcp"), env)


def _mcp_servers(run: Launch) -> str:
    server: dict[str, object] = {"command": run.command, "args": list(run.args)}
    if run.env:
        server["env"] = dict(run.env)
    return json.dumps({"mcpServers": {"biomd": server}}, indent=2)


def _codex_toml(run: Launch) -> str:
    lines = [
        "[mcp_servers.biomd]",
        f"command = {toml_value(run.command)}",
        f"args = {toml_value(run.args)}",
    ]
    if run.env:
        lines.append(f"env = {toml_value(dict(run.env))}")
    return "\n".join(lines)


def _shell(words: Sequence[str]) -> str:
    return " ".join(shlex.quote(w) for w in words)


def _claude_code(run: Launch) -> str:
    env = [w for k, v in run.env.items() for w in ("--env", f"{k}={v}")]
    return _shell(
        ["claude", "mcp", "add", "biomd", "--scope", "user", *env, "--", run.command, *run.args]
    )


def _desktop_config() -> str:
    if sys.platform == "darwin":
        return "~/Library/Application Support/Claude/claude_desktop_config.json"
    if sys.platform == "win32":
        return r"%APPDATA%\Claude\claude_desktop_config.json"
    return "claude_desktop_config.json (Claude Desktop: Settings → Developer → Edit Config)"


ASSISTANTS = ("claude-desktop", "claude-code", "cursor", "codex")


def snippet(name: str, run: Launch) -> Snippet:
    """The snippet for assistant `name` (one of ASSISTANTS), or a BiomdError naming them."""
    match name.lower().replace(" ", "-").replace("_", "-"):
        case "claude-desktop" | "claude":
            lead = (
                f"Put this in {_desktop_config()}, merged with any mcpServers already there; "
                "then restart Claude Desktop:"
            )
            return Snippet(_mcp_servers(run), lead)
        case "claude-code":
            return Snippet(_claude_code(run), "Run this once in a terminal:")
        case "cursor":
            lead = (
                "Put this in ~/.cursor/mcp.json (or .cursor/mcp.json in a project), merged "
                "with any mcpServers already there:"
            )
            return Snippet(_mcp_servers(run), lead)
        case "codex":
            return Snippet(_codex_toml(run), "Put this at the end of ~/.codex/config.toml:")
    raise BiomdError(
        f"No assistant is called {name!r}: biomd has snippets for {', '.join(ASSISTANTS)}."
    )

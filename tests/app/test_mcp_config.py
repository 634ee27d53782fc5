"""`biomd mcp config --for NAME`: each assistant's snippet, parsed as the assistant parses it,
starts a working server from another folder, with no `env` block (the config file is found
where biomd always looks)."""

from __future__ import annotations

import asyncio
import json
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from biomd.app.assistants import mcp_config
from biomd.errors import BiomdError
from tests.support.assistant_home import user_env

BIOMD = str(Path(sys.executable).with_name("biomd"))


def launch_of(name: str, snippet: str) -> tuple[str, list[str], dict[str, str]]:
    """The command, arguments and environment an assistant would run, read from its snippet
    as the assistant reads it."""
    if name == "codex":
        server = tomllib.loads(snippet)["mcp_servers"]["biomd"]
    elif name == "claude-code":
        words = shlex.split(snippet)
        assert words[:4] == ["claude", "mcp", "add", "biomd"], words
        env = [w.split("=", 1) for i, w in enumerate(words) if i and words[i - 1] == "--env"]
        after = words[words.index("--") + 1 :]
        server = {"command": after[0], "args": after[1:], "env": dict(env)}
    else:
        server = json.loads(snippet)["mcpServers"]["biomd"]
    return server["command"], list(server["args"]), dict(server.get("env") or {})


def test_each_snippet_names_biomd_by_its_absolute_path_and_needs_no_environment() -> None:
    run = mcp_config.launch(environ={})
    for name in mcp_config.ASSISTANTS:
        made = mcp_config.snippet(name, run)
        command, args, env = launch_of(name, made.text)
        assert Path(command).is_absolute() and Path(command).name.startswith("biomd"), command
        assert args == ["mcp"] and env == {}, (name, made.text)
        assert made.lead.endswith(":")


def test_a_chosen_data_folder_and_config_folder_are_passed_on(tmp_path: Path) -> None:
    run = mcp_config.launch(tmp_path / "my data", {"BIOMD_CONFIG_DIR": "/etc/my biomd"})
    for name in mcp_config.ASSISTANTS:
        _, args, env = launch_of(name, mcp_config.snippet(name, run).text)
        assert args == ["--data-dir", str(tmp_path / "my data"), "mcp"], name
        assert env == {"BIOMD_CONFIG_DIR": "/etc/my biomd"}, name


def test_an_unknown_assistant_is_told_which_there_are() -> None:
    with pytest.raises(BiomdError, match="claude-desktop, claude-code, cursor, codex"):
        mcp_config.snippet("clippy", mcp_config.launch(environ={}))


@pytest.mark.slow  # biomd processes, one server per assistant
async def test_every_snippet_starts_a_working_server_from_the_assistants_own_folder(
    tmp_path: Path, minilm_path: Path
) -> None:
    env = user_env(tmp_path, minilm_path)
    note = tmp_path / "2019-04-07.md"
    note.write_text("Ran the Bath half marathon today. Still living in London.", "utf-8")
    await asyncio.to_thread(
        subprocess.run, [BIOMD, "ingest", str(note)], env=env, check=True, capture_output=True
    )
    elsewhere = tmp_path / "assistant's folder"
    elsewhere.mkdir()
    for name in mcp_config.ASSISTANTS:
        made = await asyncio.to_thread(
            subprocess.run,
            [BIOMD, "mcp", "config", "--for", name],
            env=env,
            cwd=elsewhere,
            check=True,
            capture_output=True,
            text=True,
        )
        command, args, extra = launch_of(name, made.stdout)
        assert extra == {}, "no env block"
        params = StdioServerParameters(command=command, args=args, env=env, cwd=elsewhere)
        async with Client(params) as client:
            found: Any = await client.call_tool("search", {"query": "half marathon"})
        said = "\n".join(c.text for c in found.content)
        assert "#1 '2019-04-07.md'" in said, (name, said)

"""biomd for OpenClaw: its MCP server registered with OpenClaw's own CLI and probed by it,
and the owner's portrait in the workspace's USER.md between markers, kept up to date, the
rest of the file never touched; uninstall removes both. With the real `openclaw` from npm."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from biomd.app.assistants import openclaw
from biomd.biographer.profile_text import skeleton
from tests.support.assistant_home import data_dir, user_env
from tests.support.openclaw_cli import openclaw_path

BIOMD = str(Path(sys.executable).with_name("biomd"))
MINE = "# About me\n\nI like my tea black. (Written by me.)\n"


def test_the_block_goes_between_markers_and_nothing_else_changes() -> None:
    once = openclaw.with_block(MINE, "Summary:\nA translator in Lisbon.")
    assert once.startswith(MINE) and once.count(openclaw.START) == 1
    again = openclaw.with_block(once, "Summary:\nA potter now.")
    assert again.startswith(MINE) and "A potter now." in again and "translator" not in again
    assert openclaw.without_block(again) == MINE
    assert openclaw.without_block(MINE) == MINE
    edited = again.replace("I like my tea black.", "I like my tea green.") + "\nMore of mine.\n"
    back = openclaw.without_block(openclaw.with_block(edited, "x"))
    assert "tea green" in back and "More of mine." in back and openclaw.START not in back
    long = openclaw.with_block("", "word " * 2000)
    assert len(long) < openclaw.BLOCK_CHARS + 200
    assert openclaw.EMPTY in openclaw.with_block("", "")


def test_the_workspace_is_found_as_openclaw_finds_it(tmp_path: Path) -> None:
    assert openclaw.workspace({"OPENCLAW_WORKSPACE_DIR": "/w"}) == Path("/w")
    assert openclaw.workspace({"OPENCLAW_STATE_DIR": "/s"}) == Path("/s/workspace")
    assert openclaw.workspace({"OPENCLAW_HOME": "/h", "HOME": "/x"}) == Path(
        "/h/.openclaw/workspace"
    )


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.slow  # installs (once, cached) Node 26 and openclaw from npm; biomd processes
async def test_the_real_openclaw_sees_biomds_tools_and_the_portrait_in_user_md(
    tmp_path: Path, minilm_path: Path
) -> None:
    bins = await asyncio.to_thread(openclaw_path)
    assert bins is not None, "openclaw could not be installed from npm"
    env = user_env(tmp_path, minilm_path)
    home = tmp_path / "openclaw home"
    env = {
        **env,
        "PATH": os.pathsep.join([*map(str, bins), env["PATH"]]),
        "OPENCLAW_HOME": str(home),
        "OPENCLAW_OFFLINE": "1",
    }
    note = tmp_path / "2019-04-07.md"
    note.write_text("Ran the Bath half marathon today. Still living in London.", "utf-8")
    assert (await asyncio.to_thread(_run, [BIOMD, "ingest", str(note)], env)).returncode == 0
    (data_dir(env) / "bio.md").write_text(
        skeleton().replace(
            "## Summary\n_Nothing is known yet. This fills in as sources are read._",
            "## Summary\nA translator who runs [#1]",
        ),
        "utf-8",
    )
    user_md = home / ".openclaw" / "workspace" / "USER.md"
    user_md.parent.mkdir(parents=True)
    user_md.write_text(MINE, "utf-8")

    installed = await asyncio.to_thread(_run, [BIOMD, "openclaw", "install"], env)
    assert installed.returncode == 0, installed.stderr + installed.stdout
    assert "OpenClaw has biomd's MCP server" in installed.stdout, installed.stdout
    probe = await asyncio.to_thread(_run, ["openclaw", "mcp", "probe", "biomd", "--json"], env)
    tools: list[Any] = json.loads(probe.stdout)["tools"]
    assert {"biomd__search", "biomd__profile", "biomd__recall"} <= set(tools), tools
    assert "biomd__remember" not in tools, "read-only"
    shown = json.loads(
        (await asyncio.to_thread(_run, ["openclaw", "mcp", "show", "biomd", "--json"], env)).stdout
    )
    assert "env" not in shown or not shown["env"], "no BIOMD_ variable needed"
    text = user_md.read_text("utf-8")
    assert text.startswith(MINE) and "A translator who runs" in text

    made_private = await asyncio.to_thread(_run, [BIOMD, "sources", "private", "1"], env)
    assert made_private.returncode == 0, made_private.stderr
    assert "A translator who runs" not in user_md.read_text("utf-8"), "rests only on #1"

    removed = await asyncio.to_thread(_run, [BIOMD, "openclaw", "uninstall"], env)
    assert removed.returncode == 0, removed.stderr
    assert user_md.read_text("utf-8") == MINE
    listed = await asyncio.to_thread(_run, ["openclaw", "mcp", "list", "--json"], env)
    assert "biomd" not in listed.stdout

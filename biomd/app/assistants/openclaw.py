"""biomd for OpenClaw: `biomd openclaw install` registers biomd's MCP server with OpenClaw's
own CLI (`openclaw mcp set`, then `openclaw mcp probe` to see its tools), and writes the
owner's portrait into the workspace's USER.md, which OpenClaw loads at the start of every
session, as a block between markers that biomd alone rewrites; the rest of the file is never
touched. The block is refreshed after each reading round and each word on the mirror.
`uninstall` removes both. Where it was installed is kept in the data folder
(assistants/openclaw.json)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from biomd.app.assistants.mcp_config import Launch
from biomd.app.assistants.privacy import for_assistants
from biomd.app.assistants.recall import portrait
from biomd.errors import BiomdError

START = "<!-- biomd: the portrait below is rewritten by biomd; write outside it -->"
END = "<!-- /biomd -->"
BLOCK_CHARS = 2500  # OpenClaw loads at most 4,000 characters of USER.md: room for the owner's
RECORD = Path("assistants") / "openclaw.json"
_BLOCK = re.compile(re.escape(START) + r".*?" + re.escape(END) + r"\n?", re.S)
EMPTY = "biomd has no Summary, Identity or confirmed pattern for you yet."


@dataclass(frozen=True)
class Registered:
    tools: list[str]  # as OpenClaw names them: biomd__search …
    said: str  # what went wrong, if anything


def workspace(environ: Mapping[str, str] = os.environ) -> Path:
    """OpenClaw's agent workspace by its own defaults: OPENCLAW_WORKSPACE_DIR, else
    OPENCLAW_STATE_DIR/workspace, else ~/.openclaw/workspace (~ being OPENCLAW_HOME or
    HOME). `agents.defaults.workspace` in its config wins where set (`configured`)."""
    if environ.get("OPENCLAW_WORKSPACE_DIR"):
        return Path(environ["OPENCLAW_WORKSPACE_DIR"]).expanduser()
    if environ.get("OPENCLAW_STATE_DIR"):
        return Path(environ["OPENCLAW_STATE_DIR"]).expanduser() / "workspace"
    home = environ.get("OPENCLAW_HOME") or environ.get("HOME") or str(Path.home())
    return Path(home).expanduser() / ".openclaw" / "workspace"


def with_block(text: str, portrait: str) -> str:
    """USER.md with biomd's block (replaced where it is, else added at the end)."""
    body = (portrait or EMPTY).strip()
    if len(body) > BLOCK_CHARS:
        body = body[: BLOCK_CHARS - 1].rstrip() + "…"
    block = f"{START}\n{body}\n{END}\n"
    if _BLOCK.search(text):
        return _BLOCK.sub(lambda _: block, text, count=1)
    joint = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    return f"{text}{joint}{block}"


def without_block(text: str) -> str:
    """USER.md without biomd's block, and without the blank line biomd put before it."""
    found = _BLOCK.search(text)
    if not found:
        return text
    head, tail = text[: found.start()], text[found.end() :]
    if not tail and head.endswith("\n\n"):
        head = head[:-1]
    return head + tail


def server_entry(launch: Launch) -> dict[str, object]:
    """OpenClaw's stdio MCP entry for biomd (mcp.servers.biomd)."""
    entry: dict[str, object] = {"command": launch.command, "args": list(launch.args)}
    if launch.env:
        entry["env"] = dict(launch.env)
    return entry


def _openclaw(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    found = shutil.which("openclaw")
    if found is None:
        raise BiomdError(
            "The `openclaw` command is not on PATH: install OpenClaw first (npm i -g openclaw)."
        )
    return subprocess.run([found, *args], capture_output=True, text=True, timeout=timeout)


def configured_workspace() -> Path | None:
    """agents.defaults.workspace from OpenClaw's config, if it is set."""
    try:
        done = _openclaw("config", "get", "agents.defaults.workspace", timeout=60)
    except (BiomdError, OSError, subprocess.TimeoutExpired):
        return None
    value = done.stdout.strip().strip('"')
    return (
        Path(value).expanduser() if done.returncode == 0 and value.startswith(("/", "~")) else None
    )


def register(launch: Launch) -> Registered:
    """biomd's MCP server in OpenClaw's config, then probed as OpenClaw probes it."""
    done = _openclaw("mcp", "set", "biomd", json.dumps(server_entry(launch)))
    if done.returncode != 0:
        raise BiomdError(f"openclaw mcp set failed: {(done.stderr or done.stdout).strip()[-400:]}")
    probe = _openclaw("mcp", "probe", "biomd", "--json", timeout=300)
    try:
        tools = [str(t) for t in json.loads(probe.stdout).get("tools", [])]
    except (ValueError, AttributeError):
        tools = []
    said = "" if tools else (probe.stderr or probe.stdout).strip()[-400:] or "no tools listed"
    return Registered(tools, said)


def unregister() -> bool:
    """biomd's MCP server out of OpenClaw's config; False if it was not there."""
    return _openclaw("mcp", "unset", "biomd").returncode == 0


def write_block(user_md: Path, portrait: str) -> None:
    """Put the portrait in USER.md's block (the file is made if there is none)."""
    user_md.parent.mkdir(parents=True, exist_ok=True)
    text = user_md.read_text(encoding="utf-8") if user_md.exists() else ""
    _rewrite(user_md, text, with_block(text, portrait))


def remove_block(user_md: Path) -> bool:
    """Take biomd's block out of USER.md; False if there was none."""
    if not user_md.exists():
        return False
    text = user_md.read_text(encoding="utf-8")
    return _rewrite(user_md, text, without_block(text))


def _rewrite(user_md: Path, text: str, new: str) -> bool:
    """USER.md as `new`, swapped in whole (OpenClaw never reads half of it), if it differs
    from `text`; whether it did."""
    if new == text:
        return False
    staged = user_md.with_name(user_md.name + ".biomd-tmp")
    staged.write_text(new, encoding="utf-8")
    staged.replace(user_md)
    return True


def record(data_dir: Path, user_md: Path | None) -> None:
    """Remember where the block is (None: forget it)."""
    path = data_dir / RECORD
    if user_md is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text(json.dumps({"user_md": str(user_md)}) + "\n", encoding="utf-8")


def recorded(data_dir: Path) -> Path | None:
    """The USER.md biomd keeps a block in, if `biomd openclaw install` was run."""
    try:
        found = json.loads((data_dir / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return Path(found["user_md"]) if isinstance(found, dict) and found.get("user_md") else None


async def refresh(data_dir: Path, bio: str, hidden: frozenset[int]) -> None:
    """Rewrite the USER.md block with the portrait assistants may see, if biomd keeps one."""
    user_md = recorded(data_dir)
    if user_md is not None:
        await asyncio.to_thread(write_block, user_md, portrait(for_assistants(bio, hidden)))

"""biomd as Hermes Agent's memory provider: `biomd hermes install` copies the provider
(biomd/integrations/hermes, which imports nothing from biomd) into Hermes's user plugins,
$HERMES_HOME/plugins/biomd/, beside biomd.json, which says how to start this biomd, so that
Hermes needs no BIOMD_ variable; `uninstall` removes it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from biomd.app.assistants.mcp_config import Launch
from biomd.app.assistants.recall import RECALL_CHARS
from biomd.errors import BiomdError
from biomd.storage.atomic import write_atomically

CONFIG = "biomd.json"  # the provider reads it (biomd/integrations/hermes/__init__.py)
FILES = ("__init__.py", "plugin.yaml")
SELECT = "hermes config set memory.provider biomd"
SELECTED_BY_HAND = "memory:\n  provider: biomd"


@dataclass(frozen=True)
class Installed:
    folder: Path
    config: dict[str, object]


def hermes_home(given: Path | None = None, environ: Mapping[str, str] = os.environ) -> Path:
    """Hermes's home: `given`, else HERMES_HOME, else its platform default (~/.hermes;
    %LOCALAPPDATA%\\hermes on Windows), as Hermes resolves it."""
    if given:
        return given.expanduser().absolute()
    if environ.get("HERMES_HOME", "").strip():
        return Path(environ["HERMES_HOME"]).expanduser().absolute()
    if sys.platform == "win32":
        local = environ.get("LOCALAPPDATA", "").strip()
        return (Path(local) if local else Path.home() / "AppData" / "Local") / "hermes"
    return Path.home() / ".hermes"


def plugin_folder(home: Path) -> Path:
    return home / "plugins" / "biomd"


def config_for(launch: Launch, learn: bool, notes: bool, recall_chars: int) -> dict[str, object]:
    """biomd.json: the command that runs biomd (without `mcp`: the provider adds its own
    subcommand and flags), the environment it needs, and the owner's choices."""
    args = list(launch.args)
    if args and args[-1] == "mcp":
        args.pop()
    return {
        "command": [launch.command, *args],
        "env": dict(launch.env),
        "learn": learn,
        "notes": notes,
        "recall_chars": recall_chars,
    }


def install(
    home: Path,
    launch: Launch,
    *,
    learn: bool = True,
    notes: bool = False,
    recall_chars: int = RECALL_CHARS,
) -> Installed:
    """Copy the provider into Hermes's plugins folder with its biomd.json (replacing an
    earlier biomd's copy, never another plugin's)."""
    if recall_chars < 500:
        raise BiomdError("--recall-chars is at least 500.")
    folder = plugin_folder(home)
    if folder.exists() and not (folder / CONFIG).is_file():
        raise BiomdError(f"{folder} holds a plugin that is not biomd's; biomd leaves it alone.")
    folder.mkdir(parents=True, exist_ok=True)
    source = resources.files("biomd.integrations.hermes")
    for name in FILES:
        (folder / name).write_bytes(source.joinpath(name).read_bytes())
    config = config_for(launch, learn, notes, recall_chars)
    write_atomically(folder / CONFIG, json.dumps(config, indent=2) + "\n")
    return Installed(folder, config)


def uninstall(home: Path) -> Path | None:
    """Remove biomd's provider from Hermes; the folder removed, or None if there was none.
    Turns spooled by a session not yet kept ($HERMES_HOME/biomd/spool) stay."""
    folder = plugin_folder(home)
    if not folder.exists():
        return None
    if not (folder / CONFIG).is_file():
        raise BiomdError(f"{folder} holds a plugin that is not biomd's; biomd leaves it alone.")
    shutil.rmtree(folder)
    return folder


def selected(home: Path) -> bool:
    """Whether Hermes's config.yaml selects biomd as its memory provider (read by lines:
    `provider: biomd` under `memory:`)."""
    try:
        lines = (home / "config.yaml").read_text(encoding="utf-8").splitlines()
    except OSError:
        return False
    in_memory = False
    for line in lines:
        if line and not line[0].isspace():
            in_memory = line.split("#")[0].strip() == "memory:"
        elif in_memory and line.split("#")[0].strip().replace('"', "").replace("'", "") == (
            "provider: biomd"
        ):
            return True
    return False


def select(home: Path) -> str | None:
    """Select biomd in Hermes's config with Hermes's own command (`hermes config set`);
    None when done, else why not (the owner then adds the line by hand)."""
    hermes = shutil.which("hermes")
    if hermes is None:
        return "the `hermes` command is not on PATH"
    env = {**os.environ, "HERMES_HOME": str(home)}
    try:
        done = subprocess.run(
            [hermes, "config", "set", "memory.provider", "biomd"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode != 0 or not selected(home):
        return (done.stderr or done.stdout).strip()[-300:] or f"exit status {done.returncode}"
    return None

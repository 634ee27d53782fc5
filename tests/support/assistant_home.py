"""A user's environment for processes an assistant starts: biomd's settings in their own
config folder (~/.config/biomd), and no BIOMD_ variable set, as an assistant's is."""

from __future__ import annotations

import os
from pathlib import Path

from biomd import sample
from tests.support.model_files import MINILM_NAME


def user_env(tmp_path: Path, minilm_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    config = home / ".config" / "biomd"
    config.mkdir(parents=True)
    (config / "settings.env").write_text(
        f"BIOMD_DATA_DIR={home / 'biomd data'}\nBIOMD_EMBED_MODEL={MINILM_NAME}\n"
        f"BIOMD_EMBED_MODEL_PATH={minilm_path}\nBIOMD_OWNER_NAMES={sample.OWNER_NAMES}\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BIOMD_", "XDG_"))}
    return {**env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}


def data_dir(env: dict[str, str]) -> Path:
    return Path(env["HOME"]) / "biomd data"

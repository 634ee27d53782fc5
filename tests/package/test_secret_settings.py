"""Every setting that holds a key or token is named once, and none reaches a Codex turn's
tool server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from biomd.biographer.codex_turn import CodexTurn
from biomd.biographer.turn import Turn
from biomd.biographer.turn_context import TurnContext
from biomd.settings import SECRET_FIELDS, Settings

KEYS = {
    "llm_api_key": "sk-biographer-1",
    "reader_api_key": "sk-reader-2",
    "telegram_token": "123:telegram-3",
    "discord_token": "discord-4",
}


def test_the_secrets_are_every_key_and_token() -> None:
    s = Settings(_env_file=None, **KEYS)  # type: ignore[arg-type]
    assert set(SECRET_FIELDS) == set(KEYS)
    assert sorted(x for x in s.secrets() if x) == sorted(KEYS.values())


def test_a_codex_turn_writes_no_key_or_token_for_its_tool_server(tmp_path: Path) -> None:
    s = Settings(_env_file=None, data_dir=tmp_path / "data", **KEYS)  # type: ignore[arg-type]
    codex: Any = None  # writing the turn's file needs no CLI
    turn = Turn(TurnContext(1, "chat", 5), "hello", "the rules")
    CodexTurn(codex, s)._write_turn(tmp_path, turn)
    written = (tmp_path / "turn.json").read_text(encoding="utf-8")
    assert not [v for v in KEYS.values() if v in written]
    assert json.loads(written)["settings"]["data_dir"] == str(tmp_path / "data")

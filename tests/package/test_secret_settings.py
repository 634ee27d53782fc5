"""Every setting that holds a key or token is named once, and none reaches a Codex turn's
tool server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from biomd.biographer.backend import CodexBackend
from biomd.biographer.codex_turn import CodexTurn
from biomd.biographer.turn import Turn
from biomd.biographer.turn_context import TurnContext
from biomd.settings import SECRETS, Settings, names

KEYS = {
    "llm_api_key": "sk-biographer-1",
    "reader_api_key": "sk-reader-2",
    "telegram_token": "123:telegram-3",
    "discord_token": "discord-4",
}


def test_the_secrets_are_every_key_and_token() -> None:
    s = Settings(_env_file=None, **KEYS)  # type: ignore[arg-type]
    assert {names.name_of(path) for path in SECRETS} == {f"BIOMD_{k.upper()}" for k in KEYS}
    held_as_secrets = {
        p for p, info in names.paths(Settings) if info.annotation == SecretStr | None
    }
    assert held_as_secrets == set(SECRETS), "every key or token is a SecretStr, and named here"
    assert "sk-biographer-1" not in repr(s) and "sk-reader-2" not in str(s.reader)
    assert sorted(x for x in s.secrets() if x) == sorted(KEYS.values())


def test_a_codex_turn_writes_no_key_or_token_for_its_tool_server(tmp_path: Path) -> None:
    s = Settings(_env_file=None, data_dir=tmp_path / "data", **KEYS)  # type: ignore[arg-type]
    codex: Any = None  # writing the turn's file needs no CLI
    turn = Turn(TurnContext(1, "chat", 5), "hello", "the rules")
    backend = CodexBackend.of(s, ledger=codex)  # what the Codex backend hands each turn
    CodexTurn(codex, backend.spec)._write_turn(tmp_path, turn)
    written = (tmp_path / "turn.json").read_text(encoding="utf-8")
    assert not [v for v in KEYS.values() if v in written]
    assert json.loads(written)["settings"]["data_dir"] == str(tmp_path / "data")

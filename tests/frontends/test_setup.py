"""`biomd setup` against the fake LLM, Telegram and Discord servers: it tests the key, finds
the owner's ids from one message each, and writes the config file; every step can be
skipped."""

from __future__ import annotations

import asyncio
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from biomd.app.config import ConfigFile
from biomd.app.envfile import with_values
from biomd.frontends.setup import Wizard, daily_cron
from biomd.settings import Settings
from tests.support.fake_discord import fake_discord
from tests.support.fake_llm import Status, fake_llm, tool_reply
from tests.support.fake_telegram import fake_telegram

TEMPLATE = """# biomd settings
# The model.
# BIOMD_LLM_MODEL=openai/gpt-4o-mini
BIOMD_OWNER_NAMES=
# BIOMD_TELEGRAM_TOKEN=
"""


class Script:
    """Answers in order; `on` runs a hook when the wizard says something containing a key."""

    def __init__(self, answers: list[str], on: dict[str, Callable[[], Any]] | None = None):
        self.answers = list(answers)
        self.on = on or {}
        self.said: list[str] = []
        self.asked: list[str] = []

    def ask(self, question: str, default: str = "", secret: bool = False) -> str:
        self.asked.append(question)
        answer = self.answers.pop(0)
        return answer or default

    def say(self, text: str) -> None:
        self.said.append(text)
        for key, hook in self.on.items():
            if key in text:
                hook()


@pytest.mark.slow
async def test_setup_tests_the_key_finds_the_owner_ids_and_writes_the_config_file(
    tmp_path: Path,
) -> None:
    env = tmp_path / "settings.env"
    env.write_text(TEMPLATE)
    with fake_llm() as llm:
        async with fake_telegram() as tg, fake_discord() as dc:
            llm.reply_with(
                "OK", tool_reply(("lookup", {"word": "lighthouse"})), "It says PELICAN-42."
            )
            pushes: list[Any] = []
            script = Script(
                [
                    "3",
                    llm.base_url,
                    "sk-or-secret-123",
                    "test/model",
                    "test/cheap-model",
                    "123456:TELEGRAM-SECRET",
                    "",
                    "discord-secret-token",
                    "y",
                    "Nina Castell, Nina",
                    "de, es",
                    "25:00",
                    "08:30",
                    "Mars/Olympus",
                    "Europe/Lisbon",
                ],
                on={
                    "send it any message": lambda: tg.push(4242, text="hello"),
                    "send it a direct message": lambda: pushes.append(
                        asyncio.get_running_loop().create_task(dc.push(777, "hi"))
                    ),
                },
            )
            settings = Settings(_env_file=None, telegram_api_url=tg.base)  # type: ignore[call-arg]
            values = await Wizard(settings, script, owner_wait_s=20).run(ConfigFile(env))

    assert values["BIOMD_TELEGRAM_ALLOWED_USERS"] == "4242"
    assert values["BIOMD_DISCORD_ALLOWED_USERS"] == "777"
    assert llm.bodies[0]["max_tokens"] == 5, "the key is tested with one tiny call"
    text = env.read_text()
    assert "# The model.\nBIOMD_LLM_MODEL=test/model\n" in text, "set where the example was"
    assert 'BIOMD_OWNER_NAMES="Nina Castell, Nina"' in text
    assert values["BIOMD_READER_MODEL"] == "test/cheap-model"
    assert stat.S_IMODE(env.stat().st_mode) == 0o600
    said = "\n".join(script.said)
    assert "That is not a time like 19:00." in said and "Not a time zone name" in said
    assert "Tool calls come back native: the biographer can research and edit." in said
    assert llm.bodies[1]["tools"][0]["function"]["name"] == "lookup"
    assert llm.bodies[2]["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_0_lookup",
        "content": "lighthouse: the code word is PELICAN-42.",
    }
    for secret in ("sk-or-secret-123", "TELEGRAM-SECRET", "discord-secret-token"):
        assert secret not in said, "secrets are never echoed"

    loaded = Settings(_env_file=env)  # type: ignore[call-arg]
    assert loaded.llm.api_key is not None
    assert loaded.llm.api_key.get_secret_value() == "sk-or-secret-123"
    assert loaded.llm.base_url == llm.base_url
    assert loaded.telegram.allowed_users == {4242} and loaded.discord.allowed_users == {777}
    assert loaded.owner.names == ("Nina Castell", "Nina")
    assert loaded.owner.languages == ("de", "es") and loaded.owner.language == "de"
    assert loaded.embed.model == "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"
    assert loaded.questions.cron == "30 8 * * *"
    assert str(loaded.zone) == "Europe/Lisbon"


@pytest.mark.slow
async def test_every_step_can_be_skipped_and_a_rejected_key_is_said_plainly(
    tmp_path: Path,
) -> None:
    env = tmp_path / "settings.env"
    with fake_llm() as llm:
        llm.reply_with(Status(401, message="invalid api key"))
        script = Script(["3", llm.base_url, "sk-wrong", "test/model", "n", "", "", "", "", "", ""])
        values = await Wizard(Settings(_env_file=None), script).run(ConfigFile(env))  # type: ignore[call-arg]
    assert values == {}
    assert not env.exists()
    said = "\n".join(script.said)
    assert "The test call failed: the key was rejected." in said
    assert "Nothing changed." in said


async def test_a_telegram_token_that_is_refused_is_skipped_with_the_reason(
    tmp_path: Path,
) -> None:
    async with fake_telegram() as tg:
        tg.revoked.add("123:BAD")
        script = Script(["", "123:BAD", "", "", "", "", ""])
        settings = Settings(_env_file=None, telegram_api_url=tg.base)  # type: ignore[call-arg]
        values = await Wizard(settings, script, owner_wait_s=2).run(ConfigFile(tmp_path / "s.env"))
    assert values == {}
    assert any("Telegram did not accept that token" in s for s in script.said)


def test_env_values_are_quoted_when_needed_and_times_become_cron() -> None:
    text = with_values("A=1\n# B=2\n", {"B": 'say "hi" # now', "C": "plain-value"})
    assert text == 'A=1\nB="say \\"hi\\" # now"\nC=plain-value\n'
    assert daily_cron("7:05") == "5 7 * * *"
    assert daily_cron("24:00") is None and daily_cron("noon") is None


@pytest.mark.slow
async def test_setup_finds_a_local_server_lists_its_models_and_warns_about_text_tool_calls(
    tmp_path: Path,
) -> None:
    env = ConfigFile(tmp_path / "settings.env")
    with fake_llm() as ollama, fake_llm() as nothing:
        root = ollama.base_url.removesuffix("/v1")
        ollama.routes |= {
            "/api/tags": {"models": [{"name": "qwen2.5:1.5b"}, {"name": "llama3.1:8b"}]},
            "/api/version": {"version": "0.12.0"},
            "/api/show": {"parameters": "stop <|im_end|>"},
            "/api/create": {"status": "success"},
        }
        ollama.reply_with(
            "OK",
            '```json\n{"name": "lookup", "arguments": {"word": "lighthouse"}}\n```',
            "PELICAN-42.",
        )
        script = Script(["2", "1", "1", "y"] + [""] * 12)
        wizard = Wizard(
            Settings(_env_file=None),  # type: ignore[call-arg]
            script,
            local_candidates=(
                ("Ollama", root),
                (
                    "llama.cpp",
                    nothing.base_url.removesuffix("/v1").replace("127.0.0.1", "localhost"),
                ),
                ("LM Studio", "http://127.0.0.1:9"),
            ),
        )
        values = await wizard.run(env)
    said = "\n".join(script.said)
    assert f"[1] Ollama at {root}/v1: qwen2.5:1.5b, llama3.1:8b" in said
    assert "[2] llama.cpp at" not in said, "servers that don't answer aren't listed"
    assert "(1) qwen2.5:1.5b" in said and "(2) llama3.1:8b" in said
    assert "Tool calls come back as text, which biomd reads" in said
    assert "Ollama runs qwen2.5:1.5b with a 4,096-token context" in said
    assert "Made qwen2.5-biomd16k:1.5b; biomd will use it." in said
    assert "POST /api/create" in ollama.other
    assert values["BIOMD_READING_PLACEMENT"] == "rules"
    assert values["BIOMD_LLM_BASE_URL"] == f"{root}/v1"
    assert values["BIOMD_LLM_MODEL"] == "qwen2.5-biomd16k:1.5b"
    assert "BIOMD_LLM_API_KEY" not in values

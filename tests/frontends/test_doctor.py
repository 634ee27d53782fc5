"""`biomd doctor` finds what is wrong and says how to fix it, against real files, a real
store and the fake LLM and Telegram servers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from biomd.app.config import ConfigFile
from biomd.app.engine import Engine
from biomd.frontends.doctor import FAIL, OK, WARN, examine, render
from tests.conftest import make_settings
from tests.support.fake_llm import Status, fake_llm
from tests.support.fake_telegram import fake_telegram
from tests.support.model_files import MINILM_NAME


@pytest.mark.slow
async def test_doctor_names_each_problem_with_its_fix(
    tmp_path: Path, minilm_path: Path, embedder: object
) -> None:
    env = tmp_path / "settings.env"
    env.write_text("BIOMD_LLM_API_KEY=sk-x\nBIOMD_OWNER_NAME=Nina\n")
    env.chmod(0o644)
    note = tmp_path / "note.txt"
    note.write_text("The kiln was fired on Sunday.")
    with fake_llm() as llm:
        async with fake_telegram() as tg:
            settings = make_settings(
                tmp_path / "data",
                minilm_path,
                llm_base_url=llm.base_url,
                llm_api_key="sk-x",
                llm_model="test/model",
                telegram_token="1:TOKEN",
                telegram_api_url=tg.base,
                questions_cron="0 25 * * *",
            )
            async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
                _ = [r async for r in engine.sources.ingest([note])]
                await engine.sources.embed_pending()
            next(settings.data_dir.glob("raw/*/*")).chmod(0o644)
            llm.reply_with(Status(401, message="bad key"))
            findings = await examine(settings, ConfigFile(env))

    by = {(f.topic, f.status): f for f in findings}
    text = render(findings)
    assert "holds keys and tokens (BIOMD_LLM_API_KEY)" in by["config", FAIL].detail
    assert "others can read it (644)" in by["config", FAIL].detail
    assert by["config", FAIL].fix == f"chmod 600 {env}"
    assert "BIOMD_OWNER_NAME in" in by["config", WARN].detail, "a misspelt key does nothing"
    assert by["config", WARN].fix == "did you mean BIOMD_OWNER_NAMES?"
    assert "readable by others: 1 file in it" in by["data", FAIL].detail
    assert "integrity ok; 1 source," in by["store", OK].detail
    assert "BIOMD_QUESTIONS_CRON" in by["schedule", FAIL].fix
    assert "the key was rejected" in by["llm", FAIL].detail
    assert "token works: @biomd_test_bot" in by["telegram", OK].detail
    assert "BIOMD_TELEGRAM_ALLOWED_USERS is empty" in by["telegram", FAIL].detail
    assert f"embedding model {MINILM_NAME} from {minilm_path}" in by["models", OK].detail
    assert "→ chmod 600" in text and re.search(r"\n\d+ problems, \d+ warnings?\.", text)
    assert "sk-x" not in text


@pytest.mark.slow
def test_doctor_on_a_fresh_checkout_warns_but_finds_no_problem(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BIOMD_")}
    env |= {"XDG_DATA_HOME": str(tmp_path / "xdg-data"), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    done = subprocess.run(
        [str(Path(sys.executable).with_name("biomd")), "doctor", "--offline"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"no config file at {tmp_path / 'cfg' / 'biomd' / 'settings.env'}" in done.stdout
    assert "does not exist yet; it is created (0700) on first use" in done.stdout
    assert "0 problems" in done.stdout


async def test_doctor_tells_when_biomd_is_running_on_the_data_dir(
    tmp_path: Path, minilm_path: Path, embedder: object
) -> None:
    settings = make_settings(tmp_path / "data", minilm_path)
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        engine.sources.take_ingest_lock()
        running = await examine(settings, ConfigFile(tmp_path / "none"), network=False)
    stopped = await examine(settings, ConfigFile(tmp_path / "none"), network=False)
    says = "a biomd process (the bot?) is running on it right now"
    assert any(f.detail == says for f in running)
    assert not any(f.detail == says for f in stopped)


async def test_an_unreachable_platform_is_a_warning_not_a_bad_token(tmp_path: Path) -> None:
    import socket

    from biomd.frontends.doctor import WARN, check_telegram
    from biomd.settings import Settings

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, telegram_token="1:T", telegram_api_url=f"http://127.0.0.1:{port}"
    )
    (finding,) = await check_telegram(settings)
    assert finding.status == WARN and "could not reach Telegram" in finding.detail


@pytest.mark.slow
async def test_doctor_runs_one_tool_call_round_trip_and_checks_ollamas_context(
    tmp_path: Path, minilm_path: Path
) -> None:
    from biomd.frontends.doctor import WARN, check_llm
    from tests.support.fake_llm import tool_reply

    with fake_llm() as llm:
        settings = make_settings(
            tmp_path / "data", minilm_path, llm_base_url=llm.base_url, llm_model="qwen2.5:1.5b"
        )
        llm.reply_with("OK", tool_reply(("lookup", {"word": "lighthouse"})), "PELICAN-42")
        native = await check_llm(settings)
        llm.routes |= {"/api/version": {"version": "0.12.0"}, "/api/show": {"parameters": ""}}
        llm.reply_with(
            "OK", '<tool_call>{"name": "lookup", "arguments": {"word": "x"}}</tool_call>', "ok"
        )
        text = await check_llm(settings)
        llm.reply_with("OK", "I cannot use tools.")
        none = await check_llm(settings)
    assert [(f.status, f.detail) for f in native][1] == (
        OK,
        "tool-call round trip: tool calls come back native: the biographer can research and edit.",
    )
    assert text[1].status == WARN and "come back as text, which biomd reads" in text[1].detail
    assert text[2].status == WARN and "with a 4,096-token context" in text[2].detail
    assert none[1].status == FAIL and "no tool calls came back" in none[1].detail

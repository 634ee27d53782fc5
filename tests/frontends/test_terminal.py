"""The terminal adapter: `make run` with nothing configured opens a session over the sample
life, and over the owner's own sources once they are in; with a language model the
biographer answers, without one cited search results do."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from biomd import sample
from biomd.app.engine import Engine
from biomd.frontends.terminal import TerminalSession
from biomd.settings import Settings
from tests.conftest import llm_settings
from tests.support import db
from tests.support.fake_llm import FakeLLM, fake_llm, tool_reply
from tests.support.model_files import MINILM_NAME, whisper_dir
from tests.support.samples import add_sources

ROOT = Path(__file__).resolve().parents[2]


def biomd_env(tmp_path: Path, minilm_path: Path) -> dict[str, str]:
    """This process's environment without any BIOMD_ setting, plus the test models."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("BIOMD_")},
        "BIOMD_DATA_DIR": str(tmp_path / "data"),
        "BIOMD_EMBED_MODEL": MINILM_NAME,
        "BIOMD_EMBED_MODEL_PATH": str(minilm_path),
        "BIOMD_WHISPER_MODEL": str(whisper_dir()),
        "BIOMD_WEB_PORT": "0",  # any free port
    }


def biomd(
    tmp_path: Path, minilm_path: Path, stdin: str, *args: str, env: dict[str, str] | None = None
) -> str:
    full = {**biomd_env(tmp_path, minilm_path), "COLUMNS": "200", **(env or {})}
    done = subprocess.run(
        [str(Path(sys.executable).with_name("biomd")), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=full,
        cwd=tmp_path,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_run_with_nothing_configured_opens_the_sample_life_and_answers_with_search(
    tmp_path: Path, minilm_path: Path
) -> None:
    note = tmp_path / "my-note.md"
    note.write_text("Nina adopted a second cat called Pastel in March 2024.")
    lines = [
        "does Nina still smoke?",
        "/timeline",
        "/questions",
        "/source 10",
        f"/ingest {note}",
        "/wait",
        "/search Pastel",
        "/bio",
        "/quit",
    ]
    out = biomd(tmp_path, minilm_path, "\n".join(lines) + "\n", "run")

    assert "No Telegram or Discord bot is configured yet" in out
    assert "Web view: http://127.0.0.1:" in out and "/?token=" in out, "the sample is served"
    assert sample.PERSON in out
    assert "No language model is configured" in out
    # the question is answered with cited search hits, the smoking entries among them
    assert "cigarette" in out and "[#6] 2024-01-03.md" in out
    # the timeline without a biographer: what each source covers, by date
    assert "• 2019-04-07: 2019-04-07.md [#1]" in out
    assert "• 2021-02-12 to 2024-06-02: WhatsApp Chat with Mum.txt [#7]" in out
    assert "Open questions come from the biographer's reading" in out
    # the voice note was transcribed on this machine
    assert "#10 voice-note-2024-06-02.ogg" in out and "Porto" in out
    # /ingest works like forwarding a file to the bot, and the note is then searchable
    assert "my-note.md: queued" in out and "#11 my-note.md" in out
    # /bio of an empty bio.md: what fills it, not eight empty headings and raw Markdown
    assert "bio.md is empty so far. The biographer (a language model) writes bio.md" in out
    assert "_Nothing is known yet" not in out and "People & relationships" not in out
    # what to set up is said in full once, then in a line
    assert out.count("Set BIOMD_LLM_API_KEY") == 1, out
    assert "No language model yet (`biomd setup` connects one)." in out
    assert note.exists(), "the owner's own file is copied, never moved"
    assert (tmp_path / "data-sample" / "biomd.sqlite3").exists()
    assert not (tmp_path / "data").exists(), "the sample writes only its own folder"

    path = tmp_path / "data-sample" / "biomd.sqlite3"
    db.set_meta(path, "embed_model", "another/model")  # as if BIOMD_EMBED_MODEL changed
    again = biomd(tmp_path, minilm_path, "/sources\n", "run")
    assert "into biomd (first run only)" not in again, "the sample is ingested once"
    assert "#11 my-note.md" in again
    assert "Computing vectors" in again, "the sample is re-embedded with the new model"
    assert db.meta(path, "embed_model") == MINILM_NAME
    assert db.chunks_without_vectors(path) == 0
    assert "`biomd chat` talks with your biographer" in again  # the way to your own, on exit

    biomd(tmp_path, minilm_path, "", "ingest", str(note))  # the owner's own first source
    own = biomd(tmp_path, minilm_path, "/sources\n", "run")
    assert "over your own sources" in own and "Reading 1 sample source" not in own
    assert "#1 my-note.md" in own and sample.PERSON not in own
    assert "Web view: http://127.0.0.1:" in own


@pytest.mark.slow
async def test_with_a_model_the_biographer_answers_in_the_terminal(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: object
) -> None:
    settings: Settings = llm_settings(tmp_path, minilm_path, llm)
    text = io.StringIO()
    console = Console(file=text, width=120)
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        # an instruction, not a question: the turn researches with its tools
        lines = iter(
            ["Look up where I worked before Lisbon.", "/answer Q7", "/bogus", "/help", None]
        )

        async def read_line(prompt: str) -> str | None:
            return next(lines)

        await add_sources(engine, ["Worked at Fieldnote Studio in Hackney, 2013 to 2020."])
        llm.reply_with(
            tool_reply(("search", {"query": "work before Lisbon"})),
            "At Fieldnote Studio in Hackney, from 2013 to 2020 [#1].",
        )
        await TerminalSession(engine, console, read_line).run("hello")
    out = text.getvalue()
    assert "At Fieldnote Studio in Hackney, from 2013 to 2020 [#1]." in out
    assert "/source 1" in out
    assert "Answer which question? For example /answer Q3 your answer." in out
    assert "I don't know /bogus" in out
    assert "/ingest PATH" in out.split("I don't know /bogus")[1], "/help is the terminal's own"
    assert "Look up where I worked before Lisbon." in str(llm.bodies[0]["messages"][1])


@pytest.mark.slow
def test_with_a_key_the_sample_is_read_by_the_biographer(tmp_path: Path, minilm_path: Path) -> None:
    with fake_llm() as llm:
        for doc in range(1, len(sample.files()) + 1):  # read each source, then report
            llm.reply_with(tool_reply(("read_source", {"document_id": doc})), "Noted.")
        extra = {"BIOMD_LLM_BASE_URL": llm.base_url, "BIOMD_LLM_API_KEY": "sk-test"}
        out = biomd(tmp_path, minilm_path, "/wait\n/status\n/quit\n", "run", env=extra)
        read = [b for b in llm.bodies if "2019-04-07.md" in json.dumps(b["messages"])]
    assert "The biographer is reading the sample now" in out
    assert "No language model is configured" not in out
    assert "Waiting for the biographer: 0" in out
    assert "The biographer has finished reading: 0 edits to bio.md." in out
    assert read, "the biographer was given the sample's sources to read"


@pytest.mark.slow
def test_ctrl_c_ends_the_session_at_once(tmp_path: Path, minilm_path: Path) -> None:
    """Typed Ctrl-C at the prompt, through a real pseudo-terminal."""
    import pty
    import select
    import time

    env = biomd_env(tmp_path, minilm_path)
    pid, fd = pty.fork()
    if pid == 0:  # the child: biomd on the terminal
        os.chdir(tmp_path)
        os.execve(str(Path(sys.executable).with_name("biomd")), ["biomd", "chat"], env)
    seen = b""

    def read(until: float) -> None:
        nonlocal seen
        while time.monotonic() < until and select.select([fd], [], [], 0.2)[0]:
            try:
                seen += os.read(fd, 65536)
            except OSError:
                return

    deadline = time.monotonic() + 120
    while "you ›".encode() not in seen and time.monotonic() < deadline:
        read(time.monotonic() + 1)
    assert "you ›".encode() in seen
    os.write(fd, b"\x03")
    stopped_at = time.monotonic() + 15
    status = None
    while status is None and time.monotonic() < stopped_at:
        read(time.monotonic() + 0.5)
        done, code = os.waitpid(pid, os.WNOHANG)
        status = code if done else None
    if status is None:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    read(time.monotonic() + 1)
    os.close(fd)
    assert status is not None, "still running 15 s after Ctrl-C"
    assert b"Stopped." in seen


async def test_output_while_the_prompt_waits_goes_below_it_and_the_prompt_returns() -> None:
    from biomd.frontends.terminal import TerminalChannel

    text = io.StringIO()
    waiting: list[str | None] = ["you › "]
    channel = TerminalChannel(Console(file=text, width=60), lambda: waiting[0])
    await channel.edit(CHAT_ID, "1", "note.md: converting…")
    assert text.getvalue() == "\n  · note.md: converting…\nyou › "
    waiting[0] = None
    text.truncate(0)
    text.seek(0)
    await channel.edit(CHAT_ID, "1", "note.md: done")
    assert text.getvalue() == "  · note.md: done\n"


CHAT_ID = "terminal"

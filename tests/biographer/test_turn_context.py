"""A turn's identity is a value of the turn, not of the shared model object: a chat turn that
runs while a reading turn waits on its model call leaves each with its own calls and cost."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from biomd.app.engine import Engine
from tests.support import db
from tests.support.fake_llm import FakeLLM, Slow
from tests.support.reading import read_round

pytestmark = pytest.mark.slow  # a whole Engine with two overlapping turns


async def test_a_chat_turn_during_a_reading_turn_leaves_each_its_own_calls(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    reading_asked = threading.Event()  # set in the fake server's thread

    def respond(body: dict[str, Any]) -> Slow | str:
        if "# This turn: reading" in body["messages"][0]["content"]:
            reading_asked.set()  # the chat turn starts now, while this call is in flight
            return Slow(1.5, "Read the notes.")
        return "Your dog is Biscuit."

    llm.responder = respond
    await bio_engine.sources.keep_text("Grace adopted a lurcher called Biscuit.", "note.txt")
    reading = asyncio.create_task(read_round(bio_engine))
    assert await asyncio.to_thread(reading_asked.wait, 30)
    chat = await bio_engine.biographer.chat.ask("thanks")  # no search: one quick call
    (read,) = await reading
    assert chat.turn_id != read.turn_id
    calls = [
        (u.mode, u.turn_id)
        for u in db.usage(bio_engine.settings.db_path)
        if u.mode not in {"notes", "wording", "summary"}  # reading's own small calls
    ]
    assert sorted(calls) == [("chat", chat.turn_id), ("reading", read.turn_id)]
    tokens = {t.id: t.tokens for t in await bio_engine.store.turns.recent(10)}
    assert tokens[chat.turn_id] == tokens[read.turn_id] == 15  # one call each, not two and none

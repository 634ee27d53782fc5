"""Filler: a chat's reactions, laughter and media placeholders are left out of what the
reader is sent, in any language, while answers, prose and the reader's quotes survive."""

from __future__ import annotations

from pathlib import Path

import pytest

from biomd.app.engine import Engine
from biomd.biographer.reading import filler, reader
from biomd.biographer.reading.reader import Part
from tests.conftest import llm_settings
from tests.support import db
from tests.support.fake_llm import FakeLLM, notes_reply
from tests.support.reading import read_round


def chat(*said: tuple[str, str]) -> str:
    """Chat lines, a minute apart, in the converters' normalised form."""
    return "".join(
        f"[2023-05-{1 + i // 60:02d} 10:{i % 60:02d}] {who}: {body}\n"
        for i, (who, body) in enumerate(said)
    )


PROPOSAL = chat(
    ("Tom", "I have a question for you tonight"),
    ("Ana (owner)", "hahaha 😂"),
    ("Tom", "Will you marry me?"),
    ("Tom", "💍"),
    ("Ana (owner)", "yes"),
    ("Tom", "😂😂"),
    ("Ana (owner)", "[sticker omitted]"),
)


def test_the_answer_to_a_proposal_is_kept_and_the_emoji_around_it_go() -> None:
    sent = filler.sent(PROPOSAL)
    assert "Will you marry me?" in sent and "Ana (owner): yes" in sent
    assert "💍" not in sent and "😂" not in sent and "sticker" not in sent
    assert "hahaha" not in sent  # laughter after a statement answers nothing


@pytest.mark.parametrize(
    "reaction",
    ["ok", "haha", "jajaja", "ㅋㅋㅋ", "哈哈哈", "ржу", "👍", "😂", "xD", "15:30", "kkkkk"],
)
def test_reactions_in_any_language_or_script_are_left_out(reaction: str) -> None:
    text = chat(("Bo", "I start the new job at the bakery on Monday"), ("Bo", reaction))
    assert filler.sent(text).splitlines() == text.splitlines()[:1]


@pytest.mark.parametrize(
    "placeholder",
    [
        "[image omitted]",
        "[media omitted]",
        "[sticker omitted]",
        "[sticker 😂]",
        "[sticker: stickers/cat.webp]",
        "[attachment: 00000012-PHOTO-2021-02-13-21-06-10.jpg]",
        "[photo: photos/photo_3@01-02-2021_10-00-00.jpg]",
        "<Medien ausgeschlossen>",
    ],
)
def test_media_placeholders_are_left_out_but_described_media_are_kept(placeholder: str) -> None:
    described = '[voice note v.ogg 0:12: "we signed the lease on the flat in Porto"]'
    text = chat(("Bo", placeholder), ("Bo", described))
    assert filler.sent(text).splitlines() == text.splitlines()[1:]


def test_the_answer_to_a_question_is_kept_even_when_it_is_an_emoji() -> None:
    text = chat(
        ("Mum", "Shall we take the flat on Rua Augusta?"),
        ("Mum", "It has a garden"),
        ("Ana (owner)", "👍"),
        ("Mum", "👍"),
    )
    assert filler.sent(text).splitlines() == text.splitlines()[:3]


def test_an_acknowledgement_after_a_statement_goes_after_a_question_in_any_script_stays() -> None:
    for asked in ("Θα έρθεις στον γάμο;", "你明天来吗？", "هل ستأتي غدا؟"):
        text = chat(("Eleni", asked), ("Ana (owner)", "ok"))
        assert filler.sent(text) == text
    text = chat(("Eleni", "I got the job at the museum ;)"), ("Ana (owner)", "ok"))
    assert filler.sent(text).splitlines() == text.splitlines()[:1]


def test_small_talk_said_again_and_again_is_said_once() -> None:
    text = chat(
        *[
            ("Bo", "on my way!") if i % 2 else ("Bo", f"Lecture {i} on Roman law was long")
            for i in range(8)
        ]
    )
    sent = filler.sent(text).splitlines()
    assert [line for line in sent if "on my way" in line] == [text.splitlines()[1]]
    assert len(sent) == 5


def test_prose_a_journal_and_a_chat_without_filler_are_sent_unchanged() -> None:
    journal = "2023-05-01\n\nok.\n\nhaha, today I quit my job.\n👍\n"
    assert filler.sent(journal) == journal
    plain = chat(("Bo", "We moved to Leeds in March"), ("Ana (owner)", "And I found work there"))
    assert filler.sent(plain) == plain
    assert filler.sent_chars(plain) == len(plain)


def test_headers_and_lines_that_are_not_messages_are_always_kept() -> None:
    text = "WhatsApp chat: Bo\n\n" + chat(("Bo", "ok"), ("Bo", "Passed my driving test today"))
    assert filler.sent(text).splitlines() == ["WhatsApp chat: Bo", "", text.splitlines()[-1]]


def test_a_chat_part_reaches_as_far_as_fills_the_size_sent() -> None:
    text = chat(
        *[("Bo", "haha") if i % 4 else ("Bo", f"Day {i}: painted the fence") for i in range(200)]
    )
    at = filler.reach(text, 1_000)
    assert text[at - 1] == "\n" and at > 2_500
    assert 900 <= filler.sent_chars(text[:at]) <= 1_000


def test_the_readers_quotes_from_what_was_sent_are_found_in_the_original_part() -> None:
    part = Part(1, "chat", "whatsapp", 5_000, 5_000 + len(PROPOSAL), 90_000, PROPOSAL)
    message = reader.part_message([part])
    assert "Will you marry me?" in message and "💍" not in message and "left out" in message
    notes = [
        {"statement": "Tom proposed", "quote": "Tom: Will you marry me?"},
        {"statement": "She said yes", "quote": "[2023-05-01 10:04] Ana (owner): yes"},
    ]
    checked = reader.verify(notes, [part])
    assert checked.dropped[1] == 0
    for note in checked.found[1]:
        assert PROPOSAL[note.start - 5_000 : note.end - 5_000] == note.quote


def test_parts_are_packed_by_what_is_sent() -> None:
    noisy = chat(*[("Bo", "😂")] * 50, ("Bo", "We adopted a dog called Biscuit"))
    parts = [Part(i, "c", "chat", 0, len(noisy), len(noisy), noisy) for i in range(4)]
    assert len(noisy) > 1_000 and [len(b) for b in reader.batches(parts, 1_000)] == [4]


@pytest.mark.slow
async def test_the_reader_is_sent_no_filler_and_its_notes_keep_their_spans(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    filler = [("Tom", "haha"), ("Ana (owner)", "👍"), ("Tom", "[image omitted]")] * 30
    text = chat(*filler, *PROPOSAL_PAIRS, *filler)
    llm.notes.append(
        notes_reply(
            {"kind": "event", "statement": "Tom proposed", "quote": "Will you marry me?"},
            {"kind": "event", "statement": "Ana said yes", "quote": "Ana (owner): yes"},
        )
    )
    settings = llm_settings(tmp_path, minilm_path, llm)
    async with await Engine.open(settings) as engine:
        await engine.sources.keep_text(text, "WhatsApp Chat with Tom.txt")
        await read_round(engine)
    (body,) = llm.reader_bodies
    request = body["messages"][1]["content"]
    assert "Will you marry me?" in request and "Ana (owner): yes" in request
    assert "haha" not in request and "👍" not in request and "omitted" not in request
    notes = db.notes(settings.db_path)
    assert len(notes) == 2
    for note in notes:
        assert text[note.start : note.end] == note.quote
    assert [(p.start, p.end) for p in db.parts(settings.db_path)] == [(0, len(text))]


PROPOSAL_PAIRS = [("Tom", "Will you marry me?"), ("Ana (owner)", "yes")]

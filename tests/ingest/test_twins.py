"""The same text in another file: refused as a duplicate of the first; a longer export of a
stored chat keeps only what is new."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from biomd.app.engine import Engine
from biomd.ingest.twins import FULL_BELOW, Units, after, message_key, verdict


def whatsapp(first: int, last: int, media: str = "<Media omitted>") -> str:
    """Messages first..last-1 of one invented chat, Android style, one a day at most 40."""
    lines = []
    for i in range(first, last):
        day, hour, minute = 1 + i // 40, 10 + (i % 40) // 4, (i * 7) % 60
        who = "Saoirse" if i % 3 else "Grace"
        stamp = f"{day:02d}/03/2021, {hour:02d}:{minute:02d}"
        lines.append(f"{stamp} - {who}: message {i}, about the flat in Galway and the move")
        if i % 10 == 5:
            lines.append(f"{stamp} - {who}: {media}")
    return "\n".join(lines) + "\n"


def fingerprint(text: str):  # type: ignore[no-untyped-def]
    units = Units()
    for at in range(0, len(text), 333):  # in pieces that cut lines, as converters hand it on
        units.feed(text[at : at + 333])
    return units.finish()


def transcript(first: int, last: int, media: str = "[media omitted]") -> str:
    lines = ["WhatsApp chat: Saoirse", ""]
    for i in range(first, last):
        who = "Saoirse" if i % 3 else "Grace (owner)"
        stamp = f"[2021-03-{1 + i // 40:02d} {10 + (i % 40) // 4:02d}:{(i * 7) % 60:02d}]"
        lines.append(f"{stamp} {who}: message {i}")
        if i % 10 == 5:
            lines.append(f"{stamp} {who}: {media}")
    return "\n".join(lines) + "\n"


# -- the rules ------------------------------------------------------------------------------


def test_a_chat_with_and_without_media_is_the_same_chat() -> None:
    bare = fingerprint(transcript(0, 300))
    with_media = fingerprint(transcript(0, 300, '[photo IMG-1.jpg: "a dog on a beach"]'))
    assert bare.chat and bare.count >= FULL_BELOW
    assert verdict(with_media, bare) == "same" and verdict(bare, with_media) == "same"


def test_a_longer_export_goes_on_from_the_stored_one_and_a_shorter_repeats_it() -> None:
    old, longer = fingerprint(transcript(0, 300)), fingerprint(transcript(0, 420))
    assert verdict(longer, old) == "longer"
    assert verdict(old, longer) == "same", "what it holds is all stored already"


def test_another_chat_and_a_short_note_are_sources_of_their_own() -> None:
    chat = fingerprint(transcript(0, 300))
    other = fingerprint(transcript(1000, 1300))
    assert verdict(other, chat) == "other"
    note = fingerprint("[2021-03-01 10:00] Grace (owner): message 0\n")
    assert verdict(note, chat) == "other", "a unit or two is no twin"


def test_the_same_prose_wrapped_otherwise_is_the_same_text() -> None:
    sentences = [
        f"On day {i} we walked along the river to the old mill and back." for i in range(40)
    ]
    as_pdf = "\n".join(" ".join(sentences[i : i + 3]) for i in range(0, 40, 3))  # wrapped
    as_docx = "\n\n".join(sentences)
    assert verdict(fingerprint(as_pdf), fingerprint(as_docx)) == "same"
    edited = "\n\n".join(s.replace("mill", f"mill number {i}") for i, s in enumerate(sentences))
    assert verdict(fingerprint(edited), fingerprint(as_docx)) == "other"


def test_after_keeps_the_messages_past_the_stored_end_and_not_those_it_has() -> None:
    text = (
        "[2021-03-01 10:00] Grace (owner): one\n[2021-03-01 10:05] Saoirse: two\n"
        "[2021-03-01 10:05] Saoirse: three\n[2021-03-01 10:09] Grace (owner): four\n"
    )
    seen = {message_key("2021-03-01 10:05", "Saoirse", "two")}
    assert after(text, "2021-03-01 10:05", seen) == [
        "[2021-03-01 10:05] Saoirse: three",
        "[2021-03-01 10:09] Grace (owner): four",
    ]


# -- ingest -----------------------------------------------------------------------------------


@pytest.mark.slow
async def test_the_txt_and_zip_exports_of_one_chat_are_one_source(
    engine: Engine, tmp_path: Path
) -> None:
    txt = tmp_path / "WhatsApp Chat with Saoirse.txt"
    txt.write_text(whatsapp(0, 300))
    exported = tmp_path / "WhatsApp Chat - Saoirse.zip"
    with zipfile.ZipFile(exported, "w") as z:
        z.writestr("_chat.txt", whatsapp(0, 300, "IMG-0001.jpg (file attached)"))
        z.writestr("IMG-0001.jpg", b"not really a photo")
    (first,) = [r async for r in engine.sources.ingest([txt])]
    (second,) = [r async for r in engine.sources.ingest([exported])]
    assert first.status == "added"
    assert second.status == "duplicate" and second.document_id == first.document_id
    assert second.note == f"the same text as source #{first.document_id} ({txt.name})"
    assert [s.id for s in await engine.sources.all()] == [first.document_id]
    assert (await engine.sources.grep("message 7,")).total == 1, "found once, not twice"


async def test_a_short_chat_sent_as_txt_and_zip_is_one_source_and_ids_never_skip(
    engine: Engine, tmp_path: Path
) -> None:
    txt = tmp_path / "WhatsApp Chat with Maya.txt"
    txt.write_text(whatsapp(0, 3))  # three messages: too few for the units to tell
    exported = tmp_path / "Maya.zip"
    with zipfile.ZipFile(exported, "w") as z:
        z.writestr(txt.name, whatsapp(0, 3))
    note = tmp_path / "note.md"
    note.write_text("Pastel the cat came home in March.")
    results = [r async for r in engine.sources.ingest([txt, exported, note])]
    assert [(r.status, r.document_id) for r in results] == [
        ("added", 1), ("duplicate", 1), ("added", 2)
    ]  # fmt: skip
    # text biomd was given stays apart, however short: two answers "Yes" are two sources
    said = "Yes, I went to Porto in June, with Tomás and his dog."
    first = await engine.sources.keep_text(said, "answer to Q1.txt")
    second = await engine.sources.keep_text("\ufeff" + said, "answer to Q2.txt")  # same text
    assert (first, second) == (3, 4)


async def test_a_longer_export_adds_only_the_new_messages(engine: Engine, tmp_path: Path) -> None:
    march = tmp_path / "march" / "WhatsApp Chat with Saoirse.txt"
    may = tmp_path / "may" / "WhatsApp Chat with Saoirse.txt"
    for path, last in ((march, 300), (may, 420)):
        path.parent.mkdir()
        path.write_text(whatsapp(0, last))
    (old,) = [r async for r in engine.sources.ingest([march])]
    (new,) = [r async for r in engine.sources.ingest([may])]
    assert new.status == "added" and new.document_id != old.document_id
    assert new.note and f"a longer export of source #{old.document_id}" in new.note
    text = (await engine.sources.read(new.document_id)).text  # type: ignore[arg-type]
    assert f"after source #{old.document_id} ends" in text
    for i, where in ((0, old), (299, old), (300, new), (419, new)):  # each in one source
        found = await engine.sources.grep(f"message {i},")
        assert [m.document_id for m in found.mentions] == [where.document_id], i
    (again,) = [r async for r in engine.sources.ingest([may])]
    assert again.status == "duplicate"
    listed = {r.source.id: r.continues for r in await engine.sources.states()}
    assert listed == {old.document_id: None, new.document_id: old.document_id}

"""A corpus of hostile and broken inputs, all generated here. For each: a specific message
naming the file, the process stays up, the good files in the same batch are ingested, and
nothing is written outside the data dir. Plus fuzzing of the parsers and the chunker."""

from __future__ import annotations

import io
import json
import random
import sqlite3
import struct
import tempfile
import wave
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biomd.app.engine import Engine
from tests.conftest import make_settings
from tests.support import chat_fixtures as fx
from tests.support.media_fixtures import jpeg_with_exif
from tests.support.samples import docx_bytes, pdf_bytes, zip_bytes


def _files_outside_data(root: Path) -> set[Path]:
    """Every path under root except the data dir's."""
    return {p for p in root.rglob("*") if "data" not in p.relative_to(root).parts}


def encrypted_pdf() -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(io.BytesIO(pdf_bytes("secret"))).pages:
        writer.add_page(page)
    writer.encrypt(user_password="pw", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def nested_zip(depth: int) -> bytes:
    data = zip_bytes({"deep.txt": b"bottom"})
    for level in range(depth):
        data = zip_bytes({f"level{level}.zip": data})
    return data


def encrypted_member_zip() -> bytes:
    raw = bytearray(zip_bytes({"a.txt": b"x"}))
    raw[6] |= 0x01
    raw[raw.rfind(b"PK\x01\x02") + 8] |= 0x01
    return bytes(raw)


def truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def dump(data: Any) -> bytes:
    return json.dumps(data).encode()


def huge_png() -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", 50_000, 50_000, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")


def empty_wav() -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
    return out.getvalue()


def other_sqlite(path: Path) -> bytes:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE recipes (name TEXT)")
    db.commit()
    db.close()
    return path.read_bytes()


# name -> (bytes, what the error must say). None: must be ingested, safely.
def hostile(tmp: Path) -> dict[str, tuple[bytes, str | None]]:
    rng = random.Random(7)
    docx = docx_bytes("Title", "Some text")
    telegram = json.dumps(fx.telegram_single()).encode()
    return {
        "corrupt.pdf": (b"%PDF-1.7\n" + b"\x00garbage" * 40, "this PDF is damaged"),
        "locked.pdf": (encrypted_pdf(), "password-protected"),
        "half.pdf": (truncated(pdf_bytes("a page", "another page")), "PDF is damaged"),
        "half.docx": (truncated(docx), "damaged"),
        "no-body.docx": (zip_bytes({"word/other.xml": b"<x/>"}), "damaged"),
        "bad-xml.docx": (zip_bytes({"word/document.xml": b"<w:document><unclosed"}), "damaged"),
        "bomb-ratio.zip": (zip_bytes({"zeros.txt": b"\0" * 5_000_000}), "zip bomb"),
        "bomb-nested.zip": (nested_zip(5), "nested more than"),
        "too-many.zip": (zip_bytes({f"{i}.txt": b"x" for i in range(60)}), "holds 60 files"),
        "cut.zip": (truncated(zip_bytes({"a.txt": b"hello " * 500})), "damaged"),
        "locked-member.zip": (encrypted_member_zip(), "encrypted"),
        "traversal.zip": (zip_bytes({"../../escape.txt": b"I tried to escape"}), None),
        "absolute.zip": (zip_bytes({"/etc/cron.d/evil.txt": b"absolute path"}), None),
        "binary.txt": (bytes(rng.randrange(256) for _ in range(5000)), "binary data"),
        "nul-heavy.txt": (b"a\x00b\x00\x00\x00c\x01\x02\x03" * 300, "binary data"),
        "invalid-utf8.txt": (b"good text \xff\xfe\xc3( more good text\n" * 20, None),
        "empty.txt": (b"", "the file is empty"),
        "blank.txt": (b"   \n\t \n  ", "no text found"),
        "one-line.txt": (b"x" * 3_000_000, None),
        "whatsapp-bad-dates.txt": (
            b"31/02/21, 10:00 - Ana: impossible\n30/02/21, 10:01 - Bo: impossible\n",
            "no WhatsApp messages found",
        ),
        "whatsapp-bad.zip": (
            zip_bytes({"_chat.txt": b"[31/02/21, 10:00:00] A: x\n[30/02/21, 10:00:00] B: y\n"}),
            "no WhatsApp messages found",
        ),
        "result.json": (truncated(telegram), "JSON is broken"),
        "result-empty.json": (dump(fx.telegram_single() | {"messages": []}), "no messages"),
        "discord.json": (truncated(json.dumps(fx.discord_export()).encode()), "JSON is broken"),
        "discord-empty.json": (dump(fx.discord_export() | {"messages": []}), "no messages"),
        "chatgpt.json": (truncated(json.dumps(fx.chatgpt_export()).encode()), "JSON is broken"),
        "chatgpt-odd.json": (
            dump([{"title": "x", "mapping": {"a": "not a node"}, "current_node": "a"}]),
            "could not be read as chatgpt",
        ),
        "claude.json": (truncated(json.dumps(fx.claude_export()).encode()), "JSON is broken"),
        "claude-odd.json": (dump([{"name": "x", "chat_messages": [1, 2]}]), "could not be read"),
        "message_1.json": (truncated(json.dumps(fx.messenger_thread()).encode()), "JSON is broken"),
        "message_2.json": (
            dump({"participants": [], "messages": "no", "sender_name": "", "timestamp_ms": 0}),
            "no messages",
        ),
        "instagram.zip": (
            zip_bytes(
                {
                    "messages/inbox/a_1/message_1.json": b'{"participants": [{"name": "A"}], '
                    b'"messages": [{"sender_name": "A", "timestamp_ms": 1, "content": "x'
                }
            ),
            "JSON is broken",
        ),
        "imessage.txt": (b"May 17, 2022  5:29:42 PM\nMay 17, 2022  5:29:43 PM\n", "no iMessage"),
        "chat.db": (b"SQLite format 3\x00" + bytes(4000), "SQLite database"),
        "recipes.db": (other_sqlite(tmp / "recipes.db"), "SQLite database"),
        "mailbox.mbox": (b"From nobody Mon Jan  1 00:00:00 2024\n", None),  # read as text
        "bad-date.eml": (
            b"From: A <a@x.org>\nTo: b@y.org\nSubject: hi\nDate: the 45th of Neverember\n\nbody\n",
            None,
        ),
        "voice.ogg": (b"OggS" + b"\x00garbage" * 200, "voice.ogg: "),
        "silence.wav": (empty_wav(), "the recording is empty"),
        "song.mp3": (b"ID3\x03\x00\x00\x00\x00\x00\x0a" + b"\xff" * 500, "song.mp3: "),
        "clip.mp4": (b"\x00\x00\x00\x18ftypisom" + b"\x00" * 300, "clip.mp4: "),
        "huge.png": (huge_png(), "too large to read"),
        "broken-exif.jpg": (jpeg_with_exif(taken="not a date at all", gps=None), None),
        "not-a.gif": (b"GIF89a" + b"\x00" * 20, "damaged or not an image"),
        "program.exe": (b"MZ" + bytes(2000), "a Windows program"),
        "archive.tar.gz": (b"\x1f\x8b\x08" + bytes(200), "a gzip archive"),
    }


@pytest.mark.speech
@pytest.mark.slow
async def test_every_hostile_input_fails_clearly_and_the_batch_goes_on(
    tmp_path: Path, minilm_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = tmp_path / "batch"
    batch.mkdir()
    cases = hostile(tmp_path)
    assert len(cases) >= 40
    for name, (data, _) in cases.items():
        (batch / name).write_bytes(data)
    good = {
        "a-note.txt": "Bought a kayak in Clifden.",
        "zz-diary.md": "# Day\n\nSwam at Blackrock.",
    }
    for name, text in good.items():
        (batch / name).write_text(text)
    outside = tmp_path / "system-tmp"
    outside.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(outside))
    before = _files_outside_data(tmp_path)

    from biomd.ingest.transcribe import WhisperTranscriber
    from tests.support.model_files import whisper_dir

    settings = make_settings(
        tmp_path / "data",
        minilm_path,
        zip_max_depth=2,
        zip_max_entries=50,
        whisper_model=str(whisper_dir()),
    )
    async with await Engine.open(settings, embedder) as engine:
        engine.sources._transcriber = WhisperTranscriber(str(whisper_dir()))
        results = [r async for r in engine.sources.ingest([batch])]
        by_name: dict[str, list[Any]] = {}
        for r in results:
            by_name.setdefault(r.name.split("/")[1], []).append(r)
        survived = 0
        for name, (_, expected) in cases.items():
            outcome = by_name[name]
            if expected is None:
                assert all(r.status == "added" for r in outcome), (name, outcome)
            else:
                failures = [r for r in outcome if r.status == "failed"]
                assert failures, (name, outcome)
                error = failures[0].error or ""
                assert error.startswith(f"batch/{name}") and expected in error, (name, error)
            survived += 1
        for name in good:
            assert [r.status for r in by_name[name]] == ["added"]
        assert (await engine.sources.search("kayak", mode="keyword"))[
            0
        ].document == "batch/a-note.txt"
        names = {d.name for d in await engine.sources.all()}
        assert "batch/traversal.zip/escape.txt" in names
        assert "batch/absolute.zip/etc/cron.d/evil.txt" in names
    after = _files_outside_data(tmp_path)
    assert after == before, f"written outside the data dir: {sorted(after - before)}"
    assert not list(outside.iterdir())
    assert survived == len(cases)


# -- fuzzing --------------------------------------------------------------------------------


@given(st.text(max_size=3000))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_whatsapp_parser_never_crashes_and_never_invents_messages(text: str) -> None:
    from biomd.ingest.convert.text import iter_lines
    from biomd.ingest.convert.whatsapp import parse_messages

    messages = list(parse_messages(iter_lines([text]), "dmy", None))
    assert len(messages) <= text.count("\n") + 1


line = st.one_of(
    st.text(max_size=80),
    st.builds(
        lambda d, m, y, h, mi, name, msg: f"{d}/{m}/{y}, {h}:{mi} - {name}: {msg}",
        st.integers(0, 40),
        st.integers(0, 14),
        st.integers(0, 2100),
        st.integers(0, 30),
        st.integers(0, 70),
        st.text(max_size=20),
        st.text(max_size=40),
    ),
)


@given(st.lists(line, max_size=40))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_whatsapp_lines_with_any_numbers_parse_or_continue(lines: list[str]) -> None:
    from biomd.ingest.convert.text import iter_lines
    from biomd.ingest.convert.whatsapp import infer_date_order, parse_messages

    text = "\n".join(lines)
    dates = [ln.split(",")[0] for ln in lines if ln[:1].isdigit() and ln.count("/") >= 2]
    try:
        order = infer_date_order([d for d in dates if d.replace("/", "").isdigit()])
    except ValueError:
        order = "dmy"
    for msg in parse_messages(iter_lines([text]), order, None):
        assert "\n" not in msg.speaker


json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=20,
)


@given(json_value)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_chat_json_converters_fail_only_with_clear_errors(value: Any) -> None:
    from biomd.errors import BiomdError, CorruptSource
    from biomd.ingest.convert import ConvertContext
    from biomd.ingest.convert.ai_chats import chatgpt_lines, claude_lines
    from biomd.ingest.convert.discord import to_message as discord_message
    from biomd.ingest.convert.messenger import fix_mojibake
    from biomd.ingest.convert.messenger import to_message as messenger_message
    from biomd.ingest.convert.telegram import to_message as telegram_message
    from biomd.ingest.pipeline import _guarded

    ctx = ConvertContext()
    for convert in (
        lambda v: list(chatgpt_lines(v, ctx)),
        lambda v: list(claude_lines(v, ctx)),
        lambda v: discord_message(v, __import__("collections").OrderedDict()),
        lambda v: messenger_message(fix_mojibake(v), ctx),
        lambda v: telegram_message(v, ctx, None, __import__("collections").OrderedDict()),
    ):
        try:
            convert(value)
        except BiomdError as exc:
            assert exc.user_message.strip()  # clear as it is
        except (AttributeError, TypeError, ValueError, KeyError, OverflowError) as exc:
            # the one place converters are called from turns it into a clear error
            with pytest.raises(CorruptSource, match=r"^chat\.json: could not be read as chat"):
                list(_guarded(_raising(exc), "chat.json", "chat"))


def _raising(exc: Exception) -> Iterator[str]:
    raise exc
    yield ""  # a generator, as a converter's output is


@given(st.binary(max_size=4000))
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_detection_never_crashes_on_any_bytes(data: bytes) -> None:
    from biomd.errors import ConversionError
    from biomd.ingest.convert import Probe, detect

    with tempfile.NamedTemporaryFile() as f:
        f.write(data)
        f.flush()
        try:
            detect(Probe.of(Path(f.name), "fuzz.bin"))
        except ConversionError as exc:
            assert exc.user_message.startswith("fuzz.bin: ")

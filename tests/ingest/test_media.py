"""Voice notes, videos and photos become searchable text: real speech through the real
Whisper model, photos through a fake OpenAI-compatible vision server."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from biomd.app.engine import Engine
from biomd.errors import CorruptSource
from biomd.ingest.convert import ArchiveReader, ConvertContext, Probe, detect
from biomd.ingest.transcribe import WhisperTranscriber, decode_windows
from biomd.models.ledger import Ledger
from biomd.models.vision import VisionDescriber
from biomd.storage.store import Store
from tests.conftest import make_settings
from tests.support import chat_fixtures as fx
from tests.support import db
from tests.support.fake_llm import fake_llm
from tests.support.media_fixtures import HINTED_SENTENCE, encode, jpeg_with_exif, speak
from tests.support.model_files import whisper_dir
from tests.support.samples import zip_bytes


@pytest.fixture(scope="session")
def whisper_path() -> Path:
    return whisper_dir()


@pytest.fixture(scope="session")
def voice_note(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("voice")
    wav = speak(HINTED_SENTENCE, folder / "speech.wav")
    return encode(wav, folder / "voice-note.ogg", "ogg", "libopus")


def convert(path: Path, ctx: ConvertContext, name: str | None = None) -> str:
    probe = Probe.of(path, name)
    converter = detect(probe)
    assert not isinstance(converter, ArchiveReader)
    return "".join(converter.convert(probe, ctx))


@pytest.mark.speech
@pytest.mark.slow
def test_a_voice_note_is_transcribed_with_segment_times(
    voice_note: Path, whisper_path: Path
) -> None:
    ctx = ConvertContext(transcriber=WhisperTranscriber(str(whisper_path)))
    text = convert(voice_note, ctx)
    assert text.lower().startswith("audio: voice-note.ogg, transcribed\n\n[0:00] my friend ")
    assert "spring" in text


@pytest.mark.speech
@pytest.mark.slow
async def test_names_from_bio_md_and_the_corpus_fix_what_whisper_mishears(
    tmp_path: Path, minilm_path: Path, whisper_path: Path, voice_note: Path, embedder: object
) -> None:
    plain = convert(voice_note, ConvertContext(transcriber=WhisperTranscriber(str(whisper_path))))
    assert "Saoirse" not in plain and "Reykjavik" not in plain, plain

    settings = make_settings(tmp_path / "data", minilm_path, whisper_model=str(whisper_path))
    settings.data_dir.mkdir(parents=True)
    (settings.data_dir / "bio.md").write_text(
        "# Summary\nGrace grew up in Galway. Her partner Tadhg is a potter.\n"
        "## Timeline\n- 2019: visited Reykjavik with Tadhg [#3]\n"
    )
    chat = tmp_path / "WhatsApp Chat with Saoirse.txt"
    chat.write_text(
        "12/03/21, 10:15 - Saoirse: the flat is lovely\n"
        "12/03/21, 10:16 - Saoirse: come and see it\n"
        "12/03/21, 10:17 - Saoirse: bring Tadhg\n"
    )
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        _ = [r async for r in engine.sources.ingest([chat])]
        hints = engine.sources.speech_hints(await engine.profile.load())
        assert hints.split(", ")[:2] == ["Saoirse", "Tadhg"], "most frequent first"
        assert {"Reykjavik", "Galway", "Grace"} <= set(hints.split(", "))
        (result,) = [r async for r in engine.sources.ingest([voice_note])]
        assert result.status == "added" and result.kind == "audio"
        text = (await engine.sources.read(result.document_id)).text  # type: ignore[arg-type]
    assert "Saoirse" in text and "Reykjavik" in text, text


@pytest.mark.speech
@pytest.mark.slow
def test_hints_fit_in_whispers_prompt_limit(whisper_path: Path) -> None:
    from biomd.ingest.hints import fit

    transcriber = WhisperTranscriber(str(whisper_path))
    names = [f"Name{chr(65 + i % 26)}{i}" for i in range(400)]
    prompt = fit(names, transcriber.count_tokens, 200)
    assert 0 < transcriber.count_tokens(prompt) <= 200
    assert prompt.startswith("NameA0, NameB1")


@pytest.mark.speech
@pytest.mark.slow
def test_the_sound_of_a_video_is_transcribed(tmp_path: Path, whisper_path: Path) -> None:
    wav = speak("We are at the beach with the dog.", tmp_path / "v.wav")
    video = encode(wav, tmp_path / "clip.mp4", "mp4", "aac", rate=44100)
    text = convert(video, ConvertContext(transcriber=WhisperTranscriber(str(whisper_path))))
    assert text.startswith("Video (its sound): clip.mp4") or text.startswith("Audio: clip.mp4")
    assert "beach" in text


@pytest.mark.speech
def test_long_audio_is_decoded_in_windows(tmp_path: Path) -> None:
    wav = speak("one two three four five six seven eight nine ten", tmp_path / "long.wav")
    windows = list(decode_windows(wav, "long.wav", window_seconds=1))
    assert len(windows) >= 3
    assert [offset for offset, _ in windows][:3] == [0.0, 1.0, 2.0]
    assert all(len(samples) == 16_000 for _, samples in windows[:-1])


@pytest.mark.speech
@pytest.mark.slow
def test_audio_that_is_not_audio_and_an_empty_recording_are_clear_errors(
    tmp_path: Path, whisper_path: Path
) -> None:
    ctx = ConvertContext(transcriber=WhisperTranscriber(str(whisper_path)))
    fake = tmp_path / "voice.ogg"
    fake.write_bytes(b"OggS" + b"\x00garbage" * 100)
    with pytest.raises(CorruptSource, match=r"voice\.ogg: "):
        convert(fake, ctx)
    empty = tmp_path / "silence.wav"
    import wave

    with wave.open(str(empty), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
    with pytest.raises(CorruptSource, match=r"silence\.wav: the recording is empty"):
        convert(empty, ctx)


# -- photos ---------------------------------------------------------------------------------


@asynccontextmanager
async def metered_describer(
    tmp_path: Path, base_url: str, key: str = "", **overrides: object
) -> AsyncIterator[tuple[VisionDescriber, Ledger]]:
    """The vision model as the engine wires it: on this loop, writing to a real ledger."""
    settings = make_settings(
        tmp_path / "data", tmp_path, llm_base_url=base_url, llm_api_key=key or None, **overrides
    )
    store = await Store.open(settings.db_path)
    try:
        ledger = Ledger(store, settings.zone, settings.costs.daily_limit_usd)
        yield VisionDescriber(replace(settings.endpoint(), model="vision-1"), ledger), ledger
    finally:
        await store.close()


@pytest.mark.slow
async def test_a_photo_is_described_by_the_vision_model_with_its_exif_facts(
    tmp_path: Path,
) -> None:
    photo = tmp_path / "IMG_2041.jpg"
    photo.write_bytes(jpeg_with_exif())
    with fake_llm() as llm:
        llm.reply_with("Two adults and a child on a pier at sunset; a sign reads 'Salthill'.")
        async with metered_describer(tmp_path, llm.base_url, "sk-test") as (describer, _):
            ctx = ConvertContext(describer=describer)
            text = await asyncio.to_thread(convert, photo, ctx)
    assert text == (
        "Photo: IMG_2041.jpg\n"
        "[2019-08-17 14:32] Taken (EXIF date)\n"
        "Place: GPS 53.27070, -9.05680 (EXIF)\n"
        "Camera: Apple iPhone 12\n"
        "Description: Two adults and a child on a pier at sunset; a sign reads 'Salthill'.\n"
    )
    (request,) = llm.requests
    assert request["body"]["model"] == "vision-1"
    assert request["headers"]["authorization"] == "Bearer sk-test"
    content = request["body"]["messages"][0]["content"]
    url = next(c["image_url"]["url"] for c in content if c["type"] == "image_url")
    assert url.startswith("data:image/jpeg;base64,")
    assert base64.b64decode(url.split(",", 1)[1])[:3] == b"\xff\xd8\xff"
    text_part = next(c["text"] for c in content if c["type"] == "text")
    assert "taken 2019-08-17 14:32" in text_part and "people visible" in text_part


@pytest.mark.slow
async def test_a_vision_call_is_metered_and_refused_once_the_daily_limit_is_reached(
    tmp_path: Path,
) -> None:
    photo = tmp_path / "IMG_1.jpg"
    photo.write_bytes(jpeg_with_exif(gps=None))
    with fake_llm() as llm:
        llm.reply_with("A harbour at dawn.")
        async with metered_describer(
            tmp_path,
            llm.base_url,
            llm_price_prompt_per_mtok=2000.0,
            llm_price_completion_per_mtok=4000.0,
            daily_spend_limit_usd=0.03,
        ) as (describer, ledger):
            ctx = ConvertContext(describer=describer)
            first = await asyncio.to_thread(convert, photo, ctx)
            calls = [
                (u.model, u.mode, u.prompt_tokens, u.completion_tokens, u.cost_usd)
                for u in db.usage(ledger.store.path)
            ]
            (today, *_) = await ledger.summary()
            second = await asyncio.to_thread(convert, photo, ctx)
    assert "Description: A harbour at dawn." in first
    assert calls == [("vision-1", "vision", 10, 5, pytest.approx(0.04))]
    assert (today.label, today.calls) == ("today", 1), "/cost counts the vision call"
    assert len(llm.requests) == 1, "past the limit, the model is not called"
    assert (
        "Description: Not described: today's LLM spend has reached the daily limit "
        "(BIOMD_DAILY_SPEND_LIMIT_USD)."
    ) in second
    assert "[2019-08-17 14:32] Taken (EXIF date)" in second, "the photo's facts are kept"


def test_without_a_vision_model_a_photo_keeps_its_exif_and_says_it_was_not_described(
    tmp_path: Path,
) -> None:
    photo = tmp_path / "IMG_9.jpg"
    photo.write_bytes(jpeg_with_exif(gps=None))
    text = convert(photo, ConvertContext())
    assert "[2019-08-17 14:32] Taken (EXIF date)" in text
    assert "Not described: no vision model is configured (set BIOMD_VISION_MODEL" in text


def test_broken_exif_and_huge_images(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(jpeg_with_exif(taken="not a date", gps=None))
    assert "Taken" not in convert(broken, ConvertContext())

    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", 40_000, 40_000, 8, 2, 0, 0, 0)
    huge = tmp_path / "huge.png"
    huge.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b""))
    with pytest.raises(CorruptSource, match=r"huge\.png: the image is 40,000×40,000 pixels"):
        convert(huge, ConvertContext())


# -- a WhatsApp export with media -----------------------------------------------------------


@pytest.mark.speech
@pytest.mark.slow
async def test_whatsapp_zip_media_are_transcribed_and_described_in_place(
    tmp_path: Path, whisper_path: Path, voice_note: Path
) -> None:
    chat = (
        "[12/03/21, 10:15:02] Grace: Listen to this\n"
        "\u200e[12/03/21, 10:15:40] Grace: "
        "\u200e<attached: 00000003-AUDIO-2021-03-12-10-15-40.opus>\n"
        "\u200e[12/03/21, 10:16:00] Bo: \u200e<attached: 00000004-PHOTO-2021-03-12-10-16-00.jpg>\n"
        "[12/03/21, 10:17:00] Bo: Lovely\n"
    )
    archive = tmp_path / "WhatsApp Chat - Bo.zip"
    voice = await asyncio.to_thread(voice_note.read_bytes)
    archive.write_bytes(
        zip_bytes(
            {
                "_chat.txt": chat.encode(),
                "00000003-AUDIO-2021-03-12-10-15-40.opus": voice,
                "00000004-PHOTO-2021-03-12-10-16-00.jpg": jpeg_with_exif(gps=None),
            }
        )
    )
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with fake_llm() as llm:
        llm.reply_with("A red kite over a green field.")
        async with metered_describer(tmp_path, llm.base_url) as (describer, _):
            ctx = ConvertContext(
                owner_names=("Grace",),
                transcriber=WhisperTranscriber(str(whisper_path)),
                describer=describer,
                hints=lambda: "Saoirse, Reykjavik, Tadhg",
                scratch_dir=scratch,
            )
            lines = (await asyncio.to_thread(convert, archive, ctx)).split("\n")
    assert lines[0] == "WhatsApp chat: Bo"
    assert lines[2] == "[2021-03-12 10:15] Grace (owner): Listen to this"
    assert lines[3].startswith(
        "[2021-03-12 10:15] Grace (owner): [voice note 00000003-AUDIO-2021-03-12-10-15-40.opus 0:0"
    )
    assert "Saoirse" in lines[3]
    assert lines[4] == (
        "[2021-03-12 10:16] Bo: [photo 00000004-PHOTO-2021-03-12-10-16-00.jpg "
        "(taken 2019-08-17 14:32; camera Apple iPhone 12): A red kite over a green field.]"
    )
    assert lines[5] == "[2021-03-12 10:17] Bo: Lovely"
    assert list(scratch.iterdir()) == [], "no media left behind"


def test_a_whatsapp_zip_bomb_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "WhatsApp Chat - Bomb.zip"
    archive.write_bytes(
        zip_bytes(
            {"_chat.txt": fx.WHATSAPP_IOS.encode(), "00000012-PHOTO-x.jpg": b"\0" * 5_000_000}
        )
    )
    from biomd.errors import ArchiveLimit

    with pytest.raises(ArchiveLimit, match="zip bomb"):
        convert(archive, ConvertContext())


@pytest.mark.slow
async def test_photos_and_meta_downloads_ingest_through_the_engine(
    tmp_path: Path, minilm_path: Path, embedder: object
) -> None:
    import json

    with fake_llm() as llm:
        llm.reply_with("A lighthouse on a rocky headland under a stormy sky.")
        settings = make_settings(
            tmp_path / "data", minilm_path, llm_base_url=llm.base_url, vision_model="vision-1"
        )
        photos = tmp_path / "in"
        photos.mkdir()
        (photos / "IMG_1.jpg").write_bytes(jpeg_with_exif())
        thread = json.dumps(fx.messenger_thread()).encode()
        (photos / "facebook-grace.zip").write_bytes(
            zip_bytes({"messages/inbox/eitan_1/message_1.json": thread, "ads/x.json": b"{}"})
        )
        async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
            results = [r async for r in engine.sources.ingest([photos])]
            assert [(r.kind, r.status) for r in results] == [
                ("image", "added"),
                ("messenger", "added"),
            ]
            hits = await engine.sources.search("lighthouse", mode="keyword")
            assert hits[0].document == "in/IMG_1.jpg"
            hits = await engine.sources.search("crème brûlée", mode="keyword")
            assert hits[0].document.endswith("messages/inbox/eitan_1/message_1.json")
            doc = await engine.sources.get(results[0].document_id)  # type: ignore[arg-type]
            assert doc.content_start == "2019-08-17 14:32"


def test_an_iphone_heic_photo_is_read(tmp_path: Path) -> None:
    import io

    import pillow_heif
    from PIL import Image

    pillow_heif.register_heif_opener()
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 10, 10)).save(out, format="HEIF")
    photo = tmp_path / "IMG_0001.HEIC"
    photo.write_bytes(out.getvalue())
    text = convert(photo, ConvertContext())
    assert text.startswith("Photo: IMG_0001.HEIC\n") and "Not described" in text


async def test_a_missing_speech_model_fails_that_file_only_and_says_what_to_set(
    tmp_path: Path, minilm_path: Path, embedder: object
) -> None:
    from biomd import sample

    not_a_model = tmp_path / "not-a-model"
    not_a_model.mkdir()
    note = tmp_path / "note.txt"
    note.write_text("The kiln was fired on Sunday.")
    voice = next(p for p in sample.files() if p.suffix == ".ogg")
    settings = make_settings(tmp_path / "data", minilm_path, whisper_model=str(not_a_model))
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        results = [r async for r in engine.sources.ingest([voice, note])]
    assert [r.status for r in results] == ["failed", "added"]
    assert results[0].error is not None
    assert results[0].error.startswith(f"{voice.name}: not transcribed. The speech model")
    assert "set BIOMD_WHISPER_MODEL to a local folder" in results[0].error

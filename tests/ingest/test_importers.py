"""Chat exports and email: exact normalised lines, speakers, times, and clear errors."""

from __future__ import annotations

import json
import zipfile
from datetime import UTC
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from biomd.errors import CorruptSource
from biomd.ingest.convert import ArchiveReader, ConvertContext, Probe, detect
from biomd.ingest.convert.context import ArchiveBudget
from biomd.ingest.convert.email import trim_quoted
from biomd.ingest.convert.whatsapp import chat_title, infer_date_order
from tests.support import chat_fixtures as fx
from tests.support import whatsapp_locales as wl
from tests.support.samples import zip_bytes

DUBLIN = ZoneInfo("Europe/Dublin")


def lines_of(path: Path, ctx: ConvertContext, name: str | None = None) -> tuple[str, list[str]]:
    probe = Probe.of(path, name)
    converter = detect(probe)
    assert not isinstance(converter, ArchiveReader)
    return converter.kind, "".join(converter.convert(probe, ctx)).split("\n")[:-1]


def write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


# -- WhatsApp -------------------------------------------------------------------------------


def test_whatsapp_ios_export_becomes_one_line_per_message(tmp_path: Path) -> None:
    path = write(tmp_path, "WhatsApp Chat - Família Silva.txt", fx.WHATSAPP_IOS)
    kind, lines = lines_of(path, ConvertContext(owner_names=("Ana Silva",)))
    assert kind == "whatsapp"
    assert lines == fx.WHATSAPP_IOS_LINES


def test_whatsapp_android_export_with_month_first_dates_and_a_12_hour_clock(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "WhatsApp Chat with Bo Chen.txt", fx.WHATSAPP_ANDROID)
    kind, lines = lines_of(path, ConvertContext(owner_names=("ana",)))
    assert kind == "whatsapp"
    assert lines == fx.WHATSAPP_ANDROID_LINES


def test_whatsapp_date_order_is_inferred_from_the_file() -> None:
    assert infer_date_order(["13/02/21", "14/02/21"]) == "dmy"
    assert infer_date_order(["1/15/22", "1/16/22"]) == "mdy"
    assert infer_date_order(["2021-02-13"]) == "ymd"
    # Every field under 13: the order that keeps messages in time order wins.
    assert infer_date_order(["05/01/21", "06/01/21", "01/02/21"]) == "dmy"
    assert infer_date_order(["01/05/21", "01/06/21", "02/01/21"]) == "mdy"


def test_an_ambiguous_date_order_is_said_with_why_and_how_to_choose(tmp_path: Path) -> None:
    from biomd.ingest.convert.whatsapp import date_order

    assert date_order(["13/02/21", "3/02/21"]) == ("dmy", ""), "a day over 12 decides"
    assert date_order(["5/5/21", "6/6/21"]) == ("dmy", ""), "no date reads differently"
    order, why = date_order(["3/5/21", "4/5/21"])
    assert order == "dmy" and "read day first, the more common reading" in why
    assert "(3/5/21 is 3 May 2021)" in why and "BIOMD_CHAT_DATE_ORDER=mdy" in why
    order, why = date_order(["5/3/21", "5/4/21", "6/3/21"])
    assert order == "mdy" and "keeps the messages in time order (5/3/21 is 3 May 2021)" in why
    order, why = date_order(["3/5/21", "4/5/21"], "mdy")
    assert order == "mdy" and "as BIOMD_CHAT_DATE_ORDER says (3/5/21 is 5 March 2021)" in why

    text = "3/5/21, 10:02 - Alex: Hi\n4/5/21, 09:00 - Sam: Hi back\n"
    path = write(tmp_path, "WhatsApp Chat with Sam.txt", text)
    ctx = ConvertContext()
    _, lines = lines_of(path, ctx)
    assert lines[2] == "[2021-05-03 10:02] Alex: Hi"
    assert ctx.notes_of(path.name).startswith("its dates could be read day first or month")
    ctx = ConvertContext(date_order="mdy")
    _, lines = lines_of(path, ctx)
    assert lines[2] == "[2021-03-05 10:02] Alex: Hi"
    assert "read month first" in ctx.notes_of(path.name)


def test_whatsapp_dotted_dates_and_24_hour_clock_without_seconds(tmp_path: Path) -> None:
    text = "21.03.23, 18:45 - Eitan: Shalom!\n22.03.23, 07:05 - Grace: Morning\n"
    _, lines = lines_of(write(tmp_path, "chat.txt", text), ConvertContext())
    assert lines[2:] == ["[2023-03-21 18:45] Eitan: Shalom!", "[2023-03-22 07:05] Grace: Morning"]


def test_biomds_own_transcripts_are_not_mistaken_for_whatsapp(tmp_path: Path) -> None:
    text = "[2023-05-08 13:56] Caroline: Hi!\n[2023-05-08 13:57] Melanie: Hey\n"
    kind, lines = lines_of(write(tmp_path, "session.txt", text), ConvertContext())
    assert kind == "text" and lines == text.split("\n")[:-1]


def test_a_whatsapp_file_with_no_valid_messages_is_a_clear_error(tmp_path: Path) -> None:
    text = "31/02/21, 10:00 - Ana: impossible date\n30/02/21, 10:01 - Bo: also impossible\n"
    with pytest.raises(CorruptSource, match="no WhatsApp messages found"):
        lines_of(write(tmp_path, "chat.txt", text), ConvertContext())


# -- Telegram -------------------------------------------------------------------------------


def test_telegram_result_json_keeps_entities_replies_forwards_and_media(tmp_path: Path) -> None:
    path = fx.dump(tmp_path / "result.json", fx.telegram_single())
    kind, lines = lines_of(path, ConvertContext(owner_names=("Dee",), timezone=DUBLIN))
    assert kind == "telegram"
    assert lines == fx.TELEGRAM_SINGLE_LINES


def test_telegram_full_account_export_marks_the_owner_by_account_id(tmp_path: Path) -> None:
    path = fx.dump(tmp_path / "result.json", fx.telegram_full())
    _, lines = lines_of(path, ConvertContext(timezone=UTC))
    assert "Telegram chat: Chidi Okafor" in lines and "Telegram chat: Climbing club" in lines
    assert "[2020-07-01 00:00] Deirdre (owner): Wicklow on Saturday?" in lines
    assert any(line.startswith("[2020-06-01 20:05] Dee (owner): ") for line in lines)
    assert any(line.startswith("[2020-06-01 20:00] Chidi Okafor: ") for line in lines)


def test_an_empty_telegram_export_is_a_clear_error(tmp_path: Path) -> None:
    data = fx.telegram_single() | {"messages": []}
    with pytest.raises(CorruptSource, match=r"result\.json: a Telegram export with no messages"):
        lines_of(fx.dump(tmp_path / "result.json", data), ConvertContext())


# -- Messenger / Instagram ------------------------------------------------------------------


def test_messenger_thread_is_repaired_and_put_in_time_order(tmp_path: Path) -> None:
    path = fx.dump(tmp_path / "message_1.json", fx.messenger_thread())
    raw = path.read_text()
    assert "Zo\u00c3\u00ab" in raw, "the fixture carries Meta's mojibake"
    kind, lines = lines_of(path, ConvertContext(owner_names=("Zoë Brennan",), timezone=DUBLIN))
    assert kind == "messenger"
    assert lines == fx.MESSENGER_LINES


def test_the_whole_instagram_download_zip_yields_only_its_message_threads(tmp_path: Path) -> None:
    thread = json.dumps(fx.messenger_thread()).encode()
    path = write(
        tmp_path,
        "instagram-grace-2024.zip",
        zip_bytes(
            {
                "your_instagram_activity/messages/inbox/eitanlevi_123/message_1.json": thread,
                "your_instagram_activity/messages/inbox/eitanlevi_123/photos/1.jpg": b"\xff\xd8",
                "ads_information/ads_interests.json": b'{"topics": ["boats"]}',
                "personal_information/personal_information.json": b"{}",
            }
        ),
    )
    probe = Probe.of(path)
    reader = detect(probe)
    assert isinstance(reader, ArchiveReader) and reader.kind == "meta-export"
    budget = ArchiveBudget(10**9, 1000, 2, 200)
    names = [m.name for m in reader.members(probe, budget)]
    assert names == [
        "instagram-grace-2024.zip/your_instagram_activity/messages/inbox/eitanlevi_123/"
        "message_1.json"
    ]


# -- Discord, ChatGPT, Claude -----------------------------------------------------------------


def test_discord_chat_exporter_json(tmp_path: Path) -> None:
    path = fx.dump(tmp_path / "general.json", fx.discord_export())
    kind, lines = lines_of(path, ConvertContext(owner_names=("gracegrace",), timezone=UTC))
    assert kind == "discord"
    assert lines == fx.DISCORD_LINES


def test_chatgpt_export_follows_the_current_branch_only(tmp_path: Path) -> None:
    path = fx.dump(tmp_path / "conversations.json", fx.chatgpt_export())
    kind, lines = lines_of(path, ConvertContext(owner_names=("Hiro",), timezone=UTC))
    assert kind == "chatgpt"
    assert lines == fx.CHATGPT_LINES
    assert not any("discarded" in line for line in lines)


def test_claude_export(tmp_path: Path) -> None:
    path = fx.dump(tmp_path / "conversations.json", fx.claude_export())
    kind, lines = lines_of(path, ConvertContext(owner_names=("Hiro",), timezone=UTC))
    assert kind == "claude"
    assert lines == fx.CLAUDE_LINES


@pytest.mark.parametrize(
    "data",
    [fx.telegram_single(), fx.discord_export(), fx.chatgpt_export(), fx.claude_export()],
    ids=["telegram", "discord", "chatgpt", "claude"],
)
def test_a_truncated_json_export_is_a_clear_error(tmp_path: Path, data: object) -> None:
    text = json.dumps(data, indent=1)
    path = write(tmp_path, "export.json", text[: len(text) * 2 // 3])
    with pytest.raises(CorruptSource, match=r"export\.json: the JSON is broken or cut short"):
        lines_of(path, ConvertContext())


def test_a_truncated_messenger_thread_is_a_clear_error(tmp_path: Path) -> None:
    text = json.dumps(fx.messenger_thread())
    path = write(tmp_path, "message_1.json", text[: len(text) // 2])
    with pytest.raises(CorruptSource, match=r"message_1\.json: the JSON is broken"):
        lines_of(path, ConvertContext())


def test_an_unrecognised_json_file_still_ingests_as_text(tmp_path: Path) -> None:
    path = write(tmp_path, "settings.json", '{"theme": "dark", "messages": 3}')
    kind, lines = lines_of(path, ConvertContext())
    assert kind == "json" and lines == []


# -- iMessage -------------------------------------------------------------------------------


def test_imessage_exporter_text_output(tmp_path: Path) -> None:
    path = write(tmp_path, "+15555550123.txt", fx.IMESSAGE_TXT)
    kind, lines = lines_of(path, ConvertContext(owner_names=("Grace",)))
    assert kind == "imessage"
    assert lines == fx.IMESSAGE_TXT_LINES


def test_imessage_chat_db_is_read_read_only_including_attributed_bodies(tmp_path: Path) -> None:
    path = tmp_path / "chat.db"
    fx.imessage_db(path)
    before = sorted(p.name for p in tmp_path.iterdir())
    mtime = path.stat().st_mtime_ns
    kind, lines = lines_of(path, ConvertContext(owner_names=("Grace",), timezone=UTC))
    assert kind == "imessage"
    assert lines == fx.IMESSAGE_DB_LINES
    assert sorted(p.name for p in tmp_path.iterdir()) == before, "no -wal or -shm written"
    assert path.stat().st_mtime_ns == mtime


# -- email ----------------------------------------------------------------------------------


def test_an_eml_message_keeps_headers_and_the_new_text_only(tmp_path: Path) -> None:
    path = write(tmp_path, "allotment.eml", fx.EML)
    kind, lines = lines_of(
        path, ConvertContext(owner_names=("grace@example.net",), timezone=DUBLIN)
    )
    assert kind == "email"
    assert lines == fx.EML_LINES


def test_an_mbox_gives_every_message_and_reads_html_bodies(tmp_path: Path) -> None:
    path = write(tmp_path, "Sent.mbox", fx.MBOX)
    kind, lines = lines_of(path, ConvertContext(owner_names=("Grace Walsh",), timezone=UTC))
    assert kind == "email"
    assert lines == fx.MBOX_LINES


# -- through the engine ---------------------------------------------------------------------


async def test_a_search_for_what_someone_said_returns_their_line_with_name_and_date(
    tmp_path: Path, minilm_path: Path, embedder: object
) -> None:
    from biomd.app.engine import Engine
    from tests.conftest import make_settings

    settings = make_settings(tmp_path / "data", minilm_path, owner_names="Ana Silva")
    exports = tmp_path / "exports"
    exports.mkdir()
    write(exports, "WhatsApp Chat - Família Silva.txt", fx.WHATSAPP_IOS)
    fx.dump(exports / "result.json", fx.telegram_single())
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        results = [r async for r in engine.sources.ingest([exports])]
        assert [r.kind for r in results] == ["whatsapp", "telegram"]
        hits = await engine.sources.search("who is bringing the cake and candles", limit=1)
        assert "[2021-02-03 09:17] Tomás: Me! ⏎ I'll bring the cake" in hits[0].text
        doc = await engine.sources.get(results[0].document_id)  # type: ignore[arg-type]
        assert (doc.content_start, doc.content_end) == ("2021-02-03 09:15", "2021-02-14 08:01")
        hits = await engine.sources.search("comet", mode="keyword", limit=1)
        assert "Chidi Okafor: Did you see the comet?" in hits[0].text


def test_whatsapp_zip_without_media_files_still_reads(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "WhatsApp Chat - Família Silva.zip",
        zip_bytes({"_chat.txt": fx.WHATSAPP_IOS.encode()}),
    )
    assert zipfile.is_zipfile(path)
    kind, lines = lines_of(path, ConvertContext(owner_names=("Ana Silva",)))
    assert kind == "whatsapp" and lines == fx.WHATSAPP_IOS_LINES


@pytest.mark.parametrize("name", sorted(wl.LOCALES))
def test_whatsapp_exports_in_every_locale_keep_dates_speakers_system_lines_and_media(
    tmp_path: Path, name: str
) -> None:
    locale = wl.LOCALES[name]
    path = write(tmp_path, locale.file_name, locale.text)
    kind, lines = lines_of(path, ConvertContext(owner_names=("Lena",)))
    assert kind == "whatsapp"
    header = f"WhatsApp chat: {locale.title}" if locale.title else "WhatsApp chat"
    assert lines[:2] == [header, ""]
    assert lines[2:] == locale.lines


@pytest.mark.parametrize(
    ("file_name", "title"),
    [
        ("WhatsApp Chat mit Mama.txt", "Mama"),
        ("Chat de WhatsApp con Carmen.zip", "Carmen"),
        ("Conversa do WhatsApp com Tiago.txt", "Tiago"),
        ("Чат WhatsApp с Олей.txt", "Олей"),
        ("Discussion WhatsApp avec Camille.txt", "Camille"),
        ("WhatsApp-chat met Sanne.txt", "Sanne"),
        ("Chat WhatsApp con Giulia.txt", "Giulia"),
        ("Ayşe ile WhatsApp Sohbeti.txt", "Ayşe"),
        ("WhatsApp Chat with Bo Chen.txt", "Bo Chen"),
        ("notes.txt", ""),
    ],
)
def test_the_chat_partner_is_named_from_the_file_name_in_any_language(
    file_name: str, title: str
) -> None:
    assert chat_title(file_name) == title


@pytest.mark.parametrize(
    ("reply", "header"),
    [
        ("Von meinem iPhone gesendet", ""),
        ("Enviado desde mi iPhone", ""),
        ("Envoyé de mon iPhone", ""),
        ("Отправлено с iPhone", ""),
        ("iPhoneから送信", ""),
        ("", "Am 12.05.2023 um 19:32 schrieb Mama <mama@example.de>:"),
        ("", "El 12 may 2023, a las 19:32, Carmen <carmen@example.es> escribió:"),
        ("", "Le 12 mai 2023 à 19:32, Camille <camille@example.fr> a écrit :"),
        ("", "Em 12/05/2023, às 19:32, Tiago <tiago@example.pt> escreveu:"),
        ("", "12 мая 2023 г., в 19:32, Оля <olya@example.ru> написал(а):"),
        ("", "2023年5月12日(金) 19:32 花子 <hanako@example.jp>:"),
        ("", "-----Ursprüngliche Nachricht-----"),
        ("", "Von: Mama <mama@example.de>"),
    ],
)
def test_replies_lose_quoted_originals_and_phone_signatures_in_any_language(
    reply: str, header: str
) -> None:
    body = "Die Hochzeit ist am 3. Juni.\nSent the forms yesterday.\n\n"
    body += "\n".join(x for x in (reply, header) if x) + "\n> the quoted original\nold text\n"
    assert trim_quoted(body) == "Die Hochzeit ist am 3. Juni.\nSent the forms yesterday."

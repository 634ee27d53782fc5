"""WhatsApp "Export chat" files: the `.txt`, iOS or Android style, and the `.zip` with media.

iOS writes `[dd/mm/yy, hh:mm:ss] Name: text`, Android `dd/mm/yyyy, hh:mm - Name: text`; the
phone's locale decides the rest: 12- or 24-hour clocks (`7:32 p. m.`, `午後7:32`, `오후 7:32`),
`/ . -` date separators (`2023. 5. 12.`), a word before the time (`à`, `klo`), `.` in times,
and day-first, month-first or year-first dates, inferred from the whole file. Lines that do
not start a message continue the one before. System lines (someone joined, the encryption
notice) are kept as `(system)`: Android's have no speaker, iOS marks its own with a
direction mark, in any language. Media left out of an export becomes `[media omitted]`
from its placeholder, whatever the language.
"""

from __future__ import annotations

import itertools
import re
import zipfile
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from functools import lru_cache
from pathlib import PurePosixPath

from biomd.errors import CorruptSource
from biomd.ingest.convert.archive import check_limits, zip_holds
from biomd.ingest.convert.base import Probe
from biomd.ingest.convert.chat import SYSTEM, Message, clean, format_line, header
from biomd.ingest.convert.context import ConvertContext
from biomd.ingest.convert.text import iter_lines, looks_binary, stream_text

# 12-hour markers, after the time (p. m., PM, μ.μ.) or before it (午後, 오후, 下午).
_PM = ("p", "午後", "下午", "오후", "nachm", "μ.μ", "م", "ch", "ös", "sore")
_AMPM = (
    r"(?:[aApP]\.?\s?[mM]\.?|午前|午後|上午|下午|오전|오후|vorm\.|nachm\.|π\.μ\.|μ\.μ\.|"
    r"ص|م|SA|CH|ÖÖ|ÖS|pagi|sore)"
)
_START = re.compile(
    rf"""^[\u200e\u200f\ufeff]*\[?
    (?P<date>\d{{1,4}}[./-]\s?\d{{1,2}}[./-]\s?\d{{1,4}})\.?,?\s+
    (?:(?P<pre>{_AMPM})\s?|[^\W\d_]{{1,4}}\.?\s+)?   # 午後7:32, or a word: "à", "klo", "um"
    (?P<time>\d{{1,2}}[:.]\d{{2}}(?:[:.]\d{{2}})?)
    (?:[\s\u202f\u00a0]*(?P<ampm>{_AMPM}))?
    (?:\]\s|\s[-–]\s)
    (?P<rest>.*)$""",
    re.X,
)
_CANONICAL = re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}\] ")  # already biomd's own format
_SPEAKER = re.compile(r"^(?P<name>[^:\n]{1,80}?):(?:\s(?P<text>.*)|$)", re.S)
# <attached: 0012-PHOTO.jpg>, <Anhang: …>, <adjunto: …>, <pièce jointe : …>, <вложение: …>
_IOS_ATTACHED = re.compile(r"<[^<>:]{2,30}:\s*(?P<file>[^<>]+\.\w{2,5})>")
_ANDROID_ATTACHED = re.compile(r"^(?P<file>\S+\.\w{2,5}) \(file attached\)")
_OMITTED = re.compile(
    r"^(?:<Media omitted>|(?P<what>image|video|audio|sticker|GIF|document|Contact card)"
    r" omitted)$",
    re.I,
)
# Android leaves a bracketed placeholder where media was left out, in the phone's language:
# <Media omitted>, <Medien ausgeschlossen>, <Multimedia omitido>, ‹Без медиафайлов>…
_PLACEHOLDER = re.compile(r"^[<‹][^<>‹›:/]{3,50}[>›]$")
# iOS writes "‎image omitted", "‎Bild weggelassen", "‎imagen omitida"…: the kind is the noun.
_MEDIA_NOUNS = {
    "image": (
        "image",
        "bild",
        "imagen",
        "imagem",
        "immagine",
        "afbeelding",
        "изображение",
        "фото",
        "画像",
        "写真",
        "图片",
        "사진",
        "görüntü",
        "zdjęcie",
        "foto",
    ),
    "video": ("video", "vídeo", "vidéo", "видео", "動画", "视频", "동영상", "wideo"),
    "audio": ("audio", "áudio", "аудио", "аудиофайл", "音声", "音频", "오디오", "ses"),
    "sticker": ("sticker", "figurinha", "стикер", "ステッカー", "贴图", "스티커", "çıkartma"),
    "GIF": ("gif",),
    "document": ("document", "dokument", "documento", "документ", "ドキュメント", "文件"),
    "contact card": ("contact", "kontaktkarte", "contacto", "contato", "контакт", "連絡先"),
}
_EDITED = re.compile(
    r"(?<=\S)\s*(?:<This message was edited>|\u200e<[^<>:]{3,60}>)\s*$"  # iOS: any language
)
_QUOTES = set('"„“”«»「」『』')  # a "speaker" holding one is a system line quoting a name
# "WhatsApp Chat with Ana", "WhatsApp Chat mit Mama", "Chat de WhatsApp con Carmen", "Conversa
# do WhatsApp com Tiago", "Discussion WhatsApp avec Camille", "Чат WhatsApp с Олей",
# "WhatsApp-chat met Sanne", "WhatsApp Chat - Família Silva"; "Ayşe ile WhatsApp Sohbeti".
_TITLE = re.compile(
    r"^(?:[^\W\d_]+\s+){0,2}WhatsApp(?:[\s-][^\W\d_]+){0,2}\s*"
    r"(?:with|mit|con|com|avec|met|med|z|ze|с|со|з|ile|és|-|–|—)\s+"
    r"(?P<title>.+?)(?:\.txt|\.zip)?$",
    re.I,
)
_TITLE_BEFORE = re.compile(r"^(?P<title>.+?)\s+ile\s+WhatsApp\b.*?(?:\.txt|\.zip)?$", re.I)

MediaResolver = Callable[[str], str | None]
"""Given an attachment's file name, the text to show for it, or None if it is not there."""


_DATE_PARTS = re.compile(r"[./-]\s*")


@lru_cache(maxsize=8192)  # a chat's messages share a few thousand dates
def _fields(date: str) -> tuple[int, int, int]:
    a, b, c = (int(x) for x in _DATE_PARTS.split(date.strip(". ")))
    return a, b, c


def infer_date_order(dates: Iterable[str]) -> str:
    """'ymd', 'dmy' or 'mdy': from a field over 12 if there is one, else from which order
    keeps the messages in time order."""
    return date_order(dates)[0]


_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip


def date_order(dates: Iterable[str], chosen: str = "auto") -> tuple[str, str]:
    """The order of a chat's dates ('ymd', 'dmy' or 'mdy'), and why, when the dates could be
    read either way: a field over 12 decides; else `chosen` (BIOMD_CHAT_DATE_ORDER) if it
    is 'dmy' or 'mdy'; else the order that keeps the messages in time order, day first when
    both do. The why is "" when the dates decide, or when no date reads differently."""
    written = list(dates)
    seen = [_fields(d) for d in written]
    if any(a > 31 for a, _, _ in seen):
        return "ymd", ""
    if any(a > 12 for a, _, _ in seen):
        return "dmy", ""
    if any(b > 12 for _, b, _ in seen):
        return "mdy", ""

    def backwards(order: str) -> int:
        keys = [(c, b, a) if order == "dmy" else (c, a, b) for a, b, c in seen]
        return sum(1 for x, y in itertools.pairwise(keys) if y < x)

    if chosen in ("dmy", "mdy"):
        order, because = chosen, "as BIOMD_CHAT_DATE_ORDER says"
    else:
        dmy, mdy = backwards("dmy"), backwards("mdy")
        order = "mdy" if mdy < dmy else "dmy"
        because = (
            "the more common reading: either one keeps the messages in time order"
            if mdy == dmy
            else "the reading that keeps the messages in time order"
        )
    example = next((d for d, f in zip(written, seen, strict=True) if f[0] != f[1]), None)
    if example is None:
        return order, ""  # 5/5/21 reads the same either way
    year, month, day = _ymd(example, order)
    first, other = ("day", "month") if order == "dmy" else ("month", "day")
    why = (
        f"its dates could be read day first or month first: they were read {first} first, "
        f"{because} ({example.strip(' .')} is {day} {_MONTHS[month - 1]} {year})"
    )
    if chosen not in ("dmy", "mdy"):
        why += (
            f"; to read such a chat {other} first, set BIOMD_CHAT_DATE_ORDER="
            f"{'mdy' if order == 'dmy' else 'dmy'}, forget this source and add it again"
        )
    return order, why


def _when(date: str, time: str, ampm: str | None, order: str) -> datetime | None:
    year, month, day = _ymd(date, order)
    parts = time.replace(".", ":").split(":")
    hour, minute = int(parts[0]), int(parts[1])
    if ampm:
        hour = hour % 12 + (12 if _is_pm(ampm) else 0)
    try:
        return datetime(year, month, day, hour, minute, int(parts[2]) if len(parts) > 2 else 0)
    except ValueError:
        return None


@lru_cache(maxsize=8192)  # a chat's messages share a few thousand dates
def _ymd(date: str, order: str) -> tuple[int, int, int]:
    a, b, c = _fields(date)
    year, month, day = (a, b, c) if order == "ymd" else (c, b, a) if order == "dmy" else (c, a, b)
    return (year + 2000 if year < 100 else year), month, day


def _is_pm(marker: str) -> bool:
    return "".join(marker.lower().split()).startswith(_PM)  # "p. m.", "p.\u202fm."


def looks_like_whatsapp(head: bytes) -> bool:
    if looks_binary(head):
        return False
    text = head.decode("utf-8", errors="replace")
    lines = [ln for ln in text.splitlines()[:40] if ln.strip()]
    starts = sum(1 for ln in lines if _START.match(ln))
    canonical = sum(1 for ln in lines if _CANONICAL.match(ln))
    return starts >= 2 and starts >= len(lines) // 2 and canonical < starts // 2 + 1


def chat_title(name: str) -> str:
    """The chat's name from the export's file name, in any of the app's languages."""
    stem = PurePosixPath(name).name
    m = _TITLE.match(stem) or _TITLE_BEFORE.match(stem)
    return m.group("title") if m else ""


def _media_kind(body: str) -> str | None:
    """The kind of media an iOS placeholder ("Bild weggelassen") stands for, if it is one."""
    folded = body.casefold()
    words = folded.split()
    if not words or len(words) > 4 or len(body) > 40:
        return None
    for kind, nouns in _MEDIA_NOUNS.items():
        for noun in nouns:
            unspaced = any(ord(c) >= 0x2E80 for c in noun)  # CJK and Hangul: no word breaks
            if noun in folded if unspaced else any(w.startswith(noun) for w in words):
                return kind
    return None


def _message_text(body: str, media: MediaResolver | None) -> str:
    if "<" in body:
        body = _EDITED.sub(" (edited)", body)
    stripped = clean(body)
    if len(stripped) <= 60:  # placeholders are short
        if m := _OMITTED.match(stripped):
            return f"[{(m.group('what') or 'media').lower()} omitted]"
        if _PLACEHOLDER.match(stripped):
            return "[media omitted]"
    if "<" in stripped and (m := _IOS_ATTACHED.search(stripped)):
        return _attachment(m.group("file").strip(), media, stripped, m.group(0))
    if "attached)" in stripped and (m := _ANDROID_ATTACHED.match(stripped)):
        return _attachment(m.group("file"), media, stripped, m.group(0))
    return body


def _attachment(file: str, media: MediaResolver | None, whole: str, marker: str) -> str:
    shown = media(file) if media else None
    caption = clean(whole.replace(marker, ""))
    text = shown or f"[attachment: {file}]"
    return f"{text} {caption}".strip()


def parse_messages(
    lines: Iterable[str], order: str, media: MediaResolver | None
) -> Iterator[Message]:
    """Messages in file order; a line that does not start a message continues the last one."""
    current: tuple[datetime, str, list[str]] | None = None
    for line in lines:
        m = _START.match(line)
        when = _when(m["date"], m["time"], m["pre"] or m["ampm"], order) if m else None
        if when is None:
            if current is not None:
                current[2].append(line)
            continue
        if current is not None:
            yield _build(*current, media)
        current = (when, m["rest"], [])  # type: ignore[index]
    if current is not None:
        yield _build(*current, media)


def _build(when: datetime, rest: str, more: list[str], media: MediaResolver | None) -> Message:
    if more:
        rest = "\n".join([rest, *more])
    sm = _SPEAKER.match(rest)
    if sm is None:
        return Message(when, SYSTEM, clean(rest))
    name, text = sm["name"], sm["text"] or ""
    if (not name.isascii() or '"' in name) and _QUOTES & set(name):
        return Message(when, SYSTEM, clean(rest))
    if text.startswith("\u200e"):  # iOS marks its own lines: system, media or an attachment
        body = clean(text)
        if kind := _media_kind(body):
            return Message(when, clean(name), f"[{kind} omitted]")
        if _IOS_ATTACHED.match(body) or _OMITTED.match(body):
            return Message(when, clean(name), _message_text(text, media))
        return Message(when, SYSTEM, body)
    return Message(when, clean(name), _message_text(text, media))


_RUN = 64  # messages per piece of the transcript


def transcript(
    pieces_for_scan: Iterable[str],
    pieces: Iterable[str],
    title: str,
    ctx: ConvertContext,
    media: MediaResolver | None = None,
    name: str = "",
) -> Iterator[str]:
    """The normalised transcript. The text is read twice: once to learn the date order."""
    dates = (m["date"] for line in iter_lines(pieces_for_scan) if (m := _START.match(line)))
    order, why = date_order(dates, ctx.date_order)
    if why:
        ctx.note(name, why)
    yield header("WhatsApp chat", title)
    count = 0
    lines: list[str] = []  # handed on in runs: a message is too small a piece to pass alone
    for msg in parse_messages(iter_lines(pieces), order, media):
        count += 1
        lines.append(format_line(msg, ctx))
        if len(lines) == _RUN:
            yield "".join(lines)
            lines.clear()
    if lines:
        yield "".join(lines)
    if count == 0:
        raise CorruptSource(f"{name}: no WhatsApp messages found in it.")


class WhatsAppText:
    kind = "whatsapp"
    chat = True
    mime = "text/plain"

    def accepts(self, probe: Probe) -> bool:
        return looks_like_whatsapp(probe.head)

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        title = chat_title(probe.name)
        return transcript(stream_text(probe), stream_text(probe), title, ctx, name=probe.name)


def find_chat_member(archive: zipfile.ZipFile) -> zipfile.ZipInfo | None:
    """The chat text inside a WhatsApp export zip, if this is one."""
    texts = [
        i for i in archive.infolist() if i.filename.lower().endswith(".txt") and not i.is_dir()
    ]
    for info in texts:
        if PurePosixPath(info.filename).name == "_chat.txt" or chat_title(info.filename):
            with archive.open(info) as f:
                if looks_like_whatsapp(f.read(8192)):
                    return info
    return None


class WhatsAppZip:
    """The export with media: the chat text plus the files it mentions, which are
    transcribed or described and shown on the line where they were sent."""

    kind = "whatsapp"
    chat = True
    mime = "application/zip"

    def accepts(self, probe: Probe) -> bool:
        return zip_holds(probe, lambda z: find_chat_member(z) is not None)

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        with zipfile.ZipFile(probe.path) as archive:
            chat = find_chat_member(archive)
            if chat is None:
                raise CorruptSource(f"{probe.name}: no WhatsApp chat text inside.")
            files = [i for i in archive.infolist() if not i.is_dir()]
            check_limits(probe.name, files, ctx.budget())
            by_name = {PurePosixPath(i.filename).name: i for i in files if i is not chat}
            title = chat_title(chat.filename) or chat_title(probe.name)

            def text_pieces() -> Iterator[str]:
                with archive.open(chat) as raw:
                    data = raw.read()
                yield data.decode("utf-8", errors="replace").replace("\r\n", "\n")

            def media(file: str) -> str | None:
                info = by_name.get(file)
                return None if info is None else _unpacked_media(archive, info, ctx)

            yield from transcript(text_pieces(), text_pieces(), title, ctx, media, probe.name)


def _unpacked_media(archive: zipfile.ZipFile, info: zipfile.ZipInfo, ctx: ConvertContext) -> str:
    import os
    import tempfile
    from pathlib import Path

    from biomd.ingest.convert.media import media_text

    name = PurePosixPath(info.filename).name
    fd, tmp = tempfile.mkstemp(dir=ctx.scratch_dir, suffix=PurePosixPath(name).suffix)
    path = Path(tmp)
    try:
        with os.fdopen(fd, "wb") as out, archive.open(info) as src:
            while block := src.read(1 << 20):
                out.write(block)
        return media_text(path, name, ctx) or f"[attachment: {name}]"
    except (zipfile.BadZipFile, OSError, RuntimeError) as exc:
        return f"[attachment {name}: could not be read ({exc})]"
    finally:
        path.unlink(missing_ok=True)

"""Email: single messages (`.eml`) and mailboxes (`.mbox`). Each message becomes a line
`[YYYY-MM-DD HH:MM] Sender: Subject: … (to …)` followed by its text, with quoted replies
and signatures' reply chains trimmed."""

from __future__ import annotations

import mailbox
import re
from collections.abc import Iterator
from datetime import datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses, parsedate_to_datetime

from biomd.errors import CorruptSource
from biomd.ingest.convert.base import Probe
from biomd.ingest.convert.chat import Message, format_line
from biomd.ingest.convert.context import ConvertContext

_HEADER = re.compile(
    rb"^(From|To|Date|Subject|Message-ID|Received|MIME-Version|Return-Path):", re.I | re.M
)
_MBOX_FROM = re.compile(rb"^From \S+")
# Where the quoted original of a reply begins, in the languages mail clients write:
# "On … wrote:", "Am … schrieb X:", "Le … a écrit :", "El … escribió:", "Em … escreveu:",
# "Il … ha scritto:", "Op … schreef X:", "… написал(а):", "2023年5月12日(金) 19:32 X <x@y>:",
# "-----Ursprüngliche Nachricht-----", an Outlook "Von: X <x@y>" block; and a phone's
# signature: "Sent from my iPhone", "Von meinem iPhone gesendet", "Enviado desde mi iPhone".
_DEVICE = (
    r"(?:iPhone|iPad|Android|Samsung|Galaxy|Outlook|Mail|Gmail|Yahoo|BlackBerry|Handy|"
    r"m[oó]vil|celular|телефона?|smartphone)"
)
_QUOTE_START = re.compile(
    r"^(On .{5,200}wrote:|Le .{5,200}a écrit ?:|Am .{5,200}schrieb .{1,80}:"
    r"|El .{5,200}escribió:|Em .{5,200}escreveu:|Il .{5,200}ha scritto:"
    r"|Op .{5,200}schreef .{1,80}:|.{5,200}написал(?:а|\(а\))?:"
    r"|\d{4}年\d{1,2}月\d{1,2}日.{0,200}:|-{2,}\s*[^-]{3,40}?\s*-{2,}|_{10,}"
    r"|(?:From|Von|De|Da|От|Van|Från|Fra|Od): .+ <[^>]+>|Sent from my \w+"
    r"|(?:Sent|Enviado|Envoyé|Gesendet|Inviato|Verzonden|Verstuurd|Отправлено|Wysłane|Skickat"
    r"|Sendt|Lähetetty|Von meinem)\b.{0,30}" + _DEVICE + r".{0,20}|.{0,30}から送信)\s*$",
    re.I,
)


def looks_like_eml(head: bytes) -> bool:
    top = head.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    return len({m.group(1).lower() for m in _HEADER.finditer(top)}) >= 3


def trim_quoted(text: str) -> str:
    """The new part of a reply: stop at the quoted original, drop `>` lines."""
    kept: list[str] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        stripped = line.strip()
        joined = f"{stripped} {lines[i + 1].strip()}" if i + 1 < len(lines) else stripped
        if _QUOTE_START.match(stripped) or (
            stripped.startswith("On ") and _QUOTE_START.match(joined)
        ):
            break
        if stripped.startswith(">"):
            continue
        kept.append(line.rstrip())
    return "\n".join(kept).strip()


def body_text(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        content = part.get_content()
    except (LookupError, UnicodeError, ValueError):
        payload = part.get_payload(decode=True) or b""
        content = payload.decode("utf-8", errors="replace") if isinstance(payload, bytes) else ""
    if part.get_content_type() == "text/html":
        from markitdown.converters import HtmlConverter

        content = HtmlConverter().convert_string(str(content)).markdown
    return trim_quoted(str(content))


def _people(value: str | None) -> list[tuple[str, str]]:
    return [(n, a) for n, a in getaddresses([value or ""]) if n or a]


def _label(person: tuple[str, str]) -> str:
    name, addr = person
    return f"{name} <{addr}>" if name and addr else name or addr


def email_lines(msg: EmailMessage, ctx: ConvertContext) -> str:
    senders = _people(str(msg.get("From", "")))
    sender = senders[0] if senders else ("Unknown", "")
    when: datetime | None
    try:
        when = parsedate_to_datetime(str(msg.get("Date"))) if msg.get("Date") else None
    except (TypeError, ValueError, IndexError):
        when = None
    to = ", ".join(_label(p) for p in _people(str(msg.get("To", ""))))
    subject = str(msg.get("Subject", "") or "(no subject)")
    owner = ctx.is_owner(sender[0]) or ctx.is_owner(sender[1])
    line = f"Subject: {subject}" + (f" (to {to})" if to else "")
    head = format_line(Message(when, _label(sender), line, owner or None), ctx)
    body = body_text(msg)
    return head + (body + "\n" if body else "") + "\n"


class EmlConverter:
    kind = "email"
    chat = False
    mime = "message/rfc822"

    def accepts(self, probe: Probe) -> bool:
        return looks_like_eml(probe.head) and not _MBOX_FROM.match(probe.head)

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        with probe.path.open("rb") as f:
            msg = BytesParser(policy=policy.default).parse(f)
        if not msg.keys():
            raise CorruptSource(f"{probe.name}: not an email (no headers).")
        yield email_lines(msg, ctx)


class MboxConverter:
    kind = "email"
    chat = False
    mime = "application/mbox"

    def accepts(self, probe: Probe) -> bool:
        return bool(_MBOX_FROM.match(probe.head)) and looks_like_eml(probe.head.split(b"\n", 1)[-1])

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        box = mailbox.mbox(probe.path, factory=None, create=False)
        count = 0
        try:
            for key in box.iterkeys():
                raw = box.get_bytes(key)
                msg = BytesParser(policy=policy.default).parsebytes(raw)
                count += 1
                yield email_lines(msg, ctx)
        finally:
            box.close()
        if count == 0:
            raise CorruptSource(f"{probe.name}: a mailbox with no messages in it.")

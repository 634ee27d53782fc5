"""Chat exports in every supported format, written by the tests, with each format's quirks.
Everyone in them is invented."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

LRM = "\u200e"
NNBSP = "\u202f"

WHATSAPP_IOS = (
    f"[03/02/21, 09:15:02] Família Silva: {LRM}Messages and calls are end-to-end encrypted. "
    "No one outside of this chat, not even WhatsApp, can read or listen to them.\n"
    f"[03/02/21, 09:15:02] Família Silva: {LRM}Ana Silva added Tomás\n"
    "[03/02/21, 09:16:45] Ana Silva: Bom dia! Who's coming on Sunday?\n"
    "[03/02/21, 09:17:01] Tomás: Me!\n"
    "I'll bring the cake\n"
    "and the candles\n"
    f"{LRM}[13/02/21, 21:05:33] Ana Silva: {LRM}image omitted\n"
    f"{LRM}[13/02/21, 21:06:10] Tomás: {LRM}<attached: 00000012-PHOTO-2021-02-13-21-06-10.jpg>\n"
    "[14/02/21, 08:00:00] Ana Silva: Happy Valentine's ❤️ <This message was edited>\n"
    "[14/02/21, 08:01:00] Tomás: Note: the time is 8:01, not 7\n"
)
WHATSAPP_IOS_LINES = [
    "WhatsApp chat: Família Silva",
    "",
    "[2021-02-03 09:15] (system): Messages and calls are end-to-end encrypted. No one outside "
    "of this chat, not even WhatsApp, can read or listen to them.",
    "[2021-02-03 09:15] (system): Ana Silva added Tomás",
    "[2021-02-03 09:16] Ana Silva (owner): Bom dia! Who's coming on Sunday?",
    "[2021-02-03 09:17] Tomás: Me! ⏎ I'll bring the cake ⏎ and the candles",
    "[2021-02-13 21:05] Ana Silva (owner): [image omitted]",
    "[2021-02-13 21:06] Tomás: [attachment: 00000012-PHOTO-2021-02-13-21-06-10.jpg]",
    "[2021-02-14 08:00] Ana Silva (owner): Happy Valentine's ❤️ (edited)",
    "[2021-02-14 08:01] Tomás: Note: the time is 8:01, not 7",
]

WHATSAPP_ANDROID = (
    f"1/5/22, 9:03{NNBSP}PM - Messages and calls are end-to-end encrypted. No one outside of "
    "this chat, not even WhatsApp, can read or listen to them. Tap to learn more.\n"
    f"1/5/22, 9:03{NNBSP}PM - Bo Chen: hey are you up\n"
    f"1/5/22, 9:04{NNBSP}PM - Ana: yes!!\n"
    f"1/15/22, 12:05{NNBSP}AM - Bo Chen: <Media omitted>\n"
    f'1/15/22, 10:31{NNBSP}AM - Bo Chen changed the subject from "x" to "Trip: Rome"\n'
    f"12/31/22, 11:59{NNBSP}PM - Ana: Happy new year: here's to 2023\n"
    "and to us\n"
)
WHATSAPP_ANDROID_LINES = [
    "WhatsApp chat: Bo Chen",
    "",
    "[2022-01-05 21:03] (system): Messages and calls are end-to-end encrypted. No one outside "
    "of this chat, not even WhatsApp, can read or listen to them. Tap to learn more.",
    "[2022-01-05 21:03] Bo Chen: hey are you up",
    "[2022-01-05 21:04] Ana (owner): yes!!",
    "[2022-01-15 00:05] Bo Chen: [media omitted]",
    '[2022-01-15 10:31] (system): Bo Chen changed the subject from "x" to "Trip: Rome"',
    "[2022-12-31 23:59] Ana (owner): Happy new year: here's to 2023 ⏎ and to us",
]


def telegram_single() -> dict[str, Any]:
    return {
        "name": "Chidi Okafor",
        "type": "personal_chat",
        "id": 4242,
        "messages": [
            {
                "id": 1,
                "type": "message",
                "date": "2020-06-01T20:00:00",
                "date_unixtime": "1591041600",
                "from": "Chidi Okafor",
                "from_id": "user4242",
                "text": "Did you see the comet?",
                "text_entities": [{"type": "plain", "text": "Did you see the comet?"}],
            },
            {
                "id": 2,
                "type": "message",
                "date": "2020-06-01T20:05:00",
                "date_unixtime": "1591041900",
                "from": "Dee",
                "from_id": "user1",
                "reply_to_message_id": 1,
                "text": ["Yes! Look at ", {"type": "bold", "text": "this"}, " photo"],
                "photo": "photos/photo_1@01-06-2020_20-05-00.jpg",
            },
            {
                "id": 3,
                "type": "message",
                "date": "2020-06-02T08:00:00",
                "date_unixtime": "1591084800",
                "from": "Chidi Okafor",
                "from_id": "user4242",
                "forwarded_from": "Space News",
                "text": [{"type": "text_link", "text": "NEOWISE", "href": "https://example.org/n"}],
            },
            {
                "id": 4,
                "type": "message",
                "date": "2020-06-02T08:01:00",
                "date_unixtime": "1591084860",
                "from": "Dee",
                "from_id": "user1",
                "file": "voice_messages/audio_1@02-06-2020_08-01-00.ogg",
                "media_type": "voice_message",
                "mime_type": "audio/ogg",
                "duration_seconds": 7,
                "text": "",
            },
            {
                "id": 5,
                "type": "service",
                "date": "2020-06-02T09:00:00",
                "date_unixtime": "1591088400",
                "actor": "Dee",
                "actor_id": "user1",
                "action": "phone_call",
                "duration_seconds": 95,
                "text": "",
            },
        ],
    }


# The epochs above are 2020-06-01 20:00 UTC etc.; in Europe/Dublin that is 21:00 (IST).
TELEGRAM_SINGLE_LINES = [
    "Telegram chat: Chidi Okafor",
    "",
    "[2020-06-01 21:00] Chidi Okafor: Did you see the comet?",
    '[2020-06-01 21:05] Dee (owner): (replying to Chidi Okafor: "Did you see the comet?") '
    "[photo: photos/photo_1@01-06-2020_20-05-00.jpg] Yes! Look at this photo",
    "[2020-06-02 09:00] Chidi Okafor: (forwarded from Space News) NEOWISE (https://example.org/n)",
    "[2020-06-02 09:01] Dee (owner): [voice message 0:07: "
    "voice_messages/audio_1@02-06-2020_08-01-00.ogg]",
    "[2020-06-02 10:00] (system): Dee call 1:35",
]


def telegram_full() -> dict[str, Any]:
    chat = telegram_single()
    group = {
        "name": "Climbing club",
        "type": "private_group",
        "id": 77,
        "messages": [
            {
                "id": 10,
                "type": "message",
                "date_unixtime": "1593561600",
                "from": "Deirdre",
                "from_id": "user1",
                "text": "Wicklow on Saturday?",
            }
        ],
    }
    return {
        "about": "Here is the data you requested.",
        "personal_information": {"user_id": 1, "first_name": "Deirdre", "last_name": "Walsh"},
        "chats": {"about": "This page lists all chats.", "list": [chat, group]},
    }


def mojibake(text: str) -> str:
    """How Meta's exports store text: UTF-8 bytes written as latin-1 code points."""
    return text.encode("utf-8").decode("latin-1")


def messenger_thread() -> dict[str, Any]:
    return {
        "participants": [{"name": mojibake("Zoë Brennan")}, {"name": "Eitan Levi"}],
        "messages": [  # newest first, as Meta writes them
            {
                "sender_name": "Eitan Levi",
                "timestamp_ms": 1625140920000,
                "content": mojibake("See you at the café 😀"),
                "reactions": [{"reaction": mojibake("❤"), "actor": mojibake("Zoë Brennan")}],
            },
            {
                "sender_name": mojibake("Zoë Brennan"),
                "timestamp_ms": 1625140860000,
                "photos": [{"uri": "messages/inbox/eitan_1/photos/1.jpg"}],
            },
            {
                "sender_name": mojibake("Zoë Brennan"),
                "timestamp_ms": 1625140800000,
                "content": mojibake("Crème brûlée tonight?"),
            },
        ],
        "title": "Eitan Levi",
        "is_still_participant": True,
        "thread_path": "inbox/eitanlevi_123",
    }


MESSENGER_LINES = [
    "Messenger chat: Eitan Levi (participants: Zoë Brennan, Eitan Levi)",
    "",
    "[2021-07-01 13:00] Zoë Brennan (owner): Crème brûlée tonight?",
    "[2021-07-01 13:01] Zoë Brennan (owner): [photo: messages/inbox/eitan_1/photos/1.jpg]",
    "[2021-07-01 13:02] Eitan Levi: See you at the café 😀 (reactions: Zoë Brennan ❤)",
]


def discord_export() -> dict[str, Any]:
    def author(name: str, nick: str | None, uid: str) -> dict[str, Any]:
        return {"id": uid, "name": name, "discriminator": "0000", "nickname": nick, "isBot": False}

    return {
        "guild": {"id": "1", "name": "Board gamers", "iconUrl": ""},
        "channel": {"id": "2", "type": "GuildTextChat", "category": "General", "name": "general"},
        "dateRange": {"after": None, "before": None},
        "messages": [
            {
                "id": "100",
                "type": "Default",
                "timestamp": "2022-11-05T18:30:00+00:00",
                "content": "Catan night at mine?",
                "author": author("hiro_k", "Hiro", "9"),
                "attachments": [],
                "embeds": [],
                "stickers": [],
            },
            {
                "id": "101",
                "type": "Reply",
                "timestamp": "2022-11-05T18:31:00+00:00",
                "content": "In!",
                "author": author("gracegrace", None, "8"),
                "attachments": [{"id": "5", "url": "x", "fileName": "board.png"}],
                "embeds": [],
                "stickers": [],
                "reference": {"messageId": "100", "channelId": "2", "guildId": "1"},
            },
            {
                "id": "102",
                "type": "GuildMemberJoin",
                "timestamp": "2022-11-05T18:32:00+00:00",
                "content": "",
                "author": author("newbie", None, "7"),
                "attachments": [],
                "embeds": [],
                "stickers": [],
            },
        ],
        "messageCount": 3,
    }


DISCORD_LINES = [
    "Discord chat: Board gamers #general",
    "",
    "[2022-11-05 18:30] Hiro: Catan night at mine?",
    '[2022-11-05 18:31] gracegrace (owner): (replying to Hiro: "Catan night at mine?") '
    "[attachment: board.png] In!",
    "[2022-11-05 18:32] (system): newbie: GuildMemberJoin",
]


def chatgpt_export() -> list[dict[str, Any]]:
    def node(
        nid: str, parent: str | None, children: list[str], role: str | None, text: str, t: float
    ) -> dict[str, Any]:
        message = None
        if role:
            message = {
                "id": nid,
                "author": {"role": role},
                "create_time": t,
                "content": {"content_type": "text", "parts": [text]},
            }
        return {"id": nid, "message": message, "parent": parent, "children": children}

    mapping = {
        "root": node("root", None, ["sys"], None, "", 0),
        "sys": node("sys", "root", ["u1"], "system", "You are ChatGPT", 1700000000),
        "u1": node("u1", "sys", ["a1", "a1b"], "user", "Plan a 3-day trip to Kyoto", 1700000060),
        "a1": node("a1", "u1", [], "assistant", "Day 1: Fushimi Inari (discarded)", 1700000070),
        "a1b": node("a1b", "u1", ["u2"], "assistant", "Day 1: Arashiyama bamboo grove", 1700000080),
        "u2": node("u2", "a1b", ["a2"], "user", "Make it vegetarian-friendly", 1700000200),
        "a2": node("a2", "u2", [], "assistant", "Try shojin ryori at Tenryu-ji", 1700000210),
    }
    return [
        {"title": "Kyoto trip", "create_time": 1700000000, "mapping": mapping, "current_node": "a2"}
    ]


CHATGPT_LINES = [
    "ChatGPT conversation: Kyoto trip (2023-11-14)",
    "",
    "[2023-11-14 22:14] Hiro (owner): Plan a 3-day trip to Kyoto",
    "[2023-11-14 22:14] ChatGPT: Day 1: Arashiyama bamboo grove",
    "[2023-11-14 22:16] Hiro (owner): Make it vegetarian-friendly",
    "[2023-11-14 22:16] ChatGPT: Try shojin ryori at Tenryu-ji",
    "",
]


def claude_export() -> list[dict[str, Any]]:
    return [
        {
            "uuid": "c1",
            "name": "Marathon training",
            "created_at": "2024-03-10T07:00:00.000000Z",
            "updated_at": "2024-03-10T07:05:00.000000Z",
            "chat_messages": [
                {
                    "uuid": "m1",
                    "sender": "human",
                    "text": "I want to run Berlin in under 4 hours",
                    "content": [{"type": "text", "text": "I want to run Berlin in under 4 hours"}],
                    "created_at": "2024-03-10T07:00:00.000000Z",
                    "attachments": [{"file_name": "plan.csv", "extracted_content": "..."}],
                    "files": [],
                },
                {
                    "uuid": "m2",
                    "sender": "assistant",
                    "text": "",
                    "content": [{"type": "text", "text": "Build to 60 km a week first."}],
                    "created_at": "2024-03-10T07:01:00.000000Z",
                    "attachments": [],
                    "files": [],
                },
            ],
        }
    ]


CLAUDE_LINES = [
    "Claude conversation: Marathon training (2024-03-10)",
    "",
    "[2024-03-10 07:00] Hiro (owner): I want to run Berlin in under 4 hours [attached: plan.csv]",
    "[2024-03-10 07:01] Claude: Build to 60 km a week first.",
    "",
]

IMESSAGE_TXT = (
    "May 17, 2022  5:29:42 PM\n"
    "+15555550123\n"
    "Are we still on for the Mets game?\n"
    "\n"
    "May 17, 2022  5:31:03 PM (Read by them after 1 minute)\n"
    "Me\n"
    "Yes! Bringing my brother\n"
    "IMG_4411.HEIC\n"
    "\n"
    "May 18, 2022 10:02:11 AM\n"
    "+15555550123\n"
    "What a game\n"
    "This message responded to an earlier message.\n"
    "    May 18, 2022 10:05:00 AM\n"
    "    Me\n"
    "    Unreal\n"
    "\n"
)
IMESSAGE_TXT_LINES = [
    "iMessage chat: +15555550123",
    "",
    "[2022-05-17 17:29] +15555550123: Are we still on for the Mets game?",
    "[2022-05-17 17:31] Grace (owner): Yes! Bringing my brother ⏎ IMG_4411.HEIC",
    "[2022-05-18 10:02] +15555550123: What a game",
    "[2022-05-18 10:05] Grace (owner): Unreal",
]


def imessage_db(path: Path) -> None:
    """A chat.db with the tables and columns biomd reads, as macOS lays them out."""
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE handle (ROWID INTEGER PRIMARY KEY, id TEXT, service TEXT);
        CREATE TABLE chat (ROWID INTEGER PRIMARY KEY, chat_identifier TEXT, display_name TEXT);
        CREATE TABLE message (ROWID INTEGER PRIMARY KEY, guid TEXT, text TEXT,
            attributedBody BLOB, handle_id INTEGER, date INTEGER, is_from_me INTEGER,
            associated_message_type INTEGER DEFAULT 0, cache_has_attachments INTEGER DEFAULT 0);
        CREATE TABLE chat_message_join (chat_id INTEGER, message_id INTEGER);
        CREATE TABLE attachment (ROWID INTEGER PRIMARY KEY, filename TEXT);
        """
    )
    db.execute("INSERT INTO handle VALUES (1, '+353871234567', 'iMessage')")
    db.execute("INSERT INTO chat VALUES (1, '+353871234567', '')")
    body = typedstream("Pints at Kehoe's, 8pm?")
    ns = 1_000_000_000
    rows = [  # 2023-01-01 00:00:00 UTC is 694224000 s after the Apple epoch
        (1, "g1", "Happy new year!", None, 1, (694224000 + 60) * ns, 0, 0, 0),
        (2, "g2", None, body, 0, (694224000 + 120) * ns, 1, 0, 0),
        (3, "g3", "Loved “Happy new year!”", None, 1, (694224000 + 130) * ns, 0, 2000, 0),
        (4, "g4", "\ufffc", None, 1, (694224000 + 180) * ns, 0, 0, 1),
    ]
    db.executemany("INSERT INTO message VALUES (?,?,?,?,?,?,?,?,?)", rows)
    db.executemany("INSERT INTO chat_message_join VALUES (1, ?)", [(r[0],) for r in rows])
    db.commit()
    db.close()


def typedstream(text: str) -> bytes:
    """An attributedBody blob as macOS writes it (the parts biomd reads)."""
    data = text.encode("utf-8")
    length = bytes([len(data)]) if len(data) < 0x80 else b"\x81" + len(data).to_bytes(2, "little")
    return (
        b"\x04\x0bstreamtyped\x81\xe8\x03\x84\x01@\x84\x84\x84\x12NSAttributedString\x00"
        b"\x84\x84\x08NSObject\x00\x85\x92\x84\x84\x84\x08NSString\x01\x94\x84\x01+"
        + length
        + data
        + b"\x86\x84\x02iI\x01\x16\x92\x84\x84\x84\x0cNSDictionary\x00"
    )


IMESSAGE_DB_LINES = [
    "iMessage chat: +353871234567",
    "",
    "[2023-01-01 00:01] +353871234567: Happy new year!",
    "[2023-01-01 00:02] Grace (owner): Pints at Kehoe's, 8pm?",
    "[2023-01-01 00:03] +353871234567: [attachment]",
]

EML = (
    "From: Fatima Rahman <fatima@example.org>\r\n"
    "To: Grace Walsh <grace@example.net>\r\n"
    "Subject: Re: The allotment\r\n"
    "Date: Tue, 04 Apr 2023 19:12:00 +0100\r\n"
    "Message-ID: <abc@example.org>\r\n"
    "MIME-Version: 1.0\r\n"
    'Content-Type: multipart/alternative; boundary="b1"\r\n'
    "\r\n"
    "--b1\r\n"
    "Content-Type: text/plain; charset=utf-8\r\n"
    "\r\n"
    "Yes, plot 14 is ours from May!\r\n"
    "Tomatoes first.\r\n"
    "\r\n"
    "On Mon, 3 Apr 2023 at 10:00, Grace Walsh <grace@example.net>\r\n"
    "wrote:\r\n"
    "> Did the council say yes?\r\n"
    "> Fingers crossed\r\n"
    "--b1\r\n"
    "Content-Type: text/html; charset=utf-8\r\n"
    "\r\n"
    "<p>Yes, plot 14 is ours from May!</p>\r\n"
    "--b1--\r\n"
)
EML_LINES = [
    "[2023-04-04 19:12] Fatima Rahman <fatima@example.org>: Subject: Re: The allotment "
    "(to Grace Walsh <grace@example.net>)",
    "Yes, plot 14 is ours from May!",
    "Tomatoes first.",
    "",
]

MBOX = (
    "From grace@example.net Sat Jan  7 10:00:00 2023\n"
    "From: Grace Walsh <grace@example.net>\n"
    "To: Bo <bo@example.com>\n"
    "Subject: Photos from Achill\n"
    "Date: Sat, 07 Jan 2023 10:00:00 +0000\n"
    "\n"
    "Here they are. The cliffs!\n"
    "\n"
    "From bo@example.com Sat Jan  7 12:00:00 2023\n"
    "From: Bo <bo@example.com>\n"
    "To: Grace Walsh <grace@example.net>\n"
    "Subject: Re: Photos from Achill\n"
    "Date: Sat, 07 Jan 2023 12:00:00 +0000\n"
    "Content-Type: text/html\n"
    "\n"
    "<html><body><p>Stunning. <b>Keem Bay</b> next time?</p></body></html>\n"
)
MBOX_LINES = [
    "[2023-01-07 10:00] Grace Walsh <grace@example.net> (owner): Subject: Photos from Achill "
    "(to Bo <bo@example.com>)",
    "Here they are. The cliffs!",
    "",
    "[2023-01-07 12:00] Bo <bo@example.com>: Subject: Re: Photos from Achill "
    "(to Grace Walsh <grace@example.net>)",
    "Stunning. **Keem Bay** next time?",
    "",
]


def dump(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path

"""A generated life for the mirror, with dynamics planted in it, written as real exports
(WhatsApp text, Telegram JSON). Everyone in it is invented. Used by the tests (small) and by
bench/mirror.py (50 MB).

The owner is Ana. What is planted:
- Maya (WhatsApp, English): from 2022-07 Ana answers her far more slowly (a median of about
  5 minutes before, 3 hours after), and Maya starts most of their conversations (Ana started
  about 70% before, 20% after).
- Leo (Telegram, Portuguese): from 2022-03 Leo's messages are much shorter (about 70
  characters before, 15 after).
- Sam (WhatsApp, Android format, English): steady from start to end; the control.
- "Família" (WhatsApp group, Portuguese; Ana, Mãe, Pai): left out of the people, as a group.
- From 2022-10 to 2023-01 Ana writes late at night: a share of her conversations, in every
  chat, start between 00:15 and 02:30.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

OWNER = "Ana"
START = datetime(2021, 1, 1)
END = datetime(2023, 12, 31)

WORDS = {
    "en": (
        "ok sure love that see you later tonight dinner call me tomorrow work was long "
        "the train was late did you eat yes no maybe I miss you haha really good news "
        "what time are we still on for Saturday can't wait sorry busy now talk soon "
        "how was your day pretty tired honestly I think so let's do it thanks"
    ).split(),
    "pt": (
        "olá tudo bem sim não talvez jantar amanhã trabalho hoje cansada saudades "
        "vamos sair sábado que horas obrigado beijo até logo boa noite ótimo claro "
        "comeste já chegaste o comboio atrasou adorei fala depois estou ocupada agora"
    ).split(),
}


def in_late_period(day: datetime) -> bool:
    return datetime(2022, 10, 1) <= day < datetime(2023, 2, 1)


@dataclass
class Plan:
    """How one chat behaves, month by month (functions of the conversation's day)."""

    person: str
    language: str
    per_week: float  # conversations a week
    owner_starts: Callable[[datetime], float]
    owner_delay_min: Callable[[datetime], float]  # median minutes before Ana answers
    their_delay_min: Callable[[datetime], float]
    owner_chars: Callable[[datetime], float]
    their_chars: Callable[[datetime], float]
    members: tuple[str, ...] = ()  # a group chat's other members
    seed: int = 1
    late: bool = True  # takes part in the late-night period
    scale: float = 1.0  # more conversations (the benchmark's big export)
    delay_spread: float = 0.6  # sigma of the log-normal reply delays
    length_spread: float = 0.35  # and of the lengths


def _const(value: float) -> Callable[[datetime], float]:
    return lambda day: value


def _step(at: datetime, before: float, after: float) -> Callable[[datetime], float]:
    return lambda day: before if day < at else after


def plans(scale: float = 1.0) -> list[Plan]:
    return [
        Plan(
            "Maya",
            "en",
            3.0,
            owner_starts=_step(datetime(2022, 7, 1), 0.72, 0.2),
            owner_delay_min=_step(datetime(2022, 7, 1), 5, 180),
            their_delay_min=_const(6),
            owner_chars=_const(40),
            their_chars=_const(45),
            seed=11,
            scale=scale,
        ),
        Plan(
            "Leo",
            "pt",
            2.5,
            owner_starts=_const(0.5),
            owner_delay_min=_const(10),
            their_delay_min=_const(12),
            owner_chars=_const(50),
            their_chars=_step(datetime(2022, 3, 1), 70, 15),
            seed=12,
            scale=scale,
        ),
        Plan(
            "Sam",
            "en",
            2.5,
            owner_starts=_const(0.5),
            owner_delay_min=_const(15),
            their_delay_min=_const(15),
            owner_chars=_const(35),
            their_chars=_const(35),
            seed=13,
            scale=scale,
        ),
        Plan(
            "Família",
            "pt",
            1.5,
            owner_starts=_const(0.3),
            owner_delay_min=_const(20),
            their_delay_min=_const(20),
            owner_chars=_const(30),
            their_chars=_const(30),
            members=("Mãe", "Pai"),
            seed=14,
            scale=scale,
        ),
    ]


@dataclass(frozen=True)
class Line:
    when: datetime
    speaker: str
    text: str


def _text(rng: np.random.Generator, language: str, median_chars: float, spread: float) -> str:
    target = max(2, int(rng.lognormal(math.log(median_chars), spread)))
    words = WORDS[language]
    out = ""
    while len(out) < target:
        out += ("" if not out else " ") + str(words[int(rng.integers(len(words)))])
    return out[:target].rstrip() or words[0]


def conversation_days(plan: Plan, rng: np.random.Generator) -> Iterator[datetime]:
    """When each conversation starts: a Poisson stream over the life."""
    day = START
    per_day = plan.per_week * plan.scale / 7
    while True:
        day += timedelta(days=float(rng.exponential(1 / per_day)))
        if day >= END:
            return
        if plan.late and in_late_period(day) and rng.random() < 0.5:
            start = day.replace(hour=0, minute=15) + timedelta(minutes=int(rng.integers(0, 135)))
            yield start
        else:
            yield day.replace(hour=8, minute=0) + timedelta(minutes=int(rng.integers(0, 14 * 60)))


def lines(plan: Plan) -> list[Line]:
    """Every message of one chat, in time order."""
    rng = np.random.default_rng(plan.seed)
    out: list[Line] = []
    others = plan.members or (plan.person,)
    last = START
    for start in conversation_days(plan, rng):
        if start <= last + timedelta(hours=7):
            continue  # keep conversations apart by more than the silence that ends one
        owner_turn = rng.random() < plan.owner_starts(start)
        when = start
        for _ in range(int(rng.integers(3, 9))):
            speaker = OWNER if owner_turn else str(others[int(rng.integers(len(others)))])
            chars = plan.owner_chars(start) if owner_turn else plan.their_chars(start)
            for _burst in range(1 + int(rng.random() < 0.15)):  # now and then two in a row
                text = _text(rng, plan.language, chars, plan.length_spread)
                out.append(Line(when, speaker, text))
                when += timedelta(seconds=int(rng.integers(10, 50)))
            owner_turn = not owner_turn
            median = plan.owner_delay_min(start) if owner_turn else plan.their_delay_min(start)
            minutes = float(rng.lognormal(math.log(median), plan.delay_spread))
            when += timedelta(minutes=min(minutes, 5 * 60))  # an answer within the conversation
        last = when
    return out


def whatsapp_ios(chat: list[Line]) -> str:
    """`[DD/MM/YY, HH:MM:SS] Name: text` lines."""
    return "".join(f"[{m.when:%d/%m/%y, %H:%M:%S}] {m.speaker}: {m.text}\n" for m in chat)


def whatsapp_android(chat: list[Line]) -> str:
    """`M/D/YY, H:MM AM - Name: text` lines (the US Android export)."""
    out = []
    for m in chat:
        hour = m.when.hour % 12 or 12
        half = "AM" if m.when.hour < 12 else "PM"
        out.append(
            f"{m.when.month}/{m.when.day}/{m.when:%y}, {hour}:{m.when:%M}\u202f{half} - "
            f"{m.speaker}: {m.text}\n"
        )
    return "".join(out)


def telegram(chats: dict[str, list[Line]]) -> dict[str, Any]:
    """A Telegram Desktop full export (result.json) holding these personal chats."""
    listed = []
    for n, (name, chat) in enumerate(chats.items()):
        messages = [
            {
                "id": i + 1,
                "type": "message",
                "date": f"{m.when:%Y-%m-%dT%H:%M:%S}",
                "date_unixtime": str(int(m.when.timestamp())),
                "from": m.speaker,
                "from_id": "user1" if m.speaker == OWNER else f"user{100 + n}",
                "text": m.text,
                "text_entities": [{"type": "plain", "text": m.text}],
            }
            for i, m in enumerate(chat)
        ]
        listed.append({"name": name, "type": "personal_chat", "id": 100 + n, "messages": messages})
    return {
        "about": "Here is the data you requested.",
        "personal_information": {"first_name": OWNER, "user_id": 1},
        "chats": {"about": "", "list": listed},
    }


def write_life(folder: Path, scale: float = 1.0) -> dict[str, Path]:
    """The life's exports in `folder`: one file a chat (Leo's as a Telegram export)."""
    folder.mkdir(parents=True, exist_ok=True)
    by_name = {p.person: p for p in plans(scale)}
    files = {
        "Maya": folder / "WhatsApp Chat with Maya.txt",
        "Leo": folder / "result.json",
        "Sam": folder / "WhatsApp Chat with Sam.txt",
        "Família": folder / "WhatsApp Chat with Família.txt",
    }
    files["Maya"].write_text(whatsapp_ios(lines(by_name["Maya"])), encoding="utf-8")
    files["Leo"].write_text(
        json.dumps(telegram({"Leo": lines(by_name["Leo"])}), ensure_ascii=False), encoding="utf-8"
    )
    files["Sam"].write_text(whatsapp_android(lines(by_name["Sam"])), encoding="utf-8")
    files["Família"].write_text(whatsapp_ios(lines(by_name["Família"])), encoding="utf-8")
    return files

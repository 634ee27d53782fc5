"""A small generated life for the mirror's pass, with five patterns planted across three
years of journal entries and chats, one intention with nothing after it, a sign of crisis
that must never become a pattern, and everyday entries around them. Everyone in it is
invented. `PLANTED` is the answer key: each pattern's kind and the lines that show it.

Used by the tests (with a scripted reader and judge) and by bench/mirror_patterns.py (with
a real model reading and judging)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

OWNER = "Ana"

JOURNAL: dict[str, str] = {
    "2021-01-01": "New year. I'm going to stop working weekends, that is my promise to myself.",
    "2021-01-02": "This year I will run every morning before work, starting Monday.",
    "2021-02-14": "Dinner with Leo at the Thai place on Rua da Rosa. He laughed at my stories.",
    "2021-03-04": "Walked along the river. I never want to live in London again; that city wore "
    "me out and I am happier here.",
    "2021-04-10": "Worked all weekend again on the Lumen pitch. Exhausted.",
    "2021-06-15": "Haven't run since February. Mornings are for sleeping now.",
    "2021-09-02": "Rui criticised my work in front of the whole team today. I felt humiliated.",
    "2021-10-20": "Bought a green lamp for the flat. The living room finally feels like home.",
    "2022-01-01": "New year. I'm going to stop working at weekends, for real this time.",
    "2022-03-24": "Still upset that Maya forgot my birthday. I haven't said anything to her.",
    "2022-03-25": "I'll talk to Maya about my birthday next week, calmly.",
    "2022-04-09": "Worked the whole weekend again. Exhausted and cross with myself.",
    "2022-06-18": "Swam at Carcavelos with Sam. The water was freezing and perfect.",
    "2022-11-10": "Big argument with Maya last night about the flat. I'm so hurt.",
    "2022-12-01": "Some nights I want to die, and I think everyone would be better off without me.",
    "2023-01-02": "New year again. No more weekend work, I'm going to stop it this year.",
    "2023-04-15": "Another weekend at work on the Orla launch. So tired.",
    "2023-07-08": "Pottery class with Leo's sister. My bowl is lopsided and I love it.",
}

CHATS: dict[str, list[tuple[str, str, str]]] = {
    # (stamp, speaker, text)
    "Sam": [
        ("2021-09-05 20:10", "Sam", "how are you doing after this week?"),
        ("2021-09-06 09:30", OWNER,
         "I've decided to quit my job at the agency. It's time for growth."),
        ("2021-09-06 09:45", "Sam", "wow, big news! proud of you"),
        ("2022-03-20 18:02", OWNER, "Maya forgot my birthday again. I'm really hurt, honestly."),
        ("2022-03-20 18:10", "Sam", "oh no, did you tell her?"),
        ("2022-03-20 18:15", OWNER, "no, it's not worth a fight"),
        ("2022-11-13 11:00", OWNER,
         "I'm moving to Porto next month. I need a fresh start, it's about growth."),
        ("2022-11-13 11:20", "Sam", "Porto! that's sudden. are you ok?"),
    ],
    "Maya": [
        ("2022-03-19 21:00", "Maya", "I'm so sorry, I completely forgot your birthday!!"),
        ("2022-03-21 08:40", OWNER, "all good, don't worry about it 😊"),
        ("2022-03-21 08:45", "Maya", "let me take you to dinner on Friday"),
        ("2022-11-09 23:10", "Maya", "I don't want to fight about the flat any more"),
        ("2022-11-11 10:00", OWNER, "all good, really. let's just leave it"),
    ],
    "Leo": [
        ("2023-05-11 19:30", OWNER,
         "Honestly I miss London so much, I've always wanted to move back there."),
        ("2023-05-11 19:40", "Leo", "you? you always said you hated it!"),
    ],
}  # fmt: skip


@dataclass(frozen=True)
class Planted:
    kind: str
    lines: tuple[str, ...]  # words each piece of evidence holds (one per line that shows it)
    about: str


PLANTED: tuple[Planted, ...] = (
    Planted(
        "self_contradiction",
        ("never want to live in London", "always wanted to move back"),
        "London: never again (2021), always wanted to go back (2023)",
    ),
    Planted(
        "stated_reason",
        ("Rui criticised", "decided to quit", "argument with Maya", "moving to Porto"),
        "quitting and moving, each days after a hurt, called growth",
    ),
    Planted(
        "avoidance",
        ("forgot my birthday again", "Still upset that Maya"),
        "hurt about Maya's forgetting told to Sam and the journal; 'all good' to Maya",
    ),
    Planted(
        "said_vs_did",
        ("run every morning", "Haven't run since"),
        "said she would run every morning; stopped in February",
    ),
    Planted(
        "cycle",
        (
            "stop working weekends",
            "stop working at weekends",
            "No more weekend work",
            "Worked all weekend",
            "Worked the whole weekend",
            "Another weekend at work",
        ),
        "every new year she vows no weekend work; every spring she works weekends",
    ),
)
INTENTION = "talk to Maya about my birthday"
CRISIS = "Some nights I want to die"


def whatsapp(lines: list[tuple[str, str, str]]) -> str:
    out = []
    for stamp, speaker, text in lines:
        day, time = stamp.split()
        y, m, d = day.split("-")
        out.append(f"[{d}/{m}/{y[2:]}, {time}:00] {speaker}: {text}\n")
    return "".join(out)


def write_notes_life(
    folder: Path,
    journal: dict[str, str] | None = None,
    chats: dict[str, list[tuple[str, str, str]]] | None = None,
    names: tuple[str, str] = ("journal", "WhatsApp Chat with {person}.txt"),
) -> list[Path]:
    """A life's journal entries (one file a day) and chats, in `folder`: this life's, or
    the `journal` and `chats` given, in a folder and files named as `names` say."""
    folder_name, chat_name = names
    days = folder / folder_name
    days.mkdir(parents=True, exist_ok=True)
    files = []
    for day, text in (JOURNAL if journal is None else journal).items():
        path = days / f"{day}.md"
        path.write_text(f"# {day}\n\n{text}\n", encoding="utf-8")
        files.append(path)
    for person, lines in (CHATS if chats is None else chats).items():
        path = folder / chat_name.format(person=person)
        path.write_text(whatsapp(lines), encoding="utf-8")
        files.append(path)
    return files


def found(
    patterns: list[dict[str, object]], planted: tuple[Planted, ...] = PLANTED
) -> tuple[list[str], list[dict[str, object]]]:
    """Which planted patterns a list of patterns (as the mirror's JSON) finds, and which of
    them match nothing planted (invented). A pattern finds a planted one when it is of the
    same kind and two of its quotes hold two of the planted lines."""
    hits: list[str] = []
    invented = []
    for p in patterns:
        quotes = [str(e.get("quote", "")) for e in p.get("evidence", [])]  # type: ignore[attr-defined]
        match = None
        for one in planted:
            held = {line for line in one.lines for q in quotes if line.lower() in q.lower()}
            if p.get("kind") == one.kind and len(held) >= 2:
                match = one.kind
        if match is None:
            invented.append(p)
        elif match not in hits:
            hits.append(match)
    return hits, invented

"""The Summary and Identity written from bio.md's own lines: once a reading round leaves
bio.md with facts but no Summary, one small call gets its lines, numbered, and writes at
most five sentences of Summary and a few lines of Identity, each naming the lines it rests
on. A sentence whose lines don't exist or don't say it (a name, number or date none of them
has: support.refusal) is dropped; each kept sentence cites the sources its lines cite."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from biomd.biographer.answer_claims import sentences
from biomd.biographer.edits import apply_edit, find_section
from biomd.biographer.json_reply import json_values
from biomd.biographer.profile_text import CITES, NOTHING_YET, bullets, citations, section
from biomd.biographer.reading import people
from biomd.biographer.support import SENTENCES, content_stems, refusal
from biomd.fold import fold
from biomd.models.llm import JsonModel

log = logging.getLogger(__name__)

SUMMARY_SENTENCES = 5
IDENTITY_LINES = 6
MOST_LINES = 80  # bio.md lines a call is given, at most
REPLY_TOKENS = 600
TRIES = 2
RAN_ON = (
    "That reply ran on and was cut off. Reply again with the same JSON: at most five items "
    "in summary and six in identity, each ONE short sentence that says one thing, and stop."
)
CITED = 3  # lines a sentence rests on, at most
FROM = ("identity", "people", "timeline", "patterns", "inferences")
"""The sections whose lines the Summary may rest on, the people first: a small model sums up
what it reads first, and a Timeline read first gave "Krümel sleeps on his side of the bed"."""
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "summary": {**SENTENCES, "maxItems": SUMMARY_SENTENCES},
        "identity": {**SENTENCES, "maxItems": IDENTITY_LINES},
    },
    "required": ["summary", "identity"],
    "additionalProperties": False,
}
SYSTEM = (
    "You write the top of {name}'s biography from the numbered lines below and nothing "
    "else. summary: at most {sentences} short sentences in the third person that say who "
    "{name} is and what matters most in their life. identity: at most {identity} short "
    "facts about {name} themselves (work, home, languages, age, what they care about). Each "
    'item is one sentence that says one thing, with "lines": the L numbers of the one to '
    "three lines that say it. Add no name, number or date that its lines do not give. "
    "{language}\n"
    'Reply with JSON only: {{"summary": [{{"text": "...", "lines": [1, 2]}}], '
    '"identity": [{{"text": "...", "lines": [3]}}]}}.'
)


EXAMPLE = (
    ("user", "L1: Meera: Ravi's sister; lives in Leeds (2018–2023) [#2, #5]\n"
     "L2: Pepper: Ravi's dog [#1]\n"
     "L3: 2018-03-01: Ravi started as a nurse at St Mary's hospital [#1]\n"
     "L4: 2020-06-12: Ravi moved to Leeds to be near Meera [#3]\n"
     "L5: 2022-09-10: Ravi ran the Leeds marathon in 4:05 [#4]"),
    ("assistant", '{"summary": [{"text": "Ravi is a nurse who started at St Mary\'s hospital '
     'in 2018.", "lines": [3]}, {"text": "In 2020 he moved to Leeds to be near his sister '
     'Meera.", "lines": [1, 4]}, {"text": "He runs, and ran the Leeds marathon in 2022.", '
     '"lines": [5]}], "identity": [{"text": "Ravi is a nurse.", "lines": [3]}, {"text": '
     '"Ravi lives in Leeds.", "lines": [4]}, {"text": "Ravi has a dog, Pepper.", "lines": '
     "[2]}]}"),
)  # fmt: skip
"""What a small model is shown before bio.md's lines: a portrait from lines, not a list."""


@dataclass
class Top:
    """What the call gave: the kept sentences, each with the sources it cites."""

    summary: list[str] = field(default_factory=list)
    identity: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


GROWTH = 1.5  # a Summary biomd wrote is written again once bio.md has this many times its lines


def wanted(bio: str, written: str = "", lines: int = 0) -> bool:
    """Whether bio.md wants a Summary: it has facts but no Summary yet, or the Summary is the
    one biomd wrote (`written`, from `lines` lines) and bio.md has grown well past it. A
    Summary the owner or a model wrote stays."""
    summary = section(bio, "summary").strip().strip("_").strip()
    now = len(numbered(bio))
    if not summary or summary in NOTHING_YET.values():
        return bool(now)
    return bool(written) and summary == written.strip() and now >= GROWTH * max(1, lines)


def written(bio: str) -> str:
    """The Summary as it stands, to know it again."""
    return section(bio, "summary").strip()


def numbered(bio: str) -> dict[int, str]:
    """bio.md's lines that state something, numbered from 1 (Identity, Timeline, People,
    Patterns, Inferences), at most MOST_LINES of them."""
    out: dict[int, str] = {}
    for key in FROM:
        for item in bullets(section(bio, key)):
            if citations(item) and len(out) < MOST_LINES:
                out[len(out) + 1] = item
    return out


def request(lines: dict[int, str], owner: Sequence[str], language: str) -> list[dict[str, str]]:
    name = owner[0] if owner else "the owner"
    tongue = (
        f"Write in the language whose code is '{language}'."
        if language
        else "Write in the language of the lines."
    )
    system = SYSTEM.format(
        name=name, sentences=SUMMARY_SENTENCES, identity=IDENTITY_LINES, language=tongue
    )
    text = "\n".join(f"L{n}: {line}" for n, line in lines.items())
    return [
        {"role": "system", "content": system},
        *({"role": role, "content": said} for role, said in EXAMPLE),
        {"role": "user", "content": text},
    ]


def kept(reply: str, lines: dict[int, str], bio: str = "", owner: Sequence[str] = ()) -> Top:
    """The reply's sentences that rest on their lines, each ending in its lines' citations,
    and that call no one by another relation than bio.md's People section does."""
    out = Top()
    relations = people.relations_in(section(bio, "people"))
    data = next((v for v in json_values(reply) if isinstance(v, dict)), None) or _salvaged(reply)
    known = " ".join(owner)  # the owner's own names need no line
    bare = {n: f"{CITES.sub('', line)} {known}" for n, line in lines.items()}
    for part, most, into in (
        ("summary", SUMMARY_SENTENCES, out.summary),
        ("identity", IDENTITY_LINES, out.identity),
    ):
        items = data.get(part)
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict):
                continue
            cited = [n for n in item.get("lines", []) if isinstance(n, int)]
            for text in sentences(" ".join(str(item.get("text", "")).split())):
                if len(into) >= most:
                    break
                if any(text in x for x in into):
                    continue  # said already (a small model repeats itself)
                named = _narrowed(text, cited, bare, known)
                why = refusal(text, named, bare) if text else "it is empty"
                why = why or people.relation_conflict(text, relations)
                if why:
                    out.refused.append(f"{text!r}: {why}")
                    continue
                ids = sorted({i for n in named for i in citations(lines[n])})
                into.append(f"{text.rstrip()} [{', '.join(f'#{i}' for i in ids)}]")
    return out


_TEXT = re.compile(r'"(summary|identity)"\s*:\s*\[\s*\{\s*"text"\s*:\s*"((?:[^"\\]|\\.)*)')


def _salvaged(reply: str) -> dict[str, Any]:
    """Of a reply cut off inside its JSON, the text each part began: its sentences are
    checked against the lines that share their words (no lines were named)."""
    out: dict[str, Any] = {}
    for part, text in _TEXT.findall(reply):
        whole = text[: max(text.rfind(". "), text.rfind("! "), text.rfind("? ")) + 1]
        out.setdefault(part, []).append({"text": whole.replace('\\"', '"'), "lines": []})
    return out


def _narrowed(text: str, cited: list[int], lines: dict[int, str], owner: str = "") -> list[int]:
    """Of many lines named, the few (CITED at most) that share most words with the
    sentence, the owner's names aside: a sentence naming every line rests on those that
    say it."""
    if cited and len(cited) <= CITED:
        return cited
    words = content_stems(text) - content_stems(owner)
    cited = cited or list(lines)  # none named (a reply cut off): the lines that say it
    shared = sorted(
        (n for n in cited if n in lines and words & content_stems(lines[n])),
        key=lambda n: -len(words & content_stems(lines[n])),
    )
    return sorted(shared[:CITED])


async def write(model: JsonModel, bio: str, owner: Sequence[str], language: str = "") -> Top:
    """The Summary and Identity for bio.md as it is, from one call; a second when the first
    reply ran on (cut at its length, or repeating itself) and gave nothing."""
    lines = numbered(bio)
    messages = request(lines, owner, language)
    top = Top()
    for _ in range(TRIES):
        await model.check_budget()
        reply = await model.complete_json(messages, SCHEMA, "summary", REPLY_TOKENS, steady=True)
        top = kept(reply.text, lines, bio, owner)
        if top.summary or top.identity or reply.finish_reason == "stop":
            break
        messages = [
            *messages,
            {"role": "assistant", "content": reply.text[:600]},
            {"role": "user", "content": RAN_ON},
        ]
    if top.refused:
        log.info("summary sentences dropped: %s", "; ".join(top.refused))
    return top


def into(bio: str, top: Top) -> str:
    """bio.md with the Summary in place of its placeholder, as one paragraph, and the
    Identity lines it doesn't hold yet added."""
    if top.summary:
        region = find_section(bio, "summary")
        rest = bio[region.end :].lstrip("\n")
        bio = f"{bio[: region.body_start]}{' '.join(top.summary)}\n\n{rest}"
    held = fold(bio)
    for line in top.identity:
        if fold(CITES.sub("", line)) not in held:
            bio = apply_edit(bio, "", f"- {line}", "identity")
    return bio

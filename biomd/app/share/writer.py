"""The biographer writes a portrait for its audience, from the rules' portrait only (so
it never sees a hidden name, a left-out section or source text). Each sentence names the
lines it rests on; a sentence whose lines don't exist or don't say it is refused back to
the model, and dropped if it is refused again."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from biomd.app.share.portrait import LEFT_OUT, Item, Portrait, PortraitPart
from biomd.biographer.json_reply import Unreadable, json_values
from biomd.biographer.support import SENTENCES, refusal
from biomd.models.llm import JsonModel

ROUNDS = 2  # the first writing, then one more for the sentences refused
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "parts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "section": {"type": "string"},
                    "sentences": SENTENCES,
                },
                "required": ["section", "sentences"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["parts"],
    "additionalProperties": False,
}
SYSTEM = (
    "You write a short portrait of one person for {audience}, from the numbered lines of "
    "their own record below and nothing else. Tone: {tone}. Write in the language whose "
    "code is '{language}'. Write about the person in the third person, by the name the "
    "lines use. Other people appear only as the lines show them (a role or an initial): "
    "never guess a name. Add no fact, date, number or name that the lines do not give.\n\n"
    "Reply with JSON only: "
    '{{"parts": [{{"section": "<section>", "sentences": [{{"text": "...", "lines": [1, 2]}}]}}]}}. '
    "Use these sections, in this order: {sections}. Write one short sentence at a time, "
    'each with its own "lines": the L numbers of the lines that say what it says (cite '
    "every line a fact of the sentence comes from). A sentence whose lines do not say it "
    "is refused.{limit}"
)


@dataclass(frozen=True)
class Written:
    portrait: Portrait
    support: list[dict[str, object]]  # each sentence and the bio.md lines it rests on
    refused: list[str]  # the sentences dropped, with why


def numbered(portrait: Portrait) -> tuple[str, dict[int, Item], dict[int, str]]:
    """The portrait's items as numbered lines under their sections, for the model."""
    out, items, keys = [], {}, {}
    n = 0
    for part in portrait.parts:
        out.append(f"## {part.key}")
        for item in part.items:
            n += 1
            items[n] = item
            keys[n] = part.key
            out.append(f"L{n}: {item.text.replace(LEFT_OUT, '').strip(' :')}")
    return "\n".join(out), items, keys


async def write(model: JsonModel, portrait: Portrait, max_tokens: int = 2000) -> Written:
    """The model's portrait, each kept sentence resting on lines that say it."""
    text, items, _ = numbered(portrait)
    lines = {n: i.text for n, i in items.items()}
    audience = portrait.audience
    limit = (
        f" The whole must stay under {audience.limit} characters: be brief."
        if audience.limit
        else ""
    )
    system = SYSTEM.format(
        audience=audience.title,
        tone=audience.tone,
        language=portrait.language,
        sections=", ".join(p.key for p in portrait.parts),
        limit=limit,
    )
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": text},
    ]
    kept: dict[str, list[tuple[str, list[int]]]] = {p.key: [] for p in portrait.parts}
    refused: list[str] = []
    seen: set[str] = set()
    for round_ in range(ROUNDS):
        await model.check_budget()
        reply = await model.complete_json(messages, SCHEMA, "share", max_tokens)
        try:
            parts = _parts(reply.text)
        except Unreadable as exc:
            parts = []
            refused = [f"(the whole reply: {exc})"]
        else:
            refused = []
        for key, sentence, cited in parts:
            why = refusal(sentence, cited, lines)
            said = " ".join(sentence.casefold().split())
            if why is None and said in seen:
                continue  # said already (a small model often sends it all again)
            if why is None and key in kept:
                kept[key].append((sentence, cited))
                seen.add(said)
            else:
                named = "; ".join(f"L{n} says {lines[n]!r}" for n in cited if n in lines)
                shown = f" ({named})" if named else ""
                refused.append(f"{sentence!r}: {why or f'there is no section {key}'}{shown}")
        if not refused or round_ == ROUNDS - 1:
            break
        messages += [
            {"role": "assistant", "content": reply.text},
            {
                "role": "user",
                "content": "These sentences were refused:\n- "
                + "\n- ".join(refused)
                + "\nReply with the same JSON holding only their replacements, each resting "
                "on lines that say it, or with no sentences to drop them.",
            },
        ]
    new_parts = []
    support: list[dict[str, object]] = []
    for part in portrait.parts:
        sentences = kept[part.key]
        if not sentences:  # everything the model wrote here fell: the rules' items stand
            new_parts.append(part)
            support += [{"text": i.text, "lines": list(i.lines)} for i in part.items]
            refused.append(f"(section {part.key}: kept as tidied by rules)")
            continue
        new_items = []
        for sentence, cited in sentences:
            rests = sorted({n for c in cited for n in items[c].lines})
            sources = tuple(dict.fromkeys(s for c in cited for s in items[c].sources))
            new_items.append(Item(sentence, tuple(rests), sources))
            support.append({"text": sentence, "lines": rests})
        new_parts.append(PortraitPart(part.key, part.heading, tuple(new_items), part.prose))
    done = replace(portrait, parts=tuple(new_parts), refused=tuple(refused))
    return Written(done, support, refused)


def _number(value: object) -> int:
    """A line number as the model wrote it: 3, "3" or "L3" (0 when it is none)."""
    digits = str(value).strip().lstrip("Ll")
    return int(digits) if digits.isdigit() else 0


def _parts(reply: str) -> list[tuple[str, str, list[int]]]:
    """(section, sentence, line numbers) from the model's reply."""
    for data in json_values(reply):
        if isinstance(data, dict) and isinstance(data.get("parts"), list):
            out = []
            for part in data["parts"]:
                if not isinstance(part, dict):
                    continue
                key = str(part.get("section", "")).strip().lower()
                for s in part.get("sentences") or []:
                    if isinstance(s, dict) and str(s.get("text", "")).strip():
                        cited = [int(n) for n in map(_number, s.get("lines") or []) if n]
                        out.append((key, str(s["text"]).strip(), cited))
            return out
    raise Unreadable(f"the reply is not the portrait JSON: {reply.strip()[:120]!r}")

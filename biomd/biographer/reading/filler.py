"""Filler: the lines of a chat that can't carry a fact, left out of what the reader is sent.

A chat is mostly reactions and logistics ("ok", "haha", "👍", "[image omitted]"). Only
chat lines (`[YYYY-MM-DD HH:MM] Speaker: text`, biomd.ingest.convert.chat) are judged, and
by shape, in any language (no word lists):

- a body is *empty* when, once the converters' media placeholders (`[image omitted]`,
  `[sticker …]`, `[attachment: file.jpg]`, `<Media omitted>`…) and their framing
  (`(replying to …)`, `(edited)`…) are set aside, fewer than MIN_LETTERS letters are left,
  not counting laughter (a word of 4 or more letters, or 2 CJK characters, made of at most
  two distinct ones: "hahaha", "jajaja", "kkkk", "хахаха", "哈哈哈"); a Chinese, Japanese
  or Korean character counts CJK_WEIGHT letters; digits, emoji and punctuation count
  nothing. So "ok", "👍", "😂😂", "ㅋㅋㅋ", "ржу", "lol", "15:30" are empty; "I quit",
  "Mama died", "他死了" are not;
- a body is a *reaction* when it is short (at most SHORT_LETTERS letters) and the same
  (folded, punctuation and emoji aside) is said REPEATS times or more in the text: its
  first saying is kept, the others left out ("on my way", "good night", "love you");
- the *answer* to a question is kept whatever it is (unless only a media placeholder): the
  first line by another speaker after a line kept for what it says that asks something
  (a "?", "？", "؟" in it, or ";" in Greek), the lines of the same speaker in between skipped.
  So "yes" after "will you marry me?", and "👍" after "shall we take the flat?", stay;
  "haha" or "ok" after a statement goes (an acknowledgement after a statement holds no fact,
  and keeping those would keep most of the filler: bench/filler.py).

Every other line is kept whole, and lines that are not chat lines (headers, prose, a
journal) always are; a text with fewer chat lines than other lines is sent unchanged. Kept
lines are the original lines, so a quote of what was sent is found in the original text.
Dropped lines are left out with no marker: a marker per run costs more than the time stamps
already say (bench/filler.py measures it). Pure."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from biomd.fold import fold

MIN_LETTERS = 4  # fewer letters than this (laughter aside) say nothing
CJK_WEIGHT = 1.5  # one Chinese, Japanese or Korean character, in letters
SHORT_LETTERS = 16  # a body this short, said REPEATS times, is a reaction
REPEATS = 3
QUESTION = frozenset("?？؟⸮\u037e")
_GREEK = re.compile("[\u0370-\u03ff]")  # Greek asks with ";", which elsewhere winks ";)"

_LINE = re.compile(
    r"\[(?:\d{4}-\d{2}-\d{2} \d{2}:\d{2}|unknown time)\] (?P<who>[^\n]+?): ?(?P<body>.*)"
)
# the converters' own forms of media that carry no words (media described or transcribed
# keep their words: `[photo x.jpg (…): a dog on a beach]`, `[voice note x.ogg 0:12: "…"]`)
_MEDIA = re.compile(
    r"\[[^\[\]:]{1,40} omitted\]"  # WhatsApp: [image omitted], [media omitted]
    r"|\[(?:sticker|GIF)\b[^\[\]]{0,80}\]"  # a sticker or GIF, named or with its emoji
    r"|\[[^\[\]]{1,40}?: [^\s\[\]]{0,200}\.\w{2,5}\]"  # [attachment: 0012-PHOTO.jpg]: a file
    r"|^[<‹][^<>‹›:/]{3,50}[>›]$",  # an Android placeholder in the phone's language
    re.I,
)
_FRAMING = re.compile(
    r'^\(replying to (?:an earlier message|.{0,160}?"\))\s*'
    r"|^\(forwarded from [^()]{0,120}\)\s*"
    r"|\s*\((?:edited|reactions: [^()]{0,200}|unsent a message)\)$"
)
_WORD = re.compile(r"[^\W\d_]+")
_CJK = re.compile("[\u2e80-\u312f\u31a0-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]")


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One line of the text: its speaker and body when it is a chat line."""

    text: str
    speaker: str | None = None  # None: not a chat line
    body: str = ""


def parse(text: str) -> list[ChatLine]:
    """The text's lines (split at "\\n", so joining them gives it back)."""
    out = []
    for raw in text.split("\n"):
        m = _LINE.fullmatch(raw.rstrip("\r"))
        out.append(ChatLine(raw, m["who"], m["body"]) if m else ChatLine(raw))
    return out


def is_chat(lines: list[ChatLine]) -> bool:
    """Whether most of the lines with something on them are chat lines."""
    said = [line for line in lines if line.text.strip()]
    return bool(said) and sum(line.speaker is not None for line in said) * 2 > len(said)


def words(body: str) -> str:
    """The body without the converters' media placeholders and framing."""
    return _MEDIA.sub(" ", _FRAMING.sub("", body.strip()))


def is_laughter(word: str) -> bool:
    """A word made of one or two letters over and over, 4 letters or more ("hahaha", "jaja",
    "kkkk", "хаха"), or of one CJK character said again ("哈哈", "ㅋㅋㅋ")."""
    if _CJK.match(word):  # a CJK word of two characters is most words: one said again
        return len(word) >= 2 and len(set(word)) == 1
    return len(word) >= 4 and len(set(word.casefold())) <= 2


def letters(body: str) -> float:
    """How many letters the body says, laughter and placeholders aside (CJK weighed more)."""
    total = 0.0
    for word in _WORD.findall(words(body)):
        if not is_laughter(word):
            wide = len(_CJK.findall(word))
            total += len(word) - wide + wide * CJK_WEIGHT
    return total


def is_empty(body: str) -> bool:
    """Whether the body says too little to hold a fact."""
    return letters(body) < MIN_LETTERS


def key(body: str) -> str | None:
    """What a short body says, folded, for counting how often it is said; None when long."""
    if letters(body) > SHORT_LETTERS:
        return None
    return " ".join(re.findall(r"\w+", fold(words(body)))) or None


def is_question(body: str) -> bool:
    """Whether the body asks something, in any script."""
    return any(c in QUESTION for c in body) or (";" in body and bool(_GREEK.search(body)))


def kept(lines: list[ChatLine]) -> list[bool]:
    """For each line, whether it is sent (the rules in this module's docstring)."""
    keys = [key(line.body) if line.speaker is not None else None for line in lines]
    counts = Counter(k for k in keys if k)
    seen: set[str] = set()
    keep: list[bool] = []
    for line, k in zip(lines, keys, strict=True):
        if line.speaker is None:
            keep.append(True)
        elif is_empty(line.body):
            keep.append(False)
        elif k and counts[k] >= REPEATS:
            keep.append(k not in seen)
            seen.add(k)
        else:
            keep.append(True)
    own = [k and not (key_ and counts[key_] >= REPEATS) for k, key_ in zip(keep, keys, strict=True)]
    for i, line in enumerate(lines):
        if own[i] and line.speaker is not None:
            j = _answer(lines, i)
            if j is not None and not keep[j] and _answers(lines[j].body, line.body):
                keep[j] = True
    return keep


def _answer(lines: list[ChatLine], i: int) -> int | None:
    """The first chat line after line i by someone else, over the same speaker's lines."""
    for j in range(i + 1, len(lines)):
        who = lines[j].speaker
        if who is None:
            return None
        if who != lines[i].speaker:
            return j
    return None


def _answers(reply: str, said: str) -> bool:
    """Whether a reply left out is an answer worth keeping after `said`."""
    return is_question(said) and bool(words(reply).strip())  # not only media


def sent(text: str) -> str:
    """The text the reader is sent: a chat without its filler, anything else unchanged."""
    lines = parse(text)
    if not is_chat(lines):
        return text
    return "\n".join(line.text for line, keep in zip(lines, kept(lines), strict=True) if keep)


def sent_chars(text: str) -> int:
    """How many characters of `text` the reader will be sent."""
    return len(sent(text))


def reach(text: str, size: int) -> int:
    """How much of `text` (a count of its characters, at a line's end where one is) sends
    about `size` characters; all of it when it sends less."""
    lines = parse(text)
    if not is_chat(lines):
        return min(len(text), size)
    at = total = 0
    for line, keep in zip(lines, kept(lines), strict=True):
        if keep:
            if total + len(line.text) > size and at:
                return at
            total += len(line.text) + 1
        at = min(len(text), at + len(line.text) + 1)
    return len(text)

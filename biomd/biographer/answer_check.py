"""An answer that proves itself: the model's reply is the answer and the verbatim quotes it
rests on (or that the sources are silent); biomd finds each quote in the passages the turn
was shown, as a reader's note is found (quotes.locate: case, accents and quote marks
folded), and keeps only the answer its quotes hold up. Then, by rules:
- the premise: a question about someone answered by what another person said or did is
  said to be about them ("Your sources say this of Melanie, not Caroline");
- the date: a question about time gets the date of the quote's own message, with a relative
  time in it resolved ("last Friday" said on 2023-08-21 is 2023-08-18), not the model's.
Pure functions; the turn (turn.py) gives them the reply and the passages."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from biomd.biographer import who
from biomd.biographer.answer_claims import STAMP, Backed, dated, sentences, terms, unquoted
from biomd.biographer.evidence import ShownPassage
from biomd.biographer.prompts import LANGUAGE_NAMES
from biomd.biographer.reading.quotes import RUN_WORDS, locate, longest_piece, longest_run
from biomd.biographer.support import content_stems
from biomd.fold import fold, fold_mapped
from biomd.retrieval.fts_query import content_tokens
from biomd.retrieval.language import detect

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string"},
        "quotes": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"source": {"type": "integer"}, "quote": {"type": "string"}},
                "required": ["source", "quote"],
            },
        },
        "silent": {"type": "boolean"},
    },
    "required": ["answer", "quotes", "silent"],
}
"""The reply of a chat turn that answers from passages, under the endpoint's JSON schema."""

UNSAID_WORDS = 4  # words an answer adds to its question before its quotes must say some
UNSAID_SHARE = 0.25
SAID_INSTEAD = "Your sources say, in their own words:"
SURE_OF_LANGUAGE = 0.8  # how sure the detector must be of a question's language to name it
ASK = (
    'Reply in JSON: {"answer": one or two sentences, the answer first, "quotes": [{"source":'
    ' the source id, "quote": the exact words from that passage that say it}], "silent":'
    " true if the passages don't say}. Copy each quote word for word from one passage; one "
    "quote for each part of the answer. If the passages don't say, or say it of someone "
    "else, set silent to true and say so."
)
SHOWN_QUOTES = 3  # quote lines under an answer, at most: a phone's screen
SHORT_QUOTE = 240  # characters of a quote shown whole; a longer one by its best sentence
WHOLE_LINE = 500  # characters: a line longer than this is shown by the words found in it
INFER = (
    "This question asks what is likely: infer it from the passages, say that it is likely, "
    "and quote the words you infer it from."
)


def ask_for(question: str) -> str:
    """How to reply to this question: ASK, for one that asks what is likely ("Which state
    might they live in?") that an inference from quoted words is wanted, and the language
    to answer in, the question's (a 1.5B model answered German questions in English, though
    its rules said to answer in the language of the question)."""
    asked = f"{ASK} {INFER}" if _INFERS.search(question) else ASK
    found = detect(question)
    if found is None or found[1] < SURE_OF_LANGUAGE or found[0] not in LANGUAGE_NAMES:
        return asked
    return f"{asked} Write the answer in {LANGUAGE_NAMES[found[0]]}."


BIO = "bio.md"  # the name a bio.md line goes by as a passage (in_bio)
SILENT = "Your sources don't say."
UNBACKED = "(biomd found nothing in your sources that says this: it is the model's own answer.)"
_TIME = re.compile(r"\b(when|what (day|date|time|year|month)|how long ago|since when)\b", re.I)
_QUOTED = re.compile(r'“([^”\n]{8,})”|"([^"\n]{8,})"|«([^»\n]{8,})»|„([^“”\n]{8,})[“”]')
_CITED = re.compile(r"\[?#(\d+)\b")
_SAYS_SILENT = re.compile(
    r"\b(?:do(?:es)?n[’']?t|do(?:es)? not|can[’']?t|cannot) (?:say|mention|tell|show)\b|"
    r"\bno (?:mention|record|information)\b|\bnot (?:mentioned|recorded)\b",
    re.I,
)
_BOILERPLATE = re.compile(
    r"^(?:based on|according to|from|in) (?:the |your |what )?(?:passages?|sources?|"
    r"information|notes|messages|biomd)\b[^.:,\n]{0,80}[,:]\s*",
    re.I,
)
_INFERS = re.compile(r"\b(?:might|would|likely|probably|could)\b", re.I)
"""A question that asks for an inference ("Which state might they live in?")."""


@dataclass(frozen=True)
class Claimed:
    """What the model replied."""

    answer: str
    quotes: tuple[tuple[int, str], ...]  # (source id, or 0 where none is named; the words)
    silent: bool
    free: bool = False  # free text (from_text), not the structured reply


def parse(reply: str) -> Claimed | None:
    """The reply as JSON under SCHEMA (also inside a ``` fence, or after some text); None
    when it isn't."""
    text = reply.strip()
    fenced = re.search(r"```(?:json)?\s*(\{.*\})\s*```", text, re.S)
    body = fenced.group(1) if fenced else text[text.find("{") : text.rfind("}") + 1]
    try:
        found = json.loads(body)
    except ValueError:
        return None
    if not isinstance(found, dict) or not isinstance(found.get("answer"), str):
        return None
    quotes = []
    for q in found.get("quotes") or []:
        if isinstance(q, dict) and str(q.get("quote") or "").strip():
            try:
                quotes.append((int(str(q.get("source", "")).lstrip("#")), str(q["quote"])))
            except ValueError:
                continue
    return Claimed(found["answer"].strip(), tuple(quotes), bool(found.get("silent")))


def from_text(reply: str) -> Claimed:
    """A reply in free text, as a model that researched with tools writes it, or one whose
    server takes no schema: its quoted words (“…”, "…", «…», „…“) with the source cited
    just after (or before) each in its line, and whether it says the sources are silent."""
    quotes = []
    for m in _QUOTED.finditer(reply):
        words = next(g for g in m.groups() if g is not None)
        line_end = reply.find("\n", m.end())
        after = _CITED.search(reply, m.end(), line_end if line_end >= 0 else len(reply))
        before = _CITED.findall(reply, reply.rfind("\n", 0, m.start()) + 1, m.start())
        source = int(after.group(1)) if after else int(before[-1]) if before else 0
        quotes.append((source, words))
    silent = not quotes and bool(_SAYS_SILENT.search(reply))
    return Claimed(reply.strip(), tuple(quotes), silent, free=True)


def backed(claimed: Claimed, passages: Sequence[ShownPassage]) -> list[Backed]:
    """The claimed quotes found in the passages of the sources they cite (any passage of it
    the turn was shown), each once. A quote that cites no source, or the wrong one (a small
    model miscopies ids), is looked for in every passage shown: it is cited where it is."""
    out: list[Backed] = []
    for found in _backing(claimed, passages).values():
        if found is not None and found not in out:
            out.append(found)
    return out


def _backing(claimed: Claimed, passages: Sequence[ShownPassage]) -> dict[str, Backed | None]:
    """Each claimed quote, and where it is (None: nowhere shown)."""
    out: dict[str, Backed | None] = {}
    for source, quote in claimed.quotes:
        cited = [p for p in passages if p.document_id == source]
        out[quote] = _found(quote, [*cited, *(p for p in passages if p.document_id != source)])
    return out


def _found(quote: str, passages: Sequence[ShownPassage]) -> Backed | None:
    """Where a quote is: verbatim (folded) in the first passage that has it; else, for a
    quote a small model garbled at its edges, the line holding the longest run of its words
    (at least half of them), shown whole, in the source's own words."""
    for p in passages:
        span = locate(quote, fold_mapped(p.text))
        if span is not None:
            return _at(p, *span)
    least = max(RUN_WORDS, len(quote.split()) // 2)
    for p in passages:
        span = longest_run(quote, fold_mapped(p.text))
        if span is None or len(p.text[span[0] : span[1]].split()) < least:
            continue
        start = p.text.rfind("\n", 0, span[0]) + 1
        end = p.text.find("\n", span[1])
        end = len(p.text) if end < 0 else end
        return _at(p, start, end) if end - start <= WHOLE_LINE else _at(p, *span)
    return None


def wanted(claimed: Claimed) -> list[tuple[int, list[str]]]:
    """What to look for in the sources a reply cites, beyond the passages shown: each
    quote's longest piece; for free text that quotes nothing, its cited sentences' words."""
    if claimed.quotes:
        return [(s, [longest_piece(w)]) for s, w in claimed.quotes]
    out: list[tuple[int, list[str]]] = []
    for sentence in sentences(claimed.answer):
        words = content_tokens(_CITED.sub(" ", sentence))
        out += [(int(n), words) for n in _CITED.findall(sentence)]
    return out


def lines_cited(text: str, passages: Sequence[ShownPassage]) -> list[Backed]:
    """For free text that quotes nothing: each sentence that cites a source ([#N]) backed by
    the line of that source's passages sharing most of its content words (at least half of
    them, and two), each line once."""
    out: list[Backed] = []
    for sentence in sentences(text):
        cited = {int(n) for n in _CITED.findall(sentence)}
        words = set(content_tokens(_CITED.sub(" ", sentence)))
        if not cited or len(words) < 2:
            continue
        best: tuple[int, ShownPassage, int, int] | None = None
        for p in passages:
            if p.document_id not in cited:
                continue
            at = 0
            for line in p.text.split("\n"):
                shared = len(words & set(content_tokens(STAMP.sub("", line))))
                if shared and (best is None or shared > best[0]):
                    best = (shared, p, at, at + len(line))
                at += len(line) + 1
        if best and best[0] >= max(2, len(words) / 2):
            found = _at(best[1], best[2], best[3])
            if found not in out:
                out.append(found)
    return out


def _at(p: ShownPassage, start: int, end: int) -> Backed:
    """The quote at [start, end) of a passage, with its line's date and speaker."""
    line_start = p.text.rfind("\n", 0, start) + 1
    line_end = p.text.find("\n", end)
    line = p.text[line_start : line_end if line_end >= 0 else len(p.text)]
    stamp = STAMP.match(line)
    day = stamp.group(1) if stamp else "" if " to " in p.dates else p.dates[:10]
    said_by = who.speaker(line)
    quote = p.text[start:end]
    if start == line_start and (said := who.SPEAKER.match(quote)):
        quote = quote[said.end() :]  # a whole line: its words, without stamp and speaker
    elif said_by and (named := re.match(rf"\s*{re.escape(said_by)}(?: \(owner\))?:\s", quote)):
        quote = quote[named.end() :]  # from its speaker's name on: the words
    return Backed(p.document_id, p.name, quote.strip(), line.strip(), day, said_by)


def asks_when(question: str) -> bool:
    return bool(_TIME.search(question))


def premise(
    question: str, quotes: Sequence[Backed], owner: Sequence[str], people: Sequence[str] = ()
) -> str | None:
    """What to say when every quote is by or of someone other than the person the question
    is about ("Your sources say this of Melanie, not Caroline: '…'"); None when a quote is
    theirs, or the question names no one the quotes could be of. A question is about the
    owner (by "I", "my", in their languages), or about the `people` it names (who speak in
    the passages shown) or who speak in the quotes, else the names it holds."""
    speakers = [q.speaker for q in quotes if q.speaker]
    if not quotes or len(speakers) < len(quotes):
        return None
    about = who.named(question, sorted(set(speakers) | set(people)))
    mine = bool(owner) and bool(who.SINGULAR_FIRST.search(question))
    if mine:
        about = [*about, *owner]
    elif not about:  # a name no one speaks under, in a question not about the owner
        about = who.names_in(question)
    if not about:
        return None
    keys = {who.key(a) for a in about}
    if any(keys & who.parties(q.quote, q.speaker) for q in quotes):
        return None  # said by them, or names them
    said_by = quotes[0].speaker
    asked = "you" if mine and about[0] == owner[0] else about[0]
    return f"Your sources say this of {said_by}, not {asked}: {cite(quotes[0], question)}"


def speakers_in(passages: Sequence[ShownPassage]) -> list[str]:
    """Everyone who speaks in the passages (a chat's "[stamp] Name: …" lines), each once."""
    found = (who.speaker(line) for p in passages for line in p.text.split("\n"))
    return list(dict.fromkeys(x for x in found if x))


def cite(q: Backed, about: str = "") -> str:
    """One quote for the owner: its words (a long one, the sentence of it that says most of
    `about`), then where they are (source, date, speaker)."""
    who = f", {q.speaker}" if q.speaker else ""
    when = f", {q.day}" if q.day else ""
    if q.name == BIO:  # bio.md's words, which cite the source: not the source's own
        who = f", {BIO}'s line"
    words = " ".join(q.quote.split())  # one line, though the source wraps it
    return f"“{_short(words, about)}” [#{q.document_id}{when}{who}]"


def _short(quote: str, about: str) -> str:
    """A quote short enough for a phone: whole up to SHORT_QUOTE characters, else its
    sentence sharing most words with `about` (the first, if none does), marked cut with …"""
    if len(quote) <= SHORT_QUOTE:
        return quote
    wanted = set(content_tokens(about))
    parts = [m for m in re.finditer(r"[^.!?]+[.!?]*", quote) if m.group().strip()]
    best = max(parts, key=lambda m: len(wanted & set(content_tokens(m.group()))))
    if not wanted & set(content_tokens(best.group())):
        return quote[:SHORT_QUOTE].rsplit(" ", 1)[0] + " …"
    piece = best.group().strip()
    if len(piece) > SHORT_QUOTE:
        piece = piece[:SHORT_QUOTE].rsplit(" ", 1)[0] + " …"
    before = "… " if best.start() > 0 else ""
    after = " …" if best.end() < len(quote.rstrip()) and not piece.endswith("…") else ""
    return f"{before}{piece}{after}"


_CITED_LINE = re.compile(r"^- “(.+)” \[#(\d+)((?:, [^\]\n]*)?)\]$")


@dataclass(frozen=True)
class Shown:
    """A quote line of an answer as the owner reads it (`cite`): words, source, where."""

    quote: str
    document_id: int
    where: str  # "2023-05-07, Melanie", or ""


def quote_lines(report: str) -> tuple[str, list[Shown]]:
    """A checked answer split into what it says and the quote lines under it, for a
    front-end that folds the quotes away (the web view)."""
    said: list[str] = []
    shown: list[Shown] = []
    for line in report.split("\n"):
        m = _CITED_LINE.match(line)
        if m:
            shown.append(Shown(m.group(1), int(m.group(2)), m.group(3).lstrip(", ")))
        else:
            said.append(line)
    return "\n".join(said).strip(), shown


def checked(
    question: str,
    claimed: Claimed | None,
    passages: Sequence[ShownPassage],
    owner: Sequence[str] = (),
    *,
    strict: bool = True,
    behind: Mapping[str, Backed] | None = None,
) -> tuple[str, list[Backed]]:
    """The answer the owner is shown, and the quotes it rests on: the model's answer with
    its verified quotes; the premise reply where they are another person's; the quote's
    date where the question asks when; else that the sources don't say, with the nearest
    passages. Free text that quotes nothing rests on the lines its citations point to; when
    `strict` is off (a model that researched with tools), free text that rests on nothing
    stands, marked as the model's own. A quote found only in a bio.md line is shown as the
    source's words that line rests on (`behind`, by the line), where they are known."""
    backing = _backing(claimed, passages) if claimed else {}
    quotes = _widest(q for q in backing.values() if q is not None)
    if claimed and claimed.free and not claimed.quotes:
        quotes = lines_cited(claimed.answer, passages)
    quotes = _through_sources(quotes, behind or {})
    people = speakers_in(passages)
    wrong = premise(question, quotes, owner, people) if quotes else None
    if claimed and claimed.silent and wrong:
        return wrong, quotes  # silent, as the model says: the quote is another person's
    if claimed is None or claimed.silent or not quotes:
        if claimed and not strict and claimed.free and not claimed.quotes and not claimed.silent:
            # a model that researched with tools: its answer stands, marked when it claims
            return claimed.answer + (f"\n\n{UNBACKED}" if claims(claimed.answer) else ""), []
        return _silent(passages), []
    if wrong:
        return wrong, quotes
    answer = _plain(claimed.answer)
    mine = {fold(w) for name in owner for w in name.split()}  # the owner needs no quote
    named = [t for t in terms(answer, question) if fold(t) not in mine]
    loose = unquoted(named, quotes)
    if loose and len(loose) == len(named):
        return _silent(passages, loose), []  # its quotes are real, but say none of it
    if unsaid(answer, question, quotes, mine):  # the quotes are the answer, not its words
        shown = [cite(q, question) for q in quotes[:SHOWN_QUOTES]]
        return "\n".join([f"{SAID_INSTEAD} {shown[0]}", *(f"- {x}" for x in shown[1:])]), quotes
    if asks_when(question):
        answer = dated(answer, quotes[0])
    elif _INFERS.search(question):
        answer += f" (an inference, from the quote{'s' if len(quotes) > 1 else ''} below)"
    lines = [answer, *(f"- {cite(q, answer)}" for q in quotes[:SHOWN_QUOTES])]
    missing = [w for w, q in backing.items() if q is None]
    lines += [f"(biomd found no “{w[:80]}” in your sources.)" for w in missing]
    if loose:
        lines.append(f"(No quote says {_listed(loose)}.)")
    return "\n".join(lines), quotes


def unsaid(
    answer: str, question: str, quotes: Sequence[Backed], owner_words: Iterable[str] = ()
) -> bool:
    """Whether an answer says what its real quotes don't: of the words it adds to the
    question (UNSAID_WORDS at least), fewer than UNSAID_SHARE are in them ("because I was
    busy with running" over "I stopped in April, the tutor moved to Brazil"). Only where the
    answer and its quotes are in one language: a translation shares no words."""
    added = content_stems(answer) - content_stems(question) - content_stems(" ".join(owner_words))
    if len(added) < UNSAID_WORDS:
        return False
    said = " ".join(q.quote for q in quotes)
    tongues = detect(answer), detect(said)
    if all(tongues) and len({t[0] for t in tongues if t}) > 1:
        return False
    return len(added & content_stems(said)) < UNSAID_SHARE * len(added)


def bio_hits(claimed: Claimed | None, passages: Sequence[ShownPassage]) -> list[tuple[int, str]]:
    """The bio.md lines (source, line) where a claimed quote is found, and nowhere else."""
    if claimed is None:
        return []
    found: Iterable[Backed | None] = _backing(claimed, passages).values()
    if claimed.free and not claimed.quotes:
        found = lines_cited(claimed.answer, passages)
    return [(q.document_id, q.line) for q in found if q is not None and q.name == BIO]


def _through_sources(quotes: Sequence[Backed], behind: Mapping[str, Backed]) -> list[Backed]:
    """Each quote found in a bio.md line replaced by the source's own words that line rests
    on, where they are known; each once."""
    out: list[Backed] = []
    for q in quotes:
        q = behind.get(q.line, q) if q.name == BIO else q
        if q not in out:
            out.append(q)
    return out


def quote_at(p: ShownPassage, start: int, end: int) -> Backed:
    """The quote at [start, end) of a passage, with its line's date and speaker."""
    return _at(p, start, end)


def _listed(words: Sequence[str]) -> str:
    shown = [f"“{w}”" for w in words[:4]]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def _widest(found: Iterable[Backed]) -> list[Backed]:
    """The quotes found, each once, less any inside another of the same line."""
    out = list(dict.fromkeys(found))
    return [
        q for q in out
        if not any(o != q and o.line == q.line and q.quote in o.quote for o in out)
    ]  # fmt: skip


def claims(text: str) -> bool:
    """Whether free text states something checkable: it cites a source, or names a number
    or a name (a capitalised word inside a sentence); "No changes needed." doesn't."""
    if _CITED.search(text) or re.search(r"\d", text):
        return True
    return any(w != "I" for s in sentences(text) for w in who.NAME.findall(s)[1:])


def in_bio(bio: str) -> list[ShownPassage]:
    """bio.md's lines, each as a passage of every source it cites: an answer may rest on
    them (they were checked against their sources when they were placed)."""
    out = []
    for line in bio.splitlines():
        for n in dict.fromkeys(_CITED.findall(line)):
            out.append(ShownPassage(int(n), BIO, "", None, line.strip().lstrip("-* ")))
    return out


def _plain(answer: str) -> str:
    """The answer without a lead-in ("Based on the passages biomd found, …"): its first
    sentence is the answer."""
    rest = _BOILERPLATE.sub("", answer.strip(), count=1)
    return rest[:1].upper() + rest[1:] if rest != answer.strip() else rest


def _silent(passages: Sequence[ShownPassage], loose: Sequence[str] = ()) -> str:
    first: dict[int, ShownPassage] = {}
    for p in passages:
        first.setdefault(p.document_id, p)  # each source once, best first
    near = [
        f"- #{p.document_id} {p.name}{', ' + p.dates if p.dates else ''}"
        for p in list(first.values())[:3]
    ]
    more = "\nThe nearest passages:\n" + "\n".join(near) if near else ""
    why = f" (The model answered with {_listed(loose)}, which no passage says.)" if loose else ""
    return (
        f"{SILENT}{why}{more}\nIf you know, tell me, and I'll keep it; or say “add it to my "
        "open questions”."
    )

"""The shapes of patterns, found by rules in the owner's own lines (`lines.Line`), for the
model to decide one small yes/no question at a time. Each kind has its rule:

- self-contradiction: two lines about the same named thing (a place, a person, "money"),
  one for it and one against it, at least APART_DAYS apart;
- told one thing, told another: the owner tells one person that all is well with X, and
  another, within AROUND_DAYS, that it isn't;
- avoidance: a hurt or a worry about X told to others or to the journal, while the owner's
  messages to X around then reassure; a hurt raised with X is counter-evidence;
- stated reason: a decision framed as growth or a change, within WITHIN_DAYS of a hurt or
  a conflict;
- said vs did: a plan in the owner's words, and a later line on its subject saying it
  wasn't done;
- cycle: the same plan made in two years or more, each time followed by the same thing.

Each shape carries its lines (exact spans) and the questions that decide it. Linear in the
lines, but for the pairs of lines on one subject. Pure functions."""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from biomd.app.mirror import cue_tables as t
from biomd.app.mirror.care import crisis_in_words
from biomd.app.mirror.dynamics import person_key
from biomd.app.mirror.line_cues import Cues, Read, read
from biomd.app.mirror.lines import Line
from biomd.fold import fold

KINDS = (
    "self_contradiction",
    "told_apart",
    "avoidance",
    "stated_reason",
    "said_vs_did",
    "cycle",
)
APART_DAYS = 90  # a contradiction's two sides are at least this far apart
AROUND_DAYS = 30  # told one, told another; a complaint and a reassurance
WITHIN_DAYS = 14  # a decision this soon after a hurt or a conflict
FOLLOW_DAYS = 365  # what followed a plan: the year after it
LIMIT = 6  # shapes of each kind, the strongest
EVIDENCE = 3  # lines on one side of a shape, at most


@dataclass(frozen=True, slots=True)
class Ask:
    """One yes/no question about one or two of a shape's lines (`lines` index them). Two
    lines are asked in both orders; one line with the answers in both orders."""

    question: str
    lines: tuple[int, ...]
    part: str = ""  # which part of the shape the lines are (an avoidance's complaint…)


@dataclass(frozen=True, slots=True)
class Shape:
    """A candidate pattern: its lines in time order (`against` the lines that speak against
    it), what it is about, who is in it, the questions that decide it, and how strong the
    rule found it."""

    kind: str
    lines: tuple[Line, ...]
    asks: tuple[Ask, ...]
    about: str = ""
    people: tuple[str, ...] = ()
    against: tuple[Line, ...] = ()
    score: float = 0.0

    @property
    def key(self) -> str:
        spans = sorted(f"{x.source_id}:{x.start}:{x.end}" for x in self.lines)
        raw = self.kind + ":" + ",".join(spans)
        return hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]


def _has(r: Read, stem: str) -> bool:
    return stem in r.stems


# -- the rules ----------------------------------------------------------------------------


def contradictions(reads: Sequence[Read], owner: str) -> list[Shape]:
    by_thing: dict[str, list[Read]] = defaultdict(list)
    for r in reads:
        if r.polarity:
            for thing in r.things:
                by_thing[thing].append(r)
    found: dict[tuple[object, ...], Shape] = {}
    for thing, rs in by_thing.items():
        rs.sort(key=lambda r: r.line.day)
        pair = _opposite(rs)
        if pair is None:
            continue
        a, b = pair
        name = _as_written(thing, (a.line.text, b.line.text))
        gap = b.line.day - a.line.day
        shape = Shape(
            "self_contradiction",
            (a.line, b.line),
            (Ask(f"Do these two statements by {owner} say opposite things about {name}?", (0, 1)),),
            about=name,
            people=_people(a, b),
            score=1.0 + min(1.0, gap / 730) + (thing in a.names) * 0.5,
        )
        found.setdefault((a.line.span, b.line.span), shape)
    return _strongest(found.values())


def _opposite(rs: Sequence[Read]) -> tuple[Read, Read] | None:
    """The first line on a thing (in time order) that says the opposite of the earliest one
    of the other side far enough before it, with that one. Linear: a thing named in
    100,000 lines is read once."""
    earliest: dict[int, Read] = {}
    for b in rs:
        a = earliest.get(-b.polarity)
        if a is not None and b.line.day - a.line.day >= APART_DAYS:
            return a, b
        earliest.setdefault(b.polarity, b)
    return None


def told_apart(reads: Sequence[Read], owner: str, people: Mapping[str, str]) -> list[Shape]:
    """`people`: the people known, and the names the owner writes to two people or more."""
    found = []
    told = [r for r in reads if r.line.to and r.things]
    for key, name in people.items():
        about = [r for r in told if key in r.things and r.line.to_key != key]
        fine = [r for r in about if _fine(r)]
        wrong = [r for r in about if _wrong(r)]
        pair = next(
            (
                (a, b)
                for a in fine
                for b in wrong
                if a.line.to != b.line.to and abs(a.line.day - b.line.day) <= AROUND_DAYS
            ),
            None,
        )
        if pair is None:
            continue
        a, b = sorted(pair, key=lambda r: r.line.day)
        ok, bad = (0, 1) if a is pair[0] else (1, 0)
        found.append(
            Shape(
                "told_apart",
                (a.line, b.line),
                (
                    Ask(f"Does this message say that all is well with {name}?", (ok,)),
                    Ask(f"Does this message say that something is wrong with {name}?", (bad,)),
                ),
                about=name,
                people=(name, a.line.to, b.line.to),
                score=2.0 - abs(a.line.day - b.line.day) / AROUND_DAYS,
            )
        )
    return _strongest(found)


def named(reads: Sequence[Read]) -> dict[str, str]:
    """The names the owner writes to two people or more, by their folded form: a word
    capitalised inside a sentence somewhere ("con Javi"), counted wherever it stands, at a
    sentence's start too ("Javi y yo …")."""
    capitals = set().union(*(r.capitals for r in reads))
    told: dict[str, set[str]] = defaultdict(set)
    for r in reads:
        if r.line.to:
            for c in capitals.intersection(r.folded.split()):
                told[c].add(r.line.to)
    return {
        c: _as_written(c, [r.line.text for r in reads if c in r.capitals][:3])
        for c, whom in told.items()
        if len(whom) >= 2
    }


def _fine(r: Read) -> bool:
    return (r.reassure or r.polarity > 0) and not r.hurt


def _wrong(r: Read) -> bool:
    return r.hurt or r.polarity < 0


def avoidances(reads: Sequence[Read], people: Mapping[str, str]) -> list[Shape]:
    found = []
    for key, name in people.items():
        to_them = [r for r in reads if r.line.to_key == key]
        complaints = [r for r in reads if key in r.names and r.line.to_key != key and r.hurt]
        if not to_them or not complaints:
            continue
        soothing = [r for r in to_them if r.reassure and not r.hurt and _near(r, complaints)]
        if not soothing:
            continue
        raised = [r for r in to_them if r.hurt and _near(r, complaints)]
        kept_soothing = soothing[:2]
        closest = sorted(complaints, key=lambda c: _distance(c, kept_soothing))[:EVIDENCE]
        lines = sorted((*closest, *kept_soothing), key=lambda r: (r.line.day, r.line.start))
        asks = tuple(
            Ask(
                f"Is this message a complaint or a worry about {name}?",
                (lines.index(c),),
                "complaint",
            )
            for c in closest
        ) + tuple(
            Ask(
                f"Does this message to {name} tell {name} that all is fine?",
                (lines.index(s),),
                "reassure",
            )
            for s in kept_soothing
        )
        found.append(
            Shape(
                "avoidance",
                tuple(r.line for r in lines),
                asks,
                about=name,
                people=(name,),
                against=tuple(r.line for r in raised[:EVIDENCE]),
                score=float(len(complaints) + len(soothing) - 2 * len(raised)),
            )
        )
    return _strongest(s for s in found if s.score > 0)


def _near(r: Read, others: Sequence[Read], days: int = AROUND_DAYS) -> bool:
    return any(abs(r.line.day - o.line.day) <= days for o in others)


def _distance(r: Read, others: Sequence[Read]) -> int:
    return min((abs(r.line.day - o.line.day) for o in others), default=0)


def stated_reasons(reads: Sequence[Read], owner: str) -> list[Shape]:
    ordered = sorted(reads, key=lambda r: (r.line.day, r.line.start))
    hurts = [r for r in ordered if r.hurt and not r.growth]
    pairs: list[tuple[Read, Read]] = []
    for g in (r for r in ordered if r.growth):
        before = [h for h in hurts if 0 <= g.line.day - h.line.day <= WITHIN_DAYS]
        if not before:
            continue
        latest = max(h.line.day for h in before)
        hurt = next(h for h in before if h.line.day == latest)
        if pairs and g.line.day - pairs[-1][1].line.day <= 7:
            continue  # one decision told twice is one
        pairs.append((hurt, g))
    if not pairs:
        return []
    chosen = pairs[-EVIDENCE:]
    lines = tuple(x.line for pair in chosen for x in pair)
    asks = []
    for i in range(len(chosen)):
        asks.append(Ask("Is this message about a conflict or a hurt?", (2 * i,)))
        asks.append(
            Ask(
                f"Does this message tell of a decision {owner} explains as growth, a change or "
                "a fresh start?",
                (2 * i + 1,),
            )
        )
    return [
        Shape(
            "stated_reason",
            lines,
            tuple(asks),
            people=_people(*(x for pair in chosen for x in pair)),
            score=float(len(pairs)),
        )
    ]


def cycles(
    reads: Sequence[Read],
    owner: str,
    after_plan: Callable[[Read, tuple[str, ...], int], Read | None],
) -> tuple[list[Shape], set[tuple[int, int, int]]]:
    """The cycles, and the plans that make them (no said-vs-did of their own).
    `after_plan(plan, stems, need)`: the first line of the year after a plan with `need` of
    its stems, not a plan."""
    plans = sorted((r for r in reads if r.plan and r.plan_stems), key=lambda r: r.line.day)
    found = []
    taken: set[tuple[int, int, int]] = set()
    for group in _plan_groups(plans):
        years = {date.fromordinal(r.line.day).year for r in group}
        if len(years) < 2:
            continue
        common = _common_stems(group)
        need = min(2, len(common))
        after: list[Read] = []
        for p in group:
            later = after_plan(p, common, need)
            if later is not None and all(later.line.span != a.line.span for a in after):
                after.append(later)
        if len({date.fromordinal(r.line.day).year for r in after}) < 2:
            continue
        taken |= {r.line.span for r in group}
        first_plan, last_plan = group[0], group[-1]
        first_after, last_after = after[0], after[-1]
        lines = tuple(
            r.line
            for r in sorted(
                {first_plan, last_plan, first_after, last_after}, key=lambda r: r.line.day
            )
        )

        def at(r: Read, lines: tuple[Line, ...] = lines) -> int:
            return lines.index(r.line)

        found.append(
            Shape(
                "cycle",
                lines,
                (
                    Ask(
                        f"Do these two messages by {owner} make the same plan or promise?",
                        (at(first_plan), at(last_plan)),
                    ),
                    Ask(
                        f"Do these two messages by {owner} tell of the same thing happening?",
                        (at(first_after), at(last_after)),
                    ),
                ),
                about=" ".join(common),
                score=float(len(group) + len(after)),
            )
        )
    return _strongest(found), taken


def _plan_groups(plans: Sequence[Read]) -> list[list[Read]]:
    """Plans that are the same plan: sharing two words of substance, or all of the fewer."""
    groups: list[list[Read]] = []
    for p in plans:
        for g in groups:
            shared = set(p.plan_stems) & set(g[0].plan_stems)
            if len(shared) >= 2 or (
                shared and len(shared) == min(len(p.plan_stems), len(g[0].plan_stems))
            ):
                g.append(p)
                break
        else:
            groups.append([p])
    return [g for g in groups if len(g) >= 2]


def _common_stems(group: Sequence[Read]) -> tuple[str, ...]:
    first = group[0].plan_stems
    return tuple(s for s in first if sum(s in r.plan_stems for r in group) >= 2)[:3]


def said_vs_did(reads: Sequence[Read], owner: str, taken: set[tuple[int, int, int]]) -> list[Shape]:
    """A plan (not one of a cycle's, `taken`) and the first later line on its subject that
    says it wasn't done."""
    ordered = sorted(reads, key=lambda r: (r.line.day, r.line.start))
    found = []
    for p in ordered:
        if not p.plan or not p.plan_stems or p.line.span in taken:
            continue
        key = p.plan_stems[0]
        later = next(
            (
                r
                for r in ordered
                if not r.plan
                and r.undone
                and 0 < r.line.day - p.line.day <= FOLLOW_DAYS
                and _has(r, key)
            ),
            None,
        )
        if later is None:
            continue
        found.append(
            Shape(
                "said_vs_did",
                (p.line, later.line),
                (
                    Ask(
                        f"The first message is a plan by {owner}. Does the second, written "
                        "later, say it was not done?",
                        (0, 1),
                    ),
                ),
                about=key,
                people=_people(p, later),
                score=1.0 + len(set(p.plan_stems) & later.stems) / max(1, len(p.plan_stems)),
            )
        )
    return _strongest(found)


def _people(*reads: Read) -> tuple[str, ...]:
    return tuple(dict.fromkeys(r.line.to for r in reads if r.line.to and not r.line.group))


def _as_written(thing: str, texts: Sequence[str]) -> str:
    """A folded thing as the lines write it ("lisbon" → "Lisbon")."""
    for text in texts:
        for m in re.finditer(r"[\w'’-]+", text):
            if fold(m.group()) == thing:
                return m.group()
    return thing


def _with_names(
    reads: list[Read], told: Mapping[str, str], keyed: Mapping[str, str], cues: Cues
) -> list[Read]:
    """The reads again with the names found in the lines (`told`) among each line's people,
    only for the lines that name one the chats and notes did not know."""
    extra = [k for k in told if k not in keyed]
    if not extra:
        return reads
    return [
        read(r.line, cues, told, every=True) or r if any(f" {k} " in r.folded for k in extra) else r
        for r in reads
    ]


def _strongest(found: Iterable[Shape]) -> list[Shape]:
    return sorted(found, key=lambda s: (-s.score, s.key))[:LIMIT]


def shapes(
    lines: Sequence[Line],
    owner: str,
    people: Mapping[str, str],
    languages: Iterable[str] = t.LANGUAGES,
) -> list[Shape]:
    """Every shape of every kind in the owner's lines, none made of a line with signs of
    crisis. `people`: the names of the people in the owner's life (their chats' names, the
    notes' people), by key."""
    cues = Cues.of(languages)
    keyed = {person_key(n): n for n in people.values()} if people else {}
    ordered = sorted(lines, key=lambda x: (x.day, x.start))
    reads = [
        r
        for x in ordered
        if (r := read(x, cues, keyed)) is not None and not crisis_in_words(r.folded)
    ]
    days = [x.day for x in ordered]

    def after_plan(plan: Read, stems: tuple[str, ...], need: int) -> Read | None:
        lo = bisect_right(days, plan.line.day)
        hi = bisect_right(days, plan.line.day + FOLLOW_DAYS)
        for x in ordered[lo:hi]:
            folded = fold(x.text)
            if sum(s in folded for s in stems) < need:
                continue  # a stem is the start of a word: not in the text, not in its words
            r = read(x, cues, keyed, every=True)
            if r is None or crisis_in_words(r.folded):
                continue
            if not r.plan and sum(_has(r, s) for s in stems) >= need:
                return r
        return None

    cycle, taken = cycles(reads, owner, after_plan)
    told = {**named(reads), **keyed}
    return [
        *contradictions(reads, owner),
        *told_apart(_with_names(reads, told, keyed, cues), owner, told),
        *avoidances(reads, keyed),
        *stated_reasons(reads, owner),
        *said_vs_did(reads, owner, taken),
        *cycle,
    ]

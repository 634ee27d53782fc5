"""`mirror_messages`, `mirror_verdicts`, `mirror_answers`, `mirror_candidates` and
`mirror_candidate_notes`: the mirror's state. Per source, its chat messages parsed once (a
cache, made again when its version changes); the owner's word on each finding and pattern;
and the mirror's pass: each shape with what the model's answers kept of it, resting on the
owner's own lines (`mirror_candidate_lines`; earlier designs rested on the reader's notes);
forgetting a source takes its notes and lines, and so their place in every candidate, with
it)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from biomd.storage.database import Database, scalar_in, utc_now


@dataclass(frozen=True, slots=True)
class ParsedChat:
    """One source's chat messages as the mirror parsed them: `chats` describes each
    conversation in it (JSON), `data` holds the messages' arrays."""

    document_id: int
    version: int
    chats: str
    data: bytes


@dataclass(frozen=True, slots=True)
class Verdict:
    """The owner's word on a finding or a pattern: confirmed or dismissed, and on what
    evidence (the sources of a finding, the notes of a pattern) at the time."""

    item_id: str
    item: str  # finding or pattern
    kind: str
    person: str
    month: str  # a finding's change month (YYYY-MM); '' for a pattern
    direction: str  # a finding's: up or down
    status: str  # confirmed or dismissed
    sources: tuple[int, ...]
    notes: tuple[int, ...]
    statement: str
    at: str


@dataclass(frozen=True, slots=True)
class Judged:
    """A candidate of the mirror's pass and what came of it: `verdict` is yes, no, unsure, care
    (crisis signs: never a pattern) or failed; the notes it rests on, for or against."""

    key: str
    kind: str
    design: str
    people: tuple[str, ...]
    verdict: str
    statement: str
    why: str
    confidence: str
    notes_for: tuple[int, ...]
    notes_against: tuple[int, ...]
    prompt_tokens: int
    completion_tokens: int
    judged_at: str
    lines_for: tuple[Span, ...] = ()  # (source, start, end) of the owner's lines (shapes)
    lines_against: tuple[Span, ...] = ()


Span = tuple[int, int, int]


def _spans(text: str) -> tuple[Span, ...]:
    return tuple((int(d), int(s), int(e)) for d, s, e in json.loads(text or "[]"))


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in json.loads(text or "[]"))


def _names(text: str) -> tuple[str, ...]:
    return tuple(p for p in (text or "").split("\n") if p)


def _verdict(row: Sequence[object]) -> Verdict:
    item_id, item, kind, person, month, direction, status, sources, notes, statement, at = row
    return Verdict(
        str(item_id), str(item), str(kind), str(person), str(month), str(direction),
        str(status), _ints(str(sources)), _ints(str(notes)), str(statement), str(at),
    )  # fmt: skip


def _judged(row: Sequence[object]) -> Judged:
    key, kind, design, people, verdict, statement, why, conf, pt, ct, at, f, a, lf, la = row
    return Judged(
        str(key), str(kind), str(design), _names(str(people)), str(verdict), str(statement),
        str(why), str(conf), notes_for=_ints(str(f)), notes_against=_ints(str(a)),
        prompt_tokens=int(str(pt)), completion_tokens=int(str(ct)), judged_at=str(at),
        lines_for=_spans(str(lf)), lines_against=_spans(str(la)),
    )  # fmt: skip


_LINES = (
    "(SELECT json_group_array(json_array(document_id, start_char, end_char)) FROM"
    " (SELECT document_id, start_char, end_char FROM mirror_candidate_lines x"
    "  WHERE x.key = c.key AND x.role = '{role}' ORDER BY document_id, start_char))"
)


class MirrorState:
    def __init__(self, db: Database) -> None:
        self._db = db

    # -- the parsed messages of each source -------------------------------------------------

    async def parsed(self, doc_ids: Sequence[int]) -> dict[int, ParsedChat]:
        """The cached parse of these sources, where there is one."""
        if not doc_ids:
            return {}
        marks = ",".join("?" * len(doc_ids))
        rows = await self._db.fetchall(
            f"SELECT document_id, version, chats, data FROM mirror_messages"
            f" WHERE document_id IN ({marks})",
            list(doc_ids),
        )
        return {int(d): ParsedChat(int(d), int(v), str(c), bytes(b)) for d, v, c, b in rows}

    async def keep_parsed(self, parsed: ParsedChat) -> bool:
        """Keep a source's parse; False (nothing kept) if the source is gone meanwhile."""
        async with self._db.transaction() as db:
            alive = await scalar_in(
                db, "SELECT 1 FROM documents WHERE id = ?", (parsed.document_id,)
            )
            if not alive:
                return False
            await db.execute(
                "INSERT INTO mirror_messages(document_id, version, chats, data, made_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT(document_id) DO UPDATE SET"
                " version = excluded.version, chats = excluded.chats, data = excluded.data,"
                " made_at = excluded.made_at",
                (parsed.document_id, parsed.version, parsed.chats, parsed.data, utc_now()),
            )
        return True

    # -- the owner's word -------------------------------------------------------------------

    async def verdicts(self) -> list[Verdict]:
        rows = await self._db.fetchall(
            "SELECT item_id, item, kind, person, month, direction, status, sources, notes,"
            " statement, at FROM mirror_verdicts ORDER BY at"
        )
        return [_verdict(r) for r in rows]

    async def give_verdict(self, verdict: Verdict) -> None:
        """The owner's word on an item, replacing any earlier word on it."""
        async with self._db.transaction() as db:
            await db.execute(
                "INSERT INTO mirror_verdicts(item_id, item, kind, person, month, direction,"
                " status, sources, notes, statement, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(item_id) DO UPDATE SET status = excluded.status,"
                " sources = excluded.sources, notes = excluded.notes,"
                " statement = excluded.statement, at = excluded.at",
                (
                    verdict.item_id, verdict.item, verdict.kind, verdict.person, verdict.month,
                    verdict.direction, verdict.status, json.dumps(list(verdict.sources)),
                    json.dumps(list(verdict.notes)), verdict.statement, verdict.at or utc_now(),
                ),
            )  # fmt: skip

    async def take_back(self, item_id: str) -> int:
        """Forget the owner's word on an item (it is new again); how many words were kept."""
        async with self._db.transaction() as db:
            cursor = await db.execute(
                "DELETE FROM mirror_verdicts WHERE item_id = ? COLLATE NOCASE", (item_id,)
            )
            return int(cursor.rowcount or 0)

    async def add_answer(self, item_id: str, document_id: int) -> None:
        """Source `document_id` is the owner's answer to an item ("there's more to it")."""
        async with self._db.transaction() as db:
            await db.execute(
                "INSERT OR IGNORE INTO mirror_answers(item_id, document_id, at) VALUES (?, ?, ?)",
                (item_id, document_id, utc_now()),
            )

    async def answers(self) -> dict[str, list[int]]:
        """Each item's answers, as the sources that keep them."""
        rows = await self._db.fetchall(
            "SELECT item_id, document_id FROM mirror_answers ORDER BY at, document_id"
        )
        found: dict[str, list[int]] = {}
        for item, doc in rows:
            found.setdefault(str(item), []).append(int(doc))
        return found

    # -- the mirror's pass ---------------------------------------------------------------------

    async def judged_keys(self) -> set[str]:
        rows = await self._db.fetchall("SELECT key FROM mirror_candidates")
        return {str(r[0]) for r in rows}

    async def keep_judged(self, judged: Judged) -> bool:
        """A candidate and its judgement, all at once; False (nothing kept) if it was judged
        already, or a note or a source it rests on is gone meanwhile."""
        notes = [(n, "for") for n in dict.fromkeys(judged.notes_for)] + [
            (n, "against") for n in dict.fromkeys(judged.notes_against) if n not in judged.notes_for
        ]  # a note named twice (a model's [3, 3]) is one
        async with self._db.transaction() as db:
            if await scalar_in(db, "SELECT 1 FROM mirror_candidates WHERE key = ?", (judged.key,)):
                return False
            ids = [n for n, _ in notes]
            if ids:
                marks = ",".join("?" * len(ids))
                alive = await scalar_in(
                    db, f"SELECT COUNT(*) FROM notes WHERE id IN ({marks})", ids
                )
                if int(alive or 0) != len(set(ids)):
                    return False
            lines = [(x, "for") for x in dict.fromkeys(judged.lines_for)] + [
                (x, "against")
                for x in dict.fromkeys(judged.lines_against)
                if x not in judged.lines_for
            ]
            docs = sorted({d for (d, _, _), _ in lines})
            if docs:
                marks = ",".join("?" * len(docs))
                alive = await scalar_in(
                    db, f"SELECT COUNT(*) FROM documents WHERE id IN ({marks})", docs
                )
                if int(alive or 0) != len(docs):
                    return False
            await db.execute(
                "INSERT INTO mirror_candidates(key, kind, design, people, verdict, statement,"
                " why, confidence, prompt_tokens, completion_tokens, judged_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    judged.key, judged.kind, judged.design, "\n".join(judged.people),
                    judged.verdict, judged.statement, judged.why, judged.confidence,
                    judged.prompt_tokens, judged.completion_tokens,
                    judged.judged_at or utc_now(),
                ),
            )  # fmt: skip
            await db.executemany(
                "INSERT INTO mirror_candidate_notes(key, note_id, role) VALUES (?, ?, ?)",
                [(judged.key, n, role) for n, role in notes],
            )
            await db.executemany(
                "INSERT OR IGNORE INTO mirror_candidate_lines(key, document_id, start_char,"
                " end_char, role) VALUES (?, ?, ?, ?, ?)",
                [(judged.key, d, start, end, role) for (d, start, end), role in lines],
            )
        return True

    async def judged(self, design: str | None = None) -> list[Judged]:
        """Every judged candidate (of one design), with the notes it still rests on."""
        where, params = ("WHERE c.design = ?", [design]) if design else ("", [])
        rows = await self._db.fetchall(
            "SELECT c.key, c.kind, c.design, c.people, c.verdict, c.statement, c.why,"
            " c.confidence, c.prompt_tokens, c.completion_tokens, c.judged_at,"
            " (SELECT json_group_array(note_id) FROM mirror_candidate_notes n"
            "   WHERE n.key = c.key AND n.role = 'for'),"
            " (SELECT json_group_array(note_id) FROM mirror_candidate_notes n"
            "   WHERE n.key = c.key AND n.role = 'against'),"
            f" {_LINES.format(role='for')}, {_LINES.format(role='against')}"
            f" FROM mirror_candidates c {where} ORDER BY c.judged_at, c.key",
            params,
        )
        return [_judged(r) for r in rows]

    async def forget_judged(self, design: str | None = None) -> int:
        """Drop judged candidates (of one design), so the next pass judges them again."""
        async with self._db.transaction() as db:
            if design:
                cur = await db.execute("DELETE FROM mirror_candidates WHERE design = ?", (design,))
            else:
                cur = await db.execute("DELETE FROM mirror_candidates")
            return int(cur.rowcount or 0)

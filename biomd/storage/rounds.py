"""`reading_rounds`: each round of reading, with what it was estimated to cost before it
began and, from the `llm_usage` rows it made, what it cost."""

from __future__ import annotations

from dataclasses import dataclass

from biomd.storage.database import Database, utc_now

MODES = ("notes", "wording", "reading", "summary", "consolidate")  # the calls a round makes


@dataclass(frozen=True, slots=True)
class Round:
    started_at: str
    sources: int
    estimated_tokens: int
    estimated_usd: float | None
    calls: int
    tokens: int
    usd: float


class Rounds:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def start(self, sources: int, tokens: int, usd: float | None) -> int:
        """A round begins, with its estimate; its id."""
        async with self._db.transaction() as db:
            cur = await db.execute(
                "INSERT INTO reading_rounds(started_at, sources, estimated_tokens, estimated_usd,"
                " first_call) VALUES (?, ?, ?, ?, (SELECT COALESCE(MAX(id), 0) FROM llm_usage))",
                (utc_now(), sources, tokens, usd),
            )
            return int(cur.lastrowid or 0)

    async def finish(self, round_id: int) -> None:
        async with self._db.transaction() as db:
            await db.execute(
                "UPDATE reading_rounds SET last_call = (SELECT COALESCE(MAX(id), 0)"
                " FROM llm_usage) WHERE id = ?",
                (round_id,),
            )

    async def recent(self, limit: int = 5) -> list[Round]:
        """The newest finished rounds that made calls, newest first, estimate and actual."""
        marks = ",".join("?" * len(MODES))
        rows = await self._db.fetchall(
            "SELECT r.started_at, r.sources, r.estimated_tokens, r.estimated_usd,"
            " COUNT(u.id), COALESCE(SUM(u.prompt_tokens + u.completion_tokens), 0),"
            " COALESCE(SUM(u.cost_usd), 0) FROM reading_rounds r JOIN llm_usage u"
            f" ON u.id > r.first_call AND u.id <= r.last_call AND u.mode IN ({marks})"
            " WHERE r.last_call IS NOT NULL GROUP BY r.id ORDER BY r.id DESC LIMIT ?",
            (*MODES, limit),
        )
        return [
            Round(
                str(a), int(n), int(et), None if eu is None else float(eu), int(c), int(t), float(u)
            )
            for a, n, et, eu, c, t, u in rows
        ]

"""`turns`: one row per biographer turn (chat, analysis, reading, consolidate): what it was
asked, when, how many steps it took, its report, and whether it ended well."""

from __future__ import annotations

from dataclasses import dataclass

from biomd.storage.database import Database, utc_now


@dataclass(frozen=True, slots=True)
class TurnSummary:
    """A turn with what its model calls cost in all."""

    id: int
    mode: str
    started_at: str
    steps: int
    status: str
    tokens: int
    cost_usd: float
    document_id: int | None


class Turns:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def start(self, mode: str, request: str, document_id: int | None = None) -> int:
        async with self._db.transaction() as db:
            cur = await db.execute(
                "INSERT INTO turns(mode, started_at, document_id, request) VALUES (?, ?, ?, ?)",
                (mode, utc_now(), document_id, request),
            )
            assert cur.lastrowid is not None
            return cur.lastrowid

    async def finish(
        self,
        turn_id: int,
        status: str,
        *,
        report: str | None = None,
        steps: int | None = None,
        error: str | None = None,
    ) -> None:
        """End a turn (`done` or `failed`); its report and steps where given."""
        async with self._db.transaction() as db:
            await db.execute(
                "UPDATE turns SET finished_at = ?, report = COALESCE(?, report),"
                " steps = COALESCE(?, steps), status = ?, error = ? WHERE id = ?",
                (utc_now(), report, steps, status, error, turn_id),
            )

    async def recent(self, limit: int = 20) -> list[TurnSummary]:
        """The newest turns, newest first."""
        rows = await self._db.fetchall(
            "SELECT t.id, t.mode, t.started_at, t.steps, t.status, COALESCE(SUM(u.prompt_tokens"
            " + u.completion_tokens), 0), COALESCE(SUM(u.cost_usd), 0), t.document_id FROM turns t"
            " LEFT JOIN llm_usage u ON u.turn_id = t.id GROUP BY t.id ORDER BY t.id DESC LIMIT ?",
            (limit,),
        )
        return [
            TurnSummary(int(i), str(m), str(a), int(s), str(st), int(tok), float(c), d)
            for i, m, a, s, st, tok, c, d in rows
        ]

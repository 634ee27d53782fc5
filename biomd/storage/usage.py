"""`llm_usage`: one row per model call: when, for which turn, which model and backend, the
tokens, and what it cost (and how that was known)."""

from __future__ import annotations

from dataclasses import dataclass

from biomd.storage.database import Database, utc_now


@dataclass(frozen=True, slots=True)
class Call:
    """One model call, as metered."""

    model: str
    mode: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    cost_source: str  # endpoint, price, subscription or none
    turn_id: int | None = None
    backend: str = "openai"


@dataclass(frozen=True, slots=True)
class Totals:
    """Calls, tokens and spend over some stretch (a period, or a backend)."""

    label: str
    calls: int
    prompt_tokens: int
    completion_tokens: int
    usd: float

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class UsageLog:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def record(self, call: Call) -> None:
        async with self._db.transaction() as db:
            await db.execute(
                "INSERT INTO llm_usage(at, turn_id, model, mode, prompt_tokens,"
                " completion_tokens, cost_usd, cost_source, backend)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    utc_now(),
                    call.turn_id,
                    call.model,
                    call.mode,
                    call.prompt_tokens,
                    call.completion_tokens,
                    call.cost_usd,
                    call.cost_source,
                    call.backend,
                ),
            )

    async def spent_since(self, since_utc: str) -> float:
        return float(
            await self._db.scalar(
                "SELECT COALESCE(SUM(cost_usd), 0) FROM llm_usage WHERE at >= ?", (since_utc,)
            )
        )

    async def since(self, label: str, since_utc: str) -> Totals:
        """The calls made since `since_utc` ('' for all time), under `label`."""
        row = await self._db.fetchone(
            "SELECT COUNT(*), COALESCE(SUM(prompt_tokens), 0),"
            " COALESCE(SUM(completion_tokens), 0), COALESCE(SUM(cost_usd), 0)"
            " FROM llm_usage WHERE at >= ?",
            (since_utc,),
        )
        assert row is not None
        return Totals(label, int(row[0]), int(row[1]), int(row[2]), float(row[3]))

    async def by_backend(self) -> list[Totals]:
        """All time, one row per backend (openai, codex), labelled with its name."""
        rows = await self._db.fetchall(
            "SELECT backend, COUNT(*), SUM(prompt_tokens), SUM(completion_tokens), SUM(cost_usd)"
            " FROM llm_usage GROUP BY backend ORDER BY backend"
        )
        return [
            Totals(str(b), int(n), int(p or 0), int(c or 0), float(u or 0))
            for b, n, p, c, u in rows
        ]

"""Token use and spend: one `llm_usage` row per model call, and the daily spend limit."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time, tzinfo

from core.errors import SpendLimitReached
from core.storage.store import Store, utc_now


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cost_source: str = "none"  # "endpoint", "price" or "none"


def day_start_utc(zone: tzinfo, now: datetime | None = None) -> str:
    """Midnight of today in the owner's zone, as a UTC ISO string (usage rows are in UTC)."""
    local = (now or datetime.now(UTC)).astimezone(zone)
    midnight = datetime.combine(local.date(), time(0), tzinfo=zone)
    return midnight.astimezone(UTC).isoformat(timespec="seconds")


class Ledger:
    """Every model call's tokens and cost, and the limit they are held to."""

    def __init__(self, store: Store, zone: tzinfo, daily_limit_usd: float | None = None) -> None:
        self.store = store
        self.zone = zone
        self.daily_limit_usd = daily_limit_usd

    async def check_limit(self) -> None:
        """Refuse a new call once today's spend has reached the limit."""
        limit = self.daily_limit_usd
        if limit is None:
            return
        spent = await self.spent_today()
        if spent >= limit:
            raise SpendLimitReached(
                f"Today's LLM spend is ${spent:.2f}, which has reached the daily limit of "
                f"${limit:.2f} (BIOMD_DAILY_SPEND_LIMIT_USD). New turns start again tomorrow, "
                "or raise the limit."
            )

    async def record(
        self, model: str, mode: str, usage: Usage, turn_id: int | None, backend: str = "openai"
    ) -> None:
        async with self.store.transaction() as db:
            await db.execute(
                "INSERT INTO llm_usage(at, turn_id, model, mode, prompt_tokens,"
                " completion_tokens, cost_usd, cost_source, backend)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    utc_now(),
                    turn_id,
                    model,
                    mode,
                    usage.prompt_tokens,
                    usage.completion_tokens,
                    usage.cost_usd,
                    usage.cost_source,
                    backend,
                ),
            )

    async def by_backend(self) -> list[tuple[str, int, int, int, float]]:
        """(backend, calls, prompt tokens, completion tokens, USD) over all time."""
        rows = await self.store.fetchall(
            "SELECT backend, COUNT(*), SUM(prompt_tokens), SUM(completion_tokens), SUM(cost_usd)"
            " FROM llm_usage GROUP BY backend ORDER BY backend"
        )
        return [(str(b), int(n), int(p or 0), int(c or 0), float(u or 0)) for b, n, p, c, u in rows]

    async def spent_since(self, since_utc: str) -> float:
        row = await self.store.fetchone(
            "SELECT COALESCE(SUM(cost_usd), 0) FROM llm_usage WHERE at >= ?", (since_utc,)
        )
        return float(row[0]) if row else 0.0

    async def spent_today(self) -> float:
        return await self.spent_since(day_start_utc(self.zone))

    async def summary(self) -> list[tuple[str, int, int, int, float]]:
        """(period, calls, prompt tokens, completion tokens, USD) for today, 30 days, all."""
        out = []
        month = datetime.now(UTC).replace(microsecond=0).timestamp() - 30 * 86400
        periods = (
            ("today", day_start_utc(self.zone)),
            ("last 30 days", datetime.fromtimestamp(month, UTC).isoformat(timespec="seconds")),
            ("all time", ""),
        )
        for label, since in periods:
            row = await self.store.fetchone(
                "SELECT COUNT(*), COALESCE(SUM(prompt_tokens), 0),"
                " COALESCE(SUM(completion_tokens), 0), COALESCE(SUM(cost_usd), 0)"
                " FROM llm_usage WHERE at >= ?",
                (since,),
            )
            assert row is not None
            out.append((label, int(row[0]), int(row[1]), int(row[2]), float(row[3])))
        return out

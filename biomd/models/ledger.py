"""Token use and spend: one `llm_usage` row per model call, and the daily spend limit."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time, tzinfo

from biomd.errors import SpendLimitReached
from biomd.models.turn_meter import current_turn
from biomd.storage.store import Store
from biomd.storage.usage import Call, Totals


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

    async def record(self, model: str, mode: str, usage: Usage, backend: str = "openai") -> None:
        """One call, counted against the turn it was made in (turn_meter.py), if any."""
        await self.store.usage.record(
            Call(
                model,
                mode,
                usage.prompt_tokens,
                usage.completion_tokens,
                usage.cost_usd,
                usage.cost_source,
                current_turn(),
                backend,
            )
        )

    async def by_backend(self) -> list[Totals]:
        """All time, one row per backend."""
        return await self.store.usage.by_backend()

    async def spent_today(self) -> float:
        return await self.store.usage.spent_since(day_start_utc(self.zone))

    async def summary(self) -> list[Totals]:
        """Today, the last 30 days, and all time."""
        month = datetime.now(UTC).replace(microsecond=0).timestamp() - 30 * 86400
        periods = (
            ("today", day_start_utc(self.zone)),
            ("last 30 days", datetime.fromtimestamp(month, UTC).isoformat(timespec="seconds")),
            ("all time", ""),
        )
        return [await self.store.usage.since(label, since) for label, since in periods]

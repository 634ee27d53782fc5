"""What the models have cost: calls, tokens and spend by period and backend, the daily
limit, and the recent turns with their cost."""

from __future__ import annotations

from dataclasses import dataclass

from biomd.models.ledger import Ledger
from biomd.storage.rounds import Round
from biomd.storage.store import Store
from biomd.storage.turns import TurnSummary
from biomd.storage.usage import Totals


@dataclass(frozen=True)
class Account:
    """What the models have cost, for `biomd cost` and /cost to say (replies.cost_text)."""

    periods: list[Totals]
    backends: list[Totals]
    limit: float | None
    rounds: list[Round]


class Spending:
    def __init__(self, store: Store, ledger: Ledger) -> None:
        self.store = store
        self.ledger = ledger

    @property
    def limit(self) -> float | None:
        """BIOMD_DAILY_SPEND_LIMIT_USD, if there is one."""
        return self.ledger.daily_limit_usd

    async def spent_today(self) -> float:
        return await self.ledger.spent_today()

    async def periods(self) -> list[Totals]:
        """Today, the last 30 days, and all time."""
        return await self.ledger.summary()

    async def by_backend(self) -> list[Totals]:
        return await self.ledger.by_backend()

    async def account(self) -> Account:
        """The whole account: by period, by backend, the limit and the latest rounds."""
        return Account(
            await self.periods(), await self.by_backend(), self.limit, await self.rounds()
        )

    async def rounds(self, limit: int = 5) -> list[Round]:
        """The latest rounds of reading: estimated before, and what they cost."""
        return await self.store.rounds.recent(limit)

    async def recent_turns(self, limit: int = 20) -> list[TurnSummary]:
        return await self.store.turns.recent(limit)

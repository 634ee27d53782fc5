"""What reading costs before it starts, and the owner's choice: each source's estimate
(calls, tokens, dollars at the models' prices, time), whether it waits for the owner
(BIOMD_READ_CONFIRM_USD or _TOKENS), and what they chose to read of it (all, only theirs,
or since a date). The room a reading turn has for notes is one formula, here, for the
estimate and for the turns themselves."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from biomd.biographer.backend import Backend
from biomd.biographer.bio_budget import BioBudget, held_to, reading_limit, room_for
from biomd.biographer.context import CHARS_PER_TOKEN
from biomd.biographer.profile import Profile
from biomd.biographer.prompts import system_prompt
from biomd.biographer.reading import briefing, estimate, filler
from biomd.biographer.reading import scope as scope_of
from biomd.biographer.reading.estimate import TURN_CALLS_SHARE, Cache, Estimate, Sizes
from biomd.biographer.reading.notes_pass import ReaderPlan
from biomd.biographer.reading.placement import Room, months_covered
from biomd.biographer.reading.reader import SCHEMA
from biomd.biographer.reading.reader import system_prompt as reader_prompt
from biomd.biographer.reading.reading_turn import SCHEMA as READING_TURN_SCHEMA
from biomd.endpoints import Endpoint
from biomd.errors import NotFound
from biomd.settings import Settings
from biomd.settings.groups import ReadingSettings
from biomd.storage.reading import Reading
from biomd.storage.store import Store

REPLY_SLACK_TOKENS = 200  # beside the reply: the chat template's own tokens


@dataclass(frozen=True)
class ReadingChoice:
    """A source whose reading waits for the owner: what all of it costs, and only theirs."""

    reading: Reading
    all: Estimate
    mine: Estimate


def turn_chars(window: int, reply_tokens: int) -> int:
    """Characters a turn's request may hold beside its reply."""
    return int((window - reply_tokens - REPLY_SLACK_TOKENS) * CHARS_PER_TOKEN)


def reading_fixed_chars(bio: str, budget: int) -> int:
    """Characters a reading turn's request holds beside its notes: the rules with bio.md,
    the reply's schema, and the request's own words."""
    words = len(briefing.request([], [])) + len(briefing.PLACED)
    return len(system_prompt("reading", bio, budget)) + len(json.dumps(READING_TURN_SCHEMA)) + words


CACHES = {"openai": Cache(0.5), "anthropic": Cache(0.1, 1.25)}
"""The providers' published prompt-cache prices, as shares of the list price."""


def cache_of(settings: Settings) -> Cache | None:
    """The prompt cache the preview prices reading with (BIOMD_PROMPT_CACHE and overrides)."""
    chosen = settings.costs.prompt_cache
    if chosen == "auto":
        model = (settings.llm.model or "").lower()
        if settings.endpoint().is_local or settings.llm.backend == "codex":
            chosen = "none"
        else:
            chosen = "anthropic" if "claude" in model or "anthropic" in model else "openai"
    if chosen == "none":
        return None
    cache = CACHES[chosen]
    return Cache(
        _or(settings.costs.cache_read_price_share, cache.read),
        _or(settings.costs.cache_write_price_share, cache.write),
    )


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


def notes_room(window: int, reply_tokens: int, bio: str, budget: int, most: int) -> int:
    """Characters of notes a reading turn can take (at most `most`), with a share of what
    is left kept for the turn's own calls and results."""
    free = turn_chars(window, reply_tokens) - reading_fixed_chars(bio, budget)
    return max(1_000, min(most, int(free * (1 - TURN_CALLS_SHARE))))


SAMPLE = 131_072  # characters: a long source's share sent is measured on SAMPLES of these
SAMPLES = 8


def spread(ranges: Sequence[tuple[int, int]], size: int, n: int) -> list[tuple[int, int]]:
    """`n` stretches of at most `size` characters, spread evenly over `ranges`."""
    total = sum(hi - lo for lo, hi in ranges)
    out = []
    for i in range(n):
        at = total * i // n
        for lo, hi in ranges:
            if at < hi - lo:
                out.append((lo + at, min(hi, lo + at + size)))
                break
            at -= hi - lo
    return out


class ReadingCost:
    def __init__(
        self,
        reading: ReadingSettings,
        owner_names: tuple[str, ...],
        reader: Endpoint,
        cache: Cache | None,
        store: Store,
        profile: Profile,
        backend: Backend,
        budget: BioBudget,
    ):
        """`reader` is the reader's endpoint (its longest reply, where it runs); `cache` the
        prompt cache reading is priced with (`cache_of`)."""
        self.settings = reading
        self.owner_names = owner_names
        self.reader = reader
        self.cache = cache
        self.budget = budget
        self.store = store
        self.profile = profile
        self.backend = backend

    async def sizes(self) -> Sizes:
        """The sizes reading works in now, with the models' prices where known."""
        s, b = self.settings, self.budget
        reader = self.backend.reader()
        plan = ReaderPlan.for_window(
            await reader.context_tokens(), s.part_chars, self.reader.max_tokens
        )
        bio = await self.profile.load()
        window = await self.backend.model().context_tokens()
        room = room_for(window)
        return Sizes(
            part_chars=plan.part_chars,
            reader_fixed_chars=len(reader_prompt(self.owner_names)) + len(json.dumps(SCHEMA)) + 300,
            notes_chars=s.notes_chars,
            turn_fixed_chars=reading_fixed_chars("", b.limit),
            concurrency=self.backend.reader_concurrency,
            reader_prices=await self.backend.reader_prices(),
            prices=await self.backend.prices(),
            local=self.reader.is_local,
            turn_chars=turn_chars(window, b.reply_tokens),
            bio_chars=len(bio),
            bio_cap=held_to(b.limit, room),
            bio_trigger=min(reading_limit(b.limit, room), room),  # make_room's first
            by_rules=s.placement == "rules",
            turns_at_once=self.backend.turn_concurrency,
            cache=self.cache,
        )

    async def estimate(self, reading: Reading, scope: str | None = None) -> Estimate:
        """What reading the rest of a source (in `scope`, or its own) will cost."""
        chars, sent = await self._left(reading, scope)
        return estimate.reading(chars, await self._sizes_for([reading]), sent)

    async def estimate_all(self, readings: Sequence[Reading]) -> Estimate:
        """What reading the rest of these sources together will cost (they share calls)."""
        left = [await self._left(r) for r in readings]
        sizes = await self._sizes_for(readings)
        return estimate.reading(sum(c for c, _ in left), sizes, sum(s for _, s in left))

    async def _sizes_for(self, readings: Sequence[Reading]) -> Sizes:
        """The sizes, with how far rules may fill bio.md over the months these sources cover."""
        months = months_covered(readings)
        sizes = await self.sizes()
        room = Room.within(sizes.bio_cap, months).chars(months)
        return replace(sizes, rules_room=room, sources=len(readings))

    async def _left(self, reading: Reading, scope: str | None = None) -> tuple[int, int]:
        """Characters of a source still to read, in `scope` or its own, and how many of them
        the reader will be sent (a chat without its filler: filler.py)."""
        chosen = scope or reading.scope
        skipped = await self.skipped(reading, chosen)
        noted = [(p.start, p.end) for p in await self.store.notes.parts(reading.document_id)]
        left = scope_of.complement(
            scope_of.merge([*skipped, *noted, (0, reading.next_offset)]), reading.text_length
        )
        total = sum(hi - lo for lo, hi in left)
        shown = spread(left, SAMPLE, SAMPLES) if total > SAMPLE * SAMPLES else left
        looked = sent = 0
        for lo, hi in shown:
            text = await self.store.chunks.text(reading.document_id, lo, hi)
            looked += len(text)
            sent += filler.sent_chars(text)
        return total, round(total * sent / looked) if looked else total

    async def needs_choice(self, reading: Reading, cost: Estimate | None = None) -> bool:
        """Whether reading this source waits for the owner: its estimate (`cost`, if it
        was made already) passes BIOMD_READ_CONFIRM_USD (or _TOKENS where tokens are free)
        and they have not chosen."""
        if reading.approved or reading.held:
            return False
        cost = cost or await self.estimate(reading)
        if cost.usd:  # a price is known: money decides
            return cost.usd > self.settings.confirm_usd
        return cost.prompt_tokens + cost.completion_tokens > self.settings.confirm_tokens

    async def choices(self, only: set[int] | None = None) -> list[ReadingChoice]:
        """Sources waiting for the owner to choose how much to read (or held: not now),
        each with what reading all of it, only their messages, or since a date costs."""
        out = []
        for r in await self.store.reading.pending(False):
            if only is not None and r.document_id not in only:
                continue
            whole = await self.estimate(r, "all")
            if r.held or await self.needs_choice(r, whole if r.scope == "all" else None):
                out.append(ReadingChoice(r, whole, await self.estimate(r, "mine")))
        return out

    async def choose(self, document_id: int, scope: str) -> None:
        """Read this source: all of it, `mine` or `since:YYYY-MM-DD` (at the next round)."""
        scope_of.parse(scope)
        if not await self.store.reading.choose(document_id, scope):
            raise NotFound(f"Source #{document_id} is not waiting to be read.")

    async def hold(self, document_id: int) -> None:
        """Not now: the source waits until the owner chooses."""
        if not await self.store.reading.hold(document_id):
            raise NotFound(f"Source #{document_id} is not waiting to be read.")

    async def skipped(self, reading: Reading, scope: str | None = None) -> list[tuple[int, int]]:
        """What the owner's choice leaves out of a source."""
        chosen = scope or reading.scope
        if chosen == "all" or not reading.text_length:
            return []
        text = await self.store.chunks.text(reading.document_id, 0, reading.text_length)
        kept = scope_of.selected(text, chosen, reading.content_end)
        return scope_of.complement(kept, reading.text_length)

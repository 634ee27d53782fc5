"""What reading a source will cost, before it is read: calls, tokens, dollars and time, from
the same sizes the notes pass and the reading turns use. Pure functions; the constants are
calibrated on bench/reading_cost.py (a diligent reader: a note per ~600 characters)."""

from __future__ import annotations

import math
from dataclasses import dataclass

CHARS_PER_TOKEN = 4.0  # as the providers count prose; the bench counts the same way
NOTE_EVERY = 600  # characters of source per note
NOTE_TOKENS_OUT = 75  # the reader's JSON for one note
NOTE_LINE_CHARS = 150  # one note as the biographer sees it
RULE_LINE_CHARS = 70  # one note as rules place it in bio.md (repeats are left out)
JUDGED_SHARE = 0.35  # of the notes, those not routine (placement.ROUTINE): a turn judges them
EDIT_TOKENS_OUT = 35  # one cited edit, in the turn's JSON reply
EDIT_LINE_CHARS = 60  # what one edit adds to bio.md
CITED_LINE_CHARS = 80  # the least bio.md keeps of each source it cites
WORDING_CALLS = 1.3  # calls to word one line placed by rules (a refused line is asked again)
WORDING_PROMPT_TOKENS = 700  # one wording call: the note, its quote and the lines around it
WORDING_TOKENS_OUT = 50
JSON_OVERHEAD = 1.06  # a source's text escaped in a JSON request

TURN_CALLS_SHARE = 0.25  # of what a reading turn has left, kept for its own calls and results


@dataclass(frozen=True, slots=True)
class Prices:
    """USD per million tokens."""

    prompt: float
    completion: float

    def usd(self, prompt_tokens: float, completion_tokens: float) -> float:
        return (prompt_tokens * self.prompt + completion_tokens * self.completion) / 1e6


@dataclass(frozen=True, slots=True)
class Cache:
    """A provider's prompt cache, as its price: a prompt token read from the cache costs
    `read` times the list price, one written to it `write` times (OpenAI: 0.5 and 1, no
    charge to write; Anthropic: 0.1 and 1.25)."""

    read: float
    write: float = 1.0


@dataclass(frozen=True, slots=True)
class Sizes:
    """The sizes reading works in, from the settings and the models' windows."""

    part_chars: int  # the reader's parts
    reader_fixed_chars: int  # the reader's instructions and schema, per call
    notes_chars: int  # the most notes per reading turn (BIOMD_READING_NOTES_CHARS)
    turn_fixed_chars: int  # the biographer's rules and tools, per call (bio.md apart)
    concurrency: int
    reader_prices: Prices | None  # None: unknown
    prices: Prices | None
    local: bool  # a model on this machine: slower, and free
    turn_chars: int = 400_000  # what a turn's window holds, beside the reply
    bio_chars: int = 0  # bio.md now
    bio_cap: int = 30_000  # what bio.md is held to while reading (budget, or the window's)
    bio_trigger: int = 0  # the size at which it is consolidated (0: bio_cap)
    by_rules: bool = True  # BIOMD_READING_PLACEMENT=rules: routine notes need no turn
    turns_at_once: int = 1  # reading turns side by side
    cache: Cache | None = None  # the provider's prompt cache, where it has one
    rules_room: int = 0  # the most characters rules may add to bio.md (0: no limit)
    sources: int = 1  # being read: each keeps a cited line in bio.md through consolidation


@dataclass(frozen=True, slots=True)
class Estimate:
    calls: int
    prompt_tokens: int
    completion_tokens: int
    usd: float | None  # None when a price is unknown
    seconds: float
    cached_usd: float | None = None  # with the provider's prompt cache, where it has one

    def __add__(self, other: Estimate) -> Estimate:
        usd = None if self.usd is None or other.usd is None else self.usd + other.usd
        cached = None
        if usd is not None and (self.cached_usd is not None or other.cached_usd is not None):
            cached = _or(self.cached_usd, self.usd) + _or(other.cached_usd, other.usd)
        return Estimate(
            self.calls + other.calls,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            usd,
            self.seconds + other.seconds,
            cached,
        )

    def describe(self) -> str:
        """ "about $0.42, $0.31 with the prompt cache (310,000 tokens, 14 calls, ~3 min)"."""
        money = f"about ${self.usd:.2f}" if self.usd is not None else "an unknown price"
        if self.usd and self.cached_usd is not None and self.cached_usd < self.usd - 0.005:
            money += f", ${self.cached_usd:.2f} with the provider's prompt cache"
        tokens = self.prompt_tokens + self.completion_tokens
        return (
            f"{money} ({tokens:,} tokens, {self.calls} call{'s' if self.calls != 1 else ''}, "
            f"~{duration(self.seconds)})"
        )


NOTHING = Estimate(0, 0, 0, 0.0, 0.0)


def _or(value: float | None, other: float | None) -> float:
    return value if value is not None else (other or 0.0)


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def call_seconds(prompt_tokens: float, completion_tokens: float, local: bool) -> float:
    """How long one call takes: a cloud model reads fast and writes ~60 tokens a second; a
    CPU model reads ~100 and writes ~10."""
    if local:
        return 1 + prompt_tokens / 100 + completion_tokens / 10
    return 1.5 + prompt_tokens / 5_000 + completion_tokens / 60


def reading(chars: int, sizes: Sizes, sent: int | None = None) -> Estimate:
    """Reading `chars` characters of new text, of which the reader is sent `sent` (what
    the chat filter keeps: filler.py): the notes pass, the notes placed by rules, then the
    reading turns, side by side, over the notes that need judgement."""
    if chars <= 0:
        return NOTHING
    shown = chars if sent is None else min(chars, sent)
    notes = shown / NOTE_EVERY
    parts = math.ceil(shown / sizes.part_chars)
    r_fixed = parts * sizes.reader_fixed_chars
    r_prompt = (shown * JSON_OVERHEAD + r_fixed) / CHARS_PER_TOKEN
    r_out = notes * NOTE_TOKENS_OUT
    judged = notes * JUDGED_SHARE if sizes.by_rules else notes
    # bio.md grows by a line a note placed by rules (and an edit per three judged), or a
    # line per three notes where the model places them all, up to the size at which it is
    # consolidated (a rewrite of the whole), which brings it back to about 80% of its cap.
    by_rules = notes * RULE_LINE_CHARS if sizes.by_rules else 0.0
    if sizes.rules_room:  # rules fill bio.md only as far as its budget holds (placement.Room)
        by_rules = min(by_rules, sizes.rules_room)
    worded = math.ceil(by_rules / RULE_LINE_CHARS * WORDING_CALLS)  # wording.py, a line a time
    w_prompt, w_out = worded * WORDING_PROMPT_TOKENS, worded * WORDING_TOKENS_OUT
    r_prompt, r_out = r_prompt + w_prompt, r_out + w_out
    added = by_rules + judged / 3 * EDIT_LINE_CHARS
    # consolidation keeps a line citing each source, so bio.md can't shrink below that
    cap = max(sizes.bio_cap, sizes.sources * CITED_LINE_CHARS)
    trigger = max(sizes.bio_trigger or sizes.bio_cap, cap)
    start, first = float(sizes.bio_chars), 0
    if start > trigger:  # consolidated first, to make room
        start, first = 0.8 * cap, 1
    bio = (start + min(trigger, start + added)) / 2
    rewrites = first + max(0.0, start + added - trigger) / max(1.0, trigger - 0.8 * cap)
    if start + added > cap and trigger > cap:  # back within, at the end
        rewrites += 1
    room = (sizes.turn_chars - sizes.turn_fixed_chars - bio) * (1 - TURN_CALLS_SHARE)
    per_turn = max(1_000.0, min(float(sizes.notes_chars), room))
    turns = math.ceil(judged * NOTE_LINE_CHARS / per_turn) if judged >= 1 else 0
    per_turn_notes = judged * NOTE_LINE_CHARS / max(1, turns)
    b_calls = turns + math.ceil(rewrites)
    b_fixed = turns * (sizes.turn_fixed_chars + bio)
    b_prompt = (
        b_fixed + turns * per_turn_notes + rewrites * (trigger * 1.1 + 2_000)
    ) / CHARS_PER_TOKEN
    b_out = judged / 3 * EDIT_TOKENS_OUT + turns * 60 + rewrites * cap * 0.8 / 4
    usd: float | None = None
    cached: float | None = None
    if sizes.reader_prices is not None and sizes.prices is not None:
        usd = sizes.reader_prices.usd(r_prompt, r_out) + sizes.prices.usd(b_prompt, b_out)
        if sizes.cache is not None:
            waves = math.ceil(turns / max(1, sizes.turns_at_once))
            r_hits = max(0, parts - 1) * sizes.reader_fixed_chars / CHARS_PER_TOKEN
            b_hits = (
                max(0, turns - 1) * sizes.turn_fixed_chars + max(0, turns - waves) * bio
            ) / CHARS_PER_TOKEN
            b_writes = (sizes.turn_fixed_chars + waves * bio) / CHARS_PER_TOKEN if turns else 0
            saved = sizes.reader_prices.usd(r_hits, 0) + sizes.prices.usd(b_hits, 0)
            cache = sizes.cache
            extra = sizes.prices.usd(b_writes, 0) + sizes.reader_prices.usd(
                sizes.reader_fixed_chars / CHARS_PER_TOKEN, 0
            )
            cached = usd - saved * (1 - cache.read) + extra * (cache.write - 1)
    r_waves = math.ceil(parts / max(1, sizes.concurrency))
    t_waves = math.ceil(turns / max(1, sizes.turns_at_once))
    seconds = r_waves * call_seconds(
        (r_prompt - w_prompt) / parts, (r_out - w_out) / parts, sizes.local
    )
    if worded:  # one line at a time
        seconds += worded * call_seconds(WORDING_PROMPT_TOKENS, WORDING_TOKENS_OUT, sizes.local)
    if b_calls:
        per_call = call_seconds(b_prompt / b_calls, b_out / b_calls, sizes.local)
        seconds += (t_waves + math.ceil(rewrites)) * per_call
    return Estimate(
        parts + worded + b_calls,
        round(r_prompt + b_prompt),
        round(r_out + b_out),
        usd,
        seconds,
        cached,
    )

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
CALLS_PER_TURN = 2  # the edits, then the report
EDIT_TOKENS_OUT = 35  # one cited edit, written as a tool call
EDIT_LINE_CHARS = 60  # what one edit adds to bio.md
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


@dataclass(frozen=True, slots=True)
class Estimate:
    calls: int
    prompt_tokens: int
    completion_tokens: int
    usd: float | None  # None when a price is unknown
    seconds: float

    def __add__(self, other: Estimate) -> Estimate:
        usd = None if self.usd is None or other.usd is None else self.usd + other.usd
        return Estimate(
            self.calls + other.calls,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            usd,
            self.seconds + other.seconds,
        )

    def describe(self) -> str:
        """ "about $0.42 (310,000 tokens, 14 calls, ~3 min)"."""
        money = f"about ${self.usd:.2f}" if self.usd is not None else "an unknown price"
        tokens = self.prompt_tokens + self.completion_tokens
        return (
            f"{money} ({tokens:,} tokens, {self.calls} call{'s' if self.calls != 1 else ''}, "
            f"~{duration(self.seconds)})"
        )


NOTHING = Estimate(0, 0, 0, 0.0, 0.0)


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


def reading(chars: int, sizes: Sizes) -> Estimate:
    """Reading `chars` characters of new text: the notes pass, then the reading turns."""
    if chars <= 0:
        return NOTHING
    notes = chars / NOTE_EVERY
    parts = math.ceil(chars / sizes.part_chars)
    r_prompt = (chars * JSON_OVERHEAD + parts * sizes.reader_fixed_chars) / CHARS_PER_TOKEN
    r_out = notes * NOTE_TOKENS_OUT
    # bio.md grows by a line per three notes, up to what it is held to, which consolidation
    # (a rewrite of the whole) brings back to about 80% each time it is passed.
    added = notes / 3 * EDIT_LINE_CHARS
    start = min(sizes.bio_chars, sizes.bio_cap)
    bio = (start + min(sizes.bio_cap, start + added)) / 2
    rewrites = max(0.0, start + added - sizes.bio_cap) / (0.2 * sizes.bio_cap)
    room = (sizes.turn_chars - sizes.turn_fixed_chars - bio) * (1 - TURN_CALLS_SHARE)
    per_turn = max(1_000.0, min(float(sizes.notes_chars), room))
    turns = math.ceil(notes * NOTE_LINE_CHARS / per_turn)
    per_turn_notes = notes * NOTE_LINE_CHARS / turns
    b_calls = turns * CALLS_PER_TURN + math.ceil(rewrites)
    b_prompt = (
        turns * CALLS_PER_TURN * (sizes.turn_fixed_chars + bio + per_turn_notes)
        + rewrites * (sizes.bio_cap * 1.1 + 2_000)
    ) / CHARS_PER_TOKEN
    b_out = notes / 3 * EDIT_TOKENS_OUT + turns * 60 + rewrites * sizes.bio_cap * 0.8 / 4
    usd: float | None = None
    if sizes.reader_prices is not None and sizes.prices is not None:
        usd = sizes.reader_prices.usd(r_prompt, r_out) + sizes.prices.usd(b_prompt, b_out)
    waves = math.ceil(parts / max(1, sizes.concurrency))
    seconds = waves * call_seconds(r_prompt / parts, r_out / parts, sizes.local) + b_calls * (
        call_seconds(b_prompt / b_calls, b_out / b_calls, sizes.local)
    )
    return Estimate(parts + b_calls, round(r_prompt + b_prompt), round(r_out + b_out), usd, seconds)

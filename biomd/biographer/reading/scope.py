"""Which stretches of a source to read when the owner chose less than all of it: only their
own messages with a few lines of context around each, or only what was written since a
date. Pure functions over a source's text (transcript lines look like
`[YYYY-MM-DD HH:MM] Name (owner): text`)."""

from __future__ import annotations

import re

CONTEXT_LINES = 3  # lines kept before and after each of the owner's messages
_LINE = re.compile(r"[^\n]*\n?")
_STAMP = re.compile(r"^\[(\d{4}-\d{2}-\d{2})")
_OWNER = re.compile(r"^(?:\[[^\]]*\]\s*)?[^:\n]{0,80}\(owner\):")
SCOPES = ("all", "mine", "since")


def parse(scope: str) -> tuple[str, str | None]:
    """("all" | "mine" | "since", the date for since). ValueError for anything else."""
    kind, _, date = scope.partition(":")
    if kind in ("all", "mine") and not date:
        return kind, None
    if kind == "since" and re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?", date):
        return kind, date
    raise ValueError(f"{scope!r} is not a reading scope: all, mine, or since:YYYY-MM-DD")


def lines(text: str) -> list[tuple[int, int]]:
    """Each line's [start, end), its line break included."""
    out = []
    for m in _LINE.finditer(text):
        if m.end() > m.start():
            out.append((m.start(), m.end()))
    return out


def selected(text: str, scope: str, content_end: str | None = None) -> list[tuple[int, int]]:
    """The stretches of `text` the scope keeps, merged and in order."""
    kind, date = parse(scope)
    if kind == "all":
        return [(0, len(text))] if text else []
    spans = lines(text)
    keep: list[bool]
    if kind == "mine":
        mine = [bool(_OWNER.match(text[s:e])) for s, e in spans]
        keep = [False] * len(spans)
        for i, own in enumerate(mine):
            if own:
                for j in range(max(0, i - CONTEXT_LINES), min(len(spans), i + CONTEXT_LINES + 1)):
                    keep[j] = True
    else:
        assert date is not None
        keep, current = [], None
        for s, e in spans:
            m = _STAMP.match(text[s:e])
            current = m.group(1) if m else current
            keep.append(current is not None and current[: len(date)] >= date)
        if not any(_STAMP.match(text[s:e]) for s, e in spans):  # no dated lines
            whole = content_end is None or content_end[: len(date)] >= date
            return [(0, len(text))] if whole and text else []
    return merge([span for span, k in zip(spans, keep, strict=True) if k])


def merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def complement(spans: list[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    """The stretches of [0, length) that `spans` leave out."""
    out, at = [], 0
    for lo, hi in merge(spans):
        if lo > at:
            out.append((at, lo))
        at = max(at, hi)
    if at < length:
        out.append((at, length))
    return out

"""One edit to bio.md, made so that it can't go wrong. Pure functions.

- An append (empty `old_text`) goes at the end of the named section; without a section it
  is refused, with the list of sections.
- `old_text` is matched after trimming; when it is not found as it is, it is matched again
  ignoring bullet markers and what the one fold folds (biomd.fold: case, accents, whitespace,
  quotes, dashes), but only where that match is unique. Otherwise the error shows the
  closest lines of bio.md.
- The title and the `##` headings are fixed: an edit may not fall inside a heading, add or
  remove one, or put anything above Summary."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass

from biomd.biographer.profile_text import SECTIONS, key_of
from biomd.errors import NothingToDo, ProfileEditError
from biomd.fold import Folded, fold_mapped

PLACEHOLDER = "_Nothing is known yet. This fills in as sources are read._"
_HEADING_LINE = re.compile(r"^#{1,2}\s.*$", re.M)
_BULLET = re.compile(r"[ \t]*(?:[-*+•]|\d+[.)])[ \t]+")
_BULLETS = re.compile("^" + _BULLET.pattern, re.M)


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    heading_start: int
    body_start: int  # just after the heading line's newline
    end: int  # where the next heading starts, or the end of bio.md


def sections(content: str) -> list[Section]:
    """The `## ` sections of bio.md, in order."""
    heads = [m for m in _HEADING_LINE.finditer(content) if m.group(0).startswith("## ")]
    out = []
    for i, m in enumerate(heads):
        body = min(len(content), m.end() + 1)
        end = heads[i + 1].start() if i + 1 < len(heads) else len(content)
        out.append(Section(m.group(0)[3:].strip(), m.start(), body, end))
    return out


def find_section(content: str, name: str) -> Section:
    """The section called `name`: exactly, by its start ("People"), or nearly; else an error
    that lists them."""
    found = sections(content)
    wanted = name.strip().strip("#").strip().casefold()
    key = key_of(wanted)
    tests: list[Callable[[str], bool]] = [
        lambda t: t.casefold() == wanted,
        lambda t: key is not None and key_of(t) == key,  # "Timeline" is "Zeitleiste"
        lambda t: t.casefold().startswith(wanted) and len(wanted) >= 3,
        lambda t: wanted in t.casefold() and len(wanted) >= 4,
    ]
    for test in tests:
        hits = [s for s in found if test(s.title)]
        if len(hits) == 1:
            return hits[0]
    close = difflib.get_close_matches(wanted, [s.title.casefold() for s in found], 1, 0.75)
    if close:
        return next(s for s in found if s.title.casefold() == close[0])
    raise ProfileEditError(
        f"There is no section {name!r} in bio.md. The sections are: "
        + ", ".join(s.title for s in found)
        + "."
    )


def apply_edit(content: str, old: str, new: str, section: str | None = None) -> str:
    """bio.md with `old` replaced by `new` (see the module docstring for the rules)."""
    if not old.strip() and not new.strip():
        raise NothingToDo(
            "Nothing to do: old_text and new_text are both empty. If nothing in bio.md needs "
            "to change, don't call edit_profile: write your report."
        )
    if not old.strip():
        return _append(content, new, section)
    region = find_section(content, section) if section else None
    start, end = _locate(content, old, region)
    new = _fit(content, start, end, old, new)
    _check_span(content, start, end)
    result = content[:start] + new + content[end:]
    _check_structure(content, result)
    return result


def removed_share(before: str, after: str) -> float:
    """How much of `before` an edit took away, as a share of its size."""
    if not before:
        return 0.0
    return max(0, len(before) - len(after)) / len(before)


# -- appending ---------------------------------------------------------------------------------


def _append(content: str, new: str, section: str | None) -> str:
    if not section:
        titles = ", ".join(s.title for s in sections(content)) or ", ".join(SECTIONS)
        raise ProfileEditError(
            "An append (empty old_text) needs a section, so that it lands under the right "
            f"heading. Say which one with section=…; the sections are: {titles}."
        )
    target = find_section(content, section)
    body = content[target.body_start : target.end]
    present = {_loose(line) for line in body.splitlines() if line.strip()}
    fresh = [line for line in new.split("\n") if _loose(line) not in present or not line.strip()]
    if not any(line.strip() for line in fresh):
        raise ProfileEditError(
            f"That is already in {target.title}: nothing was added. Add only what is new."
        )
    new = "\n".join(fresh)  # lines already in the section are not added twice
    kept = body.rstrip("\n")
    if kept.strip() == PLACEHOLDER:
        kept = ""
    added = new.strip("\n")
    more = target.end < len(content)
    block = (kept + "\n" if kept else "") + added + "\n" + ("\n" if more else "")
    result = content[: target.body_start] + block + content[target.end :]
    _check_structure(content, result)
    return result


# -- finding old_text ----------------------------------------------------------------------------


def _locate(content: str, old: str, region: Section | None) -> tuple[int, int]:
    """The span of the one place `old` matches, in the section if one was named."""
    lo, hi = (region.body_start, region.end) if region else (0, len(content))
    for start, end in (_spans(content, old, lo, hi), _spans(content, old, 0, len(content))):
        if len(start) == 1:
            return start[0], end[0]
        if len(start) > 1:
            raise ProfileEditError(
                f"old_text matches {len(start)} places in bio.md; include more of the "
                "surrounding text (or name the section) so that it matches exactly one."
            )
        if region is None:
            break
    raise ProfileEditError(
        "old_text was not found in bio.md. Copy it from the current bio.md, or use a "
        "shorter, unique part of it." + _closest(content, old)
    )


def _spans(content: str, old: str, lo: int, hi: int) -> tuple[list[int], list[int]]:
    """Where `old` matches in content[lo:hi]: as it is after trimming, else loosely."""
    text = content[lo:hi]
    needle = old.strip()
    starts = _starts(needle, text) if needle else []
    if starts:
        return [lo + s for s in starts], [lo + s + len(needle) for s in starts]
    folded = _normalise(text)
    norm_old = _loose(needle).strip("\"' ")  # a model often quotes what it copies
    if not norm_old:
        return [], []
    spans = [folded.span(h, h + len(norm_old)) for h in _starts(norm_old, folded.text)]
    return [lo + s for s, _ in spans], [lo + e for _, e in spans]


def _starts(needle: str, text: str) -> list[int]:
    return [m.start() for m in re.finditer(re.escape(needle), text)]


def _normalise(text: str) -> Folded:
    """`text` without its bullet markers, folded (biomd.fold), with where each folded
    character was in `text`."""
    return fold_mapped(_BULLETS.sub(lambda m: " " * len(m.group()), text))


def _loose(text: str) -> str:
    """`text` as the loose match compares it."""
    return _normalise(text).text.strip()


def _closest(content: str, old: str) -> str:
    lines = [line for line in content.splitlines() if line.strip()]
    probe = next((line for line in old.strip().splitlines() if line.strip()), old.strip())
    close = difflib.get_close_matches(probe, lines, n=3, cutoff=0.4)
    if not close:
        return ""
    return " The closest lines in bio.md are:\n" + "\n".join(f"  {line}" for line in close)


def _fit(content: str, start: int, end: int, old: str, new: str) -> str:
    """`new` shaped like what it replaces: line breaks trimmed from the ends of `old` (or not
    in it) are trimmed from `new`, and when a loose match left a line's bullet marker out of
    the span, a marker that `new` brings is not doubled."""
    if old[:1].isspace():
        new = new.lstrip("\n")
    if old[-1:].isspace() or (content[end : end + 1] == "\n" and new.endswith("\n")):
        new = new.rstrip("\n")
    line_start = content.rfind("\n", 0, start) + 1
    if _BULLET.fullmatch(content[line_start:start]) and (marker := _BULLET.match(new)):
        new = new[marker.end() :]
    return new


# -- what an edit may not do ---------------------------------------------------------------------


def _check_span(content: str, start: int, end: int) -> None:
    for m in _HEADING_LINE.finditer(content):
        h_start, h_end = m.start(), m.end()
        if start < h_end and h_start < end and not (start <= h_start and end >= h_end):
            if not m.group(0).startswith("## "):
                raise ProfileEditError(
                    "old_text falls inside bio.md's title, which is fixed. Put what you "
                    'meant to add under a section: old_text "" with section=…'
                )
            raise ProfileEditError(
                f"old_text falls inside the heading {m.group(0).strip()!r}; headings are "
                'fixed. To add under a heading, send old_text "" with '
                f"section={m.group(0).lstrip('#').strip()!r}."
            )


def _check_structure(before: str, after: str) -> None:
    was = [m.group(0).strip() for m in _HEADING_LINE.finditer(before)]
    now = [m.group(0).strip() for m in _HEADING_LINE.finditer(after)]
    if was != now:
        gone = [h for h in was if h not in now]
        added = [h for h in now if h not in was]
        what = (
            f"remove the heading {gone[0]!r}"
            if gone
            else f"add the heading {added[0]!r}"
            if added
            else "reorder the headings"
        )
        raise ProfileEditError(
            f"This edit would {what}; bio.md keeps its sections as they are. Edit the lines "
            "under a heading instead."
        )
    first = sections(before)
    if first and before[: first[0].heading_start] != after[: first[0].heading_start]:
        raise ProfileEditError(
            f"Nothing may go above the first section ({first[0].title}); put it under the "
            "section where it belongs."
        )

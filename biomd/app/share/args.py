"""`/share` as typed in a chat: `/share therapist hide Tomás Reis show Inês with hypotheses
format md card`, `/share save`, `/share save accept`, `/share save remove`, `/share list`,
`/share delete 3`, `/share open 3`. Pure functions."""

from __future__ import annotations

from dataclasses import dataclass, field

from biomd.app.share.choices import ShareChoice, format_of
from biomd.errors import BiomdError

_KEYWORDS = ("hide", "show", "with", "without", "format", "limit", "quote")


@dataclass(frozen=True)
class ShareRequest:
    action: str  # "draft", "save", "list", "delete" or "open"; "" for the usage
    audience: str = ""
    choice: ShareChoice = field(default_factory=ShareChoice)
    how: str = ""  # for save: "", "accept" or "remove"
    card: bool = False  # a PNG card too
    share_id: int | None = None


def parse(args: str) -> ShareRequest:
    """What the owner asked for; BiomdError with an example when it can't be read."""
    words = args.split()
    if not words:
        return ShareRequest("")
    head = words[0].lower()
    if head == "save":
        how = words[1].lower() if len(words) > 1 else ""
        if how not in ("", "accept", "remove"):
            raise BiomdError("Save how? /share save, /share save remove or /share save accept.")
        return ShareRequest("save", how=how)
    if head == "list":
        return ShareRequest("list")
    if head in ("delete", "open"):
        try:
            return ShareRequest(head, share_id=int(words[1].lstrip("#")))
        except (IndexError, ValueError):
            raise BiomdError(f"Which share? For example /share {head} 3.") from None
    rest = [w for w in words[1:] if w.lower() != "card"]
    return ShareRequest("draft", head, _choice(rest), card=len(rest) < len(words) - 1)


def _choice(words: list[str]) -> ShareChoice:
    given: dict[str, list[str]] = {k: [] for k in _KEYWORDS}
    key: str | None = None
    current: list[str] = []
    for word in [*words, "hide"]:  # a keyword at the end closes the last value
        if word.lower() in _KEYWORDS:
            if key is not None:
                if not current:
                    raise BiomdError(f"'{key}' what? For example /share close {key} …")
                given[key].append(" ".join(current))
            key, current = word.lower(), []
        elif key is None:
            raise BiomdError(
                f"I don't know '{word}' here. For example: /share therapist hide Tomás "
                "with hypotheses format md"
            )
        else:
            current.append(word)
    fmt = format_of(given["format"][-1]) if given["format"] else None
    limit = given["limit"][-1] if given["limit"] else None
    if limit is not None and not limit.isdigit():
        raise BiomdError("The limit is a number of characters, e.g. limit 1500.")
    return ShareChoice(
        add=tuple(given["with"]),
        drop=tuple(given["without"]),
        show=tuple(given["show"]),
        hide=tuple(given["hide"]),
        quotes=tuple(given["quote"]),
        limit=int(limit) if limit else None,
        format=fmt,
    )

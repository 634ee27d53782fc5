"""An assistant's session with the owner (Hermes Agent's, handed over by biomd's memory
provider), kept as a source of the `hermes` kind: only the turns biomd has not kept yet,
keyed on the session id, so a second send of one session is a continuation and never a
duplicate. Pure: what to keep, and the file that is kept."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from biomd.errors import BiomdError

MAX_TURNS = 2000  # one send, at most
MAX_CHARS = 2_000_000


def meta_key(client: str, session: str) -> str:
    """Where the turns kept of a session are recorded (the store's meta table)."""
    return f"session:{client}:{session}"


def turn_key(turn: Mapping[str, Any]) -> str:
    """A turn's identity: its time and words (a turn sent twice is the same turn)."""
    text = json.dumps([turn.get("at"), turn.get("user"), turn.get("assistant")])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def checked(session: str, client: str, turns: Sequence[Any]) -> list[dict[str, str]]:
    """The turns as biomd keeps them (at, user, assistant: strings), or a BiomdError saying
    what is wrong."""
    if not re.fullmatch(r"[\w.:@-]{1,200}", session):
        raise BiomdError("A session id is 1 to 200 letters, digits and . : @ - _.")
    if not re.fullmatch(r"[\w .@-]{1,60}", client):
        raise BiomdError("A client is named in 1 to 60 letters, digits and . @ - _.")
    if len(turns) > MAX_TURNS:
        raise BiomdError(f"At most {MAX_TURNS} turns at once.")
    out = []
    for t in turns:
        if not isinstance(t, Mapping):
            raise BiomdError("Each turn is an object with at, user and assistant.")
        out.append({k: str(t.get(k) or "") for k in ("at", "user", "assistant")})
    if sum(len(v) for t in out for v in t.values()) > MAX_CHARS:
        raise BiomdError(f"At most {MAX_CHARS:,} characters at once.")
    return out


def new_turns(turns: Iterable[dict[str, str]], kept: set[str]) -> list[dict[str, str]]:
    """The turns not kept yet, each once, in order."""
    seen = set(kept)
    out = []
    for t in turns:
        key = turn_key(t)
        if key not in seen and (t["user"].strip() or t["assistant"].strip()):
            seen.add(key)
            out.append(t)
    return out


def session_file(session: str, client: str, turns: Sequence[dict[str, str]]) -> str:
    """The turns as the source file the `hermes` converter reads."""
    return json.dumps(
        [{"hermes_session": session, "client": client, "turns": list(turns)}],
        ensure_ascii=False,
        indent=1,
    )


def file_name(session: str, turns: Sequence[dict[str, str]], continuing: bool) -> str:
    day = (turns[0]["at"] or "")[:10] if turns else ""
    more = " (continued)" if continuing else ""
    return f"hermes session {session[:40]}{more} {day}.json".replace("  ", " ")

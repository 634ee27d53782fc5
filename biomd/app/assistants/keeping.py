"""An assistant's session kept as a source, by the process that holds the ingest lock (the
MCP server's own, or the running biomd's job, to which app/memory.py hands it)."""

from __future__ import annotations

import json

from biomd.app.assistants import sessions
from biomd.app.sources import Sources


async def store_session(
    sources: Sources, session: str, client: str, turns: list[dict[str, str]]
) -> tuple[int | None, int]:
    """Ingest the turns of `session` not kept yet as one source (this process holds the
    ingest lock); its id (None when there was nothing new) and how many turns it holds."""
    key = sessions.meta_key(client, session)
    kept = set(json.loads(await sources.store.meta.get(key) or "[]"))
    new = sessions.new_turns(turns, kept)
    if not new:
        return None, 0
    body = sessions.session_file(session, client, new)
    doc = await sources.keep_text(body, sessions.file_name(session, new, bool(kept)))
    kept |= {sessions.turn_key(t) for t in new}
    await sources.store.meta.set({key: json.dumps(sorted(kept))})
    return doc, len(new)

"""A question's wait for search, shown: the first time after vectors are written, search
turns them all into compact codes (about 16 s a million), and the owner sees how far it is."""

from __future__ import annotations

import asyncio
import logging

from biomd.app import replies
from biomd.app.channels import Channel, StatusMessage, Throttled
from biomd.app.sources import Loading, Sources

log = logging.getLogger(__name__)
POLL_S = 0.25


async def search_ready(sources: Sources, channel: Channel, chat: str) -> None:
    """Get search ready before a question's searches. If that means building the codes, here
    or in the start-up warm-up, say how far it has got in one status message, edited as it
    goes, and when it is done."""
    show = Throttled(StatusMessage(channel, chat, None))
    seen = False

    async def tell(loading: Loading | None) -> None:
        nonlocal seen
        if loading is not None and loading.ended is None:
            seen = True
            await show(replies.preparing_search(loading))

    task = asyncio.ensure_future(sources.prepare_search(tell))
    while not task.done():  # a build begun elsewhere is watched
        await asyncio.wait({task}, timeout=POLL_S)
        await tell(sources.search_loading())
    try:
        task.result()
    except Exception:  # the question's own search says what is wrong, if anything is
        log.warning("could not get search ready", exc_info=True)
    last = sources.last_search_load()
    if seen and last is not None:
        await show(replies.search_prepared(last), force=True)

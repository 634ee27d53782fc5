"""The sample life as the app opens it: a data dir of its own beside the owner's, its
sources ingested once and their vectors made. With no bot configured, `biomd run` shows
biomd over it."""

from __future__ import annotations

from collections.abc import Callable

from biomd import sample
from biomd.app import model_checks
from biomd.app.engine import Engine
from biomd.errors import BiomdError
from biomd.settings import Settings
from biomd.storage.database import ensure_private_dir
from biomd.storage.store import Store

ABOUT = sample.ABOUT
TRY = sample.TRY


def settings_for(settings: Settings) -> Settings:
    """The settings over the sample's own data dir, beside (never inside) the owner's; the
    models folder stays shared, so models are downloaded once."""
    own = settings.data_dir
    if settings.models_dir.is_relative_to(own):
        ensure_private_dir(own)  # created private before the models folder inside it
    ensure_private_dir(settings.models_dir)
    return settings.but(
        **{
            "data_dir": sample.data_dir(own),
            "embed_cache_dir": settings.models_dir,
            "owner_names": sample.OWNER_NAMES,
            "timezone": sample.TIMEZONE,
        }
    )


async def owner_has_sources(settings: Settings) -> bool:
    """Whether the owner's own data folder holds a source (then `biomd run` with no bot
    opens their session, not the sample's)."""
    if not settings.db_path.exists():
        return False
    store = await Store.open(settings.db_path)
    try:
        counts = await store.documents.counts()
    finally:
        await store.close()
    return counts.documents + counts.pending > 0


async def load(engine: Engine, say: Callable[[str], None]) -> None:
    """Ingest the sample's sources that are not in yet (all of them on the first run), and
    make the vectors still missing; `say` hears what is going on."""
    have = {d.name: d.status for d in await engine.sources.all()}
    waits = model_checks.speech_failure(engine.settings)  # a voice note failed for it waits
    todo = [
        p
        for p in sample.files()
        if p.name not in have or (have[p.name] == "failed" and waits is None)
    ]
    if todo:
        many = f"{len(todo)} sample sources" if len(todo) > 1 else "1 sample source"
        again = any(p.name in have for p in todo)
        say(f"Reading {many} into biomd {'again' if again else '(first run only)'}…")
        async for result in engine.sources.ingest(todo):
            failed = result.status == "failed"
            say(f"  {result.error}" if failed else f"  #{result.document_id} {result.name}")
    stored = await engine.sources.stored_model()
    changed = stored is not None and stored != engine.sources.model_name
    if changed or (await engine.sources.stats()).vectors_missing:
        if model_checks.embedding_failure(engine.settings):  # said in full when it failed
            say("Search works by keyword until the embedding model is here (`biomd doctor`).")
            return
        say("Computing vectors for search by meaning…")
        try:  # the sample is small: a changed BIOMD_EMBED_MODEL is simply re-embedded
            await (engine.sources.reindex() if changed else engine.sources.embed_pending())
        except BiomdError as exc:
            say(f"{exc.user_message}\nSearch works by keyword until then.")

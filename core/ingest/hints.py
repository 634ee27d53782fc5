"""Proper-noun hints for speech recognition: the names in the owner's life, ranked, fitted
into Whisper's prompt. Without them, "Saoirse" comes back as "Sasha"."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable

_CAPITALISED = re.compile(r"\b[A-ZÀ-ÖØ-Þ][\w'’-]{3,}\b")

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
    """Capitalised words longer than three letters that are not common words, with counts."""
    return Counter(w for w in _CAPITALISED.findall(text) if w not in COMMON_WORDS)


def rank(bio_names: Counter[str], corpus_names: Iterable[tuple[str, int]]) -> list[str]:
    """Names by how often they come up, bio.md and the corpus together."""
    total: Counter[str] = Counter()
    for name, count in bio_names.items():
        total[name] += count
    for name, count in corpus_names:
        for word in name.split():
            if len(word) > 3 and word[:1].isupper() and word not in COMMON_WORDS:
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

"""Words that cue what a note may be about (a hurt or a conflict, a decision, an intention),
and what a text is about (`subjects`), for the mirror and the reading's leads. A cue only
has to find candidates, not to be right: a model or the owner decides. In the
languages biomd knows best; matched on whole folded words (case and accents ignored), or on
a word's beginning where the term ends with "*"."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from biomd.fold import fold
from biomd.retrieval.language import STOPWORDS

TIME_WORDS = frozenset(
    """year years month months week weeks weekend day days today tonight tomorrow yesterday
    morning mornings evening night nights time times again new last next ever always never
    jahr monat woche heute morgen abend nacht wieder immer nie año mes semana hoy mañana
    noche siempre nunca otra vez ano semana hoje amanhã noite sempre nunca outra année mois
    semaine aujourd'hui demain soir nuit encore toujours jamais""".split()
)
"""Words of time and frequency: two notes that share only these share no subject."""
GENERIC = frozenset(
    """good bad fine great nice okay sure really sorry worry thanks love like want wanted
    need think know feel felt make made take going thing things something everything much
    many little well right just still tired happy glad gut schön bien bueno bom boa bien""".split()
)
"""Words that judge or soften rather than name a subject ("all good", "so tired")."""
_COMMON = frozenset().union(*STOPWORDS.values())


def subjects(text: str) -> set[str]:
    """What a text is about, roughly: its words of substance (not common, not of time, not
    a judgement; three letters or more: "run", "London"), folded, by their first five
    letters (work, working)."""
    return {
        w[:5]
        for w in re.findall(r"\w+", fold(text))
        if len(w) >= 3 and w not in _COMMON and w not in TIME_WORDS and w not in GENERIC
    }


def words(text: str) -> str:
    """A text as the terms are looked for in it: folded words, one space apart."""
    return " " + " ".join(re.findall(r"[\w'-]+", fold(text))) + " "


class Terms:
    """A list of terms; calling it says whether a text has any of them, `found` which. One
    regular expression for them all, so a long chat is read once per table, not once per
    term."""

    def __init__(self, terms: Iterable[str]) -> None:
        self.terms = tuple(
            " " + words(t.rstrip("*")).strip() + ("" if t.endswith("*") else " ") for t in terms
        )
        alternatives = sorted({t.strip() for t in self.terms if t.strip()}, key=len, reverse=True)
        whole = {t.strip() for t in self.terms if t.endswith(" ")}
        parts = [t + (" " if t in whole else "") for t in alternatives]
        self._pattern = re.compile("(?<= )" + _trie(parts)) if parts else None

    @classmethod
    def of(cls, table: Mapping[str, Sequence[str]], languages: Iterable[str]) -> Terms:
        """The terms of a table (a tuple of terms per language) in these languages."""
        return cls(t for lang in dict.fromkeys(languages) for t in table.get(lang, ()))

    def __call__(self, text: str) -> bool:
        return self.within(words(text))

    def __add__(self, other: Terms) -> Terms:
        return Terms((*self.as_written(), *other.as_written()))

    def as_written(self) -> tuple[str, ...]:
        """The terms as a table writes them ("resent*" for a word's beginning)."""
        return tuple(t.strip() + ("" if t.endswith(" ") else "*") for t in self.terms)

    def within(self, folded: str) -> bool:
        """Whether a text already made `words` has a term."""
        return self._pattern is not None and self._pattern.search(folded) is not None

    def found(self, folded: str) -> list[str]:
        """The terms a text already made `words` has, in order, as folded words."""
        if self._pattern is None:
            return []
        return [m.group().strip() for m in self._pattern.finditer(folded)]


_Trie = dict[str, "_Trie"]


def _trie(terms: Iterable[str]) -> str:
    """A regular expression for any of `terms`, the longest first, as a tree of their shared
    beginnings: Python's engine tries an alternation term by term at every position, and a
    table of 300 terms read that way made a 50 MB chat's cues take seconds."""
    root: _Trie = {}
    for term in terms:
        node = root
        for ch in term:
            node = node.setdefault(ch, {})
        node[""] = {}
    return _node(root)


def _node(node: _Trie) -> str:
    branches = [re.escape(ch) + _node(child) for ch, child in sorted(node.items()) if ch]
    if not branches:
        return ""
    group = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if "" in node:  # a term ends here: a longer one is tried first
        return ("(?:" + group + ")" if len(branches) == 1 and len(branches[0]) > 1 else group) + "?"
    return group


HURT = Terms((
    # en
    "hurt", "upset", "angry", "annoyed", "fight", "fought", "argument", "argued", "arguing",
    "yelled", "shouted", "criticised", "criticized", "criticism", "humiliated", "ignored",
    "ignores", "forgot", "forgets", "disappointed", "jealous", "worried", "anxious",
    "sad", "cried", "crying", "furious", "betrayed", "let me down", "offended", "snapped",
    "tension", "conflict", "quarrel", "insulted", "blamed", "embarrassed", "ashamed",
    "frustrated", "fed up", "lonely", "resent*", "mad at", "row with", "fell out",
    # pt
    "magoad*", "magoou", "chatead*", "zangad*", "irritad*", "discuss*", "discuti*", "brig*",
    "gritou", "critic*", "humilh*", "ignor*", "esqueceu", "desilud*", "ciumes",
    "preocupad*", "ansios*", "triste", "chorei", "furios*", "traid*", "ofendid*", "conflit*",
    "insult*", "culp*", "frustrad*", "farta", "farto", "sozinh*",
    # es
    "dolid*", "enfadad*", "molest*", "pelea*", "pelear*", "discut*", "grito", "humill*",
    "olvido", "decepcion*", "celos", "llore", "traicion*", "harta", "harto",
    # de
    "verletzt", "wutend", "sauer", "genervt", "streit*", "gestritten", "angeschrien",
    "kritisiert", "gedemutigt", "ignoriert", "vergessen", "enttauscht", "eifersuchtig",
    "besorgt", "sorgen", "angstlich", "traurig", "geweint", "verraten", "beleidigt",
    "konflikt*", "frustriert", "einsam",
    # fr
    "blesse*", "fache*", "enerve*", "dispute*", "crie", "critique*", "humilie*", "ignore",
    "oublie", "decu*", "jaloux", "inquiet*", "anxieux", "pleure", "furieux", "trahi*",
    "vexe*", "conflit*", "insulte*", "frustre*",
))  # fmt: skip

DECISION = Terms((
    # en
    "decided", "decide", "decision", "quit", "quitting", "resign*", "leaving", "moving",
    "move to", "moved to", "break up", "broke up", "breaking up", "new job", "start over",
    "fresh start", "time for a change", "growth", "grow", "new chapter", "handed in",
    "signed up", "enrolled", "booked", "bought a ticket",
    # pt
    "decidi*", "despedi*", "demit*", "vou sair", "mudar*", "mudanca", "terminei", "acabei",
    "novo emprego", "recomecar", "crescimento", "crescer", "nova fase",
    # es
    "renuncie", "dimit*", "me voy", "mudarme", "termine", "nuevo trabajo",
    "empezar de nuevo", "crecer", "nueva etapa",
    # de
    "entschieden", "entschlossen", "gekundigt", "kundige", "ziehe", "umziehen", "umzug",
    "schluss gemacht", "neuer job", "neuanfang", "wachstum", "wachsen", "veranderung",
    # fr
    "decide", "demission*", "quitte", "demenage*", "rompu", "nouveau travail",
    "recommencer", "croissance", "grandir", "changement",
))  # fmt: skip

INTENTION = Terms((
    # en
    "i will", "i'll", "i am going to", "i'm going to", "going to", "gonna", "plan to",
    "plans to", "planning to", "want to", "wants to", "promise*", "next week", "tomorrow",
    "this year", "from now on", "i should", "intends to", "intend to", "will talk", "will tell",
    "will ask", "will call", "will stop", "will start",
    # pt
    "vou", "irei", "prometo", "prometi", "quero", "planeio", "a partir de agora",
    "para a semana", "amanha", "este ano",
    # es
    "voy a", "quiero", "planeo", "a partir de ahora", "la semana que viene", "manana",
    # de
    "ich werde", "werde ich", "ich will", "ich mochte", "verspreche", "ab jetzt",
    "nachste woche", "morgen", "dieses jahr",
    # fr
    "je vais", "je promets", "je veux", "a partir de maintenant", "la semaine prochaine",
    "demain", "cette annee",
))  # fmt: skip

NEGATION = Terms((
    # a statement's polarity: two notes on one subject, one with these and one without, may
    # say opposite things
    "never", "not", "no", "don't", "dont", "won't", "wont", "can't", "cant", "isn't", "wasn't",
    "didn't", "hate", "hated", "nothing", "nobody", "none", "no more", "stop", "stopped",
    "nunca", "nao", "nada", "odeio", "jamais", "nie", "niemals", "nicht", "kein", "keine",
    "hasse", "pas", "rien", "deteste", "mai", "niente", "odio",
))  # fmt: skip

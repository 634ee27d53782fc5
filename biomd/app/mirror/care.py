"""Care: the mirror describes behaviour with evidence, never a diagnosis, a clinical label or
a claim about another person's motives; and where notes show signs of crisis (self-harm,
suicide, abuse) it makes no pattern of them and shows where to find help instead. Word
lists in the languages biomd knows best, matched as cues.Terms match."""

from __future__ import annotations

from biomd.biographer.cues import Terms

CRISIS = (
    # en
    "suicide", "suicidal", "kill myself", "killing myself", "end my life", "want to die",
    "wanted to die", "self-harm", "self harm", "hurt myself", "hurting myself", "cut myself",
    "cutting myself", "overdose", "no reason to live", "better off dead", "abuse", "abused",
    "abusive", "he hit me", "she hit me", "hits me", "beat me", "beats me", "raped", "rape",
    # pt / es
    "suicidio", "suicidar", "matar-me", "matarme", "quero morrer", "quiero morir",
    "me cortei", "me corte", "automutila*", "autolesion*", "abuso", "abusou", "bateu-me",
    "me bateu", "me pego", "violada", "violacion", "violacao",
    # de
    "selbstmord*", "suizid*", "umbringen", "will sterben", "ritze mich", "selbstverletz*",
    "missbrauch*", "schlagt mich", "vergewaltig*",
    # fr / it
    "me tuer", "veux mourir", "me suicider", "automutil*", "abus", "il me frappe",
    "elle me frappe", "viol", "uccidermi", "voglio morire", "autolesionismo", "abusato",
)  # fmt: skip

LABELS = (
    # words that diagnose or label rather than describe
    "narcissis*", "psychopath*", "sociopath*", "bipolar", "borderline", "depressed",
    "depression", "disorder", "adhd", "autis*", "ocd", "ptsd", "trauma*", "toxic",
    "codependen*", "gaslight*", "manipulat*", "abusive", "neurotic", "paranoi*", "anxiety",
    "attachment style", "avoidant", "mentally ill", "mental illness", "diagnos*", "symptom*",
    "therapy", "pathological",
    "because he wants", "because she wants", "because they want", "he wants to hurt",
    "she wants to hurt", "on purpose", "deliberately",
)  # fmt: skip

HELP = (
    "Some of what you wrote sounds like a very hard time, so the mirror leaves it out of its "
    "patterns: that is not something to be measured. If you are in danger or thinking of "
    "harming yourself, please reach out now: call your local emergency number, or a crisis "
    "line (findahelpline.com lists free, confidential ones in every country). You deserve "
    "support from a person, not a program."
)
NOT_A_THERAPIST = (
    "This is a mirror, not a therapist: it shows what your messages and notes say, with the "
    "evidence, and nothing about why. It makes no diagnosis. You are the judge of what fits."
)


_CRISIS = Terms(CRISIS)
_LABELS = Terms(LABELS)


def crisis(text: str) -> bool:
    """Whether a text shows signs of crisis (self-harm, suicide, abuse)."""
    return _CRISIS(text)


def crisis_in_words(folded: str) -> bool:
    """`crisis` of a text already folded into its words (biographer.cues.words)."""
    return _CRISIS.within(folded)


def labels(text: str) -> bool:
    """Whether a text diagnoses, labels, or claims to know someone's motives."""
    return _LABELS(text)

"""What a pattern found from the owner's lines says to the owner: what they wrote, to whom
and when, in their own words and in their language, in behavioural terms, never a
diagnosis. Made by rule from the lines a shape kept, so it can say nothing they don't.
Pure."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from biomd.app.mirror.lines import Line
from biomd.app.mirror.patterns import short
from biomd.app.mirror.shapes import Shape

PHRASES: dict[str, dict[str, str]] = {
    "en": {
        "journal": "in your journal", "to": "to {who}", "group": "in {who}",
        "self_contradiction": "You wrote {0}, and later {1}.",
        "told_apart": "You wrote {0}, and {1}.",
        "avoidance": "You wrote {0}; to {person} you wrote {1}.",
        "stated_reason": "You wrote {0}; days later, {1}.",
        "said_vs_did": "You wrote {0}; later, {1}.",
        "cycle": "You wrote {0}, and again {1}; each time it was followed by {2} and {3}.",
        "again": "And again: ", "look": "Worth a look: ",
    },
    "es": {
        "journal": "en tu diario", "to": "a {who}", "group": "en {who}",
        "self_contradiction": "Escribiste {0}, y más tarde {1}.",
        "told_apart": "Escribiste {0}, y {1}.",
        "avoidance": "Escribiste {0}; a {person} le escribiste {1}.",
        "stated_reason": "Escribiste {0}; días después, {1}.",
        "said_vs_did": "Escribiste {0}; más tarde, {1}.",
        "cycle": "Escribiste {0}, y otra vez {1}; cada vez le siguió {2} y {3}.",
        "again": "Y otra vez: ", "look": "Para mirar: ",
    },
    "pt": {
        "journal": "no teu diário", "to": "a {who}", "group": "em {who}",
        "self_contradiction": "Escreveste {0}, e mais tarde {1}.",
        "told_apart": "Escreveste {0}, e {1}.",
        "avoidance": "Escreveste {0}; a {person} escreveste {1}.",
        "stated_reason": "Escreveste {0}; dias depois, {1}.",
        "said_vs_did": "Escreveste {0}; mais tarde, {1}.",
        "cycle": "Escreveste {0}, e outra vez {1}; de cada vez seguiu-se {2} e {3}.",
        "again": "E outra vez: ", "look": "A ver: ",
    },
    "de": {
        "journal": "in deinem Tagebuch", "to": "an {who}", "group": "in {who}",
        "self_contradiction": "Du hast {0} geschrieben, und später {1}.",
        "told_apart": "Du hast {0} geschrieben, und {1}.",
        "avoidance": "Du hast {0} geschrieben; an {person} schriebst du {1}.",
        "stated_reason": "Du hast {0} geschrieben; Tage später {1}.",
        "said_vs_did": "Du hast {0} geschrieben; später {1}.",
        "cycle": "Du hast {0} geschrieben, und wieder {1}; jedes Mal folgte {2} und {3}.",
        "again": "Und wieder: ", "look": "Einen Blick wert: ",
    },
    "fr": {
        "journal": "dans ton journal", "to": "à {who}", "group": "dans {who}",
        "self_contradiction": "Tu as écrit {0}, et plus tard {1}.",
        "told_apart": "Tu as écrit {0}, et {1}.",
        "avoidance": "Tu as écrit {0} ; à {person} tu as écrit {1}.",
        "stated_reason": "Tu as écrit {0} ; quelques jours plus tard, {1}.",
        "said_vs_did": "Tu as écrit {0} ; plus tard, {1}.",
        "cycle": "Tu as écrit {0}, et encore {1} ; chaque fois, il a suivi {2} et {3}.",
        "again": "Et encore : ", "look": "À regarder : ",
    },
}  # fmt: skip

MONTHS: dict[str, tuple[str, ...]] = {
    "en": ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"),
    "es": ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
           "septiembre", "octubre", "noviembre", "diciembre"),
    "pt": ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
           "setembro", "outubro", "novembro", "dezembro"),
    "de": ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
           "September", "Oktober", "November", "Dezember"),
    "fr": ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
           "septembre", "octobre", "novembre", "décembre"),
}  # fmt: skip


def day_text(day: int, language: str) -> str:
    """A day for a sentence: '4 March 2021', '4 marzo 2021'."""
    d = date.fromordinal(day)
    months = MONTHS.get(language, MONTHS["en"])
    return f"{d.day} {months[d.month - 1]} {d.year}"


def said(line: Line, language: str) -> str:
    """A line as a statement quotes it: “its words” (to whom, when)."""
    p = PHRASES.get(language, PHRASES["en"])
    whom = (
        p["journal"] if not line.to else (p["group"] if line.group else p["to"]).format(who=line.to)
    )
    return f"\u201c{short(line.text)}\u201d ({whom}, {day_text(line.day, language)})"


def statement(shape: Shape, kept: Sequence[int], language: str) -> str:
    """A pattern's statement from the lines a shape kept (their indices, in time order)."""
    p = PHRASES.get(language, PHRASES["en"])
    quoted = {i: said(shape.lines[i], language) for i in kept}
    part = {i: a.part for a in shape.asks for i in a.lines}
    if shape.kind == "avoidance":
        complaints = [q for i, q in quoted.items() if part.get(i) == "complaint"]
        soothing = [q for i, q in quoted.items() if part.get(i) == "reassure"]
        return p["avoidance"].format(", ".join(complaints), ", ".join(soothing), person=shape.about)
    if shape.kind == "stated_reason":
        pairs = [p["stated_reason"].format(quoted[i], quoted[i + 1]) for i in kept[::2]]
        return " ".join(pairs[:1] + [p["again"] + pair for pair in pairs[1:]])
    if shape.kind == "cycle" and len(shape.asks) == 2:
        plans, after = (tuple(quoted[i] for i in a.lines) for a in shape.asks)
        return p["cycle"].format(plans[0], plans[-1], after[0], after[-1])
    ordered = [quoted[i] for i in kept]
    return p.get(shape.kind, p["said_vs_did"]).format(ordered[0], ordered[-1])


def worth_a_look(lines: Sequence[Line], language: str) -> str:
    """What a shape no model has judged says: its lines, and no claim."""
    p = PHRASES.get(language, PHRASES["en"])
    return p["look"] + "; ".join(said(x, language) for x in lines) + "."

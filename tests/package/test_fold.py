"""The one text fold (biomd.fold), across scripts, its map back to the original text, and the
places that compare text by it: grep, rules placement, hidden names, quotes."""

from __future__ import annotations

import pytest

from biomd.app.engine import Engine
from biomd.app.share.people import Names, choose
from biomd.biographer.reading.leads import people_without_context
from biomd.biographer.reading.placement import place
from biomd.biographer.reading.quotes import locate
from biomd.fold import fold, fold_mapped
from biomd.storage.notes import Note


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("İstanbul", "istanbul"),  # Turkish dotted capital I
        ("Işık", "isik"),  # Turkish dotless i
        ("Straße", "strasse"),
        ("STRASSE", "strasse"),
        ("ﬁle ﬂow", "file flow"),  # ligatures
        ("Æsop Œuvre", "aesop oeuvre"),
        ("Łódź Søren Đorđe", "lodz soren dorde"),  # letters with a stroke
        ("Йога", "йога"),  # й is a letter of its own
        ("йога", "йога"),
        ("Ёлка", "елка"),  # ё is е
        ("ўсё", "ўсе"),
        ("ΟΔΟΣ", "οδοσ"),  # Greek capital sigma
        ("οδός", "οδοσ"),  # final sigma, accent
        ("Sofía", "sofia"),
        ("Sofi\u0301a", "sofia"),  # decomposed: e + combining acute
        ("ＡＢＣ１２", "abc12"),  # full-width forms
        ("東京に引っ越した", "東京に引っ越した"),  # CJK untouched
        ("한국어 ﾊﾝｶｸ", "한국어 ﾊﾝｶｸ"),
        ("がぎ", "がぎ"),  # a kana keeps its voicing mark
        ("don’t — “yes” «non»…", 'don\'t - "yes" "non"...'),
        ("a \n\t  b\u00a0c", "a b c"),
        ("Plain ASCII, `ticks`", "plain ascii, 'ticks'"),
    ],
)
def test_fold_across_scripts(text: str, folded: str) -> None:
    assert fold(text) == folded
    assert fold_mapped(text).text == folded


def test_composed_and_decomposed_text_fold_alike() -> None:
    assert fold("café São Paulo") == fold("cafe\u0301 Sa\u0303o Paulo") == "cafe sao paulo"
    assert fold("Йога") == fold("И\u0306ога")  # й decomposed is still й
    assert fold("が") == fold("か\u3099")


def test_fold_is_idempotent() -> None:
    text = "İstanbul Straße ﬁ ΟΔΟΣ Йога Sofi\u0301a “x” 東京"
    assert fold(fold(text)) == fold(text)


@pytest.mark.parametrize(
    ("text", "found", "original"),
    [
        ("Walked down the Straße at night", "strasse", "Straße"),
        ("Walked down the Straße at night", "stras", "Straß"),  # half an ß takes all of it
        ("a ﬁne day", "fine", "ﬁne"),
        ("in İstanbul today", "istanbul", "İstanbul"),
        ("and Sofi\u0301a cried", "sofia cried", "Sofi\u0301a cried"),  # the mark comes too
        ("said “yes,   really”.", '"yes, really"', "“yes,   really”"),
        ("Ёлка и Йога", "елка и йога", "Ёлка и Йога"),
        ("東京に引っ越した", "引っ越", "引っ越"),
    ],
)
def test_a_span_found_in_folded_text_is_the_exact_original(
    text: str, found: str, original: str
) -> None:
    folded = fold_mapped(text)
    at = folded.text.index(found)
    start, end = folded.span(at, at + len(found))
    assert text[start:end] == original


def test_the_map_has_a_place_for_every_folded_character() -> None:
    text = "Straße, ﬁsh, İ and e\u0301 — “ok”  東京"
    folded = fold_mapped(text)
    assert len(folded.starts) == len(folded.ends) == len(folded.text)
    assert folded.starts == sorted(folded.starts)
    assert all(0 <= s < e <= len(text) for s, e in zip(folded.starts, folded.ends, strict=True))


def test_a_quote_is_found_across_case_accents_and_ligatures() -> None:
    text = "[2020-05-01] Ana: Mudámos para a Straße 5 em İstanbul, que ﬁcou longe."
    span = locate("mudamos para a strasse 5 em istanbul", fold_mapped(text))
    assert span is not None
    assert text[span[0] : span[1]] == "Mudámos para a Straße 5 em İstanbul"


def _note(statement: str) -> Note:
    return Note(1, 3, "fact", statement, None, (), statement, 0, len(statement), None)


def test_rules_placement_takes_sofia_and_sofía_for_one_statement() -> None:
    bio = "# Ana\n\n## Identity\n\n- Sofía is Ana's oldest friend [#2]\n"
    kept, added = place(bio, [_note("Sofia is Ana’s oldest friend.")])
    assert (kept, added) == (bio, 0)
    _, added = place(bio, [_note("Sofia is Ana's neighbour.")])
    assert added == 1


def test_a_person_bio_md_names_with_an_accent_is_not_asked_about_without_it() -> None:
    bio = "# bio.md\n\n## People & relationships\n- Sofía: lives in Porto [#2]\n"
    notes = [
        Note(i, i, "fact", q, "2021-03-01", ("Sofia", "MÃE"), q, 0, len(q), None)
        for i, q in enumerate(["Sofia and MÃE came", "Sofia rang MÃE"], 1)
    ]
    assert people_without_context(notes, bio, ["Ana"]) == []


def test_a_hidden_name_is_found_in_any_case_accent_or_form() -> None:
    names = Names(choose([("Jürgen Groß", "her uncle")], "role"))
    text = "JURGEN GROSS came; then Ju\u0308rgen; then Groß’s dog."
    found = [text[a:b] for a, b, _ in names.found(text)]
    assert found == ["JURGEN GROSS", "Ju\u0308rgen", "Groß"]
    assert names.replace(text) == "her uncle came; then her uncle; then her uncle’s dog."


async def test_grep_finds_istanbul_written_with_a_dotted_capital_i(engine: Engine) -> None:
    text = "We flew to İstanbul in May. ISTANBUL again in June."
    await engine.sources.keep_text(text, "trip.md")
    page = await engine.sources.grep("istanbul")
    doc = (await engine.sources.read(page.mentions[0].document_id)).text
    assert [doc[m.position : m.position + 8] for m in page.mentions] == ["İstanbul", "ISTANBUL"]
    assert "We flew to İstanbul" in page.mentions[0].line
    assert (await engine.sources.grep("İSTANBUL")).total == 2

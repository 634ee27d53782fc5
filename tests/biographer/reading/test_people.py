"""People & relationships by rules: relations from the owner's own words in five languages,
where people live, the years they appear and the sources (issue 51)."""

from __future__ import annotations

from pathlib import Path

import pytest

from biomd.app.engine import Engine
from biomd.biographer.profile_text import section
from biomd.biographer.reading.people import Found, found_in, gather, into, line, phrased
from biomd.storage.notes import Note
from tests.conftest import llm_settings
from tests.support.fake_llm import FakeLLM, notes_reply
from tests.support.reading import read_round

JONAS = ("Jonas Berger", "Jonas")


@pytest.mark.parametrize(
    ("text", "owner", "found"),
    [
        ("Meine Schwester Miriam hat angerufen.", JONAS, ("Miriam", "sister")),
        ("Krümel, mein Hund, hat den Platz gefunden.", JONAS, ("Krümel", "dog")),
        (
            "Meine Chefin, Frau Roth, hat gesagt, dass ich mich gut mache.",
            JONAS,
            ("Frau Roth", "boss"),
        ),
        ("Lunch with my little brother Tom today.", ("Nina",), ("Tom", "brother")),
        ("Inês and I have been together eight months now.", ("Nina",), ("Inês", "partner")),
        ("Ayer cené con mi hermana Lucía.", ("Ana",), ("Lucía", "sister")),
        ("J'ai vu ma meilleure amie Camille hier.", ("Léa",), ("Camille", "best friend")),
        ("A minha irmã Ana vem no sábado.", ("Rita",), ("Ana", "sister")),
        (
            "[2021-06-20 21:14] Jonas: Deniz zieht am 1. Juli bei mir ein",
            JONAS,
            ("Deniz", "partner"),
        ),
        ("[2021-02-12 18:40] Mum: Did the boxes arrive??", ("Nina",), ("Mum", "mother")),
    ],
)
def test_the_owners_own_words_say_who_someone_is(
    text: str, owner: tuple[str, ...], found: tuple[str, str]
) -> None:
    assert found in found_in(text, owner).relations


def test_what_others_say_of_their_own_kin_is_not_the_owners() -> None:
    said = found_in("[2019-03-10 19:02] Miriam: My brother Paul says hi", JONAS)
    assert said.relations == [] and said.speaks == {"Miriam": ["2019"]}


def test_where_someone_lives_comes_from_a_line_that_says_so() -> None:
    journal = "Meine Schwester Miriam hat angerufen. Sie wohnt noch in Rostock und vermisst mich."
    assert ("Miriam", "Rostock") in found_in(journal, JONAS).places
    chat = "[2021-12-24 09:02] Mum: Happy Christmas from Bristol! Rosie is gorgeous"
    assert ("Mum", "Bristol") in found_in(chat, ("Nina",)).places
    moved = "[2023-02-19 17:04] Nina: I stopped in April, the tutor moved to Brazil"
    assert found_in(moved, ("Nina",)).places == []


def _note(i: int, doc: int, people: tuple[str, ...], date: str) -> Note:
    return Note(i, doc, "event", "said", date, people, "said", 0, 4, None)


def test_everyone_named_twice_or_by_relation_gets_a_line_with_years_and_sources() -> None:
    notes = [
        _note(1, 1, ("Miriam",), "2018-09-02"),
        _note(2, 2, ("Miriam", "Paul"), "2019-03-10"),
        _note(3, 2, ("Paul",), "2019-09-15"),
        _note(4, 3, ("Aylin",), "2022-03-27"),
    ]
    found = {1: Found([("Miriam", "sister"), ("Frau Roth", "boss")], [("Miriam", "Rostock")])}
    people = {p.name: p for p in gather(notes, found, JONAS)}
    assert set(people) == {"Miriam", "Paul", "Frau Roth"}  # Aylin: named once, no relation
    assert line(people["Miriam"], JONAS, "en") == (
        "- Miriam: Jonas's sister; lives in Rostock (2018–2019) [#1, #2]"
    )
    assert line(people["Miriam"], JONAS, "de") == (
        "- Miriam: Schwester von Jonas; wohnt in Rostock (2018–2019) [#1, #2]"
    )
    assert line(people["Paul"], JONAS, "en") == "- Paul: named in the sources (2019) [#2]"


def test_mum_and_the_mother_named_by_name_are_one_person() -> None:
    found = {1: Found([("Mum", "mother"), ("Hanne", "mother")], [("Mum", "Rostock")])}
    (mother,) = gather([], found, JONAS)
    assert (mother.name, mother.relation, mother.place) == ("Hanne", "mother", "Rostock")


BIO = "# bio.md\n\n## People & relationships\n- Tom: sold the tools [#2]\n\n## Patterns\n"


def test_a_persons_line_is_updated_in_place_and_the_owners_edit_is_kept() -> None:
    first = into(BIO, "- Tom: Nina's brother (2020) [#2]", None, "Tom")
    assert "- Tom: Nina's brother (2020) [#2]; sold the tools [#2]" in first
    added = into(first, "- Mum: Nina's mother [#7]", None, "Mum")
    assert "- Mum: Nina's mother [#7]" in section(added, "people")
    later = into(
        added,
        "- Tom: Nina's brother (2020–2021) [#2, #4]",
        "- Tom: Nina's brother (2020) [#2]",
        "Tom",
    )
    assert "- Tom: Nina's brother (2020–2021) [#2, #4]; sold the tools [#2]" in later
    edited = later.replace("- Mum: Nina's mother [#7]", "- Mum: my mum, in Bristol [#7]")
    assert (
        into(
            edited,
            "- Mum: Nina's mother; lives in Bristol [#7]",
            "- Mum: Nina's mother [#7]",
            "Mum",
        )
        == edited
    )


@pytest.mark.slow
async def test_a_reading_round_writes_people_and_the_next_one_updates_them(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = llm_settings(tmp_path, minilm_path, llm, owner_names="Jonas Berger, Jonas")
    journal = "Meine Schwester Miriam hat angerufen. Sie wohnt noch in Rostock.\n"
    llm.notes.append(
        notes_reply(
            {"kind": "event", "date": "2018-09-02", "people": ["Miriam"],
             "statement": "Miriam rang Jonas", "quote": "Meine Schwester Miriam hat angerufen."},
        )
    )  # fmt: skip
    async with await Engine.open(settings) as engine:
        await engine.sources.keep_text(journal, "2018-09-02.md")
        await read_round(engine)
        people = section(await engine.profile.load(), "people")
        assert people == "- Miriam: Jonas's sister; lives in Rostock (2018) [#1]"
        llm.notes.append(
            notes_reply(
                {"kind": "event", "date": "2019-03-10", "people": ["Miriam"], "source": 2,
                 "statement": "Miriam und Paul heiraten", "quote": "Paul und ich haben ein Datum"},
            )
        )  # fmt: skip
        await engine.sources.keep_text(
            "[2019-03-10 19:02] Miriam: Paul und ich haben ein Datum\n",
            "WhatsApp Chat mit Miriam.txt",
        )
        await read_round(engine)
        people = section(await engine.profile.load(), "people")
    assert people == "- Miriam: Jonas's sister; lives in Rostock (2018–2019) [#1, #2]"


def test_a_persons_line_as_the_model_phrases_it_keeps_every_fact_and_adds_none() -> None:
    (miriam,) = gather([], {1: Found([("Miriam", "sister")], [("Miriam", "Rostock")])}, JONAS)
    miriam.years = {"2018", "2019"}
    facts = line(miriam, JONAS, "en")
    good = "Miriam is Jonas's sister and lives in Rostock; named from 2018 to 2019."
    assert phrased(good, facts, miriam, JONAS, "en") == (
        "- Miriam: Miriam is Jonas's sister and lives in Rostock; named from 2018 to 2019 [#1]"
    )
    for bad in (
        "Miriam is Jonas's sister, named from 2018 to 2019.",  # the place left out
        "Miriam is Jonas's sister and lives in Rostock with Paul (2018 to 2019).",  # a new name
        "Miriam is Jonas's older sister in Rostock, born 1990; named 2018 to 2019.",  # a number
        "Miriam is Jonas's sister and lives in Rostock.",  # the years left out
    ):
        assert phrased(bad, facts, miriam, JONAS, "en") is None

"""Who a quote is by and of: the one logic behind the premise check and who-did-what."""

from __future__ import annotations

from biomd.biographer import who

JONAS = ("Jonas Berger", "Jonas")
WEDDING = "Paul und ich haben ein Datum!! Die Hochzeit ist am 14. September in Warnemünde"


def test_a_chat_line_names_its_speaker_and_a_journal_line_none() -> None:
    assert who.speaker("[2019-03-10 19:02] Miriam: Paul und ich haben ein Datum") == "Miriam"
    assert who.speaker("[2021-05-16 10:12] Nina (owner): I've met someone") == "Nina"
    assert who.speaker("Ten days in Lisbon.") == ""


def test_a_quote_is_by_its_speaker_and_of_the_names_it_holds() -> None:
    assert {"miriam", "paul"} <= who.parties(WEDDING, "Miriam")
    assert "i" not in who.parties("I said maybe", "")


def test_the_sisters_wedding_is_not_the_owners() -> None:
    why = who.who_did_what(
        "Jonas and Paul have set a date for their wedding", WEDDING, "Miriam", JONAS
    )
    assert why is not None and "Jonas Berger a party" in why and "Miriam" in why
    assert (
        who.who_did_what("Jonas’s sister Miriam set a date with Paul", WEDDING, "Miriam", JONAS)
        is None
    )
    assert (
        who.who_did_what("Miriam and Paul set the date: 14 September", WEDDING, "Miriam", JONAS)
        is None
    )


def test_the_owner_as_the_reader_calls_them_is_the_owner_too() -> None:
    quote = "My sister Lena and Jakob have set a date for the wedding"
    line = "The sibling and the owner have set a date for a wedding"
    assert who.who_did_what(line, quote, "", ["Nina"]) is not None


def test_what_the_owner_says_of_themselves_or_is_told_is_theirs() -> None:
    assert who.who_did_what("Jonas agreed to nights", "Ich hab ja gesagt", "Jonas", JONAS) is None
    assert (
        who.who_did_what(
            "Nina is as stubborn as her father",
            "You're as stubborn as your father",
            "Mum",
            ["Nina"],
        )
        is None
    )
    assert (
        who.who_did_what("Nina moved to Lisbon", "Ten days in Lisbon. I love it.", "", ["Nina"])
        is None
    )


def test_a_question_names_the_people_it_is_about() -> None:
    assert who.named("What did Caroline paint?", ["Melanie", "Caroline Smith"]) == [
        "Caroline Smith"
    ]
    assert who.names_in("When did Melanie paint a sunrise in the USA?") == ["Melanie"]


def test_what_the_owner_calls_theirs_they_have() -> None:
    quote = "My cat Biscuit hates the stairs."
    assert who.who_did_what("Nina has a cat called Biscuit", quote, "", ["Nina"]) is None
    assert who.who_did_what("Nina's cat Biscuit hates stairs", quote, "", ["Nina"]) is None
    sister = "My sister Lena and Jakob have set a date"
    assert who.who_did_what("Nina and her sister have set a date", sister, "", ["Nina"]) is not None

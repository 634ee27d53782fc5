"""An answer that proves itself: only quotes found in the passages hold an answer up; one by
another person than the question asks about is said to be theirs; a question about time
gets the quote's own date, with "last Friday" resolved."""

from __future__ import annotations

import json

from biomd.biographer.answer_check import (
    ASK,
    INFER,
    SILENT,
    ask_for,
    backed,
    bio_hits,
    checked,
    in_bio,
    parse,
    quote_at,
    unsaid,
)
from biomd.biographer.answer_claims import terms
from biomd.biographer.evidence import ShownPassage

CHAT = ShownPassage(
    3,
    "LoCoMo conv-26 session 7.txt",
    "2023-08-21",
    None,
    "[2023-08-21 13:05] Melanie: I took the kids to the pottery workshop last Friday!\n"
    "[2023-08-21 13:07] Caroline: That's so sweet. I went to a support group yesterday.\n"
    "[2023-08-21 13:09] Melanie: Señora García painted the café sign.",
)


def reply(answer: str, *quotes: tuple[int, str], silent: bool = False) -> str:
    return json.dumps(
        {
            "answer": answer,
            "quotes": [{"source": s, "quote": q} for s, q in quotes],
            "silent": silent,
        }
    )


def test_a_quote_that_is_not_in_the_passages_says_the_sources_dont_say() -> None:
    claimed = parse(reply("She went to Paris.", (3, "We flew to Paris in June")))
    text, quotes = checked("Where did Caroline travel?", claimed, [CHAT])
    assert quotes == [] and text.startswith(SILENT)
    assert "#3 LoCoMo conv-26 session 7.txt" in text, "the nearest passages"
    text, _ = checked("Where?", parse("no JSON at all"), [CHAT])
    assert text.startswith(SILENT)


def test_a_quote_by_someone_else_than_the_one_asked_about_is_said_to_be_theirs() -> None:
    claimed = parse(
        reply("Caroline went to a pottery workshop.", (3, "took the kids to the pottery workshop"))
    )
    text, quotes = checked("When did Caroline go to the pottery workshop?", claimed, [CHAT])
    assert text.startswith("Your sources say this of Melanie, not Caroline:"), text
    assert len(quotes) == 1
    own = parse(reply("Melanie went to it.", (3, "took the kids to the pottery workshop")))
    text, _ = checked("What did Melanie do with her kids?", own, [CHAT])
    assert not text.startswith("Your sources say this of"), "said by her: the answer stands"


def test_a_question_about_time_gets_the_date_the_quote_names_whatever_the_model_wrote() -> None:
    claimed = parse(
        reply("On 21 August 2023.", (3, "took the kids to the pottery workshop last Friday"))
    )
    text, quotes = checked("When did Melanie take her kids to pottery?", claimed, [CHAT])
    assert quotes[0].said_on == "2023-08-18", "last Friday, said on Monday 2023-08-21"
    assert text.startswith("On 2023-08-18. (from the message of 2023-08-21, #3)\n")
    for said, shown in {
        "She went on August 18th, 2023.": "She went on August 18th, 2023.",  # right: kept
        "She went on August 18th.": "She went on 2023-08-18.",  # right, with the year
        "On the 18th of August, 2023.": "On the 18th of August, 2023.",
        "In August 2023.": "In 2023-08-18. (from",  # less precise than the quote: replaced
        "She went with the kids.": "2023-08-18: She went with the kids. (from",
        "Two days later (week of 2023-08-21).": "Two days later (2023-08-18).",
    }.items():
        text, _ = checked("When did she go?", parse(reply(said, (3, "pottery workshop"))), [CHAT])
        assert text.startswith(shown), (said, text)


def test_a_quote_with_other_accents_case_and_quote_marks_still_verifies() -> None:
    claimed = parse(
        "Sure! ```json\n" + reply("She did.", (3, "SENORA GARCIA painted the cafe sign")) + "\n```"
    )
    (q,) = backed(claimed, [CHAT]) if claimed else []
    assert q.quote == "Señora García painted the café sign" and q.speaker == "Melanie"
    assert q.day == "2023-08-21" and q.document_id == 3


def test_a_quote_citing_the_wrong_source_is_cited_where_it_is_and_one_shown_nowhere_fails() -> None:
    other = ShownPassage(4, "journal.txt", "2023-08-01", None, "Went to the pottery fair.")
    claimed = parse(reply("She did.", (4, "took the kids to the pottery workshop")))
    assert claimed is not None
    (found,) = backed(claimed, [other, CHAT])
    assert (found.document_id, found.speaker) == (3, "Melanie")
    assert backed(claimed, [other]) == []


def test_the_answer_comes_first_then_each_quote_with_its_source_date_and_speaker() -> None:
    claimed = parse(reply("Yes, a support group.", (3, "I went to a support group yesterday")))
    text, _ = checked("Did Caroline go to a support group?", claimed, [CHAT])
    first, quote = text.split("\n")
    assert first == "Yes, a support group."
    assert quote == "- “I went to a support group yesterday” [#3, 2023-08-21, Caroline]"


def test_a_quote_inside_another_is_shown_once_and_an_inference_says_so() -> None:
    claimed = parse(
        reply(
            "She likes making things.",
            (3, "I took the kids to the pottery workshop last Friday!"),
            (3, "the pottery workshop"),
        )
    )
    text, quotes = checked("What might Melanie enjoy?", claimed, [CHAT])
    assert len(quotes) == 1
    assert text.startswith("She likes making things. (an inference, from the quote below)\n- “")


def test_a_question_about_the_owner_in_any_of_their_languages_is_checked_against_them() -> None:
    claimed = parse(reply("Sí.", (3, "took the kids to the pottery workshop")))
    for asked in (
        "Did I take the kids to pottery?",
        "¿Llevé a mis hijos a cerámica?",
        "Habe ich meine Kinder zum Töpfern gebracht?",  # "Kinder" is no person: not a speaker
        "Levei os meus filhos?",
    ):
        text, _ = checked(asked, claimed, [CHAT], owner=["Caroline"])
        assert text.startswith("Your sources say this of Melanie, not you: “took the kids"), asked
    said = parse(reply("Yes.", (3, "I went to a support group yesterday")))
    text, _ = checked("¿Fui a un grupo de apoyo?", said, [CHAT], owner=["Caroline"])
    assert text.startswith("Yes.\n")  # Caroline is the owner, and said it


def test_an_answer_whose_names_no_quote_holds_is_not_given_though_its_quotes_are_real() -> None:
    claimed = parse(reply("Caroline likes Bach and Mozart.", (3, "I went to a support group")))
    text, quotes = checked("Which composers does Caroline like?", claimed, [CHAT])
    assert text.startswith(f"{SILENT} (The model answered with “Bach” or “Mozart”, which no")
    assert quotes == []
    assert terms("John's car broke down in March 2023, 3 times.", "What about John's car?") == [
        "3"
    ]  # "John's" is John, whom the question names; months are dated()'s
    assert terms("She read 'Becoming Nicole'.", "What did she read?") == ["Becoming", "Nicole"]
    assert terms("In Galway [#1, #12], we said [chat 2024-01-02].", "Where?") == ["Galway"]
    some = parse(reply("Señora García painted it with Pablo.", (3, "painted the cafe sign")))
    text, _ = checked("Who painted the café sign?", some, [CHAT])
    assert text.startswith("Señora García painted it with Pablo.\n- “painted the café sign”")
    assert text.endswith("(No quote says “Pablo”.)")


def test_a_long_quote_is_shown_by_its_sentence_that_answers_and_its_speaker_left_out() -> None:
    line = (
        "[2023-01-29 10:00] Jon: Hey Gina! Thanks for asking. I'm on the hunt for the ideal "
        "spot for my dance studio and it's been quite a journey! I've been looking at different "
        "places and picturing how the space would look. Oh, I've been to Paris yesterday! It "
        "was sooo cool. [photo: a bathroom with a blue floor]"
    )
    passage = ShownPassage(2, "session 2.txt", "2023-01-29", None, line)
    claimed = parse(reply("He was in Paris.", (2, line.split("] ")[1])))
    text, (quote,) = checked("Where was Jon?", claimed, [passage])
    assert quote.quote.startswith("Hey Gina!")  # "Jon: " is the speaker, not his words
    assert (
        text == "He was in Paris.\n- “… Oh, I've been to Paris yesterday! …” [#2, 2023-01-29, Jon]"
    )


def test_a_question_of_what_is_likely_asks_for_an_inference_from_quoted_words() -> None:
    assert ask_for("Which state might they live in?").startswith(f"{ASK} {INFER}")
    assert ask_for("Which state do they live in?").startswith(f"{ASK} Write")


def test_the_answer_is_asked_for_in_the_question_s_language() -> None:
    assert ask_for("Wo wohnt meine Schwester Miriam?") == f"{ASK} Write the answer in German."
    assert ask_for("What is my cat called?") == f"{ASK} Write the answer in English."
    assert ask_for("Quem é a Inês?").endswith("in Portuguese.")
    assert ask_for("ok?") == ASK  # too little to tell


def test_a_quote_from_a_wrapped_email_is_shown_on_one_line() -> None:
    mail = ShownPassage(8, "email.eml", "2021-03-21", None, "I spent seven years in\nthat room.")
    claimed = parse(reply("In that room.", (8, "seven years in that room")))
    text, _ = checked("Where did I work?", claimed, [mail])
    assert text == "In that room.\n- “seven years in that room” [#8, 2021-03-21]"


def test_the_owners_own_name_in_an_answer_needs_no_quote() -> None:
    line = "[2021-05-16 10:12] Nina: I've met someone. Her name is Inês, she teaches pottery"
    mum = ShownPassage(7, "Chat with Mum.txt", "2021-05-16", None, line)
    claimed = parse(reply("Inês is Nina Castell's partner.", (7, "her name is Ines")))
    text, _ = checked("Who is Inês?", claimed, [mum], owner=["Nina Castell", "Nina"])
    assert text.startswith("Inês is Nina Castell's partner.\n- “Her name is Inês”")
    assert "No quote says" not in text


def test_an_answer_resting_on_a_bio_md_line_says_the_words_are_bio_mds() -> None:
    bio = "## Timeline\n- 2021-02: Moved into a flat in Graça, Lisbon [#3]\n"
    claimed = parse(reply("In Graça.", (3, "Moved into a flat in Graça")))
    text, _ = checked("Where is my flat?", claimed, in_bio(bio))
    assert text == "In Graça.\n- “Moved into a flat in Graça” [#3, bio.md's line]"
    source = ShownPassage(3, "2021-02-10.md", "2021-02-10", None, "We moved into a flat in Graça")
    text, _ = checked("Where is my flat?", claimed, [source, *in_bio(bio)])
    assert text.endswith("“moved into a flat in Graça” [#3, 2021-02-10]")  # the source, as said


def test_a_quote_of_a_bio_md_line_is_shown_as_the_source_words_the_line_rests_on() -> None:
    bio = "## Identity\n- Nina's cat is called Biscuit [#3]\n"
    claimed = parse(reply("Biscuit.", (3, "Nina's cat is called Biscuit")))
    source = ShownPassage(3, "2021-02-10.md", "2021-02-10", None, "Biscuit hates the stairs.")
    passages = in_bio(bio)
    assert bio_hits(claimed, passages) == [(3, "Nina's cat is called Biscuit [#3]")]
    behind = {"Nina's cat is called Biscuit [#3]": quote_at(source, 0, 24)}
    text, _ = checked("What is my cat called?", claimed, passages, behind=behind)
    assert text == "Biscuit.\n- “Biscuit hates the stairs” [#3, 2021-02-10]"


def test_an_answer_its_quotes_do_not_say_gives_way_to_the_quotes_own_words() -> None:
    line = "[2023-02-19 17:04] Nina: Sort of. I stopped in April, the tutor moved to Brazil"
    mum = ShownPassage(7, "Chat with Mum.txt", "2023-02-19", None, line)
    busy = "I stopped because I was busy with running and taking care of my family."
    claimed = parse(reply(busy, (7, "I stopped in April, the tutor moved to Brazil")))
    question = "Why did I stop my Portuguese lessons?"
    text, quotes = checked(question, claimed, [mum], owner=["Nina"])
    assert text == (
        "Your sources say, in their own words: “I stopped in April, the tutor moved to Brazil” "
        "[#7, 2023-02-19, Nina]"
    )
    assert len(quotes) == 1
    moved = parse(
        reply("I stopped when my tutor moved to Brazil in April.", (7, "moved to Brazil"))
    )
    assert checked(question, moved, [mum], owner=["Nina"])[0].startswith("I stopped when my tutor")
    assert not unsaid("Er ist Lehrer.", "Wer ist Deniz?", quotes)  # a few words: as said

"""Search that finds every piece: a chat hit comes with its neighbouring messages, within its
own source, without taking a result's place."""

from __future__ import annotations

import pytest

from biomd.app.engine import Engine
from biomd.retrieval import neighbours


def test_the_neighbours_are_whole_messages_either_side() -> None:
    prefix = "[2023-01-01 10:00] Ana: first\n[2023-01-01 10:01] Ben: second\n[2023-01-01 10:0"
    assert neighbours.before(prefix) == "[2023-01-01 10:01] Ben: second\n[2023-01-01 10:0"
    assert neighbours.before("[2023-01-01 10:00] Ana: first\n") == "[2023-01-01 10:00] Ana: first\n"
    assert neighbours.before("") == ""
    suffix = "2 ok\n[2023-01-01 10:03] Ana: third\n[2023-01-01 10:04] Ben: fourth\n"
    assert neighbours.after(suffix) == "2 ok\n[2023-01-01 10:03] Ana: third"
    assert neighbours.after("\nnot a message line\n") == ""
    assert neighbours.is_chat("[2023-01-01 10:00] Ana: hi") and not neighbours.is_chat("Dear Ana")


def chat(day: int, lines: list[tuple[str, str]]) -> str:
    return "".join(
        f"[2023-05-{day:02d} 19:{i:02d}] {who}: {text}\n" for i, (who, text) in enumerate(lines)
    )


async def test_a_hit_brings_the_reply_that_answers_it_from_its_own_source(engine: Engine) -> None:
    filler = [("Ana", f"Some ordinary filler about the weather and the bus, number {i}.")
              for i in range(30)]  # fmt: skip
    question = [("Ana", "Where did you finally buy the blue kayak?")]
    answer = [("Ben", "At the harbour shop in Cascais, on sale!")]
    await engine.sources.keep_text(chat(1, filler[:9] + question + answer + filler), "chat.txt")
    await engine.sources.keep_text("A note about a kayak trip planned for June.", "note.md")
    hits = await engine.sources.search("blue kayak", 5, "keyword")
    # The chunk that ends with the question: the reply is just past its end.
    (hit,) = [h for h in hits if "blue kayak" in h.text and "Cascais" not in h.text]
    assert "harbour shop in Cascais" in hit.after and hit.after.count("\n") <= 1
    start, end = hit.span
    full = chat(1, filler[:9] + question + answer + filler)
    assert full[start:end] == hit.passage, "the passage is the source's own text"
    hits = await engine.sources.search("kayak trip June", 5, "keyword")
    note = next(h for h in hits if h.document == "note.md")
    assert note.before == note.after == "", "a note is no chat: nothing is added"


# -- time-aware questions ---------------------------------------------------------------------


def test_the_time_parser_reads_absolute_relative_and_named_periods() -> None:
    from datetime import date

    from biomd.retrieval.when import Period, period

    today = date(2026, 7, 15)

    def days(q: str, timeline: list[tuple[date, str]] | None = None) -> tuple[str, str] | None:
        found = period(q, today, timeline or [])
        return (found.first.isoformat(), found.last.isoformat()) if found else None

    assert days("What did I do in 2019?") == ("2019-01-01", "2019-12-31")
    assert days("Where was I in May 2021?") == ("2021-05-01", "2021-05-31")
    assert days("on 12 March 2020") == ("2020-03-12", "2020-03-12")
    assert days("What happened on March 12, 2020?") == ("2020-03-12", "2020-03-12")
    assert days("in the summer of 2018") == ("2018-06-01", "2018-08-31")
    assert days("in the winter of 2018") == ("2018-12-01", "2019-02-28")
    assert days("music I loved in the 90s") == ("1990-01-01", "1999-12-31")
    assert days("who did I meet last summer?") == ("2025-06-01", "2025-08-31")
    assert days("what did we cook this spring") == ("2026-03-01", "2026-05-31")
    assert days("two years ago") == ("2024-01-01", "2024-12-31")
    assert days("3 months ago") == ("2026-04-01", "2026-04-30")
    assert days("last year") == ("2025-01-01", "2025-12-31")
    assert days("last month") == ("2026-06-01", "2026-06-30")
    assert days("last week") == ("2026-07-06", "2026-07-12")
    assert days("what did I eat yesterday") == ("2026-07-14", "2026-07-14")
    assert days("last May") == ("2026-05-01", "2026-05-31")
    assert days("last December") == ("2025-12-01", "2025-12-31")
    assert days("Where does Ana live?") is None
    timeline = [(date(2021, 2, 1), "Moved to Lisbon"), (date(2023, 9, 9), "Married Inês")]
    assert days("Who did I meet after I moved to Lisbon?", timeline) == ("2021-02-01", "2026-07-15")
    assert days("Where did I work before I married Inês?", timeline) == ("1900-01-01", "2023-09-09")
    assert days("after I moved to Porto", timeline) is None
    assert isinstance(period("in 2019", today), Period)


def test_today_is_the_owners_day_in_their_time_zone() -> None:
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    from biomd.retrieval.when import period, today_in

    now = datetime(2026, 1, 1, 0, 30, tzinfo=UTC)  # still 31 December in New York
    today = today_in(ZoneInfo("America/New_York"), now)
    assert today.isoformat() == "2025-12-31"
    found = period("what did I do yesterday?", today)
    assert found is not None and found.first.isoformat() == "2025-12-30"
    assert today_in(ZoneInfo("Asia/Tokyo"), now).isoformat() == "2026-01-01"


@pytest.mark.slow
async def test_a_dated_question_ranks_the_right_year_first(engine: Engine) -> None:
    runs = {
        2018: "Ran the river loop with Tomás again, the long way round past the mill.",
        2019: "Ran the river loop with Tomás, slower than usual, the mill was closed.",
        2020: "Ran the river loop with Tomás in the rain, we stopped at the mill.",
    }
    for year, text in runs.items():
        await engine.sources.keep_text(f"[{year}-04-07 09:00] Nina: {text}\n", f"runs-{year}.txt")
    for year in runs:
        hits = await engine.sources.search(f"running the river loop with Tomás in {year}", 3)
        assert hits[0].document == f"runs-{year}.txt", [h.document for h in hits]
    await engine.sources.embed_pending()
    hits = await engine.sources.search("the river loop with Tomás in 2019", 3, "vector")
    assert hits[0].document == "runs-2019.txt"


# -- questions about two things ---------------------------------------------------------------


def test_a_question_is_split_only_where_each_part_says_what_it_is_about() -> None:
    from biomd.retrieval.subqueries import parts, place

    assert parts("What did I do at Ana's wedding and at the Porto marathon?") == [
        "What did I do at Ana's wedding",
        "at the Porto marathon",
    ]
    assert parts("What do Melanie and Caroline like?") == []
    assert parts("Where did Ana and Ben go?") == []
    assert parts("When did I move to Lisbon?") == []
    assert place([1, 2, 3, 4, 5, 6], [[9, 8]], exact={5}) == [1, 2, 3, 9, 5, 4, 6]
    assert place([1, 2, 3, 4, 5, 6], [[4, 9]], exact=set()) == [1, 2, 3, 4, 5, 6]
    assert place([1, 2, 3, 4, 5, 6], [[8], [9]], exact=set()) == [1, 2, 3, 9, 8, 5, 4, 6]


def wedding_and_marathon() -> list[tuple[str, str]]:
    wedding = [
        f"[2022-06-{d:02d} 20:00] Ana: What happened today for the wedding in Porto: flowers, "
        f"seating plan number {d}, the wedding cake, and the wedding band rehearsal tonight."
        for d in range(1, 31)
    ]
    days = [
        f"[2022-{m:02d}-{d:02d} 08:00] Nina: Coffee, the tram to work, emails, a quiet lunch "
        f"in the park, groceries on the way home, day {m}-{d}."
        for m in range(1, 13)
        for d in range(1, 29)
    ]
    return [
        ("days.txt", "\n".join(days) + "\n"),
        ("wedding.txt", "\n".join(wedding) + "\n"),
        ("race.txt", "[2022-11-06 14:00] Nina: Finished the Porto marathon in 3:41, legs gone.\n"),
        ("other.txt", "[2022-11-07 09:00] Nina: Lunch with Ben at the market, nothing new.\n"),
    ]


@pytest.mark.slow
async def test_a_two_event_question_gets_both_events_in_its_top_five(engine: Engine) -> None:
    for name, text in wedding_and_marathon():
        await engine.sources.keep_text(text, name)
    await engine.sources.embed_pending()
    question = "What happened at Ana's wedding and at the Porto marathon?"
    top = [h.document for h in await engine.sources.search(question, 5)]
    assert "race.txt" in top and "wedding.txt" in top, top
    alone = [h.document for h in await engine.sources.search("Ana's wedding", 5)]
    assert "race.txt" not in alone, "one thing asked: nothing is pushed in"


@pytest.mark.slow
async def test_a_part_never_pushes_out_a_passage_with_the_exact_words(engine: Engine) -> None:
    from biomd.retrieval.subqueries import phrases

    for name, text in wedding_and_marathon():
        await engine.sources.keep_text(text, name)
    await engine.sources.embed_pending()
    question = 'What was "seating plan number 23" and what about the Porto marathon?'
    assert phrases(question) == ["seating plan number 23"]
    hits = await engine.sources.search(question, 5)
    exact = [h for h in hits if "seating plan number 23," in h.text]
    assert exact and "race.txt" in [h.document for h in hits]
    before = await engine.searcher._ranked(question, 5, "keyword", None)
    kept = {cid for cid, _ in await engine.searcher.ranked_ids(question, 5)}
    held = [cid for cid, _ in before if cid in {h.chunk_id for h in exact}]
    assert set(held) <= kept


def test_a_date_that_cannot_be_names_no_time() -> None:
    from datetime import date

    from biomd.retrieval.when import period

    today = date(2026, 7, 15)
    for q in (
        "what happened on 2021-02-30",
        "order 1234-56-78",
        "3000 years ago",
        "on 31 June 2020",
    ):
        assert period(q, today) is None or period(q, today) is not None  # never raises
    assert period("what happened on 2021-02-30", today) is None
    assert period("3000 years ago", today) is None

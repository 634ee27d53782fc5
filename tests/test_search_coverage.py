"""Search that finds every piece: a chat hit comes with its neighbouring messages, within its
own source, without taking a result's place."""

from __future__ import annotations

from core.app.engine import Engine
from core.retrieval import neighbours


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
    filler = [("Ana", f"Some ordinary chatter about the weather and the bus, number {i}.")
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

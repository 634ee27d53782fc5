"""The chunker: caps, overlap, boundary preference, exact spans, streaming."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from biomd.ingest.chunking import MAX_CHARS, chunk_text, iter_chunks

prose_alphabet = st.sampled_from(list("abcdefgh xyz.,!?\n\n  \t'\"é😀"))
texts = st.one_of(
    st.text(max_size=5000),
    st.text(alphabet=prose_alphabet, max_size=5000),
    st.lists(st.text(alphabet="abc de.", min_size=0, max_size=300), max_size=40).map("\n".join),
)


@given(texts)
@settings(max_examples=300, deadline=None)
def test_spans_cover_the_text_exactly_and_respect_the_cap(text: str) -> None:
    chunks = chunk_text(text)
    if not text:
        assert chunks == []
        return
    assert chunks[0].start == 0
    assert chunks[-1].end == len(text)
    for i, c in enumerate(chunks):
        assert c.seq == i
        assert text[c.start : c.end] == c.text
        assert 0 < len(c.text) <= MAX_CHARS
        if i:
            prev = chunks[i - 1]
            assert prev.start < c.start <= prev.end, "no gap, and always progress"


@given(texts, st.lists(st.integers(min_value=0, max_value=5000), max_size=12))
@settings(max_examples=200, deadline=None)
def test_streaming_in_any_pieces_gives_the_same_chunks_as_whole_text(
    text: str, cuts: list[int]
) -> None:
    points = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    pieces = [text[a:b] for a, b in itertools.pairwise(points)]
    assert list(iter_chunks(pieces)) == chunk_text(text)


def test_consecutive_chunks_overlap_by_about_150_characters() -> None:
    text = " ".join(f"word{i}" for i in range(3000))
    chunks = chunk_text(text)
    overlaps = [a.end - b.start for a, b in itertools.pairwise(chunks)]
    assert all(75 <= o <= 250 for o in overlaps), overlaps


def test_a_phrase_cut_at_a_boundary_appears_whole_in_one_of_the_two_chunks() -> None:
    text = " ".join(f"w{i:05d}" for i in range(2000))
    chunks = chunk_text(text)
    for a, b in itertools.pairwise(chunks):
        phrase = text[a.end - 20 : a.end + 20]
        assert phrase in a.text or phrase in b.text


def test_cuts_prefer_a_blank_line_over_a_newline_over_a_sentence_over_a_space() -> None:
    para = "First sentence here. Second one follows here.\nA new line starts. " * 8
    text = para + "\n\n" + para + "\n\n" + para
    first = chunk_text(text)[0]
    assert first.text.endswith("\n\n")

    lines = "\n".join(
        f"[2024-01-0{i % 9 + 1} 10:00] Ana: message number {i}. Yes." for i in range(60)
    )
    for chunk in chunk_text(lines)[:-1]:
        assert chunk.text.endswith("\n"), "chat chunks break between messages"

    sentences = " ".join(f"This is sentence {i} of many." for i in range(100))
    for chunk in chunk_text(sentences)[:-1]:
        assert chunk.text.endswith(". "), chunk.text[-20:]

    words = " ".join(["lorem"] * 500)
    for chunk in chunk_text(words)[:-1]:
        assert chunk.text.endswith(" ")


def test_text_without_boundaries_is_hard_cut_at_the_cap() -> None:
    chunks = chunk_text("x" * 2000)
    assert [len(c.text) for c in chunks[:-1]] == [MAX_CHARS] * (len(chunks) - 1)


def test_chat_chunks_start_at_the_beginning_of_a_message() -> None:
    lines = "\n".join(
        f"[2024-02-01 09:{i % 60:02d}] Bo: note {i} about the garden" for i in range(80)
    )
    for chunk in chunk_text(lines)[1:]:
        assert chunk.text.startswith("[2024-02-01")


def test_sentences_end_in_any_script_so_unspaced_text_is_cut_between_sentences() -> None:
    japanese = "".join(
        f"東京に引っ越したばかりで、まだ箱だらけの部屋にいる日が{i}日目です。" for i in range(40)
    )
    hindi = "".join(f"मैं कल दिल्ली गया और वहाँ बहुत भीड़ थी, दिन {i}। " for i in range(40))
    for text, end in ((japanese, "。"), (hindi, "।")):
        chunks = chunk_text(text)
        assert len(chunks) > 1
        for c in chunks[:-1]:
            assert c.text.rstrip().endswith(end), c.text[-20:]

"""Sharing a portrait: sections and people left out stay out, the privacy scan, no source
text, escaping, the assistant's limit, the file in a real browser with the network off, and
the record of every share. The sample life, with a bio.md seeded with marker text."""

from __future__ import annotations

import re
import shutil
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from biomd import sample
from biomd.app.engine import Engine
from biomd.app.share.audiences import PRESETS, ShareChoice
from biomd.app.share.service import UnresolvedFindings, render
from tests.conftest import make_settings

LONG_QUOTE = "I always feel lighter after the long run along the river with my brother"
BIO = f"""# bio.md

## Summary
Nina Castell is a potter in Lisbon who moved from London in 2021 [#3]. She runs with
Tomás Reis on Sundays.

## Identity
- Works as a ceramicist with a small studio in Graça [#3]
- Reachable at nina.castell@example.com or +351 912 345 678 [#2]

## Timeline
- 2019-04-07: Ran the Bath half marathon with Tomás, living in London [#1]
- 2021-02: Moved to Lisbon; Mum helped pack the boxes [#3]
- 2021-05-16: Met Inês at the pottery class [#7]

## People & relationships
- Inês: her partner since 2021, a potter [#4, #7]
- Tomás Reis: her brother, a runner [#1]
- Mum: her mother, in London [#3]

## Patterns
- Runs on Sunday mornings: "{LONG_QUOTE}" [#5]
- Keeps notes <script>alert('x')</script> and ![p](http://evil.example/p.png) a < b & c [#5]

## Hypotheses
- MARKER-HYPOTHESIS might move back to London [#3]

## Inferences
- Values routine and long walks (confidence: high) [#5]
- MARKER-LOW-CONFIDENCE thinks about a second studio (confidence: low) [#5]

## Open questions
- [Q1] MARKER-QUESTION Did you take the Porto job?
"""
HIDDEN = ("Tomás", "Reis", "Inês", "Mum")


@pytest.fixture
async def engine(tmp_path: Path, minilm_path: Path, embedder: object) -> AsyncIterator[Engine]:
    settings = make_settings(
        tmp_path / "data", minilm_path, owner_names=sample.OWNER_NAMES, timezone=sample.TIMEZONE
    )
    async with await Engine.open(settings, embedder) as eng:  # type: ignore[arg-type]
        _ = [r async for r in eng.sources.ingest(sample.files()[:-1])]
        await eng.profile.replace(BIO, turn_id=None, mode="manual", reason="test")
        yield eng


def read(path: str | Path) -> str:
    return Path(path).read_text(encoding="utf-8")


def words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text))


@pytest.mark.slow
async def test_left_out_sections_and_hidden_people_never_appear_in_any_format(
    engine: Engine, tmp_path: Path
) -> None:
    for name in ("close", "therapist", "work", "assistant"):
        for fmt in ("html", "md", "text"):
            draft = await engine.shares.draft(name, ShareChoice(format=fmt))  # type: ignore[arg-type]
            record = await engine.shares.save(draft, tmp_path / f"{name}.{fmt}", accept=True)
            written = read(record.path)
            assert "MARKER" not in written, (name, fmt)
            assert not words(written) & set(HIDDEN), (name, fmt, words(written) & set(HIDDEN))
            shown = re.sub(r"<style>.*?</style>", "", written, flags=re.S)
            assert not re.search(r"(?<!&)#\d", shown), "no raw source ids"
    draft = await engine.shares.draft("therapist")
    text = " ".join(i.text for i in draft.portrait.items)
    assert "her brother" in text and "her partner" in text
    assert "Runs with her brother on Sundays" in text or "runs with her brother" in text


async def test_a_person_shown_by_name_and_sections_chosen_in(engine: Engine) -> None:
    draft = await engine.shares.draft(
        "close", ShareChoice(show=("Tomás Reis",), add=("hypotheses",))
    )
    text = " ".join(i.text for i in draft.portrait.items)
    assert "Tomás Reis" in text and "Inês" not in text
    assert "MARKER-HYPOTHESIS" in text and "MARKER-QUESTION" not in text
    mine = await engine.shares.draft("me")
    everything = " ".join(i.text for i in mine.portrait.items)
    assert "MARKER-QUESTION" in everything and "MARKER-LOW-CONFIDENCE" in everything


async def test_the_rules_say_sources_as_a_count_and_years_never_as_ids(engine: Engine) -> None:
    draft = await engine.shares.draft("therapist")
    people = next(p for p in draft.portrait.parts if p.key == "people")
    partner = people.items[0]
    assert partner.text == "Her partner since 2021, a potter"
    assert re.fullmatch(r"from 2 sources, \d{4}(–\d{4})?", partner.note), partner.note
    assert all("#" not in i.text + i.note for i in draft.portrait.items)
    assert draft.writer == "rules"
    lines = BIO.splitlines()
    for entry in draft.support:  # each item rests on the bio.md lines it came from
        first, *_ = entry["lines"]  # type: ignore[misc]
        assert lines[first - 1].strip().startswith(("-", "Nina"))
    summary = draft.portrait.parts[0].items
    assert len(summary) == 1 and summary[0].text.endswith("She runs with her brother on Sundays.")


async def test_the_scan_catches_email_and_phone_and_nothing_is_saved_until_resolved(
    engine: Engine, tmp_path: Path
) -> None:
    draft = await engine.shares.draft("close")
    kinds = {f.kind for f in draft.findings}
    assert {"e-mail", "phone"} <= kinds
    target = tmp_path / "close.html"
    with pytest.raises(UnresolvedFindings) as caught:
        await engine.shares.save(draft, target)
    assert "nina.castell@example.com" in caught.value.user_message
    assert not target.exists() and await engine.shares.all() == []
    record = await engine.shares.save(draft, target, remove=True)
    written = target.read_text(encoding="utf-8")
    assert "example.com" not in written and "912 345" not in written
    assert "[removed]" in written and record.accepted == ()


@pytest.mark.slow
async def test_no_source_text_unless_the_owner_picks_the_quote(engine: Engine) -> None:
    draft = await engine.shares.draft("close")
    text = " ".join(i.text for i in draft.portrait.items)
    assert "lighter after the long run" not in text and "(a quote, left out)" in text
    picked = await engine.shares.draft("close", ShareChoice(quotes=(LONG_QUOTE,)))
    assert LONG_QUOTE in " ".join(i.text for i in picked.portrait.items)


async def test_a_line_copied_from_a_source_is_a_finding(engine: Engine) -> None:
    chat = next(p for p in sample.files() if p.name.startswith("WhatsApp"))
    assert "Did the boxes arrive?? The man said 5 to 7 days" in chat.read_text(encoding="utf-8")
    copied = "She was asked: Did the boxes arrive?? The man said 5 to 7 days"
    bio = BIO.replace("## Patterns\n", f"## Patterns\n- {copied} [#3]\n")
    await engine.profile.replace(bio, turn_id=None, mode="manual", reason="test")
    draft = await engine.shares.draft("close")
    assert any(f.kind == "source text" for f in draft.findings), draft.findings
    record = await engine.shares.save(draft, Path(engine.settings.data_dir) / "c.md", remove=True)
    written = read(record.path)
    assert "The man said 5 to 7 days" not in written and "Her partner since 2021" in written


async def test_markup_in_bio_md_is_escaped_or_dropped(engine: Engine, tmp_path: Path) -> None:
    for fmt, bad in (("html", "<script"), ("md", "![")):
        draft = await engine.shares.draft("close", ShareChoice(format=fmt))  # type: ignore[arg-type]
        record = await engine.shares.save(draft, tmp_path / f"x.{fmt}", accept=True)
        written = read(record.path)
        assert bad not in written and "evil.example" not in written
    html = (tmp_path / "x.html").read_text(encoding="utf-8")
    assert "a &lt; b &amp; c" in html
    assert "a \\< b & c" in (tmp_path / "x.md").read_text(encoding="utf-8")


async def test_the_assistant_preset_stays_within_its_limit(engine: Engine) -> None:
    compact = (await engine.shares.draft("assistant")).render("")
    assert "Patterns: Runs on Sunday mornings. Keeps notes" in compact
    assert "quote" not in compact
    long_bio = BIO.replace(
        "## Patterns\n",
        "## Patterns\n"
        + "".join(f"- Habit {i}: walks to the market at dawn [#5]\n" for i in range(80)),
    )
    await engine.profile.replace(long_bio, turn_id=None, mode="manual", reason="test")
    for limit in (None, 400):
        draft = await engine.shares.draft("assistant", ShareChoice(limit=limit))
        text = draft.render("2026-12-02")
        assert len(text) <= (limit or PRESETS["assistant"].limit or 0), len(text)
        assert text.startswith("Nina Castell is a potter")
        assert "Patterns: Habit 0" in text


@pytest.mark.slow
async def test_shares_are_recorded_listed_reopened_and_deleted(
    engine: Engine, tmp_path: Path
) -> None:
    bio_before = await engine.profile.load()
    draft = await engine.shares.draft("therapist", ShareChoice(show=("Inês",)))
    record = await engine.shares.save(draft, tmp_path / "t.html", accept=True)
    assert record.audience == "therapist" and record.format == "html"
    assert record.shown == ("Inês",) and "people" in record.sections
    assert {"e-mail:nina.castell@example.com"} <= set(record.accepted)
    _, content = await engine.shares.content(record.id)
    assert content == (tmp_path / "t.html").read_bytes()
    assert [r.id for r in await engine.shares.all()] == [record.id]
    assert not record.has_card
    carded = await engine.shares.save(draft, tmp_path / "c.html", accept=True, card=True)
    png = (tmp_path / "c-card.png").read_bytes()
    assert png.startswith(b"\x89PNG") and await engine.shares.card(carded.id) == png
    assert carded.has_card
    from biomd.app.share.card import events

    labels = " ".join(label for _, label in events(draft.portrait))
    assert "Met Inês" in labels and not words(labels) & {"Tomás", "Reis", "Mum"}
    await engine.shares.delete(record.id)
    await engine.shares.delete(carded.id)
    assert not (tmp_path / "t.html").exists() and await engine.shares.all() == []
    assert not (tmp_path / "c-card.png").exists()
    assert await engine.profile.load() == bio_before


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (.ci/run installs it)")
async def test_the_html_needs_no_network_and_renders_in_chromium(
    engine: Engine, tmp_path: Path
) -> None:
    from playwright.async_api import async_playwright

    from tests.frontends.web.test_browser import FLAGS

    draft = await engine.shares.draft("therapist")
    record = await engine.shares.save(draft, tmp_path / "t.html", accept=True)
    html = read(record.path)
    assert "<script" not in html.lower() and not re.search(r"(https?:)?//[\w.-]+\.\w", html)
    requests: list[str] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        context = await browser.new_context(offline=True, viewport={"width": 390, "height": 800})
        page = await context.new_page()
        page.on("request", lambda r: requests.append(r.url))
        await page.goto(Path(record.path).as_uri())
        assert await page.inner_text("h1") == "Nina Castell"
        assert await page.locator("h2").count() >= 4
        width = await page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, "fits a phone"
        await page.emulate_media(media="print")
        pdf = await page.pdf(format="A4")  # what "Save as PDF" gives
        assert pdf.startswith(b"%PDF") and len(pdf) > 5_000
        await browser.close()
    assert requests == [Path(record.path).as_uri()]


@pytest.mark.slow
async def test_the_model_writes_and_a_sentence_on_a_missing_line_is_refused(
    tmp_path: Path, minilm_path: Path, embedder: object
) -> None:
    import json

    from tests.conftest import llm_settings
    from tests.support.fake_llm import fake_llm

    def reply(*sentences: tuple[str, str, list[object]]) -> str:
        parts: dict[str, list[dict[str, object]]] = {}
        for section, text, lines in sentences:
            parts.setdefault(section, []).append({"text": text, "lines": lines})
        return json.dumps({"parts": [{"section": k, "sentences": v} for k, v in parts.items()]})

    with fake_llm() as llm:
        settings = llm_settings(tmp_path, minilm_path, llm, owner_names=sample.OWNER_NAMES)
        async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
            await engine.profile.replace(BIO, turn_id=None, mode="manual", reason="test")
            llm.reply_with(
                reply(
                    ("summary", "Nina Castell is a potter who moved to Lisbon in 2021.", [1]),
                    ("identity", "She keeps a studio in Graça.", ["L2"]),
                    ("people", "She has a brother who runs.", [8]),
                    ("patterns", "She once lived in Madrid for a decade.", [99]),
                    ("patterns", "She speaks to Carlos every day.", [10]),
                ),
                reply(("patterns", "She won a prize in 2017.", [10])),
            )
            draft = await engine.shares.draft("therapist", model=True)
    text = " ".join(i.text for i in draft.portrait.items)
    assert "moved to Lisbon in 2021" in text and "studio in Graça" in text
    assert "brother who runs" in text
    assert "Madrid" not in text and "Carlos" not in text and "2017" not in text
    refused = " ".join(draft.portrait.refused)
    assert "2017" in refused  # refused again in the second round, then dropped
    retry = llm.bodies[1]["messages"][-1]["content"]
    assert "there is no line L99" in retry and "do not mention carlo" in retry
    first = llm.bodies[0]["messages"][1]["content"]
    assert "Tomás" not in first and "MARKER" not in first and "lighter after" not in first
    assert draft.writer == "test/model"
    lines = BIO.splitlines()
    summary = next(s for s in draft.support if "moved to Lisbon" in str(s["text"]))
    assert lines[summary["lines"][0] - 1].startswith("Nina Castell")  # type: ignore[index]


@pytest.mark.parametrize(
    ("text", "kind", "found"),
    [
        (
            "Write to nina.castell+bio@mail.example.org any time.",
            "e-mail",
            "nina.castell+bio@mail.example.org",
        ),
        ("Her number is +351 912 345 678.", "phone", "+351 912 345 678"),
        ("Call (555) 123-4567 after six.", "phone", "(555) 123-4567"),
        ("Ruf an: 030 1234567.", "phone", "030 1234567"),
        ("Lives at 221b Baker Street in London.", "address", "221b Baker Street"),
        ("Wohnt in der Hauptstraße 5 in Köln.", "address", "Hauptstraße 5"),
        ("Vive en Calle Mayor 12, Madrid.", "address", "Calle Mayor 12"),
        ("Moved to Rua das Flores 12 in 2021.", "address", "Rua das Flores 12"),
        ("Born on 14 March 1990 in Porto.", "birth date", "14 March 1990"),
        ("Geboren am 14.03.1990 in Köln.", "birth date", "14.03.1990"),
        ("Nació el 3 de mayo de 1988.", "birth date", "3 de mayo de 1988"),
        ("Her birthday is 1990-03-14.", "birth date", "1990-03-14"),
    ],
)
def test_the_scan_finds_private_details_in_several_languages(
    text: str, kind: str, found: str
) -> None:
    from biomd.app.share.people import Names
    from biomd.app.share.scan import findings_in

    hits = [(k, text[a:b]) for k, a, b in findings_in(text, Names([]))]
    assert (kind, found) in hits, hits


@pytest.mark.parametrize(
    "text",
    [
        "Ran the half marathon on 2019-04-07 in 2:04:51.",
        "Lived in Lisbon from 2016–2024, then 2021-02 to 2022.",
        "Born in 1990 in Porto, the second of 3 children.",
        "Has worked 12 years on the street.",
    ],
)
def test_the_scan_leaves_dates_years_and_counts_alone(text: str) -> None:
    from biomd.app.share.people import Names
    from biomd.app.share.scan import findings_in

    assert list(findings_in(text, Names([]))) == []


def test_a_hidden_person_who_shares_the_owners_first_name_is_hidden_or_flagged() -> None:
    from biomd.app.share.people import Names, choose
    from biomd.app.share.scan import findings_in

    people = choose([("Maria Costa", "an old friend"), ("Maria", "her mother")], "role")
    names = Names(people, ["Maria Silva"])
    text = "Maria met Maria Costa; Costa said hi."
    assert names.replace(text) == "Maria met their friend; their friend said hi."
    shown = names.replace(text)
    found = [(k, shown[a:b]) for k, a, b in findings_in(shown, names)]
    assert ("name", "Maria") in found, "the shared first name is shown to the owner"
    by_hand = Names(people, ["Maria Silva"], ["Maria"])
    assert by_hand.replace(text).startswith("her mother met their friend")
    nfd = "Toma\u0301s ran."
    assert Names(choose([("Tomás", "her brother")], "role")).replace(nfd) == "her brother ran."


async def test_files_are_never_overwritten_and_names_stay_inside_shares(
    engine: Engine, tmp_path: Path
) -> None:
    from biomd.errors import BiomdError

    draft = await engine.shares.draft("therapist")
    first = await engine.shares.save(draft, engine.shares.default_path(draft.audience), accept=True)
    second = await engine.shares.save(
        draft, engine.shares.default_path(draft.audience), accept=True
    )
    assert first.path != second.path and read(first.path)
    assert Path(second.path).name.endswith("-therapist-2.html")
    shares = engine.settings.data_dir / "shares"
    assert stat.S_IMODE(shares.stat().st_mode) == 0o700, "private, as the data dir is"
    owners_picture = tmp_path / "me.png"
    owners_picture.write_bytes(b"not biomd's")
    mine = await engine.shares.save(draft, tmp_path / "me.html", accept=True)
    await engine.shares.delete(mine.id)
    assert owners_picture.exists(), "a share without a card leaves a .png alone"
    with pytest.raises(BiomdError):
        await engine.shares.save_audience("a/../../../../tmp/x", draft.audience)


# -- the first hour: an empty bio.md, an owner not named in the settings --------------------

ALEX_BIO = """# bio.md

## Summary
Alex Moreno is a nurse in Valencia who climbs with Sam Ortiz on Fridays [#1].

## Identity
- Reachable at alex.moreno@example.com and https://alex-moreno.example.org/sam [#1]
- Writes to sam.ortiz@example.com and posts at www.example.net/ortiz-climbs [#1]

## People & relationships
- Sam Ortiz: a friend from climbing [#1]
"""
ALEX_CHAT = """03/05/2021, 10:02 - Alex Moreno: Hi Sam, did you get my mail?
03/05/2021, 10:05 - Sam Ortiz: Yes! See you at the wall on Friday.
"""


@pytest.fixture
async def unnamed(tmp_path: Path, minilm_path: Path, embedder: object) -> AsyncIterator[Engine]:
    """An engine whose settings don't name the owner (BIOMD_OWNER_NAMES unset), with a chat
    in which the owner speaks."""
    chat = tmp_path / "WhatsApp Chat with Sam Ortiz.txt"
    chat.write_text(ALEX_CHAT, encoding="utf-8")
    settings = make_settings(tmp_path / "data", minilm_path, timezone=sample.TIMEZONE)
    assert settings.owner.names == ()
    async with await Engine.open(settings, embedder) as eng:  # type: ignore[arg-type]
        _ = [r async for r in eng.sources.ingest([chat])]
        yield eng


async def test_an_empty_bio_md_has_nothing_to_share_and_nothing_is_saved(
    unnamed: Engine, tmp_path: Path
) -> None:
    from biomd.app.share.service import NothingToShare

    draft = await unnamed.shares.draft("close")
    assert draft.portrait.parts == ()
    assert draft.nothing.startswith("There is nothing to share yet: bio.md is still empty.")
    assert "`biomd setup`" in draft.nothing, "no model: say what fills bio.md and what it needs"
    target = tmp_path / "close.html"
    for how in ({"accept": True}, {"remove": True}, {}):
        with pytest.raises(NothingToShare, match=r"Nothing was saved\. There is nothing to share"):
            await unnamed.shares.save(draft, target, **how)  # type: ignore[arg-type]
    assert not target.exists() and await unnamed.shares.all() == []
    assert not (unnamed.settings.data_dir / "shares").exists()

    await unnamed.profile.replace(ALEX_BIO, turn_id=None, mode="manual", reason="test")
    only = await unnamed.shares.draft("close", ShareChoice(drop=("summary", "identity", "people")))
    assert only.nothing.startswith(
        "There is nothing to share yet with the audience 'close': bio.md has nothing in the "
        "sections it gets (Timeline, Patterns, Inferences)."
    )
    with pytest.raises(NothingToShare):
        await unnamed.shares.save(only, target, accept=True)
    assert not target.exists()


async def test_the_owner_unnamed_in_the_settings_is_known_from_bio_md_and_not_hidden(
    unnamed: Engine, tmp_path: Path
) -> None:
    await unnamed.profile.replace(ALEX_BIO, turn_id=None, mode="manual", reason="test")
    draft = await unnamed.shares.draft("close")
    assert draft.owner == ("Alex Moreno",) and "You are Alex Moreno here" in draft.owner_note
    assert [(p.name, p.label) for p in draft.people] == [("Sam Ortiz", "their friend")]
    assert draft.portrait.title == "Alex Moreno"
    text = " ".join(i.text for i in draft.portrait.items)
    assert text.startswith("Alex Moreno is a nurse in Valencia who climbs with their friend")
    # Names inside an e-mail address or a link are never replaced: each is found whole.
    for whole in (
        "alex.moreno@example.com",
        "https://alex-moreno.example.org/sam",
        "sam.ortiz@example.com",
        "www.example.net/ortiz-climbs",
    ):
        assert whole in text
    found = {(f.kind, f.text) for f in draft.to_resolve}
    assert found == {
        ("e-mail", "alex.moreno@example.com"),
        ("e-mail", "sam.ortiz@example.com"),
        ("link", "https://alex-moreno.example.org/sam"),
        ("link", "www.example.net/ortiz-climbs"),
    }
    kept = await unnamed.shares.save(draft, tmp_path / "kept.md", accept=True)
    removed = await unnamed.shares.save(draft, tmp_path / "removed.html", remove=True)
    for written in (read(kept.path), read(removed.path)):
        assert "A." not in written and "Ortiz" not in written.replace("ortiz-climbs", "")
    assert "alex.moreno@example.com" in read(kept.path) and "[removed]" in read(removed.path)
    assert "example" not in read(removed.path) and "Sam" not in read(removed.path)


async def test_a_setting_names_the_owner_and_bio_md_naming_nobody_leaves_them_to_choose(
    unnamed: Engine,
) -> None:
    bio = ALEX_BIO.replace("Alex Moreno is a nurse", "A nurse")
    await unnamed.profile.replace(bio, turn_id=None, mode="manual", reason="test")
    draft = await unnamed.shares.draft("close")
    assert draft.owner == () and draft.portrait.title == "A portrait"
    assert "Which of these people is you?" in draft.owner_note
    assert "Alex Moreno" in [p.name for p in draft.people], "not known, so hidden: and told"
    unnamed.settings.owner.names = ("Alex",)
    draft = await unnamed.shares.draft("close")
    assert draft.owner == ("Alex",) and draft.owner_note == ""


@pytest.mark.parametrize(
    ("bio", "speakers", "owner"),
    [
        ("## Summary\nNina Castell is a potter [#3].\n", (), ("Nina Castell",)),
        ("## Summary\n**Nina Castell**, 34, lives in Lisbon.\n", (), ("Nina Castell",)),
        ("## Summary\nNina is a potter.\n", ("Nina Castell", "Mum"), ("Nina", "Nina Castell")),
        ("## Summary\nNina Castell moved to Lisbon.\n", ("Nina",), ("Nina Castell", "Nina")),
        ("## Identity\n- Name: Alex Moreno (born 1990) [#1]\n", (), ("Alex Moreno",)),
        ("## Resumen\nMaría José García es alfarera.\n", (), ("María José García",)),
        ("## 人物像\n- 名前：山田花子 [#1]\n", (), ("山田花子",)),
        ("## Summary\nNina is a potter.\n", (), ()),
        ("## Summary\nNew York designer who moved.\n", ("Mum",), ()),
        ("## Summary\nDesigner who moved to Lisbon.\n", (), ()),
        ("## Summary\nShe is a potter in Lisbon.\n", ("Sam",), ()),
        ("## Summary\nIn 2021, Nina moved.\n", (), ()),
        ("## Summary\n_Nothing is known yet. This fills in as sources are read._\n", (), ()),
    ],
)
def test_the_owner_is_read_from_the_summary_or_identity(
    bio: str, speakers: tuple[str, ...], owner: tuple[str, ...]
) -> None:
    from biomd.biographer.profile_text import owner_in

    assert owner_in(bio, speakers) == owner


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Mail tomas.reis@example.com today.", "tomas.reis@example.com"),
        ("See https://example.org/tomas-reis/photos.", "https://example.org/tomas-reis/photos"),
        ("See www.tomas.example.com, or not.", "www.tomas.example.com"),
        ("His site is tomas-reis.pt/blog.", "tomas-reis.pt/blog"),
    ],
)
def test_a_name_inside_an_email_or_a_link_is_left_whole_and_the_scan_finds_it_whole(
    text: str, kept: str
) -> None:
    from biomd.app.share.people import Names, choose
    from biomd.app.share.scan import findings_in

    names = Names(choose([("Tomás Reis", "her brother")], "role"))
    assert names.replace(text) == text
    found = [(k, text[a:b]) for k, a, b in findings_in(text, names)]
    assert found in ([("e-mail", kept)], [("link", kept)]), found
    assert names.replace(f"Tomás wrote: {text}").startswith("her brother wrote: ")


@pytest.mark.slow
async def test_a_line_resting_only_on_private_sources_is_left_out_unless_picked(
    engine: Engine,
) -> None:
    await engine.sources.set_private(7, True)
    draft = await engine.shares.draft("close", ShareChoice(add=("timeline",)))
    text = render(draft.portrait, "text", "today")
    assert draft.private == ["2021-05-16: Met Inês at the pottery class [#7]"]
    assert draft.left_out == [(1, draft.private[0])]
    assert "pottery class" not in text
    assert "partner since 2021" in text or "partner" in text, "#4 is shared: the line stays"
    picked = await engine.shares.draft("close", ShareChoice(add=("timeline",), private=(1,)))
    assert "pottery class" in render(picked.portrait, "text", "today") and not picked.left_out

"""The bench's portrait measures (issue 51) can't be passed by pasting a source."""

from __future__ import annotations

from bench import portrait

KEY = {
    "people": [{"name": "Miriam", "relation": [["sister", "schwester"]]}],
    "who_did_what": [
        {"words": [["wedding"]], "parties": ["miriam", "sister"]},
    ],
}
PASTED = """# bio.md

## Summary
_Nothing is known yet. This fills in as sources are read._

## Timeline
- 2019-03-10: I said maybe [#2]
- 2019-03-10: From: Ruderclub Leipzig <vorstand@example.de> [#3]
- 2019-03-10: Jonas and Paul have set a date for the wedding [#2]
- 2019-04-07: Ran the half marathon in 2:04:51 [#1]

## People & relationships
- Miriam: Paul und ich haben ein Datum [#2]
"""
PORTRAIT = """# bio.md

## Summary
Jonas is a nurse in Leipzig [#1]. His sister Miriam married Paul in 2019 [#2]. Jonas has
lived with Deniz since 2021 [#1].

## Timeline
- 2019-03-10: Miriam and Paul set their wedding for 14 September [#2]
- 2018-09: Jonas started on the children's ward in Leipzig [#1]

## People & relationships
- Miriam: Jonas's sister; lives in Rostock (2018–2024) [#1, #2]
"""


def test_pasted_sources_fail_every_measure() -> None:
    p = portrait.score(PASTED, KEY, ["Jonas Berger", "Jonas"])
    assert p.first_person and p.headers and p.no_subject
    assert p.people == 0 and p.summary == 0
    assert p.who_errors == ["- 2019-03-10: Jonas and Paul have set a date for the wedding [#2]"]


def test_a_portrait_passes_them() -> None:
    p = portrait.score(PORTRAIT, KEY, ["Jonas Berger", "Jonas"])
    assert (p.first_person, p.headers, p.no_subject, p.who_errors) == ([], [], [], [])
    assert (p.people, p.people_total) == (1, 1)
    assert p.summary == 3 and p.summary_supported == 2  # #1's lines name no Deniz, no 2021

"""A journal entry is dated by its heading: "# Saturday 14 May 2022" is when it was written."""

from __future__ import annotations

from pathlib import Path

import pytest

from biomd.app.engine import Engine
from biomd.ingest.timestamps import date_in_heading


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("# Saturday 14 May 2022\nRan by the river.", "2022-05-14"),
        ("\n\n## May 3rd, 2021\n", "2021-05-03"),
        ("3 de mayo de 2021: la boda", "2021-05-03"),
        ("Dienstag, 4. März 2020", "2020-03-04"),
        ("Le 12 juillet 2019", "2019-07-12"),
        ("## 2021-05-03", "2021-05-03"),
        ("31 February 2020", None),  # no such day
        ("Meeting with May 5 people in 2020", None),
        ("Notes\n# 14 May 2022", None),  # only the first line dates a text
    ],
)
def test_the_first_line_dates_a_text(text: str, day: str | None) -> None:
    assert date_in_heading(text) == day


async def test_a_journal_covers_the_day_its_heading_gives(engine: Engine, tmp_path: Path) -> None:
    entry = tmp_path / "journal.md"
    entry.write_text("# Saturday 14 May 2022\n\nRan the Bath half marathon with Tadhg.\n")
    (added,) = [r async for r in engine.sources.ingest([entry])]
    source = await engine.sources.get(added.document_id)  # type: ignore[arg-type]
    assert (source.content_start, source.content_end) == ("2022-05-14", "2022-05-14")

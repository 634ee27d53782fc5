"""The settings reference and the CLI reference in docs/ are what the code says today: each is
generated (tests/support/references.py) and compared here, so a new setting or option that
is not in the docs fails the test."""

from __future__ import annotations

from biomd.settings import Settings, names
from tests.support.references import CLI_MD, SETTINGS_MD, cli_reference, settings_reference

REWRITE = "Rewrite it with `.venv/bin/python -m tests.support.references`."


def test_the_settings_reference_is_the_settings() -> None:
    written = SETTINGS_MD.read_text(encoding="utf-8")
    assert written == settings_reference(), f"{SETTINGS_MD.name} is out of date. {REWRITE}"
    every = [names.name_of(path) for path, _ in names.paths(Settings)]
    assert len(every) >= 79 and all(f"| `{name}` |" in written for name in every)
    assert "`BIOMD_WEB`" in written, "an older name is shown beside the current one"


def test_the_cli_reference_is_the_cli() -> None:
    written = CLI_MD.read_text(encoding="utf-8")
    assert written == cli_reference(), f"{CLI_MD.name} is out of date. {REWRITE}"
    for command in ("biomd ingest", "biomd config set", "biomd mirror", "biomd share save"):
        assert f"## `{command}`" in written

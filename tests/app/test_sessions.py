"""An assistant's session kept as a source: only the turns biomd doesn't have, each once, read
by the hermes converter without the <memory-context> blocks biomd itself put there."""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from biomd.app.assistants import sessions
from biomd.errors import BiomdError
from biomd.ingest.convert import ConvertContext, Probe, detect
from biomd.ingest.convert.base import ArchiveReader

ONE = {"at": "2026-12-01T09:00:00+0000", "user": "Who is Inês?", "assistant": "Your partner."}
TWO = {"at": "2026-12-01T09:01:00+0000", "user": "And Tom?", "assistant": "Your brother."}


def test_a_session_sent_again_is_continued_and_never_duplicated() -> None:
    first = sessions.new_turns([ONE, ONE], set())
    assert first == [ONE], "a turn sent twice in one send is kept once"
    kept = {sessions.turn_key(t) for t in first}
    assert sessions.new_turns([ONE], kept) == []
    assert sessions.new_turns([ONE, TWO], kept) == [TWO]
    assert sessions.new_turns([{"at": "x", "user": " ", "assistant": ""}], set()) == []


def test_bad_sessions_are_refused_with_what_is_wrong() -> None:
    with pytest.raises(BiomdError, match="session id"):
        sessions.checked("../etc/passwd", "hermes", [ONE])
    with pytest.raises(BiomdError, match="object"):
        sessions.checked("s-1", "hermes", ["just text"])
    with pytest.raises(BiomdError, match="At most"):
        sessions.checked("s-1", "hermes", [ONE] * (sessions.MAX_TURNS + 1))
    assert sessions.checked("s-1", "hermes", [{"user": 3}]) == [
        {"at": "", "user": "3", "assistant": ""}
    ]


def test_the_converter_reads_the_session_without_what_biomd_recalled(tmp_path: Path) -> None:
    recalled = {
        **ONE,
        "user": "Who is Inês?\n\n<memory-context>\n[System note: …]\nInês: her partner "
        "[#4]\n</memory-context>",
    }
    path = tmp_path / "hermes session s-1.json"
    path.write_text(sessions.session_file("s-1", "hermes", [recalled, TWO]), "utf-8")
    ctx = ConvertContext(owner_names=("Nina",), timezone=ZoneInfo("Europe/Lisbon"))
    probe = Probe.of(path, path.name)
    converter = detect(probe)
    assert not isinstance(converter, ArchiveReader) and converter.kind == "hermes"
    text = "".join(converter.convert(probe, ctx))
    assert "Nina (owner): Who is Inês?" in text and "Hermes: Your brother." in text
    assert "memory-context" not in text and "[#4]" not in text

"""The `biomd` command, run as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biomd.frontends.cli import app
from tests.support.model_files import MINILM_NAME
from tests.support.samples import write_corpus

pytestmark = pytest.mark.slow  # each test runs `biomd` as a user would


@pytest.fixture
def env(tmp_path: Path, minilm_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    values = {
        "BIOMD_DATA_DIR": str(tmp_path / "data"),
        "BIOMD_EMBED_MODEL": MINILM_NAME,
        "BIOMD_EMBED_MODEL_PATH": str(minilm_path),
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    return values


def run(*args: str, stdin: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), input=stdin)
    return result.exit_code, result.output


def test_ingest_prints_a_line_per_file_and_a_summary_and_fails_if_any_file_failed(
    env: dict[str, str], tmp_path: Path
) -> None:
    write_corpus(tmp_path / "corpus")
    code, output = run("ingest", str(tmp_path / "corpus"))
    assert code == 1
    lines = output.splitlines()
    assert any(
        line.startswith("failed") and "corpus/broken.pdf: this PDF is damaged" in line
        for line in lines
    )
    assert sum(line.startswith("added") for line in lines) == 6
    assert "6 added, 1 failed. Everything added is keyword-searchable now." in output
    assert "Embedded 6 chunks." in output
    assert ", 1 chunk)" in output and "1 chunks" not in output

    code, output = run("ingest", str(tmp_path / "corpus" / "saoirse.md"))
    assert code == 0 and "duplicate" in output and "1 duplicate" in output


def test_a_chat_whose_dates_read_either_way_says_how_they_were_read(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat = tmp_path / "WhatsApp Chat with Sam.txt"
    chat.write_text("3/5/21, 10:02 - Alex: Hi\n4/5/21, 09:00 - Sam: Hi back\n")
    code, output = run("ingest", str(chat), "--no-read")
    said = " ".join(output.split())
    assert code == 0 and "they were read day first" in said and "(3/5/21 is 3 May 2021)" in said
    assert "set BIOMD_CHAT_DATE_ORDER=mdy, forget this source and add it again" in said
    code, output = run("grep", "Hi back")
    assert "2021-05-04" in output
    run("forget", "1", "--yes")
    monkeypatch.setenv("BIOMD_CHAT_DATE_ORDER", "mdy")
    code, output = run("ingest", str(chat), "--no-read")
    assert code == 0 and "read month first, as BIOMD_CHAT_DATE_ORDER says" in output
    code, output = run("grep", "Hi back")
    assert "2021-04-05" in output


def test_search_json_has_the_documented_shape(env: dict[str, str], tmp_path: Path) -> None:
    write_corpus(tmp_path / "corpus")
    run("ingest", str(tmp_path / "corpus"))
    code, output = run("search", "Quetzalcoatlus skeleton", "--json", "--limit", "2")
    assert code == 0
    payload = json.loads(output)
    assert payload["query"] == "Quetzalcoatlus skeleton"
    hit = payload["hits"][0]
    assert set(hit) == {
        "chunk_id", "document_id", "document", "start", "end", "text", "score", "before", "after"
    }  # fmt: skip
    assert hit["document"] == "corpus/museum.html" and "Quetzalcoatlus" in hit["text"]

    code, output = run("search", "Quetzalcoatlus", "--mode", "keyword")
    assert code == 0 and "corpus/museum.html" in output
    code, output = run("search", "x", "--mode", "sideways")
    assert code != 0


def test_search_dash_reads_one_query_per_line_and_prints_json_lines(
    env: dict[str, str], tmp_path: Path
) -> None:
    write_corpus(tmp_path / "corpus")
    run("ingest", str(tmp_path / "corpus"))
    biomd = Path(sys.executable).with_name("biomd")
    proc = subprocess.run(
        [str(biomd), "search", "-", "--limit", "1"],
        input="puffins on the cliffs\nfirst marathon\n\n",
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=True,
    )
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [line["query"] for line in lines] == ["puffins on the cliffs", "first marathon", ""]
    assert lines[0]["hits"][0]["document"] == "corpus/saoirse.md"
    assert lines[1]["hits"][0]["document"] == "corpus/running.pdf"


def test_grep_read_sources_stats_and_forget(env: dict[str, str], tmp_path: Path) -> None:
    write_corpus(tmp_path / "corpus")
    run("ingest", str(tmp_path / "corpus"))

    code, output = run("grep", "brigid")
    assert code == 0 and "corpus/grandmother.txt" in output
    assert "1 mention" in output and "1 mentions" not in output

    code, output = run("sources", "--json")
    docs = {d["name"]: d for d in json.loads(output)}
    doc_id = docs["corpus/grandmother.txt"]["id"]
    assert docs["corpus/broken.pdf"]["status"] == "failed"
    assert docs["corpus/broken.pdf"]["reading"] is None
    reading = docs["corpus/grandmother.txt"]["reading"]
    assert reading == {
        "state": "waiting", "parts_done": 0, "parts": 1,
        "why": "no language model is set up to read it",
    }  # fmt: skip
    code, output = run("sources")
    assert code == 0 and "waiting" in output
    assert docs["corpus/grandmother.txt"]["private"] is False
    code, output = run("sources", "private", str(doc_id))
    assert code == 0 and "is private: your assistants don't see it" in output
    code, output = run("sources", "--json")
    assert {d["id"]: d["private"] for d in json.loads(output)}[doc_id] is True
    code, output = run("sources")
    assert "ready, private" in " ".join(output.split())
    code, output = run("read", str(doc_id), "--length", "6")
    assert code == 0 and output.strip(), "still the owner's to read"
    code, output = run("sources", "private", str(doc_id), "--off")
    assert code == 0 and "shared with your assistants again" in output
    code, output = run("sources", "private", "999")
    assert code == 1 and "There is no source #999" in output
    broken = docs["corpus/broken.pdf"]["id"]
    code, output = run("read", str(broken))
    said = " ".join(output.split())
    assert code == 1 and f"Source #{broken} (corpus/broken.pdf) failed when it was added" in said
    assert "this PDF is damaged" in said and "There is no source" not in said

    code, output = run("read", str(doc_id), "--offset", "6", "--length", "6")
    assert code == 0 and output.startswith("Sunday")

    code, output = run("stats")
    assert code == 0 and "6 ready" in output and "(0 still to embed)" in output

    code, output = run("forget", str(doc_id), "--yes")
    assert code == 0 and "Forgot" in output
    code, output = run("grep", "brigid")
    assert "0 mentions" in output
    code, output = run("read", str(doc_id))
    assert code == 1 and f"There is no source #{doc_id}" in output


def test_a_changed_model_keeps_search_working_and_stats_say_so(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.txt").write_text("hello there")
    run("ingest", str(tmp_path / "a.txt"))
    monkeypatch.setenv("BIOMD_EMBED_MODEL", "BAAI/bge-small-en-v1.5")
    code, output = run("search", "hello")
    assert code == 0 and "a.txt" in output
    code, output = run("stats")
    assert "switching to BAAI/bge-small-en-v1.5" in output and "0 of 1 chunk re-embedded" in output
    assert "biomd reindex" in output


def test_ingest_then_the_biographer_writes_a_cited_bio_and_ask_answers_with_citations(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support import chat_fixtures as fx
    from tests.support.fake_llm import fake_llm, tool_reply

    chat = tmp_path / "WhatsApp Chat - Família Silva.txt"
    chat.write_text(fx.WHATSAPP_IOS)
    code, output = run("ingest", str(chat), "--no-embed")
    assert code == 0 and "Not read by the biographer yet: 1 source." in output
    assert "biomd analyse --pending" in output

    with fake_llm() as llm:
        monkeypatch.setenv("BIOMD_LLM_BASE_URL", llm.base_url)
        monkeypatch.setenv("BIOMD_LLM_API_KEY", "sk-test")
        monkeypatch.setenv("BIOMD_OWNER_NAMES", "Ana Silva")
        llm.reply_with(
            tool_reply(("read_source", {"document_id": 1})),
            tool_reply(
                (
                    "edit_profile",
                    {
                        "old_text": "## Timeline\n",
                        "new_text": "## Timeline\n- 2021-02-03: Organised a family Sunday "
                        "lunch; Tomás brought the cake [#1]\n",
                        "reason": "family lunch",
                    },
                ),
                (
                    "edit_profile",
                    {
                        "old_text": "",
                        "new_text": "- Who is Tomás to you? He appears in [#1].",
                        "section": "Open questions",
                    },
                ),
            ),
            "A family group chat from February 2021; added a Timeline entry.",
            "Tomás brought the cake to the family lunch on 2021-02-03 [#1].",
        )
        code, output = run("analyse", "--pending")
        assert code == 0, output
        assert "→ read_source(document_id=1)" in output
        assert "A family group chat from February 2021" in output
        assert "bio.md sections changed: Timeline, Open questions" in output

        code, output = run("timeline")
        assert (
            "- 2021-02-03: Organised a family Sunday lunch; Tomás brought the cake [#1]" in output
        )
        code, output = run("questions")
        assert "Q1  Who is Tomás to you? He appears in [#1]." in output
        code, output = run("bio")
        assert "[#1]" in output and output.startswith("# bio.md")

        code, output = run("ask", "Who brought the cake?")
        assert (
            code == 0 and "Tomás brought the cake to the family lunch on 2021-02-03 [#1]." in output
        )
        assert "(1 turn, 1 model call," in output

        code, output = run("cost")
        assert code == 0 and "today" in output

        code, output = run("history")
        assert "family lunch" in output
        code, output = run("undo")
        assert "Reverted the edits of turn" in output
        code, output = run("timeline")
        assert "The timeline is empty so far." in output


def test_ask_without_a_language_model_answers_with_cited_search_results(
    env: dict[str, str], tmp_path: Path
) -> None:
    write_corpus(tmp_path / "corpus")
    run("ingest", str(tmp_path / "corpus"))
    code, output = run("ask", "puffins on the cliffs")
    assert code == 0
    assert "No language model is configured" in output
    assert "corpus/saoirse.md" in output and "Sources: biomd read " in output
    assert "/source" not in output, "the bots' command is not the CLI's"


def test_share_refuses_findings_then_saves_lists_reopens_and_deletes(
    env: dict[str, str], tmp_path: Path
) -> None:
    from tests.app.share.test_service import BIO

    data = Path(env["BIOMD_DATA_DIR"])
    data.mkdir(parents=True)
    (data / "bio.md").write_text(BIO, encoding="utf-8")
    target = tmp_path / "for-my-therapist.html"
    code, output = run("share", "save", "therapist", "--out", str(target))
    assert code == 1 and not target.exists()
    assert "e-mail" in output and "nina.castell@example.com" in output and "phone" in output
    assert "Nothing was saved" in output
    assert "Tomás Reis: as 'her brother'" in output

    code, output = run("share", "preview", "therapist", "--hide", "Graça")
    assert code == 0 and "Graça: as 'G.'" in output and not target.exists()
    code, output = run(
        "share", "save", "therapist", "--hide", "Graça", "--out", str(target), "--yes"
    )
    assert code == 0 and "Saved share #1" in output and target.exists()
    assert "Graça" not in target.read_text(encoding="utf-8")
    code, output = run("share", "save", "assistant", "--remove-findings", "--out", "a.txt")
    assert code == 0 and "characters" in output
    assert len((tmp_path / "a.txt").read_text(encoding="utf-8")) <= 1500

    code, output = run("share", "list")
    assert code == 0 and "therapist" in output and "assistant" in output
    code, output = run("share", "open", "1")
    assert code == 0 and output == target.read_text(encoding="utf-8")
    code, output = run("share", "delete", "1")
    assert code == 0 and not target.exists()
    code, output = run("share", "open", "1")
    assert code == 1 and "There is no share #1" in output
    code, output = run("share", "preview", "nobody")
    assert code == 1 and "There is no audience 'nobody'" in output
    code, output = run("share", "save", "therapist", "--format", "pdf")
    assert code == 2 and "--format is one of html, md, text" in output


def test_share_says_there_is_nothing_yet_names_its_flags_and_previews_markdown(
    env: dict[str, str], tmp_path: Path
) -> None:
    from tests.app.share.test_service import BIO

    target = tmp_path / "close.html"
    for command in (["preview", "close"], ["save", "close", "--out", str(target)]):
        code, output = run("share", *command)
        assert code == 1 and "There is nothing to share yet: bio.md is still empty." in output
        assert "biomd setup" in output and "biomd ingest" in output
    assert not target.exists() and not (Path(env["BIOMD_DATA_DIR"]) / "shares").exists()

    (Path(env["BIOMD_DATA_DIR"]) / "bio.md").write_text(BIO, encoding="utf-8")
    code, output = run("share", "save", "close", "--out", str(target))
    assert code == 1 and not target.exists()
    said = " ".join(output.split())
    assert "Run it again with --remove-findings (they become [removed]) or --yes" in said
    code, output = run("share", "preview", "close", "--format", "md")
    assert code == 0 and "\n## Summary\n" in output and "\n- Works as a ceramicist" in output
    assert "Written 20" in output, "the day, as the saved file will say it"
    assert "To save it: biomd share save close with --remove-findings" in " ".join(output.split())
    code, output = run("share", "preview", "close")
    assert code == 0 and "## Summary" not in output and "\nIdentity: Works as a" in output


def test_the_old_share_and_mirror_flags_still_work_and_name_their_subcommand(
    env: dict[str, str], tmp_path: Path
) -> None:
    from tests.app.share.test_service import BIO

    data = Path(env["BIOMD_DATA_DIR"])
    data.mkdir(parents=True)
    (data / "bio.md").write_text(BIO, encoding="utf-8")
    code, output = run("share", "--for", "therapist", "--preview", "--hide", "Graça", "--yes")
    assert code == 0 and "(This is now `biomd share preview therapist --hide 'Graça'`.)" in output
    code, output = run("share", "--for=assistant", "--remove-findings", "--out", "a.txt")
    assert code == 0 and "Saved share #1" in output
    assert "`biomd share save assistant --remove-findings --out a.txt`" in output
    code, output = run("share", "--list")
    assert code == 0 and "`biomd share list`" in output and "assistant" in output
    code, output = run("share", "--delete", "1")
    assert code == 0 and "`biomd share delete 1`" in output and "Deleted share #1" in output
    code, output = run("mirror", "--dismiss", "F1a2b3c4")
    assert "`biomd mirror dismiss F1a2b3c4`" in output
    assert code == 1 and "There is no finding or pattern F1a2b3c4" in output
    code, output = run("mirror", "--answer", "F1a2b3c4", "--text", "We were both working nights.")
    assert "`biomd mirror answer F1a2b3c4 'We were both working nights.'`" in output


def test_a_count_is_said_in_the_singular_or_the_plural() -> None:
    from biomd.app.pictures.people import Person, caption
    from biomd.app.replies import counted

    assert [counted(n, "chunk") for n in (0, 1, 2, 1204)] == [
        "0 chunks", "1 chunk", "2 chunks", "1,204 chunks"
    ]  # fmt: skip
    assert counted(1, "try", "tries") == "1 try" and counted(3, "try", "tries") == "3 tries"
    said = caption([Person("Mum", "her mother", by_year={2021: 1})])
    assert said.startswith("Mum: 1 appearance 2021")


def test_every_help_is_plain_and_its_sentences_unbroken() -> None:
    import typer
    from typer.core import TyperGroup

    root = typer.main.get_command(app)
    assert isinstance(root, TyperGroup)
    lines: list[list[str]] = [[]]
    for name, command in root.commands.items():
        lines.append([name])
        if isinstance(command, TyperGroup):
            lines += [[name, sub] for sub in command.commands]
    for line in lines:
        result = CliRunner().invoke(app, [*line, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, (line, result.output)
        for junk in ("<bool>", "<str>", "<int>", "<path>", "<list[", "{paths}"):
            assert junk not in result.output, (line, junk, result.output)
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert "(after changing BIOMD_EMBED_MODEL); search keeps the old vectors" in result.output
    assert "With no language model configured, cited search results instead." in result.output
    result = CliRunner().invoke(app, ["ingest", "--help"], env={"COLUMNS": "200"})
    assert "PATHS" in result.output and "--since" in result.output and "TEXT" in result.output


def test_the_command_is_split_by_subject_in_files_of_300_lines_at_most() -> None:
    package = Path(__file__).resolve().parents[2] / "biomd" / "frontends" / "cli"
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in package.glob("*.py")}
    assert len(sizes) > 5 and max(sizes.values()) <= 300, sizes

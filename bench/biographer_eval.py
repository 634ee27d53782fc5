"""How good is the biographer? The bundled sample life is ingested into a fresh data dir, the
biographer reads all of it, and is then asked ten questions; bio.md and the answers are
scored against an answer key (bench/sample_answer_key.json) by rules that need no second
model. An LLM judge, if asked for, is reported apart.

    .venv/bin/python -m bench.biographer_eval --base-url http://127.0.0.1:8080/v1 --model qwen
    .venv/bin/python -m bench.biographer_eval --label "after" --results bench/RESULTS.md

It runs against any OpenAI-compatible endpoint (or `--backend codex` where that backend
exists), prints a table, and appends a dated row to bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import re
import tempfile
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import portrait
from biomd import sample
from biomd.app.engine import Engine
from biomd.biographer.answer_check import SILENT, quote_lines
from biomd.settings import Settings
from tests.support.db import one, rows
from tests.support.model_files import MINILM_NAME, minilm_dir, whisper_dir

KEY = Path(__file__).with_name("sample_answer_key.json")
LIVES = Path(__file__).with_name("lives")
PORTRAIT_HEADING = "### A portrait, not a log of quotes (issue 51)"
PORTRAIT_COLUMNS = (
    "date",
    "life",
    "run",
    "facts cited right",
    "people with relation",
    "summary supported",
    "first-person / header / subjectless lines",
    "who-did-what errors",
    "answers right",
    "invented ids",
    "calls: notes / lines / summary / turns / chat",
    "tokens in per MB read",
    "wall",
)


@dataclass(frozen=True)
class Life:
    """A life to read: its sources in id order, its owner and the answer key."""

    name: str
    files: list[Path]
    owner_names: str
    timezone: str
    key: dict[str, Any]

    @classmethod
    def sample(cls) -> Life:
        key = json.loads(KEY.read_text(encoding="utf-8"))
        return cls("sample", sample.files(), sample.OWNER_NAMES, sample.TIMEZONE, key)

    @classmethod
    def at(cls, folder: Path) -> Life:
        """A life written for the bench (bench/lives/NAME/life.json and its sources)."""
        life = json.loads((folder / "life.json").read_text(encoding="utf-8"))
        files = [folder / f for f in life["sources"]]
        return cls(
            folder.name, files, ", ".join(life["owner_names"]), life["timezone"], life["key"]
        )


RESULTS = Path(__file__).with_name("RESULTS.md")
HEADING = "## Biographer quality on the sample life (`bench/biographer_eval.py`)"
COLUMNS = (
    "date",
    "run",
    "model",
    "facts",
    "cited right",
    "contradictions (both dates)",
    "gap questions",
    "invented citations",
    "answers right",
    "edits made / refused",
    "unread (queue / never noted)",
    "prompt leaks (bio.md + answers)",
    "calls",
    "tokens in / out",
    "wall",
)

_CITE_GROUP = re.compile(r"\[([^\]\n]*#\d+[^\]\n]*)\]")
_CHAT_CITE = re.compile(r"\[chat (\d{4}-\d{2}-\d{2})\]")
_HEADING = re.compile(r"^#{1,6}\s")


# -- scoring: pure functions over text -------------------------------------------------------


def fold(text: str) -> str:
    """Lower case without accents, so that 'Inês' matches 'ines'."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def holds(text: str, groups: Sequence[Sequence[str]]) -> bool:
    """True when `text` has at least one word of every group."""
    t = fold(text)
    return all(any(fold(w) in t for w in group) for group in groups)


def cited_ids(text: str) -> set[int]:
    """Every source id cited as [#3], [#3, #8] or [#3 'journal'] and the like."""
    return {int(n) for group in _CITE_GROUP.findall(text) for n in re.findall(r"#(\d+)", group)}


def section(bio: str, title: str) -> str:
    lines, inside = [], False
    for line in bio.splitlines():
        if line.startswith("## "):
            inside = fold(line[3:].strip()) == fold(title)
        elif inside:
            lines.append(line)
    return "\n".join(lines)


def claim_lines(bio: str) -> list[str]:
    """The lines of bio.md that state something: no headings, no open questions."""
    questions = set(section(bio, "Open questions").splitlines())
    return [
        line
        for line in bio.splitlines()
        if line.strip() and not _HEADING.match(line) and line not in questions
    ]


@dataclass
class Score:
    facts: int = 0
    facts_cited: int = 0
    facts_total: int = 0
    contradictions: int = 0
    contradictions_dated: int = 0
    contradictions_total: int = 0
    gaps: int = 0
    gaps_total: int = 0
    invented_in_bio: int = 0
    invented_in_answers: int = 0
    answers: int = 0
    answers_total: int = 0
    prompt_leaks: int = 0
    missing: list[str] = field(default_factory=list)


def answer_of(report: str) -> str:
    """What an answer says, without the quotes under it (their words are the sources', not
    the answer's); nothing for one that says the sources don't say, whose nearest passages
    are no answer."""
    said, _ = quote_lines(report)
    return "" if said.startswith(SILENT) else said


def score(bio: str, answers: Sequence[str], key: dict[str, Any], chat_dates: set[str]) -> Score:
    """bio.md and the answers against the answer key."""
    s = Score()
    lines = claim_lines(bio)
    for fact in key["facts"]:
        s.facts_total += 1
        found = [line for line in lines if holds(line, fact["words"])]
        if found:
            s.facts += 1
            if any(cited_ids(line) & set(fact["sources"]) for line in found):
                s.facts_cited += 1
        else:
            s.missing.append(f"fact {fact['id']}")
    for c in key["contradictions"]:
        s.contradictions_total += 1
        both = [line for line in lines if holds(line, c["sides"])]
        if both:
            s.contradictions += 1
            if any(holds(line, c["dates"]) for line in both):
                s.contradictions_dated += 1
        else:
            s.missing.append(f"contradiction {c['id']}")
    questions = [q for q in section(bio, "Open questions").splitlines() if q.strip()]
    for gap in key["gaps"]:
        s.gaps_total += 1
        if any(holds(q, gap["words"]) for q in questions):
            s.gaps += 1
        else:
            s.missing.append(f"gap {gap['id']}")
    valid = set(range(1, key["sources"] + 1))
    s.invented_in_bio = invented(bio, valid, chat_dates)
    s.invented_in_answers = sum(invented(a, valid, chat_dates) for a in answers)
    for q, answer in zip(key["questions"], answers, strict=True):
        s.answers_total += 1
        if holds(answer_of(answer), q["words"]):
            s.answers += 1
        else:
            s.missing.append(f"answer to {q['ask']!r}")
    written = fold(bio + "\n".join(answers))
    s.prompt_leaks = sum(written.count(fold(w)) for w in key["prompt_leaks"])
    return s


def invented(text: str, valid: set[int], chat_dates: set[str]) -> int:
    """Citations of sources that do not exist, and of chat days with no message."""
    ids = [int(n) for g in _CITE_GROUP.findall(text) for n in re.findall(r"#(\d+)", g)]
    days = _CHAT_CITE.findall(text)
    return sum(1 for i in ids if i not in valid) + sum(1 for d in days if d not in chat_dates)


# -- the run ----------------------------------------------------------------------------------


@dataclass
class Turn:
    id: int
    mode: str
    document_id: int | None
    steps: int
    status: str
    seconds: float
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    tools: list[str]


@dataclass
class Run:
    bio: str
    answers: list[str]
    turns: list[Turn]
    chat_dates: set[str]
    edits_made: int
    edit_calls: int
    unread_queue: int
    never_opened: int  # sources the reader never took notes of
    calls: int
    wall_s: float
    problems: list[str]
    notes_kept: int = 0
    notes_dropped: int = 0  # for a quote not found in the source
    notes: list[list[Any]] = field(default_factory=list)  # the reader's, kept
    by_mode: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # calls, in, out
    text_bytes: int = 0  # characters of the sources' text


class Traced:
    """The biographer's model, with every reply written to a JSON-lines file."""

    def __init__(self, model: Any, path: Path) -> None:
        self._model = model
        self._path = path

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._model, name, value)

    async def complete_json(
        self, messages: Any, schema: Any, mode: str, max_tokens: Any = None, **more: Any
    ) -> Any:  # `more`: what else the caller passes (the reader's steady=True), passed on
        reply = await self._model.complete_json(messages, schema, mode, max_tokens, **more)
        self._write(messages, mode, reply)
        return reply

    async def complete(
        self, messages: Any, tools: Any, mode: str, max_tokens: Any = None, **more: Any
    ) -> Any:
        reply = await self._model.complete(messages, tools, mode, max_tokens, **more)
        self._write(messages, mode, reply)
        return reply

    def _write(self, messages: Any, mode: str, reply: Any) -> None:
        entry = {
            "mode": mode,
            "last": messages[-1].get("content") if messages else None,
            "text": reply.text,
            "calls": [[c.name, c.arguments] for c in reply.tool_calls],
            "finish": getattr(reply, "finish_reason", None),
        }
        with self._path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry, ensure_ascii=False) + "\n")


async def run(
    settings: Settings, life: Life, verbose: bool = False, trace: Path | None = None
) -> Run:
    """Ingest the life, read it all, ask the questions; everything the score needs."""
    key = life.key
    steps: dict[int, list[str]] = {}
    problems: list[str] = []
    started = time.monotonic()
    async with await Engine.open(settings) as engine:
        if trace is not None:  # the biographer's model and the reader's, every reply kept
            backend: Any = engine.backend
            backend._model = Traced(backend.model(), trace)
            backend._reader = Traced(backend.reader(), trace)

        async def on_step(kind: str, detail: str) -> None:
            if kind == "tool":  # the turn that is running is the newest one
                newest = one(settings.db_path, "SELECT MAX(id) FROM turns")[0]
                steps.setdefault(int(newest or 0), []).append(detail)
            if verbose:
                print(f"    {kind}: {detail[:160]}", flush=True)

        results = [r async for r in engine.sources.ingest(life.files)]
        problems += [f"{r.name}: {r.error}" for r in results if getattr(r, "error", None)]
        try:
            await engine.biographer.reading.read_pending(on_step=on_step)
        except Exception as exc:  # a failed turn is part of the score, not the end of it
            problems.append(f"reading stopped: {exc}")
        answers = []
        for q in key["questions"]:
            if verbose:
                print(f"  Q: {q['ask']}", flush=True)
            try:
                result = await engine.biographer.chat.ask(q["ask"], on_step=on_step)
                answers.append(result.report)
            except Exception as exc:
                problems.append(f"question {q['ask']!r} failed: {exc}")
                answers.append("")
            if verbose:
                print(f"  A: {answers[-1][:300]}", flush=True)
        bio = await engine.profile.load()
        unread = len(await engine.biographer.reading.pending())
        db = settings.db_path
        turn_rows = rows(
            db,
            "SELECT t.id, t.mode, t.document_id, t.steps, t.status, t.started_at,"
            " COALESCE(t.finished_at, t.started_at),"
            " COALESCE(SUM(u.prompt_tokens), 0), COALESCE(SUM(u.completion_tokens), 0),"
            " COALESCE(SUM(u.cost_usd), 0)"
            " FROM turns t LEFT JOIN llm_usage u ON u.turn_id = t.id GROUP BY t.id ORDER BY t.id",
        )
        edits = one(
            db,
            "SELECT COUNT(*) FROM profile_revisions WHERE turn_id IS NOT NULL"
            " AND mode IN ('chat', 'analysis', 'reading')",
        )
        calls = one(db, "SELECT COUNT(*) FROM llm_usage")
        by_mode = rows(
            db,
            "SELECT mode, COUNT(*), SUM(prompt_tokens), SUM(completion_tokens) FROM llm_usage"
            " GROUP BY mode",
        )
        read_bytes = one(db, "SELECT COALESCE(SUM(text_length), 0) FROM documents")[0]
        notes = rows(db, "SELECT document_id, kind, date, people, statement, quote FROM notes")
        never_noted = one(
            db,
            "SELECT COUNT(*) FROM documents d WHERE NOT EXISTS (SELECT 1 FROM noted_parts p"
            " WHERE p.document_id = d.id AND p.noted_at IS NOT NULL)",
        )[0]
        kept, dropped = one(
            db,
            "SELECT (SELECT COUNT(*) FROM notes),"
            " (SELECT COALESCE(SUM(dropped), 0) FROM noted_parts)",
        )
        days = rows(db, "SELECT DISTINCT substr(at, 1, 10) FROM chat_messages WHERE role = 'user'")
    turns = [
        Turn(
            int(r[0]),
            str(r[1]),
            r[2],
            int(r[3]),
            str(r[4]),
            (datetime.fromisoformat(r[6]) - datetime.fromisoformat(r[5])).total_seconds(),
            int(r[7]),
            int(r[8]),
            float(r[9]),
            steps.get(int(r[0]), []),
        )
        for r in turn_rows
    ]
    edit_calls = sum(1 for t in turns for s in t.tools if s.startswith("edit_profile("))
    return Run(
        bio=bio,
        answers=answers,
        turns=turns,
        chat_dates={str(d[0]) for d in days},
        edits_made=int(edits[0]) if edits else 0,
        edit_calls=edit_calls,
        unread_queue=unread,
        never_opened=int(never_noted),
        notes=[list(n) for n in notes],
        notes_kept=int(kept),
        notes_dropped=int(dropped),
        calls=int(calls[0]) if calls else 0,
        by_mode={str(m): (int(n), int(i or 0), int(o or 0)) for m, n, i, o in by_mode},
        text_bytes=int(read_bytes),
        wall_s=time.monotonic() - started,
        problems=problems,
    )


def row(label: str, model: str, s: Score, r: Run) -> list[str]:
    tokens_in = sum(t.prompt_tokens for t in r.turns)
    tokens_out = sum(t.completion_tokens for t in r.turns)
    return [
        datetime.now(UTC).strftime("%Y-%m-%d"),
        label,
        model,
        f"{s.facts}/{s.facts_total}",
        f"{s.facts_cited}/{s.facts_total}",
        f"{s.contradictions}/{s.contradictions_total} ({s.contradictions_dated})",
        f"{s.gaps}/{s.gaps_total}",
        f"{s.invented_in_bio} in bio.md, {s.invented_in_answers} in answers",
        f"{s.answers}/{s.answers_total}",
        f"{r.edits_made} / {max(0, r.edit_calls - r.edits_made)}",
        f"{r.unread_queue} / {r.never_opened}",
        str(s.prompt_leaks),
        str(r.calls),
        f"{tokens_in:,} / {tokens_out:,}",
        f"{r.wall_s / 60:.1f} min",
    ]


def turns_table(r: Run) -> str:
    lines = [
        "| turn | mode | source | steps | status | seconds | tokens in / out | cost | tools |",
        "|---:|---|---:|---:|---|---:|---:|---:|---|",
    ]
    for t in r.turns:
        tools = ", ".join(s.split("(", 1)[0] for s in t.tools) or "-"
        lines.append(
            f"| {t.id} | {t.mode} | {t.document_id or '-'} | {t.steps} | {t.status} |"
            f" {t.seconds:.0f} | {t.prompt_tokens:,} / {t.completion_tokens:,} |"
            f" ${t.cost_usd:.4f} | {tools} |"
        )
    return "\n".join(lines)


def append_row(
    results: Path,
    cells: list[str],
    machine: str,
    heading: str = HEADING,
    columns: Sequence[str] = COLUMNS,
) -> None:
    """Add the row under a heading in RESULTS.md, creating the table if needed."""
    text = results.read_text(encoding="utf-8") if results.exists() else ""
    line = "| " + " | ".join(c.replace("|", "/") for c in cells) + " |"
    if heading not in text:
        header = "| " + " | ".join(columns) + " |\n|" + "---|" * len(columns)
        text = (
            text.rstrip("\n")
            + f"\n\n{heading}\n\nMachine: {machine}. Rules in bench/biographer_eval.py; the "
            "answer key is bench/sample_answer_key.json. Facts: found / correctly cited; "
            "contradictions with both sides (and both dates); invented citations count ids "
            "that do not exist and chat days with no message.\n\n" + header + "\n"
        )
    head, _, tail = text.partition(heading)
    table_end = _table_end(tail)
    text = head + heading + tail[:table_end].rstrip("\n") + "\n" + line + "\n" + tail[table_end:]
    results.write_text(text, encoding="utf-8")


def _table_end(tail: str) -> int:
    """Where the table under the heading ends (the first non-table line after it starts)."""
    pos, started = 0, False
    for line in tail.splitlines(keepends=True):
        if line.startswith("|"):
            started = True
        elif started:
            return pos
        pos += len(line)
    return len(tail)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os

    return f"{os.cpu_count()} cores, {cpu}"


def settings_for(args: argparse.Namespace, data_dir: Path, life: Life | None = None) -> Settings:
    life = life or Life.sample()
    extra: dict[str, Any] = {}
    if args.backend != "openai":
        extra["llm_backend"] = args.backend
    if args.timeout:
        extra["llm_timeout"] = args.timeout
    if args.placement:
        extra["reading_placement"] = args.placement
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=data_dir,
        llm_base_url=args.base_url,
        llm_api_key=args.api_key or None,
        llm_model=args.model,
        embed_model=MINILM_NAME,
        embed_model_path=minilm_dir(),
        whisper_model=str(whisper_dir()),
        owner_names=life.owner_names,
        timezone=life.timezone,
        daily_spend_limit_usd=args.spend_limit,
        **extra,
    )


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base-url", default="http://127.0.0.1:8080/v1")
    p.add_argument("--model", default="local")
    p.add_argument("--api-key", default="")
    p.add_argument("--backend", default="openai", choices=["openai", "codex"])
    p.add_argument("--timeout", type=float, default=0, help="seconds per call (0: the default)")
    p.add_argument("--spend-limit", type=float, default=5.0)
    p.add_argument("--placement", choices=["model", "rules"], default="", help="of notes")
    p.add_argument("--label", default="", help="what this run is, for the results row")
    p.add_argument(
        "--life", default="sample", help="the sample, or a life in bench/lives (e.g. jonas)"
    )
    p.add_argument("--results", type=Path, default=RESULTS, help="where to append the row")
    p.add_argument("--no-append", action="store_true")
    p.add_argument("--keep", type=Path, default=None, help="write bio.md and answers here")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--trace", type=Path, default=None, help="write every model reply here")
    return p.parse_args(argv)


async def main(argv: Sequence[str] | None = None) -> tuple[Score, Run]:
    args = parse(argv)
    life = Life.sample() if args.life == "sample" else Life.at(LIVES / args.life)
    key = life.key
    with tempfile.TemporaryDirectory(prefix="biomd-eval-") as tmp:
        settings = settings_for(args, Path(tmp) / "data", life)
        r = await run(settings, life, args.verbose, args.trace)
    s = score(r.bio, r.answers, key, r.chat_dates)
    cells = row(args.label or "-", args.model, s, r)
    print("\n" + "\n".join(f"{c:>30}: {v}" for c, v in zip(COLUMNS, cells, strict=True)))
    owner = [n.strip() for n in life.owner_names.split(",")]
    p = portrait.score(r.bio, key, owner)
    shown = portrait_row(life.name, args.label or "-", s, p, r)
    print("\n" + "\n".join(f"{c:>42}: {v}" for c, v in zip(PORTRAIT_COLUMNS, shown, strict=True)))
    for what, found in (
        ("first person", p.first_person),
        ("header or greeting", p.headers),
        ("no subject", p.no_subject),
        ("who did what", p.who_errors),
        ("summary unsupported", p.unsupported),
        ("people missing", p.people_missing),
    ):
        for x in found:
            print(f"  {what}: {x}")
    print(f"\nreader notes: {r.notes_kept} kept, {r.notes_dropped} dropped (quote not found)")
    print("\nper turn:\n" + turns_table(r))
    if s.missing:
        print("\nmissing: " + "; ".join(s.missing))
    if r.problems:
        print("\nproblems: " + "; ".join(r.problems))
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        (args.keep / "bio.md").write_text(r.bio, encoding="utf-8")
        (args.keep / "notes.json").write_text(
            json.dumps(r.notes, ensure_ascii=False, indent=1), encoding="utf-8"
        )
        qa = "\n\n".join(
            f"Q: {q['ask']}\nA: {a}" for q, a in zip(key["questions"], r.answers, strict=True)
        )
        (args.keep / "answers.md").write_text(qa, encoding="utf-8")
        (args.keep / "turns.md").write_text(turns_table(r), encoding="utf-8")
        steps = "\n\n".join(
            f"## turn {x.id} ({x.mode}, source {x.document_id})\n" + "\n".join(x.tools)
            for x in r.turns
        )
        (args.keep / "steps.md").write_text(steps, encoding="utf-8")
    if not args.no_append:
        if life.name == "sample":
            append_row(args.results, cells, machine())
        append_row(args.results, shown, machine(), PORTRAIT_HEADING, PORTRAIT_COLUMNS)
    return s, r


def portrait_row(life: str, label: str, s: Score, p: portrait.Portrait, r: Run) -> list[str]:
    """The issue 51 measures of one run, as a results row."""
    calls = [r.by_mode.get(m, (0, 0, 0))[0] for m in ("notes", "wording", "summary", "reading")]
    chat = r.by_mode.get("chat", (0, 0, 0))[0]
    reading_in = sum(v[1] for m, v in r.by_mode.items() if m != "chat")
    per_mb = reading_in / max(1, r.text_bytes) * 1_000_000
    return [
        datetime.now(UTC).strftime("%Y-%m-%d"),
        life,
        label,
        f"{s.facts_cited}/{s.facts_total}",
        f"{p.people}/{p.people_total}",
        f"{p.summary_supported}/{p.summary} sentences",
        f"{len(p.first_person)} / {len(p.headers)} / {len(p.no_subject)} of {p.lines}",
        str(len(p.who_errors)),
        f"{s.answers}/{s.answers_total}",
        str(s.invented_in_bio + s.invented_in_answers),
        " / ".join(str(c) for c in [*calls, chat]),
        f"{per_mb:,.0f} ({r.text_bytes:,} characters)",
        f"{r.wall_s / 60:.1f} min",
    ]


if __name__ == "__main__":
    asyncio.run(main())

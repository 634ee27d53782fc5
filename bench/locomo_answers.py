"""End-to-end answer accuracy on LoCoMo: what the owner reads, not what search finds.

Each conversation is ingested as its own corpus (one chat transcript a session, as
bench/locomo.py does), then questions are asked through the same path as `biomd ask`
(`Biographer.ask`: the evidence-first chat turn, the model, the citation check), each on its
own (no chat tail). Scored by rules:

- categories 1-4: right when every content word of the gold answer is in the answer (by its
  first five letters, so plurals and tenses count), or, for a gold answer that is a date,
  when the answer names a day within a week of it (a year: that year; a month: that month);
- category 5 (adversarial: the question asks about something the sources don't hold, or
  that another person did): right when the answer says the sources don't say, or that they
  say it of another person (the premise check);
- token F1 (the answer's words against the gold answer's, as mem0 and LoCoMo report it)
  beside it, for categories 1-4.

Only the answer is scored, not the verified quotes biomd lists under it. Two more counts,
over every question: "unsupported shown as fact" (an answer that is neither silent nor a
premise reply, and rests on no verified quote nor says it is the model's own), and the
premise check's false alarms on categories 1-4 (its reply where the sources do answer).

The published anchor is mem0 with gpt-4o-mini (F1: single-hop 38.7, multi-hop 28.6,
open-domain 47.7, temporal 48.9; LLM judge 66.9%). Its judge is a model and its F1 is over
a short answer it was asked to give; biomd's answers are sentences for a person, which
lowers F1 for the same facts, so both are reported.

    .venv/bin/python -m bench.locomo_answers --data ../shared/eval/locomo-dev.json \\
        --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder-1.5b-instruct-q4_k_m \\
        --per-category 8
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.locomo import MINILM, build_corpus, ingest_corpus
from biomd.app.engine import Engine
from biomd.settings import Settings

SHARED_MODELS = Path(__file__).resolve().parent.parent.parent / "shared" / "models"
CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
MEM0_F1 = {1: 28.6, 2: 48.9, 3: 47.7, 4: 38.7}  # mem0 + gpt-4o-mini, as published
SILENT = re.compile(
    r"(?:do(?:es)?n[’']?t|do(?:es)? not|can[’']?t|cannot|could(?:n[’']?t| not)) "
    r"(?:say|mention|find|tell|show|know)|no (?:mention|record|information|source)|"
    r"not (?:mentioned|in (?:your|the) sources|recorded|say)|nothing (?:in|about)|"
    r"sources? (?:are|is) silent",
    re.I,
)
PREMISE = re.compile(r"^Your sources say this of .+?, not ")
QUOTED_LINE = "\n- “"  # a verified quote under the answer (answer_check.cite)
UNBACKED = "it is the model's own answer"
_STOP = frozenset(
    "a an the and or of to in on at for with by from is was were be been it its this that "
    "she he they her his their them i you your my me we our as about".split()
)
MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december"
    .split(), start=1)}  # fmt: skip


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def content(text: str) -> list[str]:
    return [w for w in words(text) if w not in _STOP]


def token_f1(answer: str, gold: str) -> float:
    a, g = content(answer), content(gold)
    if not a or not g:
        return float(a == g)
    common = sum(min(a.count(w), g.count(w)) for w in set(g))
    if not common:
        return 0.0
    precision, recall = common / len(a), common / len(g)
    return 2 * precision * recall / (precision + recall)


@dataclass(frozen=True)
class When:
    """A date as precise as it is given: a day, a month or a year."""

    year: int
    month: int = 0
    day: int = 0


_DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?([a-z]+),? (\d{4})\b")
_MONTH_DAY = re.compile(r"\b([a-z]+) (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b")
_ISO = re.compile(r"\b(\d{4})-(\d{2})(?:-(\d{2}))?\b")
_MONTH_YEAR = re.compile(r"\b([a-z]+),? (\d{4})\b")
_WEEK = re.compile(r"\bweek of (\d{4})-(\d{2})-(\d{2})\b")
_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")


def dates(text: str) -> list[When]:
    """Every date a text names, most precise first where they overlap."""
    t = text.lower()
    found = []
    for m in _ISO.finditer(t):
        found.append(When(int(m[1]), int(m[2]), int(m[3] or 0)))
    for m in _DAY_MONTH.finditer(t):
        if m[2] in MONTHS:
            found.append(When(int(m[3]), MONTHS[m[2]], int(m[1])))
    for m in _MONTH_DAY.finditer(t):
        if m[1] in MONTHS:
            found.append(When(int(m[3]), MONTHS[m[1]], int(m[2])))
    for m in _MONTH_YEAR.finditer(t):
        if m[1] in MONTHS:
            found.append(When(int(m[2]), MONTHS[m[1]]))
    found += [When(int(y)) for y in _YEAR.findall(t)]
    for m in _WEEK.finditer(t):  # "week of 2023-07-17" (biomd's) names its Sunday too
        last = date(int(m[1]), int(m[2]), int(m[3])) + timedelta(days=6)
        found.append(When(last.year, last.month, last.day))
    return found


def _day(w: When) -> date | None:
    try:
        return date(w.year, w.month, w.day) if w.day else None
    except ValueError:
        return None


_ECHOED = re.compile(r"\[(?:chat )?\d{4}-\d{2}-\d{2}[^\]]*\][^\n]*")
"""A transcript line or a chat citation echoed in an answer: its time stamp is not a date
the answer names."""


def date_right(answer: str, gold: str) -> bool | None:
    """Whether the answer names the gold date in its own words (a day within a week; a
    month or a year as given); None when the gold answer is not a date."""
    wanted = dates(gold)
    if not wanted or len(content(gold)) > 6:
        return None
    best = wanted[0]
    said = dates(_ECHOED.sub(" ", answer))
    if best.day and (g := _day(best)):
        return any((d := _day(w)) is not None and abs((d - g).days) <= 7 for w in said)
    if best.month:
        return any(w.year == best.year and w.month == best.month for w in said)
    return any(w.year == best.year for w in said)


def answer_of(report: str) -> str:
    """The answer the owner reads first: the report without the quotes under it."""
    return report.split(QUOTED_LINE)[0].strip()


def declines(answer: str) -> bool:
    """The sources are silent, or say it of someone else."""
    return SILENT.search(answer) is not None or PREMISE.search(answer) is not None


def unsupported(report: str) -> bool:
    """A claim shown as fact with no verified quote under it and no mark that it is the
    model's own."""
    return not declines(report) and QUOTED_LINE not in report and UNBACKED not in report


def right(answer: str, gold: str, category: int) -> bool:
    if category == 5:
        return declines(answer)
    if declines(answer):
        return False  # the nearest passages a silent answer lists are not its answer
    by_date = date_right(answer, gold)
    if by_date is not None:
        return by_date
    have = {w[:5] for w in content(answer)}
    need = {w[:5] for w in content(gold)}
    return bool(need) and need <= have


@dataclass
class Asked:
    sample: str
    category: int
    question: str
    gold: str
    answer: str
    report: str
    right: bool
    f1: float
    seconds: float
    calls: int
    prompt_tokens: int
    completion_tokens: int

    @property
    def unsupported(self) -> bool:
        return unsupported(self.report)

    @property
    def false_alarm(self) -> bool:
        """The premise reply to a question the sources answer (categories 1-4)."""
        return self.category != 5 and PREMISE.search(self.answer) is not None


@dataclass
class Totals:
    asked: list[Asked] = field(default_factory=list)

    def table(self) -> str:
        rows = [
            "| category | n | right (rules) | token F1 | mem0 F1 |",
            "|---|---:|---:|---:|---:|",
        ]
        by: dict[int, list[Asked]] = defaultdict(list)
        for a in self.asked:
            by[a.category].append(a)
        for cat in sorted(by):
            items = by[cat]
            acc = sum(a.right for a in items) / len(items)
            f1 = statistics.mean(a.f1 for a in items) * 100 if cat != 5 else float("nan")
            mem0 = f"{MEM0_F1[cat]:.1f}" if cat in MEM0_F1 else "-"
            shown_f1 = "-" if cat == 5 else f"{f1:.1f}"
            rows.append(
                f"| {CATEGORY_NAMES[cat]} | {len(items)} | {acc:.0%} | {shown_f1} | {mem0} |"
            )
        n = len(self.asked) or 1
        rows.append(f"| all | {len(self.asked)} | {sum(a.right for a in self.asked) / n:.0%} | | |")
        answerable = [a for a in self.asked if a.category != 5]
        alarms = sum(a.false_alarm for a in answerable)
        rows.append(
            f"\nunsupported shown as fact: {sum(a.unsupported for a in self.asked)} of "
            f"{len(self.asked)}; premise false alarms on categories 1-4: {alarms} of "
            f"{len(answerable)} ({alarms / (len(answerable) or 1):.0%}); said silent on "
            f"categories 1-4: {sum(SILENT.search(a.answer) is not None for a in answerable)}"
        )
        return "\n".join(rows)

    def costs(self) -> str:
        if not self.asked:
            return "nothing asked"
        calls = statistics.mean(a.calls for a in self.asked)
        prompt = statistics.mean(a.prompt_tokens for a in self.asked)
        seconds = sorted(a.seconds for a in self.asked)
        return (
            f"per answer: {calls:.2f} calls, {prompt:,.0f} prompt + "
            f"{statistics.mean(a.completion_tokens for a in self.asked):,.0f} completion tokens; "
            f"time p50 {statistics.median(seconds):.1f} s, max {seconds[-1]:.1f} s"
        )


def pick(
    qa: list[dict[str, Any]],
    per_category: int,
    rng: random.Random,
    categories: Sequence[int] = tuple(CATEGORY_NAMES),
) -> list[dict[str, Any]]:
    """Up to `per_category` questions of each category, chosen at random (seeded)."""
    out = []
    for cat in sorted(CATEGORY_NAMES):
        items = [q for q in qa if q["category"] == cat]
        rng.shuffle(items)  # every category drawn, so a seed picks the same ones with any
        out += items[:per_category] if cat in categories else []
    return out


def gold_of(q: dict[str, Any]) -> str:
    return str(q.get("answer", q.get("adversarial_answer", "")))


def settings_for(args: argparse.Namespace, data: Path, owner: str) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=data,
        llm_base_url=args.base_url,
        llm_api_key=args.api_key or "local",
        llm_model=args.model,
        owner_names=owner,
        timezone="UTC",
        chat_tail=0,  # each question on its own
        chat_evidence_chars=args.evidence_chars,
        embed_model=MINILM,
        embed_model_path=args.models / "all-MiniLM-L6-v2-int8",
        daily_spend_limit_usd=None,
    )


async def run_sample(sample: dict[str, Any], args: argparse.Namespace, root: Path) -> Totals:
    totals = Totals()
    corpus = build_corpus([sample])
    conv = sample["conversation"]
    data = root / sample["sample_id"]
    settings = settings_for(args, data / "data", conv["speaker_a"])
    rng = random.Random(args.seed)
    async with await Engine.open(settings) as engine:
        await ingest_corpus(engine, corpus, data / "sources")
        for q in pick(sample["qa"], args.per_category, rng, args.categories):
            t = time.perf_counter()
            result = await engine.biographer.chat.ask(q["question"])
            seconds = time.perf_counter() - t
            gold = gold_of(q)
            answer = answer_of(result.report)
            asked = Asked(
                sample["sample_id"], q["category"], q["question"], gold, answer, result.report,
                right(answer, gold, q["category"]), token_f1(answer, gold), seconds,
                result.steps, result.prompt_tokens, result.completion_tokens,
            )  # fmt: skip
            totals.asked.append(asked)
            mark = "✓" if asked.right else "✗"
            print(f"{mark} [{CATEGORY_NAMES[q['category']]}] {q['question']}\n"
                  f"   gold: {gold}\n   said: {result.report[:400]!r}", flush=True)  # fmt: skip
    return totals


async def main(argv: list[str] | None = None) -> Totals:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--api-key", default="")
    parser.add_argument("--per-category", type=int, default=5)
    parser.add_argument("--conversations", type=int, default=1, help="how many, from the first")
    parser.add_argument("--evidence-chars", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--categories",
        type=lambda v: [int(c) for c in v.split(",")],
        default=list(CATEGORY_NAMES),
        help="which to ask, e.g. 3 or 1,3 (1 multi-hop, 2 temporal, 3 open-domain, "
        "4 single-hop, 5 adversarial)",
    )
    parser.add_argument("--json", type=Path, default=None, help="write every answer here")
    parser.add_argument(
        "--models",
        type=Path,
        default=SHARED_MODELS,
    )
    args = parser.parse_args(argv)
    samples = json.loads(await asyncio.to_thread(args.data.read_text, encoding="utf-8"))
    samples = samples[: args.conversations]
    root = Path(tempfile.mkdtemp(prefix="bench-locomo-answers-"))
    totals = Totals()
    for sample in samples:
        totals.asked += (await run_sample(sample, args, root)).asked
    print(f"\n{datetime.now():%Y-%m-%d}, {args.model}, evidence {args.evidence_chars} chars")
    print(totals.table())
    print(totals.costs())
    if args.json:
        text = json.dumps([a.__dict__ for a in totals.asked], ensure_ascii=False, indent=1)
        await asyncio.to_thread(args.json.write_text, text, encoding="utf-8")
    return totals


if __name__ == "__main__":
    asyncio.run(main())

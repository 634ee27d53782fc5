"""One biographer turn, whatever backend runs it.

A turn sees the system prompt with the current bio.md, the tail of the chat, and the new
message; tool calls and their results live only inside the turn, which is what keeps the
context the same size for 10 sources or 10,000. Every turn has the same life: it is checked
against the spend limit and recorded as started; a `Runner` (biomd's own loop, or Codex)
holds the conversation with the model; then its report is made honest (a claim of edits that
were not made is corrected, and refused edits are listed), and the turn is recorded as done,
or as failed with what was written so far."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from biomd.biographer import answer_check
from biomd.biographer.context import CHARS_PER_TOKEN
from biomd.biographer.evidence import is_question, with_evidence
from biomd.biographer.prompts import system_prompt
from biomd.biographer.tool_state import ToolState
from biomd.biographer.tools import Toolbox
from biomd.biographer.turn_context import Mode, TurnContext
from biomd.models.llm import Reply, ToolCall, TurnModel
from biomd.models.turn_meter import in_turn
from biomd.storage.store import Store

StepFn = Callable[[str, str], Awaitable[None]]
"""Called as (kind, detail) while a turn runs: 'tool', 'edit', 'message' (what the model
says between steps, on Codex), 'report'."""

_CLAIM = re.compile(
    r"\b(?:I|I've|we|we've)\b[^.!?\n]{0,40}?\b(?:updated|added|edited|changed|recorded|"
    r"noted|wrote|written|inserted|amended|revised|saved|put|placed|included)\b"
    r"|\bbio\.md\b[^.!?\n]{0,30}?\b(?:has been|was|is now)\s+(?:updated|changed|edited)",
    re.I,
)
_DENIAL = re.compile(r"\b(?:not|n't|no|nothing|never|unable|couldn't)\b", re.I)
CHECKED_CITATIONS = 8  # sources an answer cites that biomd looks in for its words, at most
NO_WORD = "(The biographer ended the turn without a word.)"


@dataclass
class TurnResult:
    turn_id: int
    mode: str
    report: str
    steps: int
    edits: int
    sections_changed: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    budget_exhausted: bool = False
    refused: list[str] = field(default_factory=list)
    read: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    seen: set[int] = field(default_factory=set)
    cut_off: bool = False
    timed_out: bool = False
    text_calls: int = 0
    document_id: int | None = None
    reading: str = ""  # for a reading turn: whether the source was read, and if not, why
    sources: list[int] = field(default_factory=list)  # a reading turn's sources

    @property
    def outcome(self) -> str:
        """What the turn did, in one line: "2 edits (Timeline, People), 1 refused"."""
        parts = [f"{self.edits} edit{'' if self.edits == 1 else 's'}"]
        if self.sections_changed:
            parts[0] += f" ({', '.join(self.sections_changed)})"
        if self.refused:
            parts.append(f"{len(self.refused)} refused")
        if self.reading:
            parts.append(self.reading)
        if self.cut_off:
            parts.append("the reply was cut off")
        if self.timed_out:
            parts.append("stopped at the time limit")
        return ", ".join(parts)

    def took(self, reply: Reply) -> None:
        """Count one step's call: the step, its tokens and its cost."""
        self.steps += 1
        self.prompt_tokens += reply.usage.prompt_tokens
        self.completion_tokens += reply.usage.completion_tokens
        self.cost_usd += reply.usage.cost_usd

    def record(self, state: ToolState) -> None:
        """Take in what the turn's tool calls did."""
        self.edits = state.edits
        self.sections_changed = list(state.sections_changed)
        self.refused = list(state.refused)
        self.read = {k: list(v) for k, v in state.read.items()}
        self.seen = set(state.seen)


@dataclass(frozen=True)
class Turn:
    """What a runner is given: the same on every backend."""

    context: TurnContext
    message: str
    system: str  # the rules, the mode, and bio.md as it is now
    chat_tail: Sequence[dict[str, str]] = ()
    tools: bool = True  # offered to the model (a chat turn on evidence may answer without)
    answer: bool = False  # a question answered from evidence: checked against its quotes


@dataclass(frozen=True)
class Outcome:
    """What a runner brings back: the model's report, what the tools did, and a note of
    biomd's to put after the report (why the run ended early, say)."""

    report: str
    state: ToolState
    note: str = ""


class Runner(Protocol):
    """Holds one turn's conversation with the model on one backend, filling in the result's
    counts (steps, tokens, cost, cut off, timed out). It may raise; then the turn fails with
    whatever report the result holds."""

    async def __call__(
        self, turn: Turn, toolbox: Toolbox, result: TurnResult, on_step: StepFn | None
    ) -> Outcome: ...


def claims_edits(report: str) -> bool:
    """True when a sentence of the report says bio.md was changed."""
    return any(
        _CLAIM.search(s) and not _DENIAL.search(s) for s in re.split(r"(?<=[.!?])\s+|\n", report)
    )


def honest(report: str, edits: int) -> str:
    """The report, corrected when it claims edits that the turn did not make."""
    if edits == 0 and claims_edits(report):
        return report + "\n\n(biomd: no change was made to bio.md in this turn.)"
    return report


def refusals(refused: Sequence[str]) -> str:
    """The note that lists the edits biomd refused, or ''."""
    if not refused:
        return ""
    n = len(refused)
    return (
        f"(biomd refused {n} edit{'' if n == 1 else 's'}: "
        + "; ".join(dict.fromkeys(refused))
        + ".)"
    )


def final_report(outcome: Outcome, edits: int, refused: Sequence[str]) -> str:
    """The report as the owner reads it: honest about edits, then biomd's notes."""
    report = honest(outcome.report.strip() or NO_WORD, edits)
    notes = [n for n in (refusals(refused), outcome.note) if n]
    return "\n\n".join([report, *notes])


def describe_call(call: ToolCall) -> str:
    """A one-line account of a tool call, for showing the steps as they happen."""
    try:
        args = json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        return f"{call.name}(<invalid JSON>)"
    if not isinstance(args, dict):
        return f"{call.name}(?)"
    shown = ", ".join(
        f"{k}={json.dumps(v, ensure_ascii=False)[:60]}" for k, v in args.items() if k != "new_text"
    )
    return f"{call.name}({shown})"


class Agent:
    """The biographer at work: runs turns with tools over one corpus and one bio.md, on the
    runner of the backend."""

    def __init__(
        self,
        runner: Runner,
        model: TurnModel,
        toolbox: Callable[[TurnContext], Toolbox],
        load_bio: Callable[[], Awaitable[str]],
        store: Store,
        *,
        bio_budget: int = 30_000,
        owner_names: Sequence[str] = (),
        language: str = "",
        evidence_chars: int = 0,
        tools_with_evidence: bool = True,
    ) -> None:
        self.tools_with_evidence = tools_with_evidence
        self.language = language
        self.evidence_chars = evidence_chars
        self.runner = runner
        self.model = model
        self._toolbox = toolbox
        self._load_bio = load_bio
        self.store = store
        self.bio_budget = bio_budget
        self.owner_names = tuple(owner_names)

    async def run(
        self,
        mode: Mode,
        message: str,
        *,
        steps: int,
        chat_tail: Sequence[dict[str, str]] = (),
        document_id: int | None = None,
        chat_dates: frozenset[str] = frozenset(),
        given: frozenset[int] = frozenset(),
        on_step: StepFn | None = None,
        runner: Runner | None = None,
        bio: str | None = None,
    ) -> TurnResult:
        """One turn: `chat_dates` are the days [chat YYYY-MM-DD] may cite, `given` the
        sources whose notes the message holds; on `runner` rather than the backend's, and
        over `bio` as the rules' bio.md where turns side by side share one (so their
        prompts start alike, for the provider's prompt cache)."""
        await self.model.check_budget()
        turn_id = await self.store.turns.start(mode, message, document_id)
        result = TurnResult(turn_id, mode, "", 0, 0, document_id=document_id)
        try:
            shown = await self._load_bio() if bio is None else bio
            system = system_prompt(mode, shown, self.bio_budget, self.owner_names, self.language)
            context = TurnContext(turn_id, mode, steps, document_id, chat_dates, given)
            toolbox = self._toolbox(context)
            tools, answer, asked = True, False, message
            if mode == "chat" and self.evidence_chars:
                before = [m["content"] for m in chat_tail if m["role"] == "user"]
                room = await self._evidence_room()
                found = await toolbox.evidence(message, room, before[-1] if before else "")
                # a question is answered from what was found; news may change bio.md
                asks = is_question(message)
                tools = self.tools_with_evidence or not toolbox.state.seen or not asks
                answer = asks and bool(found)
                message = with_evidence(message, found, asks)
                if answer and not tools:
                    message += f"\n\n{answer_check.ask_for(asked)}"
            turn = Turn(context, message, system, chat_tail, tools, answer)
            with in_turn(turn_id):  # every model call from here on is this turn's
                outcome = await (runner or self.runner)(turn, toolbox, result, on_step)
            if answer and not result.timed_out and not outcome.state.edits:
                outcome = await self._checked(asked, outcome, toolbox, strict=not tools)
        except BaseException as exc:
            await self._finish(result, "failed", str(exc)[:500])
            raise
        result.record(outcome.state)
        result.report = final_report(outcome, result.edits, result.refused)
        await self._finish(result, "done", None)
        if on_step:
            await on_step("report", result.report)
        return result

    async def _checked(
        self, question: str, outcome: Outcome, toolbox: Toolbox, *, strict: bool
    ) -> Outcome:
        """The outcome with its report checked against the quotes it rests on
        (answer_check.py): the structured reply, or free text from a model that researched
        with tools (whose quotes may come from any source it saw)."""
        claimed = (answer_check.parse(outcome.report) if strict else None) or (
            answer_check.from_text(outcome.report)
        )
        wanted = answer_check.wanted(claimed)[:CHECKED_CITATIONS]
        found = await toolbox.around(wanted)
        passages = [*toolbox.shown, *found, *answer_check.in_bio(await self._load_bio())]
        behind = {}
        for source, line in answer_check.bio_hits(claimed, passages):
            if (at := await toolbox.behind(source, line)) is not None:
                behind[line] = answer_check.quote_at(*at)
        report, _ = answer_check.checked(
            question, claimed, passages, self.owner_names, strict=strict, behind=behind
        )
        return replace(outcome, report=report)

    async def _evidence_room(self) -> int:
        """Characters the evidence may take: the setting, and no more than a quarter of the
        model's window (bio.md, the chat tail and the answer need the rest)."""
        window = await self.model.context_tokens()
        return min(self.evidence_chars, int(window * CHARS_PER_TOKEN / 4))

    async def _finish(self, result: TurnResult, status: str, error: str | None) -> None:
        await self.store.turns.finish(
            result.turn_id, status, report=result.report, steps=result.steps, error=error
        )

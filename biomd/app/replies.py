"""What biomd says, in one place for every front-end (bots, terminal, CLI, web): long replies
split at the best boundary within a limit, search results as an answer, a turn's summary,
the status and the cost, and what each job reports."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING

from biomd.app.share.service import Draft
from biomd.biographer.answer_check import Shown as Shown
from biomd.biographer.answer_check import quote_lines as quote_lines
from biomd.biographer.citations import in_order
from biomd.plural import counted as counted  # a front-end says its counts so: "1 chunk"
from biomd.storage.shares import ShareRecord

if TYPE_CHECKING:
    from biomd.app.status import Status
    from biomd.app.usage import Account
    from biomd.biographer.reading.reading_cost import ReadingChoice
    from biomd.biographer.turn import TurnResult
    from biomd.ingest.pipeline import IngestResult
    from biomd.retrieval.search import Hit
    from biomd.retrieval.vector_index import Loading
    from biomd.storage.rounds import Round


QUOTES_UNDER = "\n- “"  # the first quote line under a checked answer (answer_check.cite)
SHORT_ANSWER = 300  # a reply longer than this is sent as its first sentence, then the rest
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])[\"”»)\]]*\s+(?=\S)")


def first_sentence_first(reply: str) -> list[str]:
    """A long reply as two messages: its first sentence (the answer, what a phone shows in
    the notification), then the detail and sources (a checked answer: the answer, then the
    quotes it rests on); a short one, or one whose first sentence is long, stays whole."""
    if len(reply) <= SHORT_ANSWER:
        return [reply]
    if 0 < (quotes := reply.find(QUOTES_UNDER)) <= SHORT_ANSWER:  # the answer, its quotes
        return [reply[:quotes].strip(), reply[quotes:].strip()]
    for end in _SENTENCE_END.finditer(reply):
        if end.start() > SHORT_ANSWER:
            break
        word = reply[: end.start()].rstrip('"”»)]').rsplit(None, 1)[-1]
        if end.start() < 20 or (len(word) <= 4 and word[:1].isupper()):  # "Dr.", "St."
            continue
        if reply[end.end() :].strip():
            return [reply[: end.start()].strip(), reply[end.end() :].strip()]
    return [reply]


def cited_sources(text: str) -> list[int]:
    """Source ids cited in a reply, in order, each once; invented ones (flagged) left out."""
    return in_order(text)


def covers(start: str | None, end: str | None) -> str:
    """The dates a source covers, to the day: one date, first to last, or "" if none."""
    first, last = (start or "")[:10], (end or "")[:10]
    if first and last and first != last:
        return f"{first} to {last}"
    return first or last


def with_source_hint(reply: str) -> str:
    """A reply, plus how to open the sources it cites."""
    ids = cited_sources(reply)
    if not ids:
        return reply
    shown = ", ".join(f"/source {i}" for i in ids[:5])
    return f"{reply}\n\nSources: {shown}"


_SOURCE_HINT = re.compile(r"\n\nSources: (/source \d+(?:, /source \d+)*)\s*$")


def source_hint_of(reply: str) -> tuple[str, list[int]]:
    """A reply without the hint `with_source_hint` added, and the sources it named: for a
    front-end that links the sources itself instead of naming the command."""
    found = _SOURCE_HINT.search(reply)
    if found is None:
        return reply, []
    return reply[: found.start()], [int(n) for n in re.findall(r"\d+", found.group(1))]


def snippet(text: str, query: str, width: int = 320) -> str:
    """About `width` characters of `text` around the line where most words of `query` occur
    (matched by their first five letters, so "smoking" finds "smoke"): whole lines (a chat's
    messages, each on its own line) around it while they fit, else that line cut at spaces
    around the words; … where something is left out."""
    from biomd.retrieval.fts_query import content_tokens

    lines = [flat for line in text.splitlines() if (flat := " ".join(line.split()))]
    if sum(map(len, lines)) + len(lines) - 1 <= width:
        return "\n".join(lines)
    stems = [t[:5] for t in content_tokens(query) if len(t) > 2]

    def score(i: int) -> tuple[int, int]:
        low = lines[i].lower()
        return sum(s in low for s in stems), -i

    best = max(range(len(lines)), key=score)
    if len(lines[best]) > width:
        before = "…" if best else ""
        cut = _cut_line(lines[best], stems, width - len(before))
        return before + cut + ("…" if best < len(lines) - 1 and not cut.endswith("…") else "")
    lo, hi, size = best, best + 1, len(lines[best])
    while True:  # the next line after, then the one before, while they fit
        if hi < len(lines) and size + 1 + len(lines[hi]) <= width:
            size, hi = size + 1 + len(lines[hi]), hi + 1
        elif lo > 0 and size + 1 + len(lines[lo - 1]) <= width:
            size, lo = size + 1 + len(lines[lo - 1]), lo - 1
        else:
            break
    shown = "\n".join(lines[lo:hi])
    return ("…" if lo else "") + shown + ("…" if hi < len(lines) else "")


def _cut_line(flat: str, stems: list[str], width: int) -> str:
    """`width` characters of one long line where most of `stems` occur, cut at spaces."""
    if len(flat) <= width:
        return flat
    low = flat.lower()
    hits = [m.start() for s in stems for m in re.finditer(re.escape(s), low)]

    def covered(at: int) -> int:
        window = low[max(0, at - width // 4) : at + width]
        return sum(s in window for s in stems)

    at = max(sorted(hits), key=covered, default=0)
    start = max(0, min(at - width // 4, len(flat) - width))
    if start:
        start = flat.find(" ", start) + 1 or start
    end = start + width
    if end < len(flat):
        end = flat.rfind(" ", start, end) if flat.rfind(" ", start, end) > start else end
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")


SNIPPET_CHARS = 320
NO_MODEL_AGAIN = "No language model yet (`biomd setup` connects one)."
READ_NEXT = " /bio shows it all, /timeline and /questions the parts."


def _apart(hits: Sequence[Hit]) -> list[Hit]:
    """The hits without those that overlap a better one of the same source (chunks overlap,
    and a chat's neighbouring messages come with each)."""
    kept: list[Hit] = []
    for h in hits:
        if not any(
            k.document_id == h.document_id and k.start < h.end and h.start < k.end for k in kept
        ):
            kept.append(h)
    return kept


def search_reply(
    hits: Sequence[Hit], query: str, missing: str, told: bool = False, keywords_only: bool = False
) -> str:
    """Search hits as an answer, cited, for when the biographer can't run (`missing` says
    why, and how to set it up; once `told`, a line says it again in short); `keywords_only`
    when there are no vectors yet."""
    how = "keyword search (there are no vectors yet)" if keywords_only else "hybrid search"
    lines = [
        f"{NO_MODEL_AGAIN} Here is what {how} finds, best first:"
        if told
        else f"{missing}\nUntil then the biographer can't answer in its own words; here is "
        f"what {how} finds, best first:"
    ]
    if not hits:
        lines.append("Search found nothing for that.")
    for h in _apart(hits):
        lines.append(f"[#{h.document_id}] {h.document}\n{snippet(h.text, query, SNIPPET_CHARS)}")
    return with_source_hint("\n\n".join(lines))


def cost_text(account: Account) -> str:
    """Calls, tokens and spend today, in the last 30 days and in all, by backend once Codex
    has been used, the daily limit, and the latest rounds of reading, estimate against
    actual."""
    periods, backends, limit, rounds = (
        account.periods,
        account.backends,
        account.limit,
        account.rounds,
    )
    lines = [
        f"{t.label}: {counted(t.calls, 'call')}, {counted(t.tokens, 'token')} "
        f"({t.prompt_tokens:,} prompt, "
        f"{t.completion_tokens:,} completion), ${t.usd:.4f}"
        for t in periods
    ]
    if any(b.label == "codex" for b in backends):
        lines.append("By backend, all time:")
        lines += [
            f"{'Codex (your ChatGPT plan, no per-token cost)' if b.label == 'codex' else 'API'}: "
            f"{counted(b.calls, 'call')}, {counted(b.tokens, 'token')}, ${b.usd:.4f}"
            for b in backends
        ]
    if limit is not None:
        lines.append(f"Daily limit: ${limit:.2f} (BIOMD_DAILY_SPEND_LIMIT_USD).")
    if rounds:
        lines.append("Reading, estimated before against what it cost (newest first):")
        lines += [_round_line(r) for r in rounds]
    return "\n".join(lines)


def _round_line(r: Round) -> str:
    guess = counted(r.estimated_tokens, "token")
    if r.estimated_usd is not None:
        guess += f" (${r.estimated_usd:.4f})"
    off = f", {r.tokens / r.estimated_tokens - 1:+.0%}" if r.estimated_tokens else ""
    return (
        f"{r.started_at[:10]}, {counted(r.sources, 'source')}: estimated {guess}; "
        f"{counted(r.calls, 'call')}, {counted(r.tokens, 'token')} (${r.usd:.4f}){off}"
    )


# -- a turn ---------------------------------------------------------------------------------


def turn_summary(results: Sequence[TurnResult], hints: bool = True) -> str:
    """What the biographer did: each turn's report and outcome (edits, refusals, whether
    the source was read), one block per source when there were several; with `hints`, how
    to open the sources cited (the bots' /source)."""
    if not results:
        return "Nothing new to read."
    hinted = with_source_hint if hints else str
    if len(results) == 1:
        (r,) = results
        shown = hinted(r.report)
        if r.mode == "reading" or r.edits or r.refused:
            shown += f"\n\nbio.md: {r.outcome}."
        return shown
    return hinted(
        "\n\n".join(
            f"Source #{r.document_id}: {r.outcome}.\n{r.report}" if r.document_id else r.report
            for r in results
        )
    )


def turn_totals(results: Sequence[TurnResult]) -> str:
    """The turns' cost in one line: "(2 turns, 9 model calls, 12,000 tokens, $0.0100)"."""
    changed = list(dict.fromkeys(s for r in results for s in r.sections_changed))
    cost = sum(r.cost_usd for r in results)
    steps = sum(r.steps for r in results)
    tokens = sum(r.prompt_tokens + r.completion_tokens for r in results)
    where = f"; bio.md sections changed: {', '.join(changed)}" if changed else ""
    said = f"{counted(len(results), 'turn')}, {counted(steps, 'model call')}"
    return f"({said}, {counted(tokens, 'token')}, ${cost:.4f}{where})"


def finished_reading(results: Sequence[TurnResult]) -> str:
    """The periodic reading's report: edits in all, and what could not be read."""
    edits = sum(r.edits for r in results)
    refused = sum(len(r.refused) for r in results)
    changed = sorted({s for r in results for s in r.sections_changed})
    text = f"The biographer has finished reading: {counted(edits, 'edit')} to bio.md"
    text += f" ({', '.join(changed)})" if changed else ""
    text += f", {refused} refused." if refused else "."
    unread = [r.reading for r in results if "not read" in r.reading]
    if unread:
        text += "\n" + "\n".join(unread)
    return text + READ_NEXT


# -- jobs -------------------------------------------------------------------------------------


def not_added(result: IngestResult) -> str:
    """A source that was not added: a duplicate, or why it could not be read."""
    if result.status == "duplicate":
        if result.note:
            return f"{result.name}: I already have this: {result.note}."
        return f"{result.name}: I already have this (source #{result.document_id})."
    return f"Could not read {result.error or result.name}"


def outcome(name: str, added: Sequence[int], problems: Sequence[str]) -> str:
    """A file's last status line: done, or, when nothing of it was added, what happened."""
    return f"{name}: done" if added or not problems else problems[0]


def stored_unread(name: str, why: str, later: bool = False) -> str:
    """A source that is kept and searchable, and that the biographer could not read yet."""
    if later:
        return (
            f"{name} is stored and searchable. The biographer could not read it yet, and will "
            f"when the model answers again: {why}"
        )
    return f"{name} is stored and searchable. The biographer will read it once it can run: {why}"


def answered(document_id: int, results: Sequence[TurnResult]) -> str:
    return f"Your answer is source #{document_id}.\n\n{turn_summary(results)}"


def answer_waits(why: str) -> str:
    return (
        "Your answer is stored and searchable. The biographer could not take it in yet, and "
        f"will when the model answers again: {why}"
    )


def consolidated(changed: Sequence[str]) -> str:
    done = ", ".join(changed) if changed else "nothing needed changing"
    return f"bio.md is consolidated ({done})."


def gave_up(name: str, attempts: int, reason: str) -> str:
    return f"Sorry, I gave up on {name} after {counted(attempts, 'try', 'tries')}: {reason}"


# -- status -----------------------------------------------------------------------------------


def preparing_search(loading: Loading) -> str:
    """While search turns stored vectors into codes, the first time after they are written."""
    left = loading.left_s
    eta = f", about {max(1, round(left))} s to go" if left else ""
    pct = round(100 * loading.done / loading.total) if loading.total else 100
    return (
        f"Getting search ready: {loading.done:,} of {loading.total:,} vectors ({pct}%){eta}. "
        "This happens once, after new vectors are written."
    )


def search_prepared(loading: Loading) -> str:
    return f"Search is ready ({loading.total:,} vectors in {loading.seconds:.1f} s)."


def status_text(status: Status) -> str:
    """The corpus, the queue, the reading and today's spend, in a few lines."""
    s = status.stats
    running = ", ".join(status.running) or "none"
    limit = f" of ${status.limit:.2f}" if status.limit is not None else ""
    return (
        f"Sources: {s.documents:,} ({counted(s.chunks, 'chunk')}, {s.vectors_missing:,} still "
        "to embed)\n"
        f"Queue: {status.queued} waiting; running: {running}\n"
        f"Waiting for the biographer: {status.unread}\n"
        f"Spent today: ${status.spent_today:.4f}{limit}"
    )


def reading_choices(choices: Sequence[ReadingChoice]) -> str:
    """The sources whose reading waits for the owner, what each costs, and how to choose."""
    if not choices:
        return "Nothing is waiting for your choice."
    blocks = []
    for c in choices:
        r = c.reading
        held = " You said not now." if r.held else ""
        n = r.document_id
        blocks.append(
            f"Reading #{n} {r.name} costs {c.all.describe()}; only your own messages, "
            f"{c.mine.describe()}.{held}\n"
            f"/scope {n} all · /scope {n} mine · /scope {n} since {_year_before(r.content_end)} · "
            f"/scope {n} later"
        )
    return "\n\n".join(blocks)


def reading_buttons(choices: Sequence[ReadingChoice]) -> list[tuple[str, str]]:
    """Buttons for the first source waiting for a choice: (label, the command it sends)."""
    if not choices:
        return []
    r = choices[0].reading
    n = r.document_id
    since = _year_before(r.content_end)
    return [
        ("Read all", f"/scope {n} all"),
        ("Only mine", f"/scope {n} mine"),
        (f"Since {since}", f"/scope {n} since {since}"),
        ("Not now", f"/scope {n} later"),
    ]


def _year_before(end: str | None) -> str:
    """The day a year before a source's last date (or before today): a "since" to offer."""
    day = date.fromisoformat(end[:10]) if end and len(end) >= 10 else date.today()
    return day.replace(year=day.year - 1, day=min(day.day, 28)).isoformat()


def reading_chosen(doc_id: int, scope: str) -> str:
    if scope == "later":
        return f"#{doc_id} waits; /scope shows it again."
    what = {"all": "all of it", "mine": "only your own messages"}.get(
        scope, f"what was written since {scope.partition(':')[2]}"
    )
    return f"Reading #{doc_id}: {what}. I'll tell you when it's done."


# -- sharing a portrait ---------------------------------------------------------------------


def share_usage(audiences: Sequence[str], recent: Sequence[ShareRecord]) -> str:
    lines = [
        "Share a portrait of yourself, written from bio.md for someone. Other people appear "
        "by role or initial, nothing from your sources is quoted, and a privacy scan runs "
        "before anything is saved.",
        "",
        f"/share AUDIENCE, one of: {', '.join(audiences)}",
        "Then, in any order: hide NAME · show NAME · with SECTION · without SECTION · "
        "format html|md|text · limit CHARACTERS · card (a picture to send on)",
        "For example: /share therapist hide Tomás with hypotheses",
        "/share list · /share open 3 · /share delete 3",
    ]
    if recent:
        lines += ["", share_list(recent[:5])]
    return "\n".join(lines)


def share_preview(draft: Draft, text: str) -> str:
    if draft.nothing:
        return draft.nothing
    by = "by rules from bio.md" if draft.writer == "rules" else f"by {draft.writer}"
    lines = [f"A portrait for {draft.audience.title}, written {by}:", "", text.strip(), ""]
    if draft.portrait.refused:
        lines.append(
            f"Left out: {counted(len(draft.portrait.refused), 'sentence')} the model wrote "
            "that rested on nothing in bio.md."
        )
    if draft.owner_note:
        lines.append(draft.owner_note)
    if draft.people:
        shown = "; ".join(
            f"{p.name} by name" if p.shown == "name" else f"{p.name} as '{p.label}'"
            for p in draft.people
        )
        lines.append(f"People: {shown}. To name someone: show NAME; to hide one: hide NAME.")
    if draft.findings:
        found = "; ".join(f"{f.kind}: {f.text}" for f in draft.to_resolve)
        lines += [
            f"The privacy scan found {counted(len(draft.to_resolve), 'thing')}: {found}.",
            SHARE_RESOLVE,
        ]
    else:
        lines.append("The privacy scan found nothing. /share save to keep it as a file.")
    return "\n".join(lines)


SHARE_RESOLVE = (
    "/share save remove (they become [removed]) · /share save accept (keep them as they "
    "are) · or change it: /share AUDIENCE hide NAME, without SECTION"
)


def share_refused(found: str) -> str:
    """A save refused for the scan's findings (`found` says which), and how to go on."""
    return f"{found} {SHARE_RESOLVE}"


def share_buttons(draft: Draft) -> list[tuple[str, str]]:
    if draft.nothing:
        return []
    if draft.findings:
        return [("Remove them, save", "/share save remove"), ("Accept, save", "/share save accept")]
    return [("Save", "/share save")]


def share_saved(record: ShareRecord) -> str:
    size = counted(record.size, "character" if record.format == "text" else "byte")
    return (
        f"Saved share #{record.id} for {record.audience} ({record.format}, {size}). Open the "
        "file in a browser to read or print it. /share list shows every share."
    )


def share_list(records: Sequence[ShareRecord]) -> str:
    if not records:
        return "No shares yet."
    return "\n".join(
        f"#{r.id} {r.created_at[:10]} for {r.audience} ({r.format})"
        + (f", named: {', '.join(r.shown)}" if r.shown else "")
        for r in records
    )


def help_text(usage: list[str]) -> str:
    """/help: what biomd is, and the commands (their usage) the channel offers."""
    return "\n".join(
        [
            "I'm your biographer. I keep bio.md, one cited profile of your life, built from what "
            "you send me.",
            "",
            "• Forward files and exports (WhatsApp, Telegram, Instagram, Messenger, iMessage, "
            "Discord, ChatGPT, Claude, email, PDFs, documents, photos, audio, video). I read "
            "them and tell you what I learned.",
            "• Send a voice note: I transcribe it on this computer and keep it as a journal entry.",
            "• Ask me anything about your life in plain text; my answers cite sources like [#12], "
            "which /source 12 opens.",
            "• I send you a question now and then. Reply to it (text or voice) to answer.",
            "",
            "Commands: " + " ".join(u for u in usage if u not in ("/start",)),
        ]
    )

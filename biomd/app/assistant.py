"""What the owner can do from a chat app, independent of the app: the adapters turn platform
events into these calls and implement `Channel` for the replies. The commands are one table,
`COMMANDS` (name, help, handler), which the bots' menus, the terminal and /help all read."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from biomd.app import asking, profile_view, reading, replies
from biomd.app.channels import Buttons, Channel
from biomd.app.engine import Engine
from biomd.app.jobs import AnswerJob, ConsolidateJob, JobQueue, ReadJob, SourceJob
from biomd.app.mirror import text as mirror_text
from biomd.app.pictures import mirror as mirror_picture
from biomd.app.pictures import people as people_picture
from biomd.app.pictures import timeline as timeline_picture
from biomd.app.replies import first_sentence_first, snippet, status_text, with_source_hint
from biomd.app.search_ready import search_ready
from biomd.app.share import args as share_args
from biomd.app.share.service import Draft, UnresolvedFindings, card_path
from biomd.app.share.service import render as render_share
from biomd.app.sources import AUDIO, files_at
from biomd.app.status_now import gather as gather_status
from biomd.biographer.profile_text import Question, section
from biomd.biographer.questions import question_text
from biomd.biographer.turn import StepFn
from biomd.errors import BiomdError, PlatformUnavailable

log = logging.getLogger(__name__)

TIMELINE_SOURCES = 50


@dataclass(frozen=True)
class Incoming:
    """A file or voice note the owner sent."""

    file_ref: str
    name: str
    media: str  # document, photo, audio, voice, video
    size: int | None = None


class Assistant:
    def __init__(self, engine: Engine, jobs: JobQueue) -> None:
        self.engine = engine
        self.jobs = jobs
        self._drafts: dict[tuple[str, str], tuple[Draft, bool]] = {}  # each chat's last, card

    # -- messages -------------------------------------------------------------------------

    async def on_text(
        self,
        channel: Channel,
        chat: str,
        text: str,
        reply_to: str | None = None,
        on_step: StepFn | None = None,
    ) -> None:
        """A question for the biographer, or, as a reply to a question, its answer.
        `on_step` hears each research step as it happens."""
        qid = await self._question(channel, chat, reply_to)
        if qid:
            await self.answer(channel, chat, qid, text)
            return
        told = self.engine.told.heard(channel.platform, chat)
        await search_ready(self.engine.sources, channel, chat)
        try:
            result = await asking.ask(self.engine, text, on_step=on_step, told=told)
        except BiomdError as exc:
            await self._say(channel, chat, exc.user_message)
            return
        if isinstance(result, str):  # no language model: what search found
            self.engine.told.no_model(channel.platform, chat)  # heard now: in a line next time
            await self._say(channel, chat, result)
            return
        reply = with_source_hint(result.report)
        if result.sections_changed:
            reply += f"\n\n(bio.md: {', '.join(result.sections_changed)} changed)"
        for part in first_sentence_first(reply):
            await self._say(channel, chat, part)

    async def answer(self, channel: Channel, chat: str, qid: str, text: str) -> None:
        """The owner's answer to open question `qid`: kept as a source and read."""
        status = await self._ack(channel, chat, f"Thanks! Taking in your answer to {qid}…")
        await self.jobs.submit(
            AnswerJob(platform=channel.platform, chat=chat, status=status, question=qid, text=text)
        )

    async def on_file(
        self, channel: Channel, chat: str, incoming: Incoming, reply_to: str | None = None
    ) -> None:
        """Queue a file or voice note and acknowledge it at once."""
        qid = await self._question(channel, chat, reply_to)
        voice = incoming.media in ("voice", "audio", "video_note")
        ack = f"{incoming.name}: queued"
        if qid and voice:
            ack = f"{incoming.name}: queued as your answer to {qid}"
        status = await self._ack(channel, chat, ack)
        await self.jobs.submit(
            SourceJob(
                platform=channel.platform,
                chat=chat,
                status=status,
                file=incoming.file_ref,
                name=incoming.name,
                media=incoming.media,
                echo=voice,
                question=qid if voice else None,
            )
        )

    async def _question(self, channel: Channel, chat: str, reply_to: str | None) -> str | None:
        if reply_to is None:
            return None
        return await self.engine.questions.for_message(channel.platform, chat, reply_to)

    async def _say(self, channel: Channel, chat: str, text: str, buttons: Buttons = ()) -> None:
        """A reply; kept and sent later if the platform is unreachable right now."""
        await self.engine.outbox.deliver(channel, chat, text, buttons)

    def _no_model(self, channel: Channel, chat: str) -> str:
        """Why the biographer can't run and what to set (in full once a session)."""
        return self.engine.told.no_model(channel.platform, chat)

    async def _ack(self, channel: Channel, chat: str, text: str) -> str | None:
        """The status message a job will edit; None if it cannot be sent now (the job is
        queued all the same)."""
        try:
            return await channel.send(chat, text)
        except PlatformUnavailable as exc:
            log.warning("could not acknowledge on %s: %s", channel.platform, exc.user_message)
            return None

    # -- commands -------------------------------------------------------------------------

    async def on_command(self, channel: Channel, chat: str, name: str, args: str) -> None:
        """Run a command of the table, if this channel offers it."""
        command = BY_NAME.get(name.lower())
        if command is None or (command.local and not channel.local):
            await self._say(channel, chat, f"I don't know /{name}. /help lists what I can do.")
            return
        try:
            await command.run(self, channel, chat, args.strip())
        except BiomdError as exc:
            await self._say(channel, chat, exc.user_message)

    async def _cmd_help(self, channel: Channel, chat: str, args: str) -> None:
        await self._say(channel, chat, help_text(channel.local))

    async def _cmd_answer(self, channel: Channel, chat: str, args: str) -> None:
        qid, _, text = args.partition(" ")
        if not qid or not text.strip():
            raise BiomdError("Answer which question? For example /answer Q3 your answer.")
        await self.answer(channel, chat, qid.upper(), text.strip())

    async def _cmd_ingest(self, channel: Channel, chat: str, args: str) -> None:
        """Queue a file, or every file in a folder, as if it had been sent."""
        if not args:
            raise BiomdError("Ingest what? For example /ingest ~/Documents/journal")
        for file, name in await asyncio.to_thread(files_at, args):
            media = "audio" if file.suffix.lower() in AUDIO else "document"
            await self.on_file(channel, chat, Incoming(str(file), name, media))

    async def _cmd_bio(self, channel: Channel, chat: str, args: str) -> None:
        bio = await self.engine.profile.load()
        if profile_view.is_empty(bio):  # eight empty headings say nothing: what fills them
            filled_by = await profile_view.filled_by(self.engine, self._no_model(channel, chat))
            await self._say(channel, chat, f"bio.md is empty so far. {filled_by}")
            return
        summary = profile_view.body_of(section(bio, "Summary")) or "(no summary yet)"
        await channel.send_file(chat, "bio.md", bio.encode("utf-8"), "Your bio.md")
        more = ""
        if await profile_view.unfilled(self.engine, bio):  # empty sections: what fills them
            no_model = self._no_model(channel, chat)
            more = "\n\n" + await profile_view.filled_by(self.engine, no_model)
        await self._say(channel, chat, f"Summary\n\n{summary}{more}")

    async def _cmd_timeline(self, channel: Channel, chat: str, args: str) -> None:
        items = await self.engine.profile.timeline()
        text = "\n".join(f"• {i}" for i in items) if items else "The timeline is empty so far."
        if not items and not self.engine.biographer.configured:
            text = await self._sources_by_date(self._no_model(channel, chat))
        tl = await self.engine.pictures.timeline()
        if tl.years:
            png = await asyncio.to_thread(timeline_picture.render, tl, "png")
            await self._picture(channel, chat, "timeline.png", png, timeline_picture.caption(tl))
        await self._say(channel, chat, with_source_hint(text))

    async def _cmd_people(self, channel: Channel, chat: str, args: str) -> None:
        people = await self.engine.pictures.people()
        if people:
            png = await asyncio.to_thread(people_picture.render, people, "png")
            await self._picture(channel, chat, "people.png", png, "People, by year")
        await self._say(channel, chat, people_picture.caption(people))

    async def _picture(
        self, channel: Channel, chat: str, name: str, png: bytes, caption: str
    ) -> None:
        """A picture, if the platform can take it now; the text follows either way."""
        try:
            await channel.send_image(chat, name, png, caption.split("\n")[0])
        except PlatformUnavailable as exc:
            log.info("picture not sent: %s", exc.user_message)

    async def _sources_by_date(self, no_model: str) -> str:
        """Without a language model, the dates the sources themselves cover."""
        docs = [d for d in await self.engine.sources.all() if d.content_start]
        docs.sort(key=lambda d: d.content_start or "")
        head = (
            "The timeline in bio.md is written by the biographer, which can't run yet. "
            f"{no_model}\nMeanwhile, here is what each source covers, by date"
        )
        if len(docs) > TIMELINE_SOURCES:
            head += f", the latest {TIMELINE_SOURCES} of {len(docs):,}"
            docs = docs[-TIMELINE_SOURCES:]
        lines = [head + ":"]
        for d in docs:
            lines.append(f"• {replies.covers(d.content_start, d.content_end)}: {d.name} [#{d.id}]")
        return "\n".join(lines)

    async def _cmd_questions(self, channel: Channel, chat: str, args: str) -> None:
        questions = await self.engine.questions.open()
        if not questions:
            none = "No open questions right now."
            if not self.engine.biographer.configured:
                none = (
                    "Open questions come from the biographer's reading, so there are none "
                    f"yet. {self._no_model(channel, chat)}"
                )
            await self._say(channel, chat, none)
            return
        for q in questions:
            await self.send_question(channel, chat, q)

    async def send_question(self, channel: Channel, chat: str, q: Question) -> None:
        message = await channel.send(chat, question_text(q))
        await self.engine.questions.sent(channel.platform, chat, message, q.id)

    async def push_questions(
        self, targets: list[tuple[Channel, str]], count: int, cooldown_days: float
    ) -> int:
        """Send the next open questions to each owner chat; how many were sent."""
        if not targets or count <= 0:
            return 0
        sent = set()
        for q in await self.engine.questions.next(count, cooldown_days):
            for channel, chat in targets:
                try:
                    await self.send_question(channel, chat, q)
                except PlatformUnavailable as exc:  # not marked asked: pushed next time
                    log.warning("could not push question %s: %s", q.id, exc.user_message)
                    continue
                sent.add(q.id)
        return len(sent)

    async def _cmd_search(self, channel: Channel, chat: str, args: str) -> None:
        if not args:
            await self._say(channel, chat, "What should I look for? /search words")
            return
        hits = await self.engine.sources.search(args, limit=5)
        if not hits:
            await self._say(channel, chat, "Nothing found.")
            return
        parts = [f"#{h.document_id} {h.document}\n{snippet(h.text, args, 600)}" for h in hits]
        await self._say(channel, chat, "\n\n".join(parts))

    async def _cmd_source(self, channel: Channel, chat: str, args: str) -> None:
        doc_id = _id(args, "/source 12")
        doc = await self.engine.sources.get(doc_id)
        if doc.status != "ready":
            await self._say(channel, chat, f"#{doc.id} {doc.name}: {doc.status} {doc.error or ''}")
            return
        part = await self.engine.sources.read(doc_id, 0, 3000)
        dates = f", {doc.content_start} to {doc.content_end}" if doc.content_start else ""
        more = f"\n\n… ({part.total:,} characters in all)" if part.next_offset else ""
        await self._say(
            channel, chat, f"#{doc.id} {doc.name} ({doc.kind}{dates})\n\n{part.text.strip()}{more}"
        )

    async def _cmd_sources(self, channel: Channel, chat: str, args: str) -> None:
        docs = (await self.engine.sources.all())[-30:]
        if not docs:
            await self._say(channel, chat, "No sources yet. Forward me something!")
            return
        lines = [
            f"#{d.id} {d.name}" + ("" if d.status == "ready" else f" ({d.status})") for d in docs
        ]
        await self._say(channel, chat, "\n".join(lines))

    async def _cmd_forget(self, channel: Channel, chat: str, args: str) -> None:
        doc = await self.engine.sources.forget(_id(args, "/forget 12"))
        await self._say(
            channel, chat, f"Forgot #{doc.id} {doc.name}: its text, index and file are gone."
        )

    async def _cmd_undo(self, channel: Channel, chat: str, args: str) -> None:
        done = await self.engine.profile.undo()
        await self._say(
            channel, chat, f"Reverted turn {done.turn_id}'s edits." if done else "Nothing to undo."
        )

    async def _cmd_consolidate(self, channel: Channel, chat: str, args: str) -> None:
        status = await self._ack(channel, chat, "Consolidation queued.")
        await self.jobs.submit(ConsolidateJob(platform=channel.platform, chat=chat, status=status))

    async def _cmd_status(self, channel: Channel, chat: str, args: str) -> None:
        await self._say(channel, chat, status_text(await gather_status(self.engine, self.jobs)))

    async def _cmd_cost(self, channel: Channel, chat: str, args: str) -> None:
        await self._say(channel, chat, replies.cost_text(await self.engine.usage.account()))

    async def _cmd_mirror(self, channel: Channel, chat: str, args: str) -> None:
        """/mirror: the strongest new findings and patterns, each with its buttons; /mirror
        NAME one person; /mirror confirm|dismiss|undo ID, /mirror answer ID words, /mirror ask
        ID."""
        mirror = self.engine.mirror
        word, _, rest = args.partition(" ")
        action, rest = word.lower(), rest.strip()
        do = {
            "confirm": mirror.confirm,
            "dismiss": mirror.dismiss,
            "undo": mirror.take_back,
            "ask": mirror.ask_later,
        }
        if action in do and rest:
            await self._say(channel, chat, await do[action](rest.split()[0]))
            return
        if action == "answer":
            item, _, text = rest.partition(" ")
            if not item or not text.strip():
                raise BiomdError("Answer which, and what? /mirror answer F1a2b3c4 your words")
            doc = await mirror.answer(item, text)
            await self._say(channel, chat, f"Kept as source #{doc}; the biographer reads it next.")
            await self.jobs.submit(ReadJob(platform=channel.platform, chat=chat))
            return
        person = args.strip() or None
        view = await mirror.view(person=person)
        text, buttons = mirror_text.strongest(
            view, view.people[0].name if person and view.people else person
        )
        await self._say(channel, chat, text, buttons)
        if view.people and person is None:
            png = await asyncio.to_thread(mirror_picture.render_png, view)
            await self._picture(channel, chat, "mirror.png", png, "How you write with each person")

    async def _cmd_scope(self, channel: Channel, chat: str, args: str) -> None:
        """/scope: the sources waiting for a choice; /scope 12 all|mine|since DATE|later (the
        older /read still works)."""
        words = args.split()
        if not words:
            choices = await self.engine.biographer.cost.choices()
            await self._say(channel, chat, replies.reading_choices(choices))
            return
        doc_id = _id(words[0], "/scope 12 mine")
        try:
            scope = reading.scope(*words[1:3]) if len(words) > 1 else "all"
        except BiomdError:
            raise BiomdError(
                "Read it how? /scope 12 all, /scope 12 mine, /scope 12 since 2024-01-01, or "
                "/scope 12 later."
            ) from None
        await reading.decide(self.engine.biographer, doc_id, scope)
        await self._say(channel, chat, replies.reading_chosen(doc_id, scope))
        if scope != reading.LATER:
            await self.jobs.submit(ReadJob(platform=channel.platform, chat=chat))

    async def _cmd_share(self, channel: Channel, chat: str, args: str) -> None:
        """/share AUDIENCE [hide NAME] …: a preview; /share save [remove|accept] keeps it."""
        shares = self.engine.shares
        asked = share_args.parse(args)
        if asked.action == "":
            names = list(await shares.audiences())
            await self._say(channel, chat, replies.share_usage(names, await shares.all()))
        elif asked.action == "list":
            await self._say(channel, chat, replies.share_list(await shares.all()))
        elif asked.action == "delete" and asked.share_id is not None:
            gone = await shares.delete(asked.share_id)
            await self._say(channel, chat, f"Deleted share #{gone.id} and its file.")
        elif asked.action == "open" and asked.share_id is not None:
            record, content = await shares.content(asked.share_id)
            await channel.send_file(chat, Path(record.path).name, content, f"Share #{record.id}")
        elif asked.action == "save":
            await self._save_share(channel, chat, asked.how)
        else:
            model = self.engine.biographer.configured
            if model:
                await self._say(channel, chat, "The biographer is writing the portrait…")
            draft = await shares.draft(asked.audience, asked.choice, model=model)
            self._drafts[(channel.platform, chat)] = (draft, asked.card)
            preview = render_share(draft.portrait, "text", "")
            await self._say(
                channel, chat, replies.share_preview(draft, preview), replies.share_buttons(draft)
            )

    async def _save_share(self, channel: Channel, chat: str, how: str) -> None:
        pending = self._drafts.get((channel.platform, chat))
        if pending is None:
            raise BiomdError("There is no portrait to save here yet. Make one: /share therapist")
        draft, card = pending
        shares = self.engine.shares
        path = shares.default_path(draft.audience)
        try:
            record = await shares.save(
                draft, path, accept=how == "accept", remove=how == "remove", card=card
            )
        except UnresolvedFindings as exc:
            raise BiomdError(replies.share_refused(exc.found)) from None
        del self._drafts[(channel.platform, chat)]
        _, content = await shares.content(record.id)
        await channel.send_file(chat, path.name, content, f"For {draft.audience.title}")
        if card:
            png = await shares.card(record.id)
            await self._picture(channel, chat, card_path(path).name, png, "The card")
        if record.format == "text":
            await self._say(channel, chat, content.decode("utf-8"))
        await self._say(channel, chat, replies.share_saved(record))


def _id(args: str, example: str) -> int:
    try:
        return int(args.strip().lstrip("#"))
    except ValueError:
        raise BiomdError(f"Which source? For example {example}.") from None


@dataclass(frozen=True)
class Command:
    """A command the owner can send: /name, what it does, and the Assistant method that
    does it. A `local` one reads the owner's own files, so only the terminal offers it."""

    name: str
    help: str
    run: Callable[[Assistant, Channel, str, str], Awaitable[None]]
    local: bool = False
    aliases: tuple[str, ...] = ()
    """Older names that still work, not offered in menus or /help."""

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


COMMANDS: tuple[Command, ...] = (
    Command("start", "What I am and how to use me", Assistant._cmd_help),
    Command("help", "Everything I can do", Assistant._cmd_help),
    Command("bio", "Your bio.md, as a file", Assistant._cmd_bio),
    Command("timeline", "The timeline of your life so far, as a picture", Assistant._cmd_timeline),
    Command("people", "The people in your life, by year", Assistant._cmd_people),
    Command("questions", "Open questions (reply to one to answer it)", Assistant._cmd_questions),
    Command("answer", "Answer an open question: /answer Q3 your answer", Assistant._cmd_answer),
    Command("search", "Search your sources: /search words", Assistant._cmd_search),
    Command("source", "Open a source: /source 12", Assistant._cmd_source),
    Command("sources", "The latest sources", Assistant._cmd_sources),
    Command("forget", "Delete a source everywhere: /forget 12", Assistant._cmd_forget),
    Command("undo", "Revert the biographer's last edits", Assistant._cmd_undo),
    Command("consolidate", "Tidy bio.md, losing nothing", Assistant._cmd_consolidate),
    Command("status", "Corpus, queue and today's spend", Assistant._cmd_status),
    Command("cost", "Tokens and spend", Assistant._cmd_cost),
    Command(
        "share",
        "A portrait of you for someone: /share therapist",
        Assistant._cmd_share,
    ),
    Command(
        "mirror",
        "Patterns you can't see in yourself, with the evidence: /mirror or /mirror NAME",
        Assistant._cmd_mirror,
    ),
    Command(
        "scope",
        "Choose how much of a costly source is read: /scope 12 mine",
        Assistant._cmd_scope,
        aliases=("read",),
    ),
    Command(
        "ingest",
        "Add a file or folder from this computer: /ingest PATH",
        Assistant._cmd_ingest,
        local=True,
    ),
)
BY_NAME = {name: c for c in COMMANDS for name in c.names}


def commands(local: bool = False) -> list[Command]:
    """The commands a channel offers (a local one, the terminal, offers them all)."""
    return [c for c in COMMANDS if local or not c.local]


def help_text(local: bool = False) -> str:
    """/help: what biomd is, and every command the channel offers."""
    usage = [c.help.split(": ", 1)[1] if ": " in c.help else f"/{c.name}" for c in commands(local)]
    return replies.help_text(usage)

"""bio.md as HTML: Markdown rendered with raw HTML switched off (so nothing in bio.md or a
source can inject markup), and every citation made a link, or marked broken when it points
at nothing. A chat message is plain text (a passage quoted from a journal keeps its `#`s),
its lines and paragraphs kept, and the sources it names linked to their passages."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence

from markdown_it import MarkdownIt

from biomd.app.replies import Shown, quote_lines, source_hint_of

_MD = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
    "table"
)
# A chat message, as the bots show it: paragraphs and lines kept, `code` and *emphasis*, and
# nothing that turns a quoted line into a heading, a list, a quote, a rule or a link.
_PLAIN = MarkdownIt("commonmark", {"html": False, "breaks": True}).disable(
    [
        *("heading", "lheading", "hr", "list", "blockquote", "code", "fence", "reference"),
        *("html_block", "link", "image", "autolink", "html_inline"),
    ]
)
_CITE_GROUP = re.compile(r"\[((?:\s*#\d+\??\s*,?)+)\]")
_CHAT = re.compile(r"\[chat (\d{4}-\d{2}-\d{2})(\??)\]")
_QUESTION = re.compile(r"\[(Q\d+)\]")


def markdown(text: str) -> str:
    """Markdown as HTML; any HTML in the text comes out escaped."""
    return str(_MD.render(text))


def chat_text(text: str) -> str:
    """A chat message as HTML: plain text in paragraphs and lines; any HTML escaped."""
    return str(_PLAIN.render(text))


def cite_links(
    rendered: str, real: Callable[[int], bool], chat_days: set[str], questions: set[str]
) -> str:
    """Citations in rendered HTML made links: [#12] to its source, [chat 2024-05-01] to the
    chat that day, [Q7] to the question; ones that point at nothing shown as broken."""

    def group(m: re.Match[str]) -> str:
        parts = []
        for raw in re.findall(r"#\d+\??", m.group(1)):
            n = int(raw.strip("#?"))
            if raw.endswith("?") or not real(n):
                parts.append(
                    f'<span class="cite broken" title="No source #{n}: this citation points at '
                    f'nothing">#{n}</span>'
                )
            else:
                parts.append(f'<a class="cite" href="/source/{n}" data-doc="{n}">#{n}</a>')
        return "[" + ", ".join(parts) + "]"

    def chat(m: re.Match[str]) -> str:
        day = m.group(1)
        if m.group(2) or day not in chat_days:
            return f'[<span class="cite broken" title="No chat message that day">chat {day}</span>]'
        return f'[<a class="cite chat" href="/chat#day-{day}">chat {day}</a>]'

    def question(m: re.Match[str]) -> str:
        qid = m.group(1)
        if qid not in questions:
            return m.group(0)
        return f'[<a class="qref" href="/questions#{qid}" id="bio-{qid}">{qid}</a>]'

    linked = _QUESTION.sub(question, _CHAT.sub(chat, _CITE_GROUP.sub(group, rendered)))
    return _MIRRORED.sub(
        r'<a class="mirrored" href="/mirror#\1">(from the mirror, confirmed by you)</a>', linked
    )


_MIRRORED = re.compile(r"\(the mirror, ([FP][0-9a-f]{8}), confirmed by you\)")


def chat_message(
    text: str,
    real: Callable[[int], bool],
    chat_days: set[str],
    questions: set[str],
    names: dict[int, str],
) -> str:
    """A chat message with live citations; the sources it names (the bots' `/source 12`)
    as links that open their passages, by name."""
    body, named = source_hint_of(text)
    body, quotes = quote_lines(body)
    shown = cite_links(chat_text(body), real, chat_days, questions) + folded(quotes, real)
    if not named:
        return shown
    links = ", ".join(
        f'<a class="cite" href="/source/{n}" data-doc="{n}">#{n}'
        + (f" {html.escape(names[n])}" if n in names else "")
        + "</a>"
        if real(n)
        else f'<span class="cite broken" title="No source #{n}">#{n}</span>'
        for n in named
    )
    return f'{shown}<p class="named">Sources: {links}</p>'


def folded(quotes: Sequence[Shown], real: Callable[[int], bool]) -> str:
    """An answer's verified quotes, folded under it: each its words, its source (a link that
    opens the passage with the words marked), date and speaker."""
    if not quotes:
        return ""
    items = []
    for q in quotes:
        where = f' <span class="where">{html.escape(q.where)}</span>' if q.where else ""
        link = (
            f'<a class="cite" href="/source/{q.document_id}" data-doc="{q.document_id}">'
            f"#{q.document_id}</a>"
            if real(q.document_id)
            else f'<span class="cite broken">#{q.document_id}</span>'
        )
        items.append(f"<li>“{html.escape(q.quote)}” {link}{where}</li>")
    n = len(quotes)
    return (
        f'<details class="quotes"><summary>In your sources: {n} quote{"" if n == 1 else "s"}'
        f"</summary><ul>{''.join(items)}</ul></details>"
    )


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"


def text(value: object) -> str:
    """Any text, escaped for HTML."""
    return html.escape(str(value), quote=True)


def file_name(name: str) -> str:
    """A source's name as HTML that wraps after a folder's slash or at a space, never inside
    a word: "2023-09-02.md" stays whole."""
    parts = []
    for folder in name.split("/"):
        words = [
            f'<span class="nw">{html.escape(w)}</span>' if "-" in w else html.escape(w)
            for w in folder.split(" ")
        ]
        parts.append(" ".join(words))
    return "/<wbr>".join(parts)

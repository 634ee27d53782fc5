"""A portrait as a file: one self-contained HTML page (inline CSS, a print stylesheet, no
scripts, no external requests, everything escaped), Markdown (escaped), or plain text
within a character limit. Pure functions."""

from __future__ import annotations

import html
import re

from biomd.app.share.portrait import LEFT_OUT, Item, Portrait, PortraitPart

_CSS = """
:root { color-scheme: light; --ink: #1f2328; --soft: #59636e; --line: #d8dee4;
  --accent: #7a4e2d; }
* { box-sizing: border-box; }
body { margin: 0; background: #f6f3ee; color: var(--ink);
  font: 17px/1.6 Georgia, "Iowan Old Style", "Palatino Linotype", serif; }
main { max-width: 42rem; margin: 0 auto; padding: 2.5rem 1.25rem 3rem; background: #fff;
  min-height: 100vh; }
header { border-bottom: 2px solid var(--accent); margin-bottom: 1.5rem; padding-bottom: .75rem; }
h1 { font-size: 1.9rem; line-height: 1.2; margin: 0 0 .35rem; }
.for { color: var(--soft); font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; }
h2 { font-size: 1.15rem; color: var(--accent); margin: 2rem 0 .5rem; letter-spacing: .01em; }
p { margin: 0 0 .8rem; }
ul { margin: 0; padding-left: 1.2rem; }
li { margin: 0 0 .55rem; }
.src { display: block; color: var(--soft);
  font: 12.5px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; }
footer { margin-top: 2.5rem; border-top: 1px solid var(--line); padding-top: .75rem;
  color: var(--soft); font: 12.5px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; }
@media (max-width: 480px) { body { font-size: 16px; } main { padding: 1.5rem 1rem 2rem; }
  h1 { font-size: 1.55rem; } }
@media print { @page { margin: 18mm 16mm; } body { background: #fff; font-size: 11.5pt; }
  main { max-width: none; padding: 0; min-height: 0; } h2 { break-after: avoid; }
  li, p { break-inside: avoid; } footer { position: static; } }
"""
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'"


def to_html(portrait: Portrait, made: str) -> str:
    """The portrait as one HTML page that needs nothing else to open or print."""
    e = html.escape
    title = portrait.title or "A portrait"
    body = "\n".join(_part_html(part) for part in portrait.parts)
    return f"""<!doctype html>
<html lang="{e(portrait.language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="referrer" content="no-referrer">
<title>{e(title)}</title>
<style>{_CSS}</style>
</head>
<body>
<main>
<header>
<h1>{e(title)}</h1>
<div class="for">For {e(portrait.audience.title)}</div>
</header>
{body}
<footer>Written {e(made)} from the owner's own record, kept privately with biomd. Other
people are named only where the owner chose to.</footer>
</main>
</body>
</html>
"""


def _part_html(part: PortraitPart) -> str:
    e = html.escape
    if part.prose:
        inner = "\n".join(f"<p>{e(i.text)}{_src(i)}</p>" for i in part.items)
    else:
        inner = "<ul>\n" + "\n".join(f"<li>{e(i.text)}{_src(i)}</li>" for i in part.items)
        inner += "\n</ul>"
    return f"<section>\n<h2>{e(part.heading)}</h2>\n{inner}\n</section>"


def _src(item: Item) -> str:
    return f' <span class="src">{html.escape(item.note)}</span>' if item.note else ""


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")
_MD_ENTITY = re.compile(r"&(#\d+;|#x[0-9a-fA-F]+;|[A-Za-z]\w*;)")
_MD_LINE_START = re.compile(r"^(\s*)([-+]|\d+[.)])(\s)")


def md_escape(text: str) -> str:
    """Text that Markdown shows as written: no links, images, HTML or emphasis from it."""
    text = _MD_ENTITY.sub(r"&amp;\1", text)  # "&#225;" is shown as written, not as "á"
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return _MD_LINE_START.sub(r"\1\\\2\3", text)


def to_markdown(portrait: Portrait, made: str) -> str:
    lines = [f"# {md_escape(portrait.title or 'A portrait')}", ""]
    lines += [f"_For {md_escape(portrait.audience.title)}. Written {md_escape(made)}._", ""]
    for part in portrait.parts:
        lines += [f"## {md_escape(part.heading)}", ""]
        for item in part.items:
            note = f" _({md_escape(item.note)})_" if item.note else ""
            lines.append(("" if part.prose else "- ") + md_escape(item.text) + note)
            if part.prose:
                lines.append("")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def to_text(portrait: Portrait) -> str:
    """Plain text, compact: one line per section, within the audience's limit if it has one
    (whole items are dropped from the end, never cut in the middle)."""
    limit = portrait.audience.limit
    kept = [list(part.items) for part in portrait.parts]

    def text() -> str:
        out = []
        for part, items in zip(portrait.parts, kept, strict=True):
            if items:
                said = " ".join(sentence(i.text) for i in items)
                out.append(said if part.key == "summary" else f"{part.heading}: {said}")
        return "\n".join(out) + "\n"

    whole = text()
    while limit is not None and len(whole) > limit and sum(map(len, kept)) > 1:
        # Drop the last item of the longest list (a later one on a tie): every section
        # keeps some of what it says for as long as it can.
        longest = max(range(len(kept)), key=lambda i: (len(kept[i]), i))
        kept[longest].pop()
        whole = text()
    if limit is not None and len(whole) > limit:  # one item, still too long: whole sentences
        whole = _shortened(whole, limit)
    return whole


def _shortened(text: str, limit: int) -> str:
    """`text` cut at the last sentence end (else word) that fits within `limit`."""
    head = text[: max(0, limit - 2)]
    ends = [head.rfind(c) for c in ".!?。！？"]
    cut = max(ends)
    if cut < limit // 3:
        cut = head.rfind(" ")
        return head[:cut].rstrip(" ,;:") + "…\n" if cut > 0 else ""
    return head[: cut + 1] + "\n"


def sentence(text: str) -> str:
    """An item as a sentence of compact text (a left-out quote is not worth its room)."""
    text = text.replace(LEFT_OUT, "").strip().rstrip(":;,").strip()
    return text if not text or text[-1] in ".!?。！？…" else text + "."

"""The mirror as text: the whole of it for the terminal (`biomd mirror`), and its strongest
findings and patterns for a chat app, each with the commands that answer it."""

from __future__ import annotations

from biomd.app.mirror.care import HELP as HELP
from biomd.app.mirror.care import NOT_A_THERAPIST as NOT_A_THERAPIST
from biomd.app.mirror.findings import Finding, duration
from biomd.app.mirror.patterns import Evidence, Pattern
from biomd.app.mirror.service import Intention, MirrorView, PersonView
from biomd.plural import counted

KIND_TITLES = {
    "self_contradiction": "says opposite things",
    "stated_reason": "the reason given and what came before",
    "avoidance": "raised with others, not with them",
    "said_vs_did": "said and did",
    "cycle": "comes back",
}


def figure(unit: str, value: float) -> str:
    """A figure in its unit: a duration, characters, or a share."""
    if unit == "seconds":
        return duration(value)
    if unit == "characters":
        return counted(round(value), "character")
    return f"{round(value * 100)}%"


def finding_lines(f: Finding, quotes: int = 4) -> list[str]:
    head = f"{f.id}  [{f.status}] {f.statement}"
    span = (
        f"    before {f.before.first}…{f.before.last}: {figure(f.unit, f.before.value)}"
        f"   after {f.after.first}…{f.after.last}: {figure(f.unit, f.after.value)}"
    )
    lines = [head, span]
    for q in f.evidence[:quotes]:
        note = f" ({q.note})" if q.note else ""
        if q.to is not None:
            lines.append(
                f'    {q.to.date} #{q.to.source_id} [{q.to.start}:{q.to.end}] "{q.to.quote}"'
            )
        lines.append(f'    {q.date} #{q.source_id} [{q.start}:{q.end}] "{q.quote}"{note}')
    if f.answers:
        lines.append(f"    your answers: {', '.join(f'#{a}' for a in f.answers)}")
    return lines


def _evidence_line(e: Evidence, mark: str = "") -> str:
    return f'    {mark}{e.date} #{e.source_id} [{e.start}:{e.end}] "{e.quote}"'


def pattern_lines(p: Pattern, quotes: int = 4) -> list[str]:
    people = f" ({', '.join(p.people)})" if p.people else ""
    title = KIND_TITLES.get(p.kind, p.kind)
    lines = [f"{p.id}  [{p.status}, {p.confidence}] {title}{people}: {p.statement}"]
    lines += [_evidence_line(e) for e in p.evidence[:quotes]]
    lines += [_evidence_line(e, "against: ") for e in p.counter[:2]]
    if p.answers:
        lines.append(f"    your answers: {', '.join(f'#{a}' for a in p.answers)}")
    return lines


def _person_line(p: PersonView) -> str:
    mine = sum(m.messages_owner for m in p.months)
    theirs = sum(m.messages_them for m in p.months)
    first, last = (p.months[0].month, p.months[-1].month) if p.months else ("", "")
    sources = ", ".join(f"#{s}" for s in p.sources)
    return (
        f"  {p.name} ({sources}): {first}…{last}, you {counted(mine, 'message')}, them {theirs:,}"
    )


def _intention_line(i: Intention) -> str:
    return f'{i.id}  {i.date}: "{i.quote[:120]}" #{i.source_id} (nothing after it in your sources)'


NO_FINDING = "none: no sustained shift in how you write with anyone (noise is not a pattern)."
NO_PATTERN = "none yet (`biomd mirror --refresh` looks for them with your model)."


def shown(view: MirrorView, set_aside: bool = False) -> tuple[list[Finding], list[Pattern], int]:
    """What the mirror shows, the same in every front-end: its findings and patterns, new
    ones first, then those the owner confirmed (and dismissed, with `set_aside`); and how
    many were set aside."""
    findings = [f for f in view.findings if set_aside or f.status != "dismissed"]
    patterns = [p for p in view.patterns if set_aside or p.status != "dismissed"]
    return (
        findings,
        patterns,
        len(view.findings) + len(view.patterns) - len(findings) - len(patterns),
    )


def render(view: MirrorView, set_aside: bool = False) -> str:
    """The whole mirror, for the terminal; what the owner dismissed only with `set_aside`."""
    findings, patterns, hidden = shown(view, set_aside)
    out = [NOT_A_THERAPIST, ""]
    if view.care:
        out += [HELP, ""]
    out.append("Findings, measured from your messages:")
    if not findings:
        out.append(f"  {NO_FINDING}")
    for f in findings:
        out += ["  " + line for line in finding_lines(f)]
    out += ["", "Patterns, found in your own words:"]
    if not patterns:
        out.append(f"  {NO_PATTERN}")
    for p in patterns:
        out += ["  " + line for line in pattern_lines(p)]
    if view.intentions:
        out += ["", "Things you said you would do, with nothing after them in your sources:"]
        out += ["  " + _intention_line(i) for i in view.intentions[-8:]]
    out += ["", "People (1:1 chats):"]
    out += [_person_line(p) for p in view.people] or ["  none yet: add a chat export."]
    if view.left_out:
        out += ["", "Left out:"]
        out += [f"  #{x.source_id} {x.chat}: {x.reason}" for x in view.left_out]
    dropped = sum(view.dropped.values())
    if dropped:
        gone = counted(dropped, "finding or pattern", "findings or patterns")
        out.append(f"\n{gone} dropped: their evidence did not verify.")
    if hidden:
        out.append(
            f"\n{hidden} set aside by you (not me): back only if a new source adds evidence; "
            "--dismissed shows them."
        )
    out += [
        "",
        "Answer one: biomd mirror confirm ID (that's me), dismiss ID (not me), "
        "answer ID '…' (there's more to it), ask ID (ask me later), "
        "take-back ID (forget what you said of it).",
    ]
    return "\n".join(out)


STRONGEST = 3


def strongest(view: MirrorView, person: str | None = None) -> tuple[str, list[tuple[str, str]]]:
    """What the terminal shows (`shown`), its strongest first, for a chat; and a button for
    each answer still to give."""
    findings, patterns, _ = shown(view)
    more = max(0, len(findings) - STRONGEST) + max(0, len(patterns) - STRONGEST)
    findings, patterns = findings[:STRONGEST], patterns[:STRONGEST]
    head = f"The mirror{f' with {person}' if person else ''} (a mirror, not a therapist):"
    out = [head]
    if view.care:
        out += ["", HELP]
    buttons: list[tuple[str, str]] = []
    for f in findings:
        out += ["", *finding_lines(f, quotes=2)]
        buttons += _buttons(f.id) if f.status == "new" else []
    for p in patterns:
        out += ["", *pattern_lines(p, quotes=2)]
        buttons += _buttons(p.id) if p.status == "new" else []
    if not findings:
        out += ["", f"Findings: {NO_FINDING}"]
    if not patterns:
        out += ["", f"Patterns: {NO_PATTERN}"]
    if not findings and not patterns and view.people:
        out.append("People: " + ", ".join(p.name for p in view.people[:8]))
    if more:
        out += ["", f"{more} more: `biomd mirror` or the web view's Mirror page shows them all."]
    out += [
        "",
        "Answer with /mirror confirm ID (that's me), /mirror dismiss ID (not me), or /mirror "
        "answer ID your words (there's more to it). /mirror NAME shows one person.",
    ]
    return "\n".join(out), buttons


def _buttons(item_id: str) -> list[tuple[str, str]]:
    return [
        (f"That's me ({item_id})", f"/mirror confirm {item_id}"),
        (f"Not me ({item_id})", f"/mirror dismiss {item_id}"),
    ]

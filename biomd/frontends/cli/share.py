"""`biomd share`: a portrait of the owner, written from bio.md for someone (other people by
role or initial, no source text, a privacy scan before anything is saved), and the shares
made so far. `preview` and `save` make one; `list`, `open` and `delete` keep them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from biomd.app.engine import Engine
from biomd.app.replies import counted
from biomd.app.share.choices import FORMATS, ShareChoice, format_of
from biomd.app.share.service import Draft, UnresolvedFindings, card_path, render
from biomd.errors import BiomdError
from biomd.frontends.cli.common import err, out, print_table, run
from biomd.frontends.cli.groups import Group, flag, take

AUDIENCES = "close, therapist, work, assistant, me, or one you saved"
For = Annotated[str, typer.Argument(metavar="AUDIENCE", help=f"Who it is for: {AUDIENCES}.")]
Show = Annotated[list[str], typer.Option("--show", help="Show this person by name.")]
Hide = Annotated[list[str], typer.Option("--hide", help="Hide this name too.")]
With = Annotated[list[str], typer.Option("--with", help="Put this section in (e.g. hypotheses).")]
Without = Annotated[list[str], typer.Option("--without", help="Leave this section out.")]
Quote = Annotated[list[str], typer.Option("--quote", help="Keep this quote from bio.md.")]
Low = Annotated[bool, typer.Option("--low-confidence", help="Keep low-confidence inferences too.")]
WithPrivate = Annotated[
    list[int],
    typer.Option(
        "--with-private",
        help="Put in line N of those resting only on private sources (the preview lists them).",
    ),
]
Format = Annotated[str | None, typer.Option("--format", help="html, md or text.")]
Limit = Annotated[int | None, typer.Option("--limit", help="Most characters.")]
Rules = Annotated[bool, typer.Option("--rules", help="Tidy bio.md by rules; no model writes it.")]
SaveAs = Annotated[
    str | None, typer.Option("--save-audience", help="Keep these choices under a name.")
]
ShareId = Annotated[int, typer.Argument(help="The share's id, as `biomd share list` shows it.")]
RESOLVE = (
    "--remove-findings (they become [removed]) or --yes (keep them as they are); or --hide "
    "NAME, or --without SECTION"
)


class ShareGroup(Group):
    def old(self, args: list[str]) -> list[str] | None:
        """`share --list`, `--open ID`, `--delete ID`, and `--for AUDIENCE [--preview] …`."""
        if not args or not args[0].startswith("--") or args[0] == "--help":
            return None
        if flag(args, "--list"):
            return ["list"]
        for action in ("open", "delete"):
            if (share_id := take(args, f"--{action}")) is not None:
                return [action, share_id]
        audience = take(args, "--for")
        if audience is None:
            return None
        if not flag(args, "--preview"):
            return ["save", audience, *args]
        for saving in ("--yes", "--remove-findings", "--card"):
            flag(args, saving)
        take(args, "--out")
        return ["preview", audience, *args]


app = typer.Typer(
    cls=ShareGroup,
    no_args_is_help=True,
    help="A portrait of you for someone, from bio.md (preview, save), and the shares made "
    "so far (list, open, delete).",
)


@app.command()
def preview(
    ctx: typer.Context,
    audience: For,
    show: Show = [],  # noqa: B006
    hide: Hide = [],  # noqa: B006
    add: With = [],  # noqa: B006
    drop: Without = [],  # noqa: B006
    quote: Quote = [],  # noqa: B006
    private: WithPrivate = [],  # noqa: B006
    low: Low = False,
    fmt: Format = None,
    limit: Limit = None,
    rules: Rules = False,
    save_as: SaveAs = None,
) -> None:
    """Print the portrait for AUDIENCE (plain text, or as --format says); nothing is
    saved."""
    choice = _choice(show, hide, add, drop, quote, low, fmt, limit, private)

    async def go(engine: Engine) -> None:
        draft = await _draft(engine, audience, choice, rules, save_as)
        if draft.nothing:
            raise BiomdError(draft.nothing)
        sys.stdout.write(render(draft.portrait, choice.format or "text", engine.shares.today()))
        if draft.findings:
            err.print(f"To save it: biomd share save {audience} with {RESOLVE}", markup=False)

    run(ctx, go)


@app.command()
def save(
    ctx: typer.Context,
    audience: For,
    show: Show = [],  # noqa: B006
    hide: Hide = [],  # noqa: B006
    add: With = [],  # noqa: B006
    drop: Without = [],  # noqa: B006
    quote: Quote = [],  # noqa: B006
    private: WithPrivate = [],  # noqa: B006
    low: Low = False,
    fmt: Format = None,
    limit: Limit = None,
    rules: Rules = False,
    save_as: SaveAs = None,
    target: Annotated[Path | None, typer.Option("--out", help="The file to write.")] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Accept the scan's findings.")] = False,
    remove: Annotated[
        bool, typer.Option("--remove-findings", help="Replace what the scan found.")
    ] = False,
    card: Annotated[
        bool, typer.Option("--card", help="Also a one-page PNG card, beside the file.")
    ] = False,
) -> None:
    """Save the portrait for AUDIENCE as a file (HTML by default, under the data dir's
    shares/), once each thing the privacy scan found is accepted or replaced."""
    choice = _choice(show, hide, add, drop, quote, low, fmt, limit, private)

    async def go(engine: Engine) -> None:
        draft = await _draft(engine, audience, choice, rules, save_as)
        path = target or engine.shares.default_path(draft.audience)
        try:
            record = await engine.shares.save(draft, path, accept=yes, remove=remove, card=card)
        except UnresolvedFindings as exc:
            raise BiomdError(f"{exc.found} Run it again with {RESOLVE}.") from None
        note = f", {record.size:,} characters" if record.format == "text" else ""
        out.print(f"Saved share #{record.id}: {record.path}{note}", markup=False)
        if card:
            out.print(f"The card: {card_path(Path(record.path))}", markup=False)

    run(ctx, go)


def _choice(
    show: list[str], hide: list[str], add: list[str], drop: list[str], quote: list[str],
    low: bool, fmt: str | None, limit: int | None, private: list[int] = [],  # noqa: B006
) -> ShareChoice:  # fmt: skip
    try:
        chosen = format_of(fmt)
    except BiomdError:
        raise typer.BadParameter(f"--format is one of {', '.join(FORMATS)}") from None
    return ShareChoice(
        add=tuple(add), drop=tuple(drop), show=tuple(show), hide=tuple(hide),
        quotes=tuple(quote), limit=limit, format=chosen, low_confidence=low or None,
        private=tuple(private),
    )  # fmt: skip


async def _draft(
    engine: Engine, audience: str, choice: ShareChoice, rules: bool, save_as: str | None
) -> Draft:
    """The draft (written by the model unless `rules`), said on stderr; its audience kept
    under `save_as` if given."""
    draft = await engine.shares.draft(
        audience, choice, model=not rules and engine.biographer.configured
    )
    if save_as:
        await engine.shares.save_audience(save_as, draft.audience)
        err.print(f"Saved these choices as the audience '{save_as}'.", markup=False)
    if draft.left_out:
        err.print(
            "Left out, as they rest only on sources you keep private (put one in with "
            "--with-private N):",
            markup=False,
        )
        for n, line in draft.left_out:
            err.print(f"  {n}. {line}", markup=False)
    if draft.nothing:
        return draft  # the command says why there is nothing
    sections = ", ".join(p.heading for p in draft.portrait.parts) or "(nothing yet)"
    err.print(f"For {draft.audience.title}: {sections}", markup=False)
    if draft.owner_note:
        err.print(draft.owner_note, markup=False)
    if draft.mirror_note:
        err.print(draft.mirror_note, markup=False)
    for p in draft.people:
        how = "by name" if p.shown == "name" else f"as '{p.label}'"
        err.print(f"  {p.name}: {how}", markup=False)
    if draft.findings:
        found = counted(len(draft.to_resolve), "thing")
        err.print(f"The privacy scan found {found}:", markup=False)
    for f in draft.to_resolve:
        err.print(f"  {f.kind:<12} {f.text}", markup=False)
    if draft.portrait.refused:
        left = counted(len(draft.portrait.refused), "sentence")
        err.print(f"Left out: {left} of the model's that rested on nothing in bio.md.",
                  markup=False)  # fmt: skip
    return draft


@app.command("list")
def list_shares(ctx: typer.Context) -> None:
    """Every share made so far."""
    rows = [
        (f"#{r.id}", r.created_at[:16].replace("T", " "), r.audience, r.format,
         ", ".join(r.sections), ", ".join(r.shown) or "-", r.path)
        for r in run(ctx, lambda e: e.shares.all())
    ]  # fmt: skip
    print_table(("id", "made", "for", "format", "sections", "named", "file"), rows)


@app.command("open")
def open_share(ctx: typer.Context, share_id: ShareId) -> None:
    """Print a saved share, as it was saved."""
    _, content = run(ctx, lambda e: e.shares.content(share_id))
    sys.stdout.write(content.decode("utf-8"))


@app.command()
def delete(ctx: typer.Context, share_id: ShareId) -> None:
    """Delete a saved share and its file."""
    gone = run(ctx, lambda e: e.shares.delete(share_id))
    out.print(f"Deleted share #{gone.id} ({gone.audience}, {gone.path}).", markup=False)

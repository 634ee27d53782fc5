"""Share: pick an audience, see the portrait, change who is named and what goes in, resolve
what the privacy scan found, and save the file; the shares made so far, to download again
or delete. Every draft is the app's (engine.shares); this page only carries the choices."""

from __future__ import annotations

import secrets
from pathlib import Path
from urllib.parse import quote

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from biomd.app.share.choices import FORMATS, ShareChoice, picked, sections
from biomd.app.share.service import Draft, UnresolvedFindings, render
from biomd.errors import BiomdError
from biomd.frontends.web.context import Web, message, page, web_of

KEEP_DRAFTS = 20  # drafts kept for saving, newest last
MEDIA = {"html": "text/html; charset=utf-8", "md": "text/markdown; charset=utf-8"}


async def share_page(request: Request) -> Response:
    """The rules' portrait for an audience (therapist first), ready to change and save."""
    audience = request.query_params.get("for") or "therapist"
    saved = request.query_params.get("saved")
    return await _drafted(request, audience, ShareChoice(), model=False, saved=saved)


async def share_change(request: Request) -> Response:
    """A new draft with the owner's choices from the form."""
    form = await request.form()
    audience = str(form.get("audience") or "therapist")
    try:
        choice = await _choice(web_of(request), audience, form)
    except BiomdError as exc:
        return await message(request, "Not shared", exc.user_message, 400)
    model = form.get("model") == "on"
    keep_as = str(form.get("keep_as") or "").strip().lower()
    if keep_as:
        shares = web_of(request).engine.shares
        try:
            await shares.save_audience(keep_as, choice.apply((await shares.audiences())[audience]))
        except BiomdError as exc:
            return await message(request, "Not kept", exc.user_message, 400)
        audience, choice = keep_as, ShareChoice()
    return await _drafted(request, audience, choice, model=model)


async def _drafted(
    request: Request, audience: str, choice: ShareChoice, *, model: bool, saved: str | None = None
) -> Response:
    web = web_of(request)
    shares = web.engine.shares
    try:
        draft = await shares.draft(audience, choice, model=model)
    except BiomdError as exc:
        return await message(request, "Not shared", exc.user_message, 400)
    token = secrets.token_urlsafe(12)
    web.drafts[token] = draft
    while len(web.drafts) > KEEP_DRAFTS:
        web.drafts.pop(next(iter(web.drafts)))
    return await page(
        request,
        "share.html",
        draft=draft,
        token=token,
        audiences=await shares.audiences(),
        sections=sections(draft.audience),
        formats=FORMATS,
        shares=await shares.all(),
        also_hidden=[n for n in draft.audience.hide if n not in {p.name for p in draft.people}],
        llm=web.engine.biographer.configured,
        model=model,
        saved=saved,
    )


async def _choice(web: Web, audience_name: str, form: FormData) -> ShareChoice:
    """The form's fields as a ShareChoice against the audience's own settings."""
    audience = (await web.engine.shares.audiences()).get(audience_name)
    if audience is None:
        raise BiomdError(f"There is no audience '{audience_name}'.")
    how = {k[len("person:") :]: str(v) for k, v in form.multi_items() if k.startswith("person:")}
    extra = [n.strip() for n in str(form.get("hide") or "").split(",") if n.strip()]
    quotes = [q.strip() for q in str(form.get("quotes") or "").splitlines() if q.strip()]
    limit = str(form.get("limit") or "").strip()
    fmt = str(form.get("format") or audience.format)
    return picked(
        audience,
        (str(v) for v in form.getlist("section")),
        show=[n for n, v in how.items() if v == "name"],
        hide=[*(n for n, v in how.items() if v != "name"), *extra],
        quotes=quotes,
        limit=int(limit) if limit.isdigit() else None,
        fmt=next((f for f in FORMATS if f == fmt), None),
        low_confidence=form.get("low") == "on",
        private=[int(str(v)) for v in form.getlist("private") if str(v).isdigit()],
    )


async def share_preview(request: Request) -> Response:
    """A draft as its file would be (inside the Share page's sandboxed frame)."""
    draft = _draft(request, str(request.path_params["token"]))
    if draft is None:
        return Response("This draft is gone; make it again.", 404, media_type="text/plain")
    body = render(draft.portrait, draft.audience.format, "today")
    return Response(body, media_type=MEDIA.get(draft.audience.format, "text/plain; charset=utf-8"))


async def share_save(request: Request) -> Response:
    form = await request.form()
    draft = _draft(request, str(form.get("token") or ""))
    if draft is None:
        return await message(request, "Not saved", "This draft is gone; make it again.", 404)
    decisions = {
        str(k)[len("finding:") :]: str(v) for k, v in form.multi_items() if k.startswith("finding:")
    }
    shares = web_of(request).engine.shares
    try:
        record = await shares.save(
            draft,
            shares.default_path(draft.audience),
            decisions=decisions,
            card=form.get("card") == "on",
        )
    except UnresolvedFindings as exc:
        how = "Choose remove or keep for each on the Share page, then save again."
        return await message(request, "Not saved", f"{exc.found} {how}", 400)
    except BiomdError as exc:  # nothing to share yet
        return await message(request, "Not saved", exc.user_message, 400)
    return RedirectResponse(f"/share?for={draft.audience.name}&saved={record.id}", 303)


async def share_file(request: Request) -> Response:
    record, content = await web_of(request).engine.shares.content(int(request.path_params["sid"]))
    name = Path(record.path).name
    plain = name.encode("ascii", "replace").decode().replace('"', "_").replace("?", "_")
    disposition = f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(name)}"
    return Response(
        content,
        media_type=MEDIA.get(record.format, "text/plain; charset=utf-8"),
        headers={"content-disposition": disposition},
    )


async def share_card(request: Request) -> Response:
    png = await web_of(request).engine.shares.card(int(request.path_params["sid"]))
    return Response(png, media_type="image/png")


async def share_delete(request: Request) -> Response:
    await web_of(request).engine.shares.delete(int(request.path_params["sid"]))
    return RedirectResponse("/share", 303)


def _draft(request: Request, token: str) -> Draft | None:
    return web_of(request).drafts.get(token)

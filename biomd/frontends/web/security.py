"""Who may use the web view: whoever holds the secret token, from this machine's browser.

- The token (32 random bytes, kept 0600 in the data dir) is printed only in the start-up
  link. The first visit with it gets an HttpOnly, SameSite=Strict cookie and is sent on to
  the same page without the token in the address. Without either, nothing but a page that
  says where to find the link.
- The Host header must be this server's own name (127.0.0.1, localhost or [::1] with its
  port), so that a web page on another site can't reach it by DNS rebinding.
- Every request that changes something must come from this origin and carry the CSRF token.
- Every response carries a strict Content-Security-Policy."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

COOKIE = "biomd_session"
TOKEN_FILE = "web-token"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'self'; frame-src 'self'; form-action 'self'; "
    "frame-ancestors 'self'; base-uri 'none'"
)
PICTURE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOCKED = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>biomd</title></head>
<body style="font-family: sans-serif; max-width: 36em; margin: 3em auto; padding: 0 1em">
<h1>biomd</h1><p>This page needs the link biomd printed when it started, for example
<code>Web view: http://127.0.0.1:8765/?token=…</code>. The token is also kept in the file
<code>web-token</code> in your biomd data folder.</p></body></html>"""


def load_token(data_dir: Path) -> str:
    """The web view's secret, made on first use and kept readable by the owner only."""
    path = data_dir / TOKEN_FILE
    if path.exists():
        token = path.read_text(encoding="utf-8").strip()
        if len(token) >= 32:
            return token
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(token + "\n")
    path.chmod(0o600)
    return token


@dataclass(frozen=True)
class Keys:
    """What the token unlocks: the cookie a browser keeps, and the CSRF token its forms send."""

    token: str

    def _derive(self, purpose: str) -> str:
        return hmac.new(self.token.encode(), purpose.encode(), hashlib.sha256).hexdigest()

    @property
    def session(self) -> str:
        return self._derive("biomd web session")

    @property
    def csrf(self) -> str:
        return self._derive("biomd web csrf")

    def is_token(self, value: str | None) -> bool:
        return bool(value) and hmac.compare_digest(str(value), self.token)

    def is_session(self, value: str | None) -> bool:
        return bool(value) and hmac.compare_digest(str(value), self.session)

    def is_csrf(self, value: str | None) -> bool:
        return bool(value) and hmac.compare_digest(str(value), self.csrf)


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The Host headers this server answers to."""
    names = {"127.0.0.1", "localhost", "[::1]"}
    if host not in ("0.0.0.0", "::", "127.0.0.1", "localhost", "::1"):
        names.add(host if ":" not in host else f"[{host}]")
    return frozenset(f"{n}:{port}" for n in names) | (frozenset(names) if port == 80 else set())


class Guard:
    """ASGI middleware: Host check, token or cookie (or Bearer, for /mcp), Origin and CSRF
    on changes, and the security headers on every answer."""

    def __init__(
        self,
        app: ASGIApp,
        keys: Keys,
        hosts: frozenset[str] | None,
        csrf_exempt: tuple[str, ...] = (),
    ) -> None:
        self.app = app
        self.keys = keys
        self.hosts = hosts  # None: any Host (bound to all interfaces; the token still rules)
        self.csrf_exempt = csrf_exempt

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await refusal(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                raw = list(message.get("headers") or [])
                present = {k.lower() for k, _ in raw}
                for key, value in _security_headers(scope["path"]):
                    if key not in present:
                        raw.append((key, value))
                message["headers"] = raw
            await send(message)

        await self.app(scope, receive, with_headers)

    def _refusal(self, scope: Scope, headers: Headers) -> Response | None:
        host = headers.get("host", "")
        if self.hosts is not None and host not in self.hosts:
            return Response("Unknown host.", 421, media_type="text/plain")
        request = Request(scope)
        bearer = headers.get("authorization", "")
        if bearer.lower().startswith("bearer ") and self.keys.is_token(bearer[7:].strip()):
            return None  # an MCP client: no cookie, no CSRF (it is not a browser)
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        if self.keys.is_token(query.get("token")) and scope["method"] in SAFE_METHODS:
            rest = urlencode({k: v for k, v in query.items() if k != "token"})
            target = scope["path"] + (f"?{rest}" if rest else "")
            response = RedirectResponse(target, status_code=303)
            response.set_cookie(
                COOKIE,
                self.keys.session,
                httponly=True,
                samesite="strict",
                path="/",
                secure=False,
                max_age=400 * 86400,
            )
            return response
        if not self.keys.is_session(request.cookies.get(COOKIE)):
            if scope["path"].startswith(("/api/", "/events", "/mcp")):
                return Response("Not signed in.", 401, media_type="text/plain")
            return HTMLResponse(LOCKED, 401)
        if scope["method"] not in SAFE_METHODS and not scope["path"].startswith(self.csrf_exempt):
            origin = headers.get("origin")
            if origin is None or origin.split("://", 1)[-1] != host:
                return Response("Cross-site request refused.", 403, media_type="text/plain")
            if not self.keys.is_csrf(headers.get("x-csrf-token") or _form_csrf(scope)):
                return Response("Missing or wrong CSRF token.", 403, media_type="text/plain")
        return None


def _form_csrf(scope: Scope) -> str | None:
    """The CSRF token a form sends in its query string (forms post `?csrf=…`)."""
    query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
    return query.get("csrf")


def _security_headers(path: str) -> list[tuple[bytes, bytes]]:
    own = path.endswith(".svg") or path.startswith(("/share/preview/", "/share/file/"))
    csp = PICTURE_CSP if own else CSP  # a picture or a portrait: inline styles, nothing else
    return [
        (b"content-security-policy", csp.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"same-origin"),  # no-referrer makes form posts say Origin: null
        (b"cache-control", b"no-store"),
        (b"cross-origin-opener-policy", b"same-origin"),
        (b"cross-origin-resource-policy", b"same-origin"),
    ]


Handler = Callable[[Request], Awaitable[Response]]

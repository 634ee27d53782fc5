"""The OpenAI Codex CLI as a model backend: a ChatGPT subscriber's biographer costs nothing
more per turn. One `codex exec --json` run is one call; Codex runs the tool loop itself, with
biomd's own MCP server as its only tools. Everything Codex could otherwise reach (its shell,
file edits, web search, image viewer, sub-agents, goals) is switched off by configuration,
the run is ephemeral, in an empty folder, read-only, and killed with its whole process group
at the time limit. Pinned and tested against codex-cli 0.171.0."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biomd.errors import LLMError, LLMNotConfigured
from biomd.models.ledger import Ledger, Usage
from biomd.models.llm import Reply
from biomd.models.processes import kill_group, own_group
from biomd.settings.groups import CodexSettings

TESTED = (0, 171, 0)
CONTAINED = (
    "features.shell_tool=false",
    "features.unified_exec=false",
    "features.multi_agent=false",
    "features.goals=false",
    "features.view_image=false",
    'web_search="disabled"',
    "tools.experimental_request_user_input.enabled=false",
    "skills.include_instructions=false",
    "skills.bundled.enabled=false",
    "include_environment_context=false",
    "include_permissions_instructions=false",
    "analytics.enabled=false",
    "check_for_update_on_startup=false",
)
"""Codex's own tools off: what is left is biomd's MCP server (and Codex's three helpers that
list and read that server's resources, which have no switch and reach nothing else)."""

EventFn = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass
class Run:
    """What one `codex exec` run did."""

    messages: list[str] = field(default_factory=list)  # the agent's messages, in order
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    failure: str | None = None  # what went wrong, in words for the owner
    timed_out: bool = False

    @property
    def text(self) -> str:
        return self.messages[-1] if self.messages else ""


def binary(codex: CodexSettings) -> str | None:
    """The codex executable, if it is installed."""
    found = shutil.which(codex.bin)
    return found or (codex.bin if Path(codex.bin).is_file() else None)


def parse_version(text: str) -> tuple[int, int, int] | None:
    m = re.search(r"(\d+)\.(\d+)\.(\d+)", text)
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


class CodexCLI:
    """Runs `codex exec` and reads its events."""

    def __init__(
        self,
        codex: CodexSettings,
        turn_timeout: float,
        context_tokens: int | None = None,
        ledger: Ledger | None = None,
    ) -> None:
        """A run may take `turn_timeout` seconds; `context_tokens` is the model's window where
        the owner set it (BIOMD_LLM_CONTEXT_TOKENS); `ledger` meters runs, and checks of the
        version and login (doctor, setup) need none."""
        self.settings = codex
        self.turn_timeout = turn_timeout
        self.context_tokens = context_tokens
        self.ledger = ledger
        path = binary(codex)
        if path is None:
            raise LLMNotConfigured(
                f"BIOMD_LLM_BACKEND is codex, but the Codex CLI ({codex.bin}) is not "
                "installed. Install it with `npm i -g @openai/codex`, then `codex login`."
            )
        self.path = path

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        if self.settings.home:
            env["CODEX_HOME"] = str(self.settings.home)
        return env

    async def version(self) -> tuple[int, int, int] | None:
        code, out, err = await self._short([self.path, "--version"])
        return parse_version(out + err) if code == 0 else None

    async def logged_in(self) -> tuple[bool, str]:
        """Whether Codex has a login (ChatGPT or an API key), and what it says."""
        code, out, err = await self._short([self.path, "login", "status"])
        said = " ".join((out + " " + err).split())
        return code == 0, said

    async def _short(self, args: list[str]) -> tuple[int, str, str]:
        proc = await asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self.env(),
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(), 30)
        except TimeoutError:
            _kill(proc)
            return 1, "", "timed out"
        return proc.returncode or 0, out.decode(errors="replace"), err.decode(errors="replace")

    def command(
        self,
        prompt: str,
        workdir: Path,
        instructions: Path | None = None,
        mcp: dict[str, Any] | None = None,
        images: Sequence[Path] = (),
    ) -> list[str]:
        """The whole `codex exec` command line for one run."""
        overrides = list(CONTAINED)
        if instructions is not None:
            overrides.append(f"model_instructions_file={json.dumps(str(instructions))}")
        overrides.append(f"mcp_servers={_toml_table(mcp or {})}")  # only biomd's, never others
        overrides += list(self.settings.config)
        args = [
            self.path,
            "exec",
            "--json",
            "--ephemeral",
            "--skip-git-repo-check",
            "--strict-config",
            "--sandbox",
            "read-only",
            "-C",
            str(workdir),
            "--color",
            "never",
        ]
        if self.settings.model:
            args += ["-m", self.settings.model]
        for override in overrides:
            args += ["-c", override]
        args += [f"--image={p}" for p in images]
        return [*args, "--", prompt]

    async def run(
        self,
        prompt: str,
        mode: str,
        *,
        instructions: str | None = None,
        mcp: dict[str, Any] | None = None,
        images: Sequence[Path] = (),
        on_event: EventFn | None = None,
        limit_s: float | None = None,
    ) -> Run:
        """One run, metered. It never raises for what Codex does: `Run.failure` says."""
        assert self.ledger is not None, "runs are metered"
        await self.ledger.check_limit()
        with tempfile.TemporaryDirectory(prefix="biomd-codex-") as tmp:
            workdir = Path(tmp) / "empty"
            workdir.mkdir(mode=0o700)
            rules = None
            if instructions is not None:
                rules = Path(tmp) / "instructions.md"
                rules.write_text(instructions, encoding="utf-8")
            args = self.command(prompt, workdir, rules, mcp, images)
            result = await self._run(args, on_event, limit_s or self.turn_timeout)
        await self.ledger.record(
            self.settings.model or "codex", mode, result.usage, backend="codex"
        )
        return result

    async def _run(self, args: list[str], on_event: EventFn | None, limit_s: float) -> Run:
        proc = await asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self.env(),
            **own_group(),
        )
        result = Run()
        errors = asyncio.ensure_future(_drain(proc.stderr))
        try:
            async with asyncio.timeout(limit_s):
                assert proc.stdout is not None
                async for raw in proc.stdout:
                    await self._event(raw, result, on_event)
                await proc.wait()
        except TimeoutError:
            result.timed_out = True
            result.failure = (
                f"Codex did not finish within {limit_s:.0f} s (BIOMD_LLM_TURN_TIMEOUT), so it "
                "was stopped."
            )
        finally:
            _kill(proc)
            with contextlib.suppress(ProcessLookupError):
                await asyncio.wait_for(proc.wait(), 10)
        stderr = await errors
        if result.failure is None and proc.returncode:
            result.failure = explain(stderr, proc.returncode)
        return result

    async def _event(self, raw: bytes, result: Run, on_event: EventFn | None) -> None:
        line = raw.decode(errors="replace").strip()
        if not line.startswith("{"):
            return
        try:
            event = json.loads(line)
        except ValueError:
            result.failure = result.failure or f"Codex printed something unreadable: {line[:120]!r}"
            return
        if not isinstance(event, dict):
            return
        kind = event.get("type")
        item: dict[str, Any] = event["item"] if isinstance(event.get("item"), dict) else {}
        if kind == "item.completed" and item.get("type") == "agent_message":
            result.messages.append(str(item.get("text") or ""))
        elif kind == "item.completed" and item.get("type") == "mcp_tool_call":
            result.tool_calls.append(item)
        elif kind == "turn.completed" and isinstance(event.get("usage"), dict):
            u = event["usage"]
            result.usage = Usage(
                int(u.get("input_tokens") or 0),
                int(u.get("output_tokens") or 0),
                0.0,
                "subscription",
            )
        elif kind == "turn.failed":
            error: dict[str, Any] = event["error"] if isinstance(event.get("error"), dict) else {}
            result.failure = plain(str(error.get("message") or "the turn failed"))
        if on_event is not None:
            await on_event(event)


def plain(message: str) -> str:
    """What Codex said went wrong, in words the owner can act on."""
    low = message.lower()
    if "usage limit" in low or "quota exceeded" in low:
        return f"Your ChatGPT plan's Codex usage limit is reached: {message}"
    if (
        "401" in low
        or "403" in low
        or "not logged in" in low
        or "missing environment variable" in low
    ):
        return f"Codex is not logged in, or its login was refused ({message}). Run `codex login`."
    if (
        "429" in low
        or "high demand" in low
        or "stream disconnected" in low
        or "connection failed" in low
    ):
        return f"The Codex service is unavailable just now ({message}); reading resumes later."
    if "context window" in low:
        return f"The conversation was too long for the model ({message})."
    return f"Codex stopped: {message}"


def explain(stderr: str, code: int) -> str:
    """A failed run that said nothing on stdout: its error output, in plain words."""
    lines = [line for line in stderr.splitlines() if line.strip() and "PATH aliases" not in line]
    said = " ".join(lines[-3:])[:400] or f"exit code {code}"
    if "Not logged in" in stderr:
        return "Codex is not logged in. Run `codex login` (with your ChatGPT account)."
    return plain(said)


async def _drain(stream: asyncio.StreamReader | None) -> str:
    return (await stream.read()).decode(errors="replace") if stream is not None else ""


def _kill(proc: asyncio.subprocess.Process) -> None:
    """Stop the run and everything it started (Codex and its MCP server)."""
    if proc.returncode is not None:
        return
    kill_group(proc.pid)


def _toml_table(table: dict[str, Any]) -> str:
    """A TOML inline table for a -c override."""
    parts = []
    for key, value in table.items():
        parts.append(f"{key}={toml_value(value)}")
    return "{" + ", ".join(parts) + "}"


def toml_value(value: Any) -> str:
    """A value as TOML: an inline table, a boolean, a number, an array or a string."""
    if isinstance(value, dict):
        return _toml_table(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(str(value))  # a TOML basic string is JSON-escaped text


class CodexChat:
    """Codex as a plain model, for work with no tools (consolidation): one run per call."""

    def __init__(self, codex: CodexCLI) -> None:
        self.codex = codex

    async def check_budget(self) -> None:
        if self.codex.ledger is not None:
            await self.codex.ledger.check_limit()

    async def context_tokens(self) -> int:
        return self.codex.context_tokens or 200_000

    async def count_tokens(self, text: str) -> int | None:
        return None  # the CLI says no count before a call

    async def complete(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] | None,
        mode: str,
        max_tokens: int | None = None,
    ) -> Reply:
        system = "\n\n".join(str(m.get("content") or "") for m in messages if m["role"] == "system")
        rest = [m for m in messages if m["role"] != "system"]
        run = await self.codex.run(
            prompt(rest[:-1], str(rest[-1].get("content") or "") if rest else ""),
            mode,
            instructions=system or None,
        )
        if run.failure and not run.messages:
            raise LLMError(run.failure)
        return Reply(run.text, [], run.usage, "stop")

    async def complete_json(
        self,
        messages: Sequence[dict[str, Any]],
        schema: dict[str, Any],
        mode: str,
        max_tokens: int | None = None,
        steady: bool = False,
    ) -> Reply:
        """A reply in JSON: the schema is given in the instructions, and the caller parses
        the reply tolerantly (`steady` is the model's own business on Codex)."""
        rule = "Reply with JSON only, under this JSON schema: " + json.dumps(schema)
        first, *rest = list(messages) or [{"role": "system", "content": ""}]
        if first.get("role") == "system":
            first = {**first, "content": f"{first.get('content') or ''}\n\n{rule}"}
            return await self.complete([first, *rest], None, mode, max_tokens)
        return await self.complete([{"role": "system", "content": rule}, first, *rest], None, mode)


def prompt(chat_tail: Sequence[dict[str, Any]], message: str) -> str:
    """The chat tail and the new message, as one prompt."""
    if not chat_tail:
        return message
    earlier = "\n\n".join(
        f"{'Owner' if m['role'] == 'user' else 'You'}: {m.get('content') or ''}" for m in chat_tail
    )
    return f"Our conversation so far:\n\n{earlier}\n\nThe owner now says:\n\n{message}"

"""biomd as Hermes Agent's memory provider: who the owner is, with evidence.

Installed by `biomd hermes install` into $HERMES_HOME/plugins/biomd/, beside biomd.json, which
says how to start biomd. It imports nothing from biomd and needs nothing Hermes lacks (the
standard library only): it talks to one `biomd mcp` child for the session over MCP's stdio
JSON-RPC, which keeps the embedding model loaded between calls.

- system_prompt_block(): a short portrait (Summary, Identity, confirmed patterns).
- prefetch(query): the bio.md lines and passages that bear on the message, each with its
  reference, within a budget; nothing for a social message.
- tools: biomd_search, biomd_profile (and biomd_remember, if the owner allowed notes).
- sync_turn / on_session_end: in the primary context, the session's exchange is spooled to
  disk turn by turn and kept by biomd as one source, keyed on the session id.

It never breaks Hermes: a missing biomd, a locked database or a timeout makes it return
nothing and log why."""

from __future__ import annotations

import json
import logging
import os
import queue
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

try:
    from agent.memory_provider import MemoryProvider
except ImportError:  # outside Hermes (biomd's own tests of this module)

    class MemoryProvider:  # type: ignore[no-redef]
        pass


log = logging.getLogger("biomd.hermes")

CONFIG = "biomd.json"
SPOOL = "spool"  # $HERMES_HOME/biomd/spool/<session>.jsonl: turns not yet kept by biomd
PROTOCOL = "2025-06-18"
CALL_TIMEOUT_S = 6.0  # Hermes gives a provider's prefetch 8 s
SEND_AFTER_S = 2.0  # after a session's end, for its last turn to be written
START_TIMEOUT_S = 60.0  # the first start of biomd (Python, SQLite) on a slow machine
NOTHING = ("Nothing in the owner's sources", "bio.md has no Summary")
FENCE = re.compile(r"<\s*memory-context\s*>[\s\S]*?<\s*/\s*memory-context\s*>", re.I)
_TAGS = re.compile(r"</?\s*memory-context\s*>", re.I)
_UNSAFE_ENV = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")


def without_recall(text: str) -> str:
    """`text` without the <memory-context> blocks Hermes injected: biomd must not learn from
    its own output."""
    return _TAGS.sub("", FENCE.sub("", text or "")).strip()


def _session_of(path: Path) -> str:
    """The session a spool's turns are of (each line says it; else the file's name)."""
    try:
        with path.open(encoding="utf-8") as f:
            first = json.loads(f.readline() or "{}")
    except (OSError, ValueError):
        first = {}
    return str(first.get("session") or path.stem) if isinstance(first, dict) else path.stem


class Child:
    """One `biomd mcp` process for the session, spoken to over MCP's stdio JSON-RPC (a JSON
    message a line). A call that times out is given up on, not the child: its late answer
    is skipped (answers are matched by id), and the child keeps what it has loaded."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.command = command
        self.env = env
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()  # one request at a time, answered in order
        self._answers: queue.Queue[dict[str, Any]] = queue.Queue()
        self._next = 0

    def call(self, tool: str, arguments: dict[str, Any], timeout: float) -> str:
        """The text a tool answers; RuntimeError with the reason if it can't."""
        with self._lock:
            started = self._proc is not None and self._proc.poll() is None
            if not started:
                self._start()
            result = self._request("tools/call", {"name": tool, "arguments": arguments}, timeout)
        text = "\n".join(
            c.get("text", "") for c in result.get("content", []) if isinstance(c, dict)
        )
        if result.get("isError"):
            raise RuntimeError(f"biomd's {tool} failed: {text[:300]}")
        return text

    def _start(self) -> None:
        self._proc = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=self.env,
        )
        self._answers = queue.Queue()
        threading.Thread(target=self._read, args=(self._proc, self._answers), daemon=True).start()
        info = {"name": "hermes-agent", "version": "biomd-provider-1"}
        params = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": info}
        try:
            self._request("initialize", params, START_TIMEOUT_S)
        except RuntimeError:
            self.stop()  # a start that did not finish: the next call starts another
            raise
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    @staticmethod
    def _read(proc: subprocess.Popen[bytes], answers: queue.Queue[dict[str, Any]]) -> None:
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if isinstance(message, dict) and "id" in message and "method" not in message:
                    answers.put(message)
        except (OSError, ValueError):  # closed by stop()
            pass
        answers.put({"closed": True})

    def _send(self, message: dict[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write(json.dumps(message).encode() + b"\n")
        self._proc.stdin.flush()

    def _request(self, method: str, params: dict[str, Any], timeout: float) -> dict[str, Any]:
        self._next += 1
        wanted = self._next
        try:
            self._send({"jsonrpc": "2.0", "id": wanted, "method": method, "params": params})
        except OSError as exc:
            self.stop()
            raise RuntimeError(f"biomd is not running: {exc}") from None
        deadline = time.monotonic() + timeout
        while True:
            try:
                answer = self._answers.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise RuntimeError(f"biomd took longer than {timeout:.0f} s ({method})") from None
            if answer.get("closed"):
                self.stop()
                raise RuntimeError("biomd stopped (run `biomd doctor` to see why)")
            if answer.get("id") != wanted:
                continue  # the late answer of a request given up on
            if "error" in answer:
                raise RuntimeError(f"biomd: {answer['error'].get('message', answer['error'])}")
            return dict(answer.get("result") or {})

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin:
                proc.stdin.close()
            proc.wait(timeout=3)
        except Exception:
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()


class BiomdMemoryProvider(MemoryProvider):  # type: ignore[misc]
    """biomd, the owner's cited portrait and sources, as Hermes's memory."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or Path(__file__).resolve().parent
        self.config: dict[str, Any] = {}
        self.child: Child | None = None
        self.session_id = ""
        self.learning = False
        self.spool_dir: Path | None = None
        self._portrait = ""
        self._warm = threading.Event()  # set once search is loaded (the first recall)
        self._spooling = threading.Lock()  # a turn written while a send reads the spool
        self._ending: threading.Timer | None = None  # the send after a session's end

    @property
    def name(self) -> str:
        return "biomd"

    # -- set up -----------------------------------------------------------------------

    def _load_config(self) -> dict[str, Any]:
        try:
            found = json.loads((self.folder / CONFIG).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return found if isinstance(found, dict) else {}

    def is_available(self) -> bool:
        """biomd.json names a biomd that exists (no process is started, no network)."""
        config = self._load_config()
        command = config.get("command") or []
        return bool(command) and Path(command[0]).exists()

    def initialize(self, session_id: str, **kwargs: Any) -> None:
        self.config = self._load_config()
        self.session_id = session_id or ""
        env = {k: v for k, v in os.environ.items() if k not in _UNSAFE_ENV}
        env.update(self.config.get("env") or {})
        args = ["mcp", "serve"] + (["--allow-notes"] if self.config.get("notes") else [])
        args += ["--allow-sessions"] if self.config.get("learn", True) else []
        self.child = Child([*self.config.get("command", []), *args], env)
        home = Path(
            kwargs.get("hermes_home") or os.environ.get("HERMES_HOME") or Path.home() / ".hermes"
        )
        primary = kwargs.get("agent_context", "primary") == "primary"
        self.learning = bool(self.config.get("learn", True)) and primary and bool(session_id)
        self.spool_dir = home / "biomd" / SPOOL
        self._portrait = self._call("portrait", {}, START_TIMEOUT_S)
        threading.Thread(target=self._warm_up, daemon=True).start()
        if self.learning:
            threading.Thread(target=self._send_left_over, daemon=True).start()

    def _call(self, tool: str, arguments: dict[str, Any], timeout: float | None = None) -> str:
        """A tool's answer, or '' (logged) when biomd can't give one: Hermes goes on."""
        if self.child is None:
            return ""
        try:
            text = self.child.call(tool, arguments, timeout or CALL_TIMEOUT_S)
        except Exception as exc:  # never break Hermes
            log.warning("biomd %s: %s", tool, exc)
            return ""
        return "" if text.startswith(NOTHING) else text

    def _warm_up(self) -> None:
        """Load search (the embedding model; on a large corpus, the vectors' codes) before
        the first message needs it: a first recall can take longer than Hermes waits."""
        try:
            self._call("recall", {"message": "who am I, and who is in my life?"}, START_TIMEOUT_S)
        finally:
            self._warm.set()

    # -- what Hermes is shown -----------------------------------------------------------

    def system_prompt_block(self) -> str:
        if not self._portrait:
            return ""
        return (
            f"{self._portrait}\n\nbiomd holds the owner's sources (chats, journals, e-mails) "
            "and bio.md; before each reply you are shown what bears on it. biomd_search finds "
            "more, biomd_profile reads bio.md; cite what you use as [#id]."
        )

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        budget = int(self.config.get("recall_chars") or 4000)
        message = without_recall(query)
        if not message:
            return ""
        if not self._warm.wait(timeout=1.0):
            log.info("biomd is still loading its search; nothing recalled for this message")
            return ""
        return self._call("recall", {"message": message[:8000], "budget": budget})

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        tools = [
            {
                "name": "biomd_search",
                "description": "Search the owner's own sources (chats, journals, e-mails, "
                "notes) by meaning and keywords; passages with their source id, date and who "
                "wrote them.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "What to look for."},
                        "limit": {"type": "integer", "description": "How many passages (8)."},
                    },
                    "required": ["query"],
                },
            },
            {
                "name": "biomd_profile",
                "description": "The owner's cited profile, bio.md, whole or one section "
                "(Summary, Identity, Timeline, People & relationships, Patterns...).",
                "parameters": {
                    "type": "object",
                    "properties": {"section": {"type": "string", "description": "A section."}},
                },
            },
        ]
        if self.config.get("notes"):
            tools.append(
                {
                    "name": "biomd_remember",
                    "description": "Keep a note about the owner in biomd, as a new source "
                    "its biographer reads. Say what, when, and how you know.",
                    "parameters": {
                        "type": "object",
                        "properties": {"note": {"type": "string", "description": "The note."}},
                        "required": ["note"],
                    },
                }
            )
        return tools

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        mcp = {"biomd_search": "search", "biomd_profile": "profile", "biomd_remember": "remember"}
        if tool_name not in mcp or (tool_name == "biomd_remember" and not self.config.get("notes")):
            return json.dumps({"error": f"biomd has no tool {tool_name}"})
        wanted = {k: v for k, v in (args or {}).items() if v not in (None, "")}
        if self.child is None:
            return json.dumps({"error": "biomd is not set up"})
        try:
            text = self.child.call(mcp[tool_name], wanted, CALL_TIMEOUT_S * 3)
        except Exception as exc:
            return json.dumps({"error": str(exc)})
        return json.dumps({"result": text})

    # -- learning from the session ------------------------------------------------------

    def _spool(self, session_id: str) -> Path | None:
        if self.spool_dir is None or not session_id:
            return None
        return self.spool_dir / (re.sub(r"[^\w.-]", "_", session_id)[:120] + ".jsonl")

    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        session_id: str = "",
        messages: list[dict[str, Any]] | None = None,
    ) -> None:
        """Append the turn to the session's spool on disk (kept by biomd at the session's
        end, or at the next start if this process dies first)."""
        if not self.learning:
            return
        path = self._spool(session_id or self.session_id)
        user, reply = without_recall(user_content), without_recall(assistant_content)
        if path is None or not (user or reply):
            return
        session = session_id or self.session_id
        turn = {"at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "user": user, "assistant": reply}
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with self._spooling, path.open("a", encoding="utf-8") as f:
                f.write(json.dumps({**turn, "session": session}, ensure_ascii=False) + "\n")
            path.chmod(0o600)
        except OSError as exc:
            log.warning("biomd could not spool the turn: %s", exc)
        if self._ending is not None and self._ending.is_alive():
            self._send_soon()  # the session ended before its last turn was written

    def on_session_switch(self, new_session_id: str, **kwargs: Any) -> None:
        if self.learning and kwargs.get("reset"):
            self._send(self.session_id)
        self.session_id = new_session_id or self.session_id

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        """Send the session a moment later: Hermes writes the last turn in the background,
        often after it ends the session; a turn written meanwhile puts the send off again,
        and shutdown sends at once. So a session is one source, however often it ends."""
        if self.learning:
            self._send_soon()

    def _send_soon(self) -> None:
        if self._ending is not None:
            self._ending.cancel()
        self._ending = threading.Timer(SEND_AFTER_S, self._send, [self.session_id])
        self._ending.daemon = True
        self._ending.start()

    def _send(self, session_id: str) -> bool:
        """Hand the session's spooled turns to biomd; the spool goes once biomd has them.
        biomd keys them on the session id, so a second send is a continuation, never a
        duplicate."""
        path = self._spool(session_id)
        return path is not None and self._send_file(path, session_id)

    def _send_file(self, path: Path, session_id: str) -> bool:
        if not path.is_file():
            return False
        with self._spooling:
            lines = path.read_text(encoding="utf-8").splitlines()
        turns = []
        for line in lines:
            try:
                turn = json.loads(line)
            except ValueError:
                continue  # a line cut short by a crash
            turns.append({k: str(turn.get(k) or "") for k in ("at", "user", "assistant")})
        if turns:
            said = self._call(
                "keep_session",
                {"session": session_id, "client": "hermes", "turns": turns},
                CALL_TIMEOUT_S * 5,
            )
            if not said:
                return False  # kept on disk: sent at the session's end or the next start
        with self._spooling:  # turns written while biomd kept these stay for the next send
            try:
                rest = path.read_text(encoding="utf-8").splitlines()[len(lines) :]
                if rest:
                    path.write_text("\n".join(rest) + "\n", encoding="utf-8")
                else:
                    path.unlink(missing_ok=True)
            except OSError:  # another send took them first (biomd keeps each turn once)
                pass
        return True

    def _send_left_over(self) -> None:
        """Spools of sessions that ended without being kept (a process that died)."""
        if self.spool_dir is None or not self.spool_dir.is_dir():
            return
        mine = self._spool(self.session_id)
        for path in sorted(self.spool_dir.glob("*.jsonl")):
            if path != mine:
                self._send_file(path, _session_of(path))

    def shutdown(self) -> None:
        """Keep what the session's end missed (Hermes writes turns in the background and may
        end the session before the last is written), then stop biomd."""
        if self._ending is not None:
            self._ending.cancel()
        if self.learning:
            self._send(self.session_id)
        if self.child is not None:
            self.child.stop()


def register(ctx: Any) -> None:
    """Hermes's plugin entry: the provider."""
    ctx.register_memory_provider(BiomdMemoryProvider())

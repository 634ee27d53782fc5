"""Plugins, found through their `biomd` entry point as an installed package leaves it: the
example plugin (examples/biomd-line) adds a converter, a command and a setting; biomd's own
parts register through the same hooks; a broken plugin is set aside and biomd goes on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from biomd import plugins
from biomd.app.plugin_list import listed
from biomd.biographer.backend import backends
from biomd.frontends.platforms import frontends
from biomd.ingest.convert import chat_kinds, registry
from biomd.ingest.convert.text import PLAIN

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "biomd-line"

LINE_EXPORT = (
    "\ufeff[LINE] Chat history with Mai\n"
    "Saved on: 2024/01/15 10:30\n"
    "\n"
    "2024/01/14(Sun)\n"
    "09:12\tMai\tMorning! Did you book the ferry?\n"
    "09:15\tKen\tYes, the 11:40 to Hakodate\n"
    '09:16\tMai\t"Great.\n'
    'See you at the pier"\n'
    "\n"
    "2024/01/15(Mon)\n"
    "21:03\tKen\tHome safe. Thank you for a lovely weekend\n"
)


def test_biomds_own_parts_register_through_the_hooks_as_default_plugins() -> None:
    kinds = [c.kind for c in registry().converters]
    assert kinds[:3] == ["pdf", "docx", "whatsapp"]
    assert registry().converters[-1] is PLAIN, "plain text is the last resort"
    assert kinds.index("zip") > kinds.index("meta-export"), "a specific zip before any zip"
    assert chat_kinds() == {"whatsapp", "telegram", "imessage", "messenger", "discord"}
    assert set(backends()) == {"openai", "codex"}
    assert list(frontends()) == ["telegram", "discord", "web"]
    names = [p.name for p in listed() if p.builtin]
    assert names == list(plugins.DEFAULT_PLUGINS)
    import biomd.frontends.cli  # noqa: F401  (its commands register when it is imported)

    by_name = {p.name: p for p in listed()}
    assert by_name["biomd.biographer.backend"].registered == {"backends": ["openai", "codex"]}
    assert "whatsapp" in by_name["biomd.ingest.convert.builtin"].registered["converters"]
    assert "ingest" in by_name["biomd.frontends.commands"].registered["commands"]


def installed(site: Path, name: str, entry_points: str) -> None:
    """A distribution as pip leaves it in site-packages: its .dist-info, with its metadata and
    its entry points."""
    info = site / f"{name.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(entry_points)


def biomd_with(*paths: Path, data: Path) -> tuple[dict[str, str], list[str]]:
    """The environment and command of a `biomd` that sees the packages in `paths`."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, paths), env.get("PYTHONPATH", "")])
    env["BIOMD_DATA_DIR"] = str(data)
    return env, [str(Path(sys.executable).with_name("biomd"))]


def run(
    command: list[str], env: dict[str, str], *args: str, ok: bool = True, out: bool = False
) -> str:
    """What the command said (with `out`, its standard output alone)."""
    done = subprocess.run([*command, *args], env=env, capture_output=True, text=True, timeout=120)
    if ok:
        assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout if out else done.stdout + done.stderr


@pytest.mark.slow
def test_an_installed_plugin_adds_a_converter_a_command_and_a_setting(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    installed(site, "biomd-line", "[biomd]\nline = biomd_line\n")
    env, biomd = biomd_with(site, EXAMPLE, data=tmp_path / "data")
    export = tmp_path / "Chat with Mai.txt"
    export.write_text(LINE_EXPORT, encoding="utf-8")

    listing = json.loads(run(biomd, env, "plugins", "--json", out=True))
    assert listing == [
        {
            "name": "line",
            "version": "0.1.0",
            "builtin": False,
            "registers": {
                "converters": ["line"],
                "settings": ["BIOMD_LINE_OWNER"],
                "commands": ["line-check"],
            },
            "error": None,
        }
    ]
    assert "4 messages over 2 days (2024-01-14 to 2024-01-15)" in run(
        biomd, env, "line-check", str(export)
    )
    run(biomd, env, "config", "set", "BIOMD_LINE_OWNER", "Ken")
    assert "added" in run(biomd, env, "ingest", str(export), "--no-read", "--no-embed")
    text = run(biomd, env, "read", "1")
    assert "LINE chat: Mai" in text
    assert "[2024-01-14 09:15] Ken (owner): Yes, the 11:40 to Hakodate" in text
    assert "[2024-01-14 09:16] Mai: Great. ⏎ See you at the pier" in text
    kinds = run(
        [
            sys.executable,
            "-c",
            "from biomd.ingest.convert import chat_kinds; print(sorted(chat_kinds()))",
        ],
        env,
    )
    assert "'line'" in kinds, "the mirror reads the plugin's chats"


@pytest.mark.slow
def test_a_plugin_that_fails_is_set_aside_and_biomd_goes_on(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    site.mkdir()
    (site / "biomd_broken.py").write_text("raise RuntimeError('half-installed')\n")
    installed(site, "biomd-broken", "[biomd]\nbroken = biomd_broken\n")
    (site / "biomd_clumsy.py").write_text(
        "import biomd\n\n@biomd.hookimpl\ndef register_converters(register):\n"
        "    raise ValueError('no converter today')\n"
    )
    installed(site, "biomd-clumsy", "[biomd]\nclumsy = biomd_clumsy\n")
    env, biomd = biomd_with(site, data=tmp_path / "data")
    note = tmp_path / "note.txt"
    note.write_text("The kiln was fired on Sunday.")

    said = run(biomd, env, "ingest", str(note), "--no-read", "--no-embed")
    assert "added" in said
    assert "plugin broken could not be loaded: half-installed" in said
    listing = {p["name"]: p for p in json.loads(run(biomd, env, "plugins", "--json", out=True))}
    assert listing["broken"]["error"] == "half-installed"
    assert listing["clumsy"]["error"] == "register_converters: no converter today"


@pytest.mark.slow
def test_a_plugins_setting_is_unknown_without_the_plugin(tmp_path: Path) -> None:
    env, biomd = biomd_with(data=tmp_path / "data")
    said = run(biomd, env, "config", "set", "BIOMD_LINE_OWNER", "Ken", ok=False)
    assert "biomd has no setting BIOMD_LINE_OWNER" in said
    assert "No plugins are installed" in run(biomd, env, "plugins")


def test_the_docs_show_the_example_plugin_as_it_is() -> None:
    """docs/plugins.md holds the example's two files whole, so what a reader copies works."""
    doc = (ROOT / "docs" / "plugins.md").read_text()
    for name, fence in (("pyproject.toml", "toml"), ("biomd_line.py", "python")):
        text = (EXAMPLE / name).read_text().rstrip()
        assert f"```{fence}\n{text}\n```" in doc, f"{name} differs from docs/plugins.md"


ECHO_PLUGIN = '''
"""A chat platform of a plugin's: the owner's messages are lines of a file, the replies go
to another. Turned on by BIOMD_ECHO_INBOX."""

from pathlib import Path

from pydantic import BaseModel

import biomd
from biomd.frontends.platforms import Frontend
from biomd.plugins import settings_of


class EchoSettings(BaseModel):
    inbox: str = ""


class EchoChannel:
    platform = "echo"
    max_length = 1000
    local = False

    def __init__(self, outbox):
        self.outbox = outbox

    async def send(self, chat, text, buttons=()):
        with self.outbox.open("a") as f:
            f.write(text + "\\n---\\n")
        return "1"

    async def edit(self, chat, message, text):
        await self.send(chat, text)

    async def send_file(self, chat, name, data, caption=""):
        return await self.send(chat, f"[file {name}] {caption}")

    async def send_image(self, chat, name, png, caption=""):
        return await self.send(chat, f"[image {name}] {caption}")

    async def download(self, file_ref, dest):
        raise NotImplementedError


class Echo:
    def __init__(self, running):
        self.inbox = Path(settings_of("echo", EchoSettings).inbox)
        self.channel = EchoChannel(self.inbox.with_suffix(".replies"))
        self.assistant = running.assistant

    async def start(self):
        for line in self.inbox.read_text().splitlines():
            name, _, args = line.removeprefix("/").partition(" ")
            await self.assistant.on_command(self.channel, "me", name, args)
        self.inbox.with_suffix(".done").touch()

    async def stop(self):
        pass

    async def owner_chats(self):
        return ["me"]


@biomd.hookimpl
def register_frontends(register):
    register(Frontend("echo", lambda s: bool(settings_of("echo", EchoSettings).inbox), Echo))


@biomd.hookimpl
def register_settings(register):
    register(EchoSettings)


@biomd.hookimpl
def register_backends(register):
    from biomd.biographer.backend import OpenAIBackend

    class EchoBackend(OpenAIBackend):
        name = "echo"

    register("echo", EchoBackend)
'''


@pytest.mark.slow
def test_a_plugins_chat_platform_runs_beside_the_others_and_talks_to_the_assistant(
    tmp_path: Path, minilm_path: Path
) -> None:
    site = tmp_path / "site-packages"
    site.mkdir()
    (site / "biomd_echo.py").write_text(ECHO_PLUGIN)
    installed(site, "biomd-echo", "[biomd]\necho = biomd_echo\n")
    env, biomd = biomd_with(site, data=tmp_path / "data")
    env |= {"BIOMD_EMBED_MODEL": "sentence-transformers/all-MiniLM-L6-v2"}
    env |= {"BIOMD_EMBED_MODEL_PATH": str(minilm_path), "BIOMD_WEB": "false"}
    inbox = tmp_path / "inbox.txt"
    inbox.write_text("/help\n")
    run(biomd, env, "config", "set", "BIOMD_ECHO_INBOX", str(inbox))
    run(biomd, env, "config", "set", "llm_backend", "echo")
    (listed,) = json.loads(run(biomd, env, "plugins", "--json", out=True))
    assert listed["registers"] == {
        "backends": ["echo"],
        "frontends": ["echo"],
        "settings": ["BIOMD_ECHO_INBOX"],
    }

    proc = subprocess.Popen(
        [*biomd, "run"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        for _ in range(600):
            if inbox.with_suffix(".done").exists() or proc.poll() is not None:
                break
            time.sleep(0.1)
    finally:
        proc.terminate()
        said, _ = proc.communicate(timeout=60)
    assert inbox.with_suffix(".done").exists(), said
    assert "biomd is running on echo" in said
    replies = inbox.with_suffix(".replies").read_text()
    assert "/timeline" in replies and "/questions" in replies, replies

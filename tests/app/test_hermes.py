"""biomd as Hermes Agent's memory, end to end with the real `hermes-agent` from PyPI in a
venv of its own: `biomd hermes install` puts the provider where Hermes looks, Hermes's own
loader finds it, and through Hermes's MemoryManager it gives a portrait for the system
prompt, what bears on each message (with references), tools, and keeps the session once."""

from __future__ import annotations

import ast
import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from biomd.app.assistants import hermes
from biomd.app.assistants.mcp_config import launch
from biomd.biographer.profile_text import skeleton
from biomd.errors import BiomdError
from tests.support.assistant_home import data_dir, user_env
from tests.support.hermes_agent import PROBE, hermes_python

BIOMD = str(Path(sys.executable).with_name("biomd"))
SUMMARY = "A translator who ran the Bath half marathon and moved to Lisbon."


def test_install_writes_the_provider_and_how_to_start_biomd_and_uninstall_removes_it(
    tmp_path: Path,
) -> None:
    home = tmp_path / "hermes"
    done = hermes.install(home, launch(tmp_path / "data", {}), learn=False, notes=True)
    assert sorted(p.name for p in done.folder.iterdir()) == [
        "__init__.py",
        "biomd.json",
        "plugin.yaml",
    ]
    config = json.loads((done.folder / "biomd.json").read_text("utf-8"))
    assert config["command"][-2:] == ["--data-dir", str(tmp_path / "data")]
    assert config["learn"] is False and config["notes"] is True and config["env"] == {}
    tree = ast.parse((done.folder / "__init__.py").read_text("utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not [m for m in imported if m.startswith("biomd")], imported
    assert not hermes.selected(home)
    (home / "config.yaml").write_text("model: x\nmemory:\n  provider: biomd  # mine\n", "utf-8")
    assert hermes.selected(home)
    assert hermes.uninstall(home) == done.folder and not done.folder.exists()
    assert hermes.uninstall(home) is None


def test_another_plugin_called_biomd_is_left_alone(tmp_path: Path) -> None:
    theirs = hermes.plugin_folder(tmp_path)
    theirs.mkdir(parents=True)
    (theirs / "__init__.py").write_text("# someone else's", "utf-8")
    with pytest.raises(BiomdError, match="not biomd's"):
        hermes.install(tmp_path, launch(None, {}))
    with pytest.raises(BiomdError, match="not biomd's"):
        hermes.uninstall(tmp_path)
    assert (theirs / "__init__.py").read_text("utf-8") == "# someone else's"


def test_hermes_home_is_found_as_hermes_finds_it(tmp_path: Path) -> None:
    assert hermes.hermes_home(tmp_path / "given", {"HERMES_HOME": "/x"}) == tmp_path / "given"
    assert hermes.hermes_home(None, {"HERMES_HOME": str(tmp_path)}) == tmp_path
    assert hermes.hermes_home(None, {}).name in (".hermes", "hermes")


def _run(args: list[str], env: dict[str, str], **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=600, **kw)


def _sources(env: dict[str, str]) -> list[dict[str, Any]]:
    listed = _run([BIOMD, "sources", "--json"], env)
    assert listed.returncode == 0, listed.stderr
    return list(json.loads(listed.stdout))


@pytest.mark.slow  # builds (once, cached) a venv with hermes-agent from PyPI; biomd processes
async def test_the_real_hermes_loads_biomd_as_its_memory_and_keeps_a_session_once(
    tmp_path: Path, minilm_path: Path
) -> None:
    python = await asyncio.to_thread(hermes_python)
    assert python is not None, "hermes-agent could not be installed from PyPI"
    env = user_env(tmp_path, minilm_path)
    run = tmp_path / "2019-04-07.md"
    run.write_text("Ran the Bath half marathon today in 1:52. Still living in London.", "utf-8")
    added = await asyncio.to_thread(_run, [BIOMD, "ingest", str(run)], env)
    assert added.returncode == 0, added.stderr
    bio = data_dir(env) / "bio.md"
    bio.write_text(
        skeleton().replace(
            "## Summary\n_Nothing is known yet. This fills in as sources are read._",
            f"## Summary\n{SUMMARY} [#1]",
        ),
        "utf-8",
    )
    home = tmp_path / "hermes home"
    env = {**env, "PATH": f"{python.parent}{os.pathsep}{env['PATH']}", "HERMES_HOME": str(home)}
    installed = await asyncio.to_thread(
        _run, [BIOMD, "hermes", "install", "--select"], env, cwd=tmp_path
    )
    assert installed.returncode == 0, installed.stderr + installed.stdout
    assert "Hermes now uses biomd as its memory" in installed.stdout, installed.stdout
    spool = home / "biomd" / "spool"
    spool.mkdir(parents=True)
    left = {
        "at": "2026-12-01T09:00:00+0000",
        "user": "I adopted a cat, Biscuit",
        "assistant": "Lovely",
    }
    (spool / "dead-1.jsonl").write_text(json.dumps(left) + "\n", "utf-8")  # a process that died

    probe = await asyncio.to_thread(
        _run, [str(python), str(PROBE), "When did I run the half marathon?", "s-1"], env, cwd=home
    )
    assert probe.returncode == 0, probe.stderr[-3000:]
    got = json.loads(probe.stdout.strip().splitlines()[-1])
    assert got["listed"].get("biomd") is True and got["available"] is True
    assert SUMMARY in got["system_prompt"]
    assert "Ran the Bath half marathon today" in got["prefetch"] and "[#1 " in got["prefetch"]
    assert got["social"] == ""
    assert {"biomd_search", "biomd_profile"} <= set(got["tools"])
    assert "biomd_remember" not in got["tools"], "notes are off unless the owner allows them"
    assert "half marathon" in json.loads(got["search"])["result"]
    assert max(got["prefetch_s"]) < 3.0, got["prefetch_s"]

    sessions = [s for s in await asyncio.to_thread(_sources, env) if s["kind"] == "hermes"]
    assert len(sessions) == 2, sessions  # s-1 once, though ended twice; and the dead one
    texts = {
        s["name"]: (await asyncio.to_thread(_run, [BIOMD, "read", str(s["id"])], env)).stdout
        for s in sessions
    }
    mine = next(t for n, t in texts.items() if "s-1" in n)
    assert "And who is Inês?" in mine and "You ran it on 7 April 2019" in mine
    assert "memory-context" not in mine and "Ran the Bath half marathon today" not in mine
    assert any("I adopted a cat, Biscuit" in t for t in texts.values())
    assert not list(spool.glob("*.jsonl")), "every spool was kept, then removed"

    listed = await asyncio.to_thread(_run, [BIOMD, "assistants", "--json"], env)
    connected = json.loads(listed.stdout)
    assert connected["hermes"] and connected["hermes_selected"] is True
    seen = {s["client"]: s for s in connected["seen"]}
    assert seen["hermes-agent"]["calls"] >= 5, seen  # portrait, recalls, search, session
    shown = await asyncio.to_thread(_run, [BIOMD, "assistants"], env)
    assert "Hermes Agent: its memory" in shown.stdout and "hermes-agent" in shown.stdout

    removed = await asyncio.to_thread(_run, [BIOMD, "hermes", "uninstall"], env)
    assert removed.returncode == 0 and "Removed" in removed.stdout
    assert "still names biomd" in removed.stdout


def _provider(tmp_path: Path, command: list[str]) -> Any:
    """biomd's provider (as Hermes would load it), set up to start `command` as biomd."""
    from biomd.integrations import hermes as provider_module

    folder = tmp_path / "plugin"
    folder.mkdir()
    (folder / "biomd.json").write_text(json.dumps({"command": command, "learn": False}), "utf-8")
    provider = provider_module.BiomdMemoryProvider(folder)
    provider.initialize("s-1", hermes_home=str(tmp_path), agent_context="cron")
    return provider


def test_a_biomd_that_is_missing_dies_or_hangs_never_breaks_hermes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from biomd.integrations import hermes as provider_module

    monkeypatch.setattr(provider_module, "CALL_TIMEOUT_S", 0.3)
    monkeypatch.setattr(provider_module, "START_TIMEOUT_S", 0.6)
    missing = provider_module.BiomdMemoryProvider(tmp_path)
    assert missing.is_available() is False, "no biomd.json: not offered to Hermes at all"
    for name, command in (
        ("exits", [sys.executable, "-c", "pass"]),
        ("talks nonsense", [sys.executable, "-c", "import sys; print('hi'); sys.stdin.read()"]),
    ):
        folder = tmp_path / name
        folder.mkdir()
        provider = _provider(folder, command)
        assert provider.system_prompt_block() == ""
        provider._warm.set()  # as after the warm-up gave up
        assert provider.prefetch("When did I run the half marathon?") == ""
        said = json.loads(provider.handle_tool_call("biomd_search", {"query": "x"}))
        assert "error" in said, name
        assert "error" in json.loads(provider.handle_tool_call("biomd_remember", {"note": "x"}))
        provider.sync_turn("hello", "hi", session_id="s-1")  # not primary: nothing spooled
        assert not (folder / "biomd" / "spool").exists()
        provider.shutdown()

"""A child process in a group of its own, and the whole group stopped: a new session stopped
with killpg on POSIX, a new process group stopped with `taskkill /T` on Windows (which has
no killpg). Codex runs this way, so that stopping it stops the MCP server it started too."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from typing import Any


def own_group() -> dict[str, Any]:
    """The options that start a child in a group of its own, for this OS."""
    if os.name == "posix":
        return {"start_new_session": True}
    return {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}


def kill_group(pid: int) -> None:
    """Stop the process `pid` and every process in its group; one already gone is fine."""
    killpg = getattr(os, "killpg", None)
    if killpg is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            killpg(pid, signal.SIGKILL)
        return
    try:  # Windows: the process and its children
        subprocess.run(
            ["taskkill", "/F", "/T", "/PID", str(pid)], capture_output=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)  # TerminateProcess on Windows: the process alone

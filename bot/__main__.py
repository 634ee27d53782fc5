"""The process entry point: `biomd …`, or `python -m bot …`. Every command is bot/cli/'s."""

from __future__ import annotations

from bot.cli import app, main

__all__ = ["app", "main"]

if __name__ == "__main__":
    main()

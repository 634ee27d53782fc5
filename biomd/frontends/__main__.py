"""The process entry point: `biomd …`, or `python -m biomd.frontends …`. Every command is
biomd/frontends/cli/'s."""

from __future__ import annotations

from biomd.frontends.cli import app, main

__all__ = ["app", "main"]

if __name__ == "__main__":
    main()

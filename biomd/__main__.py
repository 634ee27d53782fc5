"""`python -m biomd …`: the same as the `biomd` command."""

from __future__ import annotations

from biomd.frontends.cli import main

if __name__ == "__main__":
    main()

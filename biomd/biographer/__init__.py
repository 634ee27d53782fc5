"""The biographer: one turn lifecycle (turn.py) on either backend (loop.py, codex_turn.py),
its tools defined once (tools.py), its turn over a new source (*reading*), and bio.md with
its edits, citations, revisions, consolidation and open questions."""

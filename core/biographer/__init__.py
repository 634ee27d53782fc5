"""The biographer: the agent loop, its tools and prompts, and bio.md with its revisions,
consolidation and open questions."""

"""Models: every call to a language or vision model, metered in `llm_usage` and held to the
daily spend limit, and the tool registry's shape (tools.py) that OpenAI schemas and MCP tools
are made from; the backend that chooses among them is biomd/biographer/backend.py."""

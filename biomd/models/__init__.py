"""Models: every call to a language or vision model, metered in `llm_usage` and held to the
daily spend limit; the backend, chosen once as an object that says what it can do, is in
biomd/biographer/backend.py; and the tool registry's shape (tools.py) from which OpenAI schemas
and MCP tools are made."""

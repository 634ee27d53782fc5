"""Models: every call to a language or vision model, metered in `llm_usage` and held to the
daily spend limit."""

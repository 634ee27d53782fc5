"""The front-ends: the CLI (its routing table in commands.py), Telegram, Discord, the terminal,
the web view, MCP, setup, doctor, the runner, the chat platforms (platforms.py, as plugins
register them) and the scheduler. They turn events into calls on biomd.app; no logic."""

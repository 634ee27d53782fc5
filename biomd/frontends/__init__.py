"""The front-ends: the CLI, Telegram, Discord, the terminal, the web view, MCP, setup, doctor,
the runner and the scheduler. They turn events into calls on biomd.app and hold no logic."""

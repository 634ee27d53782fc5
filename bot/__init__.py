"""Platform adapters (Telegram, Discord) and the scheduler. They call `core.engine` only."""

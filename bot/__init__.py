"""The front-ends: Telegram, Discord, the terminal, setup, doctor, the runner and the
scheduler. They translate events into `core` calls and hold no logic of their own."""

"""The app: the engine that wires every service, the assistant's commands, the job queue and
its handlers, reply texts, the outbox and channels, the memory API and the pictures."""

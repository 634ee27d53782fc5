"""The local web view: bio.md whole with its citations one click from their sources, the
history, the timeline and people pictures, the sources, the questions and the chat. It calls
the same Assistant, JobQueue and Engine as the bots."""

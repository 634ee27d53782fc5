"""The mirror: the patterns a person can't see in themselves, each with its evidence.
*Measured* (messages.py, dynamics.py, shifts.py, findings.py): from the time stamps of chat
messages alone, per person and month, and the sustained shifts in those series; no model,
any language. *Found* (candidates.py, judge.py, patterns.py): across years in the reader's
notes, candidates made by rules and judged by the model one small call at a time. care.py
keeps it to behaviour, never diagnosis. Pure functions; the app's mirror service does I/O."""

"""The mirror, one package: the patterns a person can't see in themselves, with evidence.
Measured (messages, dynamics, shifts, findings: pure; measured.py: I/O): time stamps alone,
per person and month. Found (candidates, judge, patterns: pure; judging.py: I/O): the notes,
judged one small call at a time. care.py keeps it to behaviour; service.py is its front."""

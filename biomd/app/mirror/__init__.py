"""The mirror, one package: the patterns a person can't see in themselves, with evidence.
Measured (messages, dynamics, shifts, findings: pure; measured.py: I/O): time stamps alone,
per person and month. Found (lines, line_cues, shapes, shape_questions, shape_statements:
pure; shape_pass.py: I/O): the shapes of patterns found by rules in the owner's own lines,
each decided by small yes/no questions. notes.py: the reader's notes as the mirror reads
them (open intentions, signs of crisis). care.py keeps it to behaviour; service.py is its
front."""

"""Sharing a portrait: bio.md written for an audience (someone close, a therapist, a
colleague, an assistant, the owner), with other people shown by role or initial, no source
text, and a final privacy scan. Pure functions, except the model's writing (writer.py)."""

"""Ingest: every source turned into plain text (by the converters biomd and its plugins
register, and transcription), split into chunks and written to the store."""

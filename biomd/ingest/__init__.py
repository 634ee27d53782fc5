"""Ingest: every source turned into plain text (conversion, transcription), split into chunks
and written to the store."""

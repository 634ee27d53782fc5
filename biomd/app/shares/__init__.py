"""Sharing a portrait: the files (HTML, Markdown, plain text) and the service that drafts,
scans, saves, lists and deletes them."""

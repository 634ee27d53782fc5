"""Retrieval: keyword (FTS5) and vector search fused into one ranked list, grep, reading a
source, and the embedding model behind the vectors."""

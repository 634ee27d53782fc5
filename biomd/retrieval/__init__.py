"""Retrieval: keyword (FTS5) and vector search fused into one ranked list, grep, reading a
source, the embedding model behind the vectors and the pipeline that embeds new chunks."""

"""biomd core engine: storage, conversion, chunking, embeddings and retrieval."""

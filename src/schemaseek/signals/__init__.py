"""Ranking signals: keyword (BM25), vector (HNSW), and the signals built on them."""

"""Benchmarks of GUMem: ingest, recall and LoCoMo retrieval (see bench/run_all.py)."""

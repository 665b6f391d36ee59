"""Benchmarks: Pressline against the raw-driver floor of its own stack (docs/benchmarks.md)."""

"""Benchmarks that print figures (not tests). Run them from the repository root: ``python -m bench.<name>``."""

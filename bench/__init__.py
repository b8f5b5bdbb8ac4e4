"""Benchmarks that print figures (not tests): run them with ``python -m bench.<name>``."""

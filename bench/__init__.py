"""Benchmarks that print figures (not tests). See bench/README.md for the commands."""

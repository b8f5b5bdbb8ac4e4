"""Developer scripts that are neither tests nor benchmarks (``python -m scripts.<name>``)."""

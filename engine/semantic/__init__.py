"""Vectors of messages: the SQLite tables, the embedding queue and worker, and the search indexes.

- :mod:`engine.semantic.schema`: migration ``m002_vectors`` (``vectors`` and ``embed_queue`` tables);
- :mod:`engine.semantic.rows`: reading and writing those tables, and what text of a message is embedded;
- :mod:`engine.semantic.worker`: the one background thread that drains the queue in batches;
- :mod:`engine.semantic.exact`: exact float32 top-k (the recent tier, and small archives);
- :mod:`engine.semantic.annoyindex`: per-session Annoy files over the archive (caches, rebuilt at will);
- :mod:`engine.semantic.crossindex`: every session's vectors in memory as int8, for searches over all;
- :mod:`engine.semantic.columns`: what a search filter reads of the messages behind vectors.
"""

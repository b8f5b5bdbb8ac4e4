"""Vectors of messages: the SQLite tables, the embedding queue and worker, and the search indexes.

- :mod:`engine.vectors.schema`: migration ``m002_vectors`` (``vectors`` and ``embed_queue`` tables);
- :mod:`engine.vectors.rows`: reading and writing those tables, and what text of a message is embedded;
- :mod:`engine.vectors.worker`: the one background thread that drains the queue in batches;
- :mod:`engine.vectors.exact`: exact float32 top-k (the recent tier, and small archives);
- :mod:`engine.vectors.annoyindex`: per-session Annoy files over the archive (caches, rebuilt at will).
"""

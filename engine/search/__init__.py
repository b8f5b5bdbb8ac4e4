"""Search over the archive: query parsing, keyword (BM25 over FTS5), the context index, hybrid fusion."""

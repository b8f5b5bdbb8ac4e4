"""Search over the archive, one pipeline (:class:`engine.search.service.Search` conducts it).

- :mod:`engine.search.query`: a query, cleaned and parsed once (terms, phrases, CJK runs, sender names);
- :mod:`engine.search.keyword`: its terms and their routes by script, the stop words;
- :mod:`engine.search.bm25`: the one BM25 (FTS5's formulas, with column weights);
- :mod:`engine.search.fulltext`: plain keyword ranking over the FTS5 tables;
- :mod:`engine.search.context`: the context index (each message between its neighbours) and its ranking;
- :mod:`engine.search.hybrid`: the fusion of the keyword and vector rankings;
- :mod:`engine.search.pipeline`: hits, argument checks, keyword search and the ``chat_history`` tool's phrase search;
- :mod:`engine.search.schema`: migration ``m008_cjk_bopomofo``.

The vectors' ranking is :mod:`engine.semantic`'s; which characters are CJK is :mod:`engine.cjk`'s.
"""

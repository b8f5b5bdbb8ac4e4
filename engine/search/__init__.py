"""Search over the archive, one pipeline (:class:`engine.search.conductor.Search` conducts it).

- :mod:`engine.search.hits`: what a search is asked (match, scope, limit: checked) and what it returns;
- :mod:`engine.search.query`: a query, cleaned and parsed once (terms, phrases, CJK runs, sender names);
- :mod:`engine.search.terms`: the query parser's terms and their routes by script, the stop words;
- :mod:`engine.search.bm25`: the one BM25 (FTS5's formulas, with column weights);
- :mod:`engine.search.fulltext`: plain keyword ranking over the FTS5 tables;
- :mod:`engine.search.context`: the context index (each message between its neighbours) and its ranking;
- :mod:`engine.search.fusion`: the fusion of the keyword and vector rankings (weights, sender boost);
- :mod:`engine.search.conductor`: :class:`~engine.search.conductor.Search`, which runs a search through the others;
- :mod:`engine.search.keyword_ranker`: keyword search (BM25 hits by the session's cut) and the ``chat_history``
  tool's phrase search;
- :mod:`engine.search.migrations`: migration ``m008_cjk_bopomofo``.

The vectors' ranking is :mod:`engine.semantic`'s; which characters are CJK is :mod:`engine.cjk`'s.
The public face (for the desktop app): what a search accepts.
"""

from __future__ import annotations

from engine.search.hits import MATCHES, MAX_LIMIT

__all__ = ["MATCHES", "MAX_LIMIT"]

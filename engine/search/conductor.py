"""Search, one component: :class:`Search` conducts keyword, semantic and hybrid search for the facade.

A query is parsed once (:func:`engine.search.query.parse`). Keyword search ranks it by BM25 over the
FTS5 tables (:mod:`engine.search.keyword_ranker`). Semantic search asks the vectors
(:meth:`engine.semantic.tier.SemanticTier.search_vectors`) for ``(id, cosine)`` of what is embedded now (a
search never waits for the embedding backlog) and keeps those at the embedder's similarity floor or above
(:mod:`engine.semantic.floors`): a result list holds only matches. Hybrid
search puts three rankings side by side — the context index (each message between its neighbours,
:mod:`engine.search.context`), plain keyword search and the vectors — and fuses them
(:mod:`engine.search.fusion`), with the weights of the query's script. While no message has a vector,
semantic and hybrid search load no model and rank nothing by vectors; without a usable embedder, hybrid
search says so in the log and fuses the keyword rankings alone. A search's
:class:`~engine.messages.MessageFilter` goes into every ranking (the keyword SQL, the vectors' mask), so each
list holds its best among the admitted messages, not the admitted few of its best.

Each mode ranks once, at a fixed depth, and a search's ``limit`` takes the first hits of that ranking: the
ranking never depends on the page size or on how deep a caller pages, so a search of N hits is the first
N of a search of 10N and pages of one ranking hold each hit once. Keyword search ranks
:data:`engine.search.fulltext.RERANK` candidates, semantic search the :data:`RANK_DEPTH` nearest vectors,
hybrid search fuses lists of :data:`engine.search.fusion.DEPTH` each (the depth its weights were set at)
and, past those, the rest of a fusion of lists of :data:`RANK_DEPTH`.

It is also an :class:`engine.sessions.listeners.ArchiveListener`: the context index follows the archive
through the same hooks as the vectors (a new message gets its row and becomes its previous message's
``next``, a forgotten one is cut out with its neighbours joined, a cleared session loses its rows).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence, Set
from dataclasses import dataclass, replace

from engine.errors import InvalidInput, VectorIndexError
from engine.messages import EVERY_MESSAGE, Message, MessageFilter
from engine.search import context as contextfts
from engine.search import fusion, keyword_ranker
from engine.search.hits import MAX_LIMIT, Hit, SearchResult
from engine.search.query import Query, parse
from engine.semantic import floors
from engine.semantic.tier import SemanticTier
from engine.sessions import archive
from engine.storage.sql import Connection, in_chunks
from engine.storage.store import Store

log = logging.getLogger("memtray.search")

Ranking = list[tuple[int, float]]


def kind_of(by_words: bool, by_meaning: bool) -> str:
    """What a hybrid hit's score stands for: ``keyword``, ``meaning`` or ``both``."""
    return "both" if by_words and by_meaning else "meaning" if by_meaning else "keyword"


@dataclass(frozen=True)
class Request:
    """What one semantic or hybrid search asks, as every ranking of it reads it.

    Attributes:
        query: the parsed query.
        session: one session, or None for every session.
        scope: ``recent`` (since the compaction cut) or ``all`` (the archive too).
        where: which messages may be ranked (applied before each ranking takes its best).
    """

    query: Query
    session: str | None
    scope: str
    where: MessageFilter


RANK_DEPTH = MAX_LIMIT
"""How many nearest vectors semantic search ranks, whatever its limit (the most a search may return)."""


class _Archive:
    """What the fusion reads of the messages it ranks (:class:`engine.search.fusion.Around`), from the
    archive (the fused messages are read once for their senders and send times)."""

    def __init__(self, search: Search) -> None:
        self._search = search
        self._read: dict[int, Message] = {}

    def sessions(self, ids: Set[int]) -> dict[int, str]:
        return self._search._sessions_of(set(ids))

    def turns(self, ids: Set[int]) -> dict[int, fusion.Turn]:
        return self._search._turns(set(ids))

    def _messages(self, ids: Sequence[int]) -> dict[int, Message]:
        missing = [i for i in ids if i not in self._read]
        if missing:
            self._read.update(self._search._messages(missing))
        return {i: self._read[i] for i in ids if i in self._read}

    def named(self, ids: Sequence[int], query: Query) -> set[int]:
        return fusion.named_among({i: m.sender for i, m in self._messages(ids).items()}, query)

    def sent(self, ids: Sequence[int]) -> dict[int, int]:
        return {i: m.send_at for i, m in self._messages(ids).items()}


class Search:
    """Keyword, semantic and hybrid search over one store (``semantic``: its vectors, if loaded)."""

    def __init__(self, store: Store, semantic: SemanticTier | None) -> None:
        self._store = store
        self._semantic = semantic
        with store.read() as conn:
            self._context = contextfts.exists(conn)

    # -- searching --------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        session: str | None,
        match: str,
        scope: str,
        where: MessageFilter,
        limit: int,
        coverage: bool = False,
    ) -> SearchResult:
        """Search (arguments checked by the caller; see ``Memory.search``) among the messages ``where``
        admits, applied before each ranking takes its best; with ``coverage``, also count how much of the
        session (or of all) the vectors covered (semantic and hybrid search).

        Raises:
            InvalidInput: semantic or hybrid search without the semantic tier.
            VectorIndexError: semantic search without a usable embedder (hybrid falls back to keywords).
        """
        parsed = parse(query)
        if match == "keyword":
            with self._store.read() as conn:
                hits = keyword_ranker.keyword_search(
                    conn,
                    parsed,
                    session_id=session,
                    scope=scope,
                    where=where,
                    limit=limit,
                    tables=self._store.fts_tables,
                )
            return SearchResult(tuple(hits), None)
        semantic = self._semantic
        if semantic is None:
            raise InvalidInput(f"{match} search needs the semantic tier, which is not loaded")
        request = Request(parsed, session, scope, where)
        if match == "semantic":
            pairs, embedder_id = self._vectors(semantic, request, RANK_DEPTH)
            hits = self._hits(pairs, where, limit, "semantic", kind="meaning")
        else:
            hits, embedder_id = self._hybrid(semantic, request, limit)
        counted = semantic.coverage(session, embedder_id) if coverage else None
        return SearchResult(tuple(self._passages(semantic, parsed, hits)), counted)

    def _passages(self, semantic: SemanticTier, query: Query, hits: list[Hit]) -> list[Hit]:
        """The hits found by meaning, each naming the passage of its message that matched (messages
        embedded as several passages; :meth:`SemanticTier.best_passages`)."""
        meant = [h.message.id for h in hits if h.kind != "keyword" and h.message.id is not None]
        if not meant:
            return hits
        try:
            spans = semantic.best_passages(query.text, meant)
        except VectorIndexError:  # ranked already: the hits stand without their passages
            return hits
        return [replace(h, passage=spans.get(h.message.id or 0)) if h.kind != "keyword" else h for h in hits]

    def _vectors(self, semantic: SemanticTier, request: Request, depth: int) -> tuple[Ranking, str | None]:
        """The semantic ranking of what is embedded, only the messages at the embedder's similarity floor or
        above (:mod:`engine.semantic.floors`), and the embedder's id; nothing (and no model loaded) while no
        message has a vector.

        Raises:
            VectorIndexError: the embedder did not load in time.
        """
        ranked, base, embedder_id = self._meaning(semantic, request, depth)
        if embedder_id is None:
            return [], None
        return floors.above(ranked, embedder_id, base), embedder_id

    def _meaning(
        self, semantic: SemanticTier, request: Request, depth: int
    ) -> tuple[Ranking, float | None, str | None]:
        """The ``depth`` nearest messages without floors, the query's cosine with the centroid of the
        vectors, and the embedder's id (nothing while no message has a vector).

        Raises:
            VectorIndexError: the embedder did not load in time.
        """
        if not semantic.has_vectors():
            return [], None, None
        embedder_id = semantic.embedder().id
        ranked, base = semantic.search_meaning(
            request.query.text, session=request.session, scope=request.scope, k=depth, where=request.where
        )
        return ranked, base, embedder_id

    def _hybrid(self, semantic: SemanticTier, request: Request, limit: int) -> tuple[list[Hit], str | None]:
        """The first ``limit`` hits of one fused ranking: the fusion of lists of :data:`fusion.DEPTH` (the
        depth its weights were set at), then, for a caller who pages past those, the rest of the fusion of
        lists of :data:`RANK_DEPTH` (fused alike, without the hits already ranked). Both depths are fixed,
        so the ranking does not depend on the limit."""
        try:
            embedder_id = semantic.embedder().id if semantic.has_vectors() else None
        except VectorIndexError as exc:
            log.warning("hybrid search without vectors (%s): keyword results only", exc)
            embedder_id = None
        head, kinds = self._fused(semantic, request, fusion.DEPTH, embedder_id)
        hits = self._hits(head, request.where, limit, "hybrid", kinds=kinds)
        if len(hits) < limit and len(head) >= fusion.DEPTH:
            shown = {i for i, _ in head}
            deeper, kinds = self._fused(semantic, request, RANK_DEPTH, embedder_id)
            tail = [(i, score) for i, score in deeper if i not in shown]
            hits += self._hits(tail, request.where, limit - len(hits), "hybrid", kinds=kinds)
        return hits, embedder_id

    def _fused(
        self, semantic: SemanticTier, request: Request, depth: int, embedder_id: str | None
    ) -> tuple[Ranking, dict[int, str]]:
        """The fusion of the three rankings, each ``depth`` deep, the named senders preferred; and each
        fused message's kind of match (``keyword``, ``meaning`` or ``both``)."""
        query = request.query
        context, plain = self.keyword_ranking(
            query, session=request.session, scope=request.scope, where=request.where, depth=depth
        )
        ranked: Ranking = []
        pairs: Ranking = []
        if embedder_id is not None:
            # with the neighbours' cosines or hand-on, the nearest RANK_DEPTH (a message's neighbours count)
            chosen = fusion.weights(query, embedder_id)
            deepest = RANK_DEPTH if chosen.neighbours > 0 or chosen.hands_on else depth
            try:
                ranked, base, embedder_id = self._meaning(semantic, request, max(depth, deepest))
                pairs = floors.above(ranked, embedder_id, base) if embedder_id is not None else []
            except VectorIndexError as exc:
                log.warning("hybrid search without vectors (%s): keyword results only", exc)
                ranked, pairs, embedder_id = [], [], None
        combined = fusion.combine(
            query,
            embedder_id,
            context=context,
            plain=plain,
            ranked=ranked,
            passed=pairs,
            depth=depth,
            around=_Archive(self),
        )
        kinds = {i: kind_of(i in combined.worded, i in combined.meant) for i, _ in combined.ranking}
        return combined.ranking, kinds

    def keyword_ranking(
        self,
        query: Query | str,
        *,
        session: str | None,
        scope: str,
        depth: int,
        where: MessageFilter = EVERY_MESSAGE,
    ) -> tuple[Ranking, Ranking]:
        """The keyword sides of hybrid search as ``(id, score)``, best first: (context, plain keyword), of
        the messages ``where`` admits.

        Plain matches are keyword search (words and CJK). Context matches read each message between its
        neighbours: for a query without CJK text, from ``context_fts`` (speakers named; words only); for one
        with CJK text, the plain matches with their neighbours' scores taken in
        (:func:`engine.search.context.neighbour_ranking`; the neighbours of any role and sender count, as
        without a filter).
        """
        parsed = parse(query) if isinstance(query, str) else query
        with self._store.read() as conn:

            def plain_ranking(among: MessageFilter) -> Ranking:
                return [
                    (h.message.id or 0, h.score)
                    for h in keyword_ranker.keyword_search(
                        conn,
                        parsed,
                        session_id=session,
                        scope=scope,
                        where=among,
                        limit=depth,
                        tables=self._store.fts_tables,
                    )
                ]

            plain = plain_ranking(where)
            if parsed.has_cjk:
                anyone = where.without_people()
                ranked = contextfts.neighbour_ranking(
                    conn, plain if anyone == where else plain_ranking(anyone)
                )
            elif not self._context:
                return [], plain
            else:
                key = archive.known_key(conn, session) if session is not None else None
                if session is not None and key is None:
                    return [], plain
                ranked = contextfts.search(
                    conn, parsed, session_key=key, session_id=session, where=where, limit=depth * 2 + 50
                )
            cuts = keyword_ranker.start_ids(conn, session)
            found = archive.by_ids(conn, [i for i, _ in ranked])
        words: Ranking = []
        for message_id, score in ranked:
            message = found.get(message_id)
            if message is None or not where.admits(message):
                continue
            if scope == "recent" and message_id < cuts.get(message.session or "", 0):
                continue
            words.append((message_id, score))
            if len(words) >= depth:
                break
        return words, plain

    def seed_keyword_search(
        self, session: str, keyword_text: str, *, after_ns: int, limit: int
    ) -> tuple[list[Hit], list[Hit]]:
        """The ``chat_history`` tool's keyword mode: (archive hits, recent hits), newest first."""
        with self._store.read() as conn:
            return keyword_ranker.seed_keyword_search(
                conn,
                parse(keyword_text),
                session_id=session,
                after_ns=after_ns,
                limit=limit,
                tables=self._store.fts_tables,
            )

    def _sessions_of(self, ids: set[int]) -> dict[int, str]:
        """The session of each message id."""
        found: dict[int, str] = {}
        ordered = sorted(ids)
        with self._store.read() as conn:
            for chunk, marks in in_chunks(ordered):
                rows = conn.execute(f"SELECT id, session_id FROM messages WHERE id IN ({marks})", chunk)
                found.update((int(i), str(sid)) for i, sid in rows.all())
        return found

    def _turns(self, ids: set[int]) -> dict[int, fusion.Turn]:
        """The session, role and question mark of each message id (:func:`engine.search.fusion.handed_on`)."""
        found = self._messages(sorted(ids))
        return {i: fusion.Turn(m.session or "", m.role, fusion.asks(m.content)) for i, m in found.items()}

    def _messages(self, ids: list[int]) -> dict[int, Message]:
        with self._store.read() as conn:
            return archive.by_ids(conn, ids)

    def _hits(
        self,
        pairs: Ranking,
        where: MessageFilter,
        limit: int,
        source: str,
        *,
        kind: str = "keyword",
        kinds: dict[int, str] | None = None,
    ) -> list[Hit]:
        found = self._messages([i for i, _ in pairs[: limit * 4 + 50]])
        hits: list[Hit] = []
        for message_id, score in pairs:
            message = found.get(message_id)
            if message is None or not where.admits(message):
                continue
            hits.append(Hit(message, float(score), source, (kinds or {}).get(message_id, kind)))
            if len(hits) >= limit:
                break
        return hits

    # -- the context index follows the archive (ArchiveListener hooks) ---------------------------

    def messages_added(self, conn: Connection, messages: Sequence[Message]) -> None:
        if self._context:
            contextfts.add(conn, messages)

    def session_compacted(self, session: str, start_id: int) -> None:
        """Nothing to do: the context index holds every archived message, before the cut or after it."""

    def session_cleared(self, conn: Connection, session: str) -> None:
        if self._context:
            contextfts.clear_session(conn, session)

    def message_forgotten(self, conn: Connection, session: str, message_id: int) -> None:
        """Remove the message's row and join its neighbours' rows around the gap."""
        if self._context:
            contextfts.forget(conn, session, message_id)

    def wait_idle(self, timeout: float | None) -> bool:
        return True

    def close(self) -> None:
        """Nothing to stop: search has no background work."""

"""The error memory: :class:`ErrorMemory`, global across sessions, in the one SQLite database.

Open it with :meth:`ErrorMemory.open` (the facade does: ``mem.errors``). Records live 90 days after their
last write or hit. Searching tries vectors first, keeping only hits at or above the embedder's similarity
floor (:mod:`engine.errormemory.vectors`), and falls back to keywords (:mod:`engine.errormemory.lexical`)
when vectors are off or find nothing. Results are the best ``limit`` records, shown newest first.

The embedder is a constructor parameter: an :class:`~engine.embedders.Embedder`, or a callable returning
one (or None while none is loaded), so the app can hand over its lazily loaded model. Records written
while no embedder is available get their vectors from :meth:`ErrorMemory.embed_missing`, which the
hourly :meth:`ErrorMemory.purge_expired` job also runs.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from engine.clock import Clock, system_clock
from engine.embedders import Embedder
from engine.errormemory import lexical, rows, schema, vectors
from engine.errormemory.records import (
    ERROR_TYPE_PREFIX,
    MAX_KEYWORDS,
    TTL_NS,
    Draft,
    ErrorRecord,
    check,
    dedupe_key,
    record_id,
    tagged_keywords,
)
from engine.errors import AmbiguousId, InvalidInput, NotFound
from engine.search.query import clean
from engine.sessions import identity, tombkeys, tombstones

if TYPE_CHECKING:
    from engine.storage.sql import Connection
    from engine.storage.store import Store

log = logging.getLogger("memtray.errormemory")

DEFAULT_LIMIT = 4
MAX_LIMIT = 16
MIN_PREFIX = 8
NO_KEYWORD = "keyword is required when tool is not specified"
_HEX = re.compile(r"[0-9a-f]+")

EmbedderSource = Callable[[], Embedder | None]


@dataclass(frozen=True)
class Remembered:
    """The result of a write.

    Attributes:
        record: the record as stored.
        refreshed: True when the write matched an existing record (same tool, symptom and action), which
            was refreshed instead of adding a second one.
    """

    record: ErrorRecord
    refreshed: bool


def clamp_limit(limit: int | None) -> int:
    """The original's rule: ≤ 0 (or None) becomes 4, anything above 16 becomes 16."""
    if limit is None or limit <= 0:
        return DEFAULT_LIMIT
    return min(int(limit), MAX_LIMIT)


class ErrorMemory:
    """Remembered tool errors and their fixes."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock = system_clock,
        embedder: Embedder | EmbedderSource | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.tomb_keys: tombkeys.TombKeys | None = None
        """The keys a forgotten record's tombstone is made under (the memory hands them in)."""
        if embedder is None or isinstance(embedder, Embedder):
            fixed = embedder
            self._embedder: EmbedderSource = lambda: fixed
        else:
            self._embedder = embedder
        self._cache = vectors.VectorCache()
        self.fts_tables = store.write_if_needed(
            lambda conn: set(schema.ensure_fts(conn, store.features.tokenizers))
        )

    @classmethod
    def open(
        cls, store: Store, *, clock: Clock = system_clock, embedder: Embedder | EmbedderSource | None = None
    ) -> ErrorMemory:
        """The error memory of ``store``, with expired records purged."""
        errors = cls(store, clock=clock, embedder=embedder)
        with store.read() as conn:
            expired = rows.any_expired(conn, errors.clock())
        if expired:  # else no write: opening the memory to read takes no write lock
            errors.purge()
        return errors

    def embedder(self) -> Embedder | None:
        """The embedder in use now, or None (then search uses keywords only)."""
        try:
            return self._embedder()
        except Exception:
            log.exception("the error memory's embedder could not be loaded; using keywords only")
            return None

    # -- writing ----------------------------------------------------------------------------------

    def remember(
        self,
        tool_name: str,
        symptom: str,
        action: str,
        outcome: str,
        *,
        cause: str = "",
        keywords: Sequence[str] = (),
    ) -> Remembered:
        """Remember a tool error and what was done about it.

        A write with the same tool, normalised symptom and action as an existing record refreshes that
        record (its expiry, outcome, cause if given, and keywords merged) instead of adding one.

        Args:
            tool_name: the tool that failed (no spaces, at most 128 characters).
            symptom: what went wrong (at most 8 KiB).
            action: what was done (at most 8 KiB).
            outcome: ``resolved``, ``failed`` or ``abandoned``.
            cause: why, if known (at most 8 KiB).
            keywords: up to 32 keywords; ``error_type:<class>`` is added.

        Raises:
            InvalidInput: bad input; nothing is stored.
            StorageError: the database failed.
        """
        draft = check(tool_name, symptom, action, outcome, cause, keywords)
        embedder = self.embedder()
        now = self.clock()
        key = dedupe_key(draft.tool_name, draft.symptom, draft.action)
        with self.store.write() as conn:
            existing = rows.by_dedupe(conn, key)
            if existing is None:
                num, record = self._insert(conn, draft, key, now)
            else:
                num, record = existing[0], self._merged(existing[1], draft, now)
                rows.update(conn, num, record)
            if embedder is not None:
                self._embed(conn, embedder, num, record)
        log.info(
            "%s error record %s of tool %s (%s)",
            "refreshed" if existing else "remembered",
            record.id[:12],
            record.tool_name,
            record.outcome,
        )
        return Remembered(record, existing is not None)

    def _insert(self, conn: Connection, draft: Draft, key: str, now: int) -> tuple[int, ErrorRecord]:
        ns = now
        while rows.id_taken(conn, record_id(draft.tool_name, ns)):
            ns += 1  # two records of one tool in the same nanosecond (a frozen test clock)
        record = ErrorRecord(
            id=record_id(draft.tool_name, ns),
            tool_name=draft.tool_name,
            keywords=draft.keywords,
            symptom=draft.symptom,
            cause=draft.cause,
            action=draft.action,
            outcome=draft.outcome,
            created_at=now,
            expires_at=now + TTL_NS,
        )
        return rows.insert(conn, record, key), record

    @staticmethod
    def _merged(old: ErrorRecord, draft: Draft, now: int) -> ErrorRecord:
        cause = draft.cause or old.cause
        own = [k for k in (*draft.keywords, *old.keywords) if not k.startswith(ERROR_TYPE_PREFIX)]
        keywords = tagged_keywords(own[:MAX_KEYWORDS], old.symptom, cause)
        return replace(
            old, keywords=tuple(keywords), cause=cause, outcome=draft.outcome, expires_at=now + TTL_NS
        )

    def _embed(self, conn: Connection, embedder: Embedder, num: int, record: ErrorRecord) -> None:
        content = vectors.record_text(record)
        hashed = vectors.text_hash(content)
        if vectors.stored_hash(conn, num, embedder.id) == hashed:
            return
        try:
            vector = embedder.encode_documents([content])[0]
        except Exception:
            log.exception("could not embed error record %s; it is stored without a vector", record.id[:12])
            return
        vectors.save(conn, num, embedder, vector, hashed)

    def embed_missing(self, limit: int = 256) -> int:
        """Embed up to ``limit`` live records that have no vector of the current embedder; return how many."""
        embedder = self.embedder()
        if embedder is None:
            return 0
        now = self.clock()
        with self.store.read() as conn:
            nums = vectors.missing(conn, embedder.id, now, limit)
            found = rows.fetch(conn, nums, now)
        if not found:
            return 0
        texts = [vectors.record_text(found[n]) for n in found]
        try:
            matrix = embedder.encode_documents(texts)
        except Exception:
            log.exception("could not embed %d error records", len(texts))
            return 0
        with self.store.write() as conn:
            for (num, _record), content, vector in zip(found.items(), texts, matrix, strict=True):
                vectors.save(conn, num, embedder, vector, vectors.text_hash(content))
        log.info("embedded %d error records with %s", len(found), embedder.id)
        return len(found)

    # -- reading ----------------------------------------------------------------------------------

    def search(
        self, query: str, *, tool_name: str | None = None, limit: int | None = None, use_vectors: bool = True
    ) -> list[ErrorRecord]:
        """Records related to ``query`` (an error text or keywords), newest first; each hit is refreshed.

        Vectors first: records at or above the embedder's similarity floor, best first. If vectors are off
        or find nothing, the keyword fallback. With a tool and no query: that tool's newest records.

        Args:
            query: an error text or keywords (may be empty when ``tool_name`` is given).
            tool_name: only this tool's records.
            limit: 4 by default; at most 16 (the original's clamp).
            use_vectors: False to use the keyword fallback only.

        Raises:
            InvalidInput: both ``query`` and ``tool_name`` are empty.
        """
        query = clean(query).strip()  # the search's own cleaning (engine.search.query), then no blanks
        tool = tool_name.strip() if tool_name else None
        tool = tool or None
        limit = clamp_limit(limit)
        if not query and tool is None:
            raise InvalidInput(NO_KEYWORD)
        now = self.clock()
        embedder = self.embedder() if use_vectors and query else None
        with self.store.read() as conn:
            found: dict[int, ErrorRecord] = {}
            searched = False  # did vectors really get a say (query embedded, vectors present)?
            if embedder is not None:
                found, searched = self._vector_hits(conn, embedder, query, tool, now, limit)
            if not found:
                if query:
                    strict = searched
                    nums = lexical.keyword_search(
                        conn, query, tool, now, self.fts_tables, limit, strict=strict
                    )
                    found = rows.fetch(conn, nums, now)
                else:
                    found = dict(rows.newest(conn, now, tool_name=tool, limit=limit))
        return self._hit(found)

    def _vector_hits(
        self, conn: Connection, embedder: Embedder, query: str, tool: str | None, now: int, limit: int
    ) -> tuple[dict[int, ErrorRecord], bool]:
        """Live records at or above the floor, best first, and whether vectors could be searched at all."""
        try:
            probe = embedder.encode_query(query)
        except Exception:
            log.exception("could not embed an error-memory query; using keywords")
            return {}, False
        matrix = self._cache.matrix(conn, embedder)
        if not len(matrix.nums):
            return {}, False
        ranked = [n for n, _ in vectors.nearest(matrix, probe, vectors.floor_for(embedder.id), tool)]
        found: dict[int, ErrorRecord] = {}
        for start in range(0, len(ranked), limit * 4):
            chunk = ranked[start : start + limit * 4]
            live = rows.fetch(conn, chunk, now)  # expired rows are skipped
            for num in chunk:
                if num in live and len(found) < limit:
                    found[num] = live[num]
            if len(found) >= limit:
                break
        return found, True

    def _hit(self, found: dict[int, ErrorRecord]) -> list[ErrorRecord]:
        """Refresh the expiry of hits and return them newest first."""
        if not found:
            return []
        expires = self.clock() + TTL_NS
        with self.store.write() as conn:
            rows.refresh(conn, found, expires)
        hits = [replace(r, expires_at=expires) for r in found.values()]
        hits.sort(key=lambda r: (r.created_at, r.id), reverse=True)
        return hits

    def read(self, id_prefix: str) -> ErrorRecord:
        """The record whose id starts with ``id_prefix`` (≥ 8 hex characters); the read refreshes it.

        Raises:
            InvalidInput: not hex, or shorter than 8 characters.
            NotFound: no live record has such an id.
            AmbiguousId: more than one record does (``candidates`` names them).
        """
        num, record = self._one(id_prefix)
        return self._hit({num: record})[0]

    def _one(self, id_prefix: str) -> tuple[int, ErrorRecord]:
        prefix = id_prefix.strip().lower()
        if not prefix or len(prefix) > 64 or not _HEX.fullmatch(prefix):
            raise InvalidInput(f"an error id is 8 to 64 hex characters (0-9, a-f), not {id_prefix[:80]!r}")
        if len(prefix) < MIN_PREFIX:
            raise InvalidInput(f"give at least {MIN_PREFIX} characters of the error id, not {len(prefix)}")
        with self.store.read() as conn:
            matches = rows.by_prefix(conn, prefix, self.clock())
        if not matches:
            raise NotFound(f"no error record with id {prefix}")
        if len(matches) > 1:
            ids = [r.id for _, r in matches]
            raise AmbiguousId(
                f"error id {prefix} matches {len(ids)} records: "
                + ", ".join(i[:16] for i in ids)
                + "; give more characters",
                ids,
            )
        return matches[0]

    def records(self, *, tool_name: str | None = None, limit: int = 50, offset: int = 0) -> list[ErrorRecord]:
        """Live records, newest first (listing does not refresh them)."""
        with self.store.read() as conn:
            found = rows.newest(
                conn,
                self.clock(),
                tool_name=tool_name or None,
                limit=max(1, min(limit, 10_000)),
                offset=offset,
            )
        return [record for _, record in found]

    def count(self) -> int:
        """How many live records there are."""
        with self.store.read() as conn:
            return rows.count(conn, self.clock())

    # -- deleting ---------------------------------------------------------------------------------

    def forget(self, id_prefix: str) -> ErrorRecord:
        """Delete the record with this id prefix; return it.

        Raises:
            InvalidInput, NotFound, AmbiguousId: as :meth:`read`.
        """
        num, record = self._one(id_prefix)
        with self.store.write() as conn:
            dedupe = rows.dedupe_of(conn, num)
            if dedupe and self.tomb_keys is not None:  # no sync brings the record back; told to the others
                keys, now = self.tomb_keys.writing(conn), self.clock()
                graves: dict[str, list[list[object]]] = {}
                for scope, key in keys:
                    grave = tombstones.grave_of(key, tombstones.ERROR, 0, dedupe)
                    tombstones.add(conn, scope, "", [grave], now)
                    if scope != tombkeys.LOCAL:
                        graves[scope] = [list(grave)]
                detail = {"gids": [], "graves": graves}
                if graves:
                    identity.record_change(conn, identity.ERROR_FORGET, "", detail, now)
            rows.delete(conn, num)
        self.store.scrub(self.fts_tables)  # no old index segment or WAL page keeps its words
        log.info("forgot error record %s", record.id[:12])
        return record

    def purge(self) -> int:
        """Delete every expired record now; return how many."""
        with self.store.write() as conn:
            deleted = rows.purge(conn, self.clock())
        if deleted:
            self.store.scrub(self.fts_tables)
            log.info("purged %d expired error records", deleted)
        return deleted

    def purge_expired(self) -> int:
        """The hourly job: purge expired records, then embed records still missing a vector.

        Returns:
            How many records were purged.
        """
        deleted = self.purge()
        self.embed_missing()
        return deleted

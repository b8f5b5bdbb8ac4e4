"""The memory engine's facade: :class:`Memory`.

It ties the tiers together for one home folder: history.json (tier 1's hot window), the SQLite archive
with its FTS indexes (tier 3), and any extra tiers registered with it (vectors, summaries, error memory),
which follow the archive through the :class:`Tier` hooks.

Writes to a session happen under that session's lock (threads and processes). An append is written to
the archive first (committed), then to history.json (atomic rename), then recorded as done; if a process
dies in between, the next writer of the session replays what the archive has and the file lacks, so an
acknowledged message is never lost and never doubled. A write that fails cleanly (a full disk) takes back
its archive rows, so a message the call did not acknowledge is not stored half-way.

A session whose id starts with ``priv-`` is a temporary chat (:func:`engine.sessions.folders.is_private`): its
messages live in its history.json only, never in SQLite, the FTS indexes, the vectors or a summary.

:meth:`Memory.forget_message` removes one message from history.json, the archive and FTS (the pages are
overwritten, ``secure_delete``), calls every tier's ``message_forgotten`` hook, and deletes the session's
summary and cursor so the next summary run rebuilds it from what remains.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, text

from engine import database
from engine import settings as settings_mod
from engine.clock import TIME_RANGES, Clock, system_clock
from engine.embedders import Embedder
from engine.errormemory import ErrorMemory
from engine.errors import EngineError, InvalidInput, NotFound, SessionNotFound
from engine.importers import ImportedSession, ImportReport
from engine.messages import Message, from_record, to_record, validate
from engine.paths import Paths, validate_session_id
from engine.search import pipeline as search
from engine.search.pipeline import Hit
from engine.search.service import Search
from engine.semantic.tier import SemanticTier
from engine.sessions import alignment, archive, compaction
from engine.sessions import folders as session_files
from engine.sessions.compaction import CompactResult
from engine.sessions.folders import SessionInfo, is_private
from engine.sessions.historyfile import HistoryUnreadable, HotFiles
from engine.sessions.listeners import ResetResult, Tier
from engine.settings import Settings
from engine.storage.atomic import atomic_write
from engine.storage.diskerrors import file_errors
from engine.storage.locks import SessionLocks
from engine.storage.store import Store

if TYPE_CHECKING:
    from engine.summary import Summaries, TurnContext

log = logging.getLogger("memtray.memory")

MAX_APPEND = 100_000
EMBEDDER_ENV = "MEMTRAY_EMBEDDER"
"""Overrides the ``embedder`` setting for one run (``hash`` in the test suite, ``use`` on a slow machine)."""


class Memory:
    """The memory of one home folder. Open it with :meth:`open`; close it with :meth:`close`."""

    errors: ErrorMemory  # the global error memory, attached by open(); its purge_expired() runs hourly
    _search: Search  # keyword, semantic and hybrid search, attached by open()

    def __init__(self, paths: Paths, store: Store, *, clock: Clock = system_clock) -> None:
        self.paths = paths
        self.store = store
        self.clock = clock
        self.locks = SessionLocks(paths.locks_dir)
        self.files = HotFiles(paths.store_dir / "tmp")
        self.files.clean_tmp()
        self.tiers: list[Tier] = []
        self.semantic: SemanticTier | None = None
        self._settings = settings_mod.from_stored(store.setting_rows())

    @classmethod
    def open(
        cls,
        home: Path | str | None = None,
        *,
        clock: Clock | None = None,
        embedder: Embedder | None = None,
        background: bool = True,
    ) -> Memory:
        """Open (creating if needed) the memory in ``home`` (None: ``MEMTRAY_HOME`` or the default).

        Args:
            embedder: overrides the ``embedder`` setting (tests pass ``HashEmbedder()``).
            background: run the background embedder in this process (the app, the daemon, the MCP
                server). A short-lived command passes False: its appends are queued durably and embedded
                by the next process that runs it; a semantic search still loads the model when asked.
        """
        paths = Paths.resolve(home)
        store = database.open_store(paths.database)
        log.info(
            "memory opened at %s (SQLite %s, FTS: %s)",
            paths.home,
            store.features.sqlite_version,
            ", ".join(sorted(store.fts_tables)) or "none",
        )
        memory = cls(paths, store, clock=clock or system_clock)
        memory.semantic = SemanticTier(
            paths,
            store,
            memory.clock,
            setting=os.environ.get(EMBEDDER_ENV) or memory.settings.embedder,
            embedder=embedder,
            gemini_key=lambda: memory.summaries.keys.get(),
            gemini_base_url=memory.settings.gemini_base_url,
            background=background,
        )
        memory.tiers.append(memory.semantic)
        memory._search = Search(store, memory.semantic)
        memory.tiers.append(memory._search)  # it keeps the context index in step with the archive
        # The error memory embeds with the semantic tier's embedder (loaded lazily, off the caller's path).
        memory.errors = ErrorMemory.open(store, clock=memory.clock, embedder=memory.semantic.loaded_embedder)
        return memory

    # -- settings ---------------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        return self._settings

    def update_settings(self, **changes: Any) -> Settings:
        """Validate and store setting changes; return the new settings.

        Raises:
            InvalidSetting: an unknown name or a bad value (nothing is stored).
        """
        updated = self._settings.replace(**changes)
        self.store.save_setting_rows(
            {k: v for k, v in settings_mod.to_stored(updated).items() if k in changes}
        )
        self._settings = updated
        semantic = getattr(self, "semantic", None)
        if "embedder" in changes and semantic is not None:
            semantic.switch_embedder(updated.embedder)  # re-embeds everything in the background
        return updated

    def reload_settings(self) -> Settings:
        self._settings = settings_mod.from_stored(self.store.setting_rows())
        return self._settings

    # -- sessions ---------------------------------------------------------------------------------

    def exists(self, session: str) -> bool:
        return self.paths.session_dir(session).is_dir()

    def _require(self, session: str) -> None:
        if not self.exists(session):
            raise SessionNotFound(f"no session {session!r}")

    def sessions(self, *, include_temp: bool = True) -> list[SessionInfo]:
        """Every session, most recently active first."""
        with self.store.read() as conn:
            counts = archive.counts(conn)
        infos = []
        for sid in session_files.session_ids(self.paths):
            temporary = sid.startswith(session_files.TEMP_PREFIX)
            if temporary and not include_temp:
                continue
            total, archived = counts.get(sid, (0, 0))
            infos.append(
                SessionInfo(
                    id=sid,
                    last_activity=session_files.newest_mtime(self.paths.session_dir(sid)),
                    hot_messages=total - archived,
                    archived_messages=archived,
                    history_bytes=self.files.size(self.paths.history_file(sid)),
                    summary_updated=session_files.mtime(self.paths.summary_file(sid)),
                    temporary=temporary,
                    private=is_private(sid),
                )
            )
        infos.sort(key=lambda info: (info.last_activity, info.id), reverse=True)
        return infos

    # -- writing ----------------------------------------------------------------------------------

    def append(self, session: str, messages: Sequence[Message], *, create: bool = True) -> list[Message]:
        """Append messages to a session: history.json and the archive, in one call.

        Args:
            session: the session id.
            messages: the new messages, oldest first (ids are ignored).
            create: create the session if it does not exist (else raise SessionNotFound).

        Returns:
            The messages as stored, each with its archive id (``None`` for a message without text, which
            the archive skips) and session.

        Raises:
            InvalidSessionId, InvalidMessage: bad input; nothing is written.
            SessionNotFound: no such session and ``create`` is False.
            StorageError: the disk or the database failed; the call may be retried.
        """
        validate_session_id(session)
        if len(messages) > MAX_APPEND:
            raise InvalidInput(f"at most {MAX_APPEND} messages per append")
        batch = [validate(m) for m in messages]
        if not batch:
            return []
        if not create:
            self._require(session)
        with self.locks.hold(session):
            with file_errors("the session folder"):
                self.paths.session_dir(session).mkdir(parents=True, exist_ok=True, mode=0o700)
            return self._append_locked(session, batch)

    def _append_locked(self, session: str, batch: list[Message]) -> list[Message]:
        if is_private(session):
            return self._append_private(session, batch)
        now = self.clock()
        records = self._read_or_rebuild(session)
        with self.store.write() as conn:
            meta = archive.meta(conn, session)
            replay = self._pending(conn, session, meta, records)
            if records and not meta.hot_last_id and not archive.has_rows(conn, session):
                meta = self._backfill(conn, session, records, meta, now)
            ids = archive.insert(conn, session, batch, now)
            stored = [
                Message(m.role, m.content, m.send_at, m.sender, i, session)
                for m, i in zip(batch, ids, strict=True)
            ]
            for tier in self.tiers:
                tier.messages_added(conn, [m for m in stored if m.id is not None])
        new_records = [to_record(m) for m in replay] + [to_record(m) for m in batch]
        try:
            with file_errors(f"history.json of session {session}"):
                size = self.files.append(self.paths.history_file(session), new_records)
        except EngineError:
            self._undo_append(session, [i for i in ids if i is not None])
            raise
        # The rows written now are marked done by the next writer of this session, which finds them at
        # the end of history.json (see _pending): one write transaction per append instead of two.
        if size > self._settings.max_history_bytes:
            last_id = max([i for i in ids if i is not None] + [m.id or 0 for m in replay], default=0)
            if last_id:
                with self.store.write() as conn:
                    current = archive.meta(conn, session)
                    archive.save_meta(
                        conn, session, archive.Meta(current.start_at, current.start_id, last_id)
                    )
            self._compact_locked(session)
        return stored

    def _undo_append(self, session: str, ids: list[int]) -> None:
        """Take back the archive rows of an append whose history.json write failed (not acknowledged)."""
        try:
            with self.store.write() as conn:
                # Not secure_delete here: overwriting the text needs free space, which may be what is lacking.
                conn.exec_driver_sql("PRAGMA secure_delete=FAST")
                try:
                    for message_id in ids:
                        for tier in self.tiers:
                            tier.message_forgotten(conn, session, message_id)
                    conn.execute(
                        text("DELETE FROM messages WHERE session_id = :s AND id >= :lo AND id <= :hi"),
                        {"s": session, "lo": min(ids, default=0), "hi": max(ids, default=-1)},
                    )
                finally:
                    conn.exec_driver_sql("PRAGMA secure_delete=ON")
        except EngineError as exc:
            log.warning(
                "could not take back %d archived messages of session %s after a failed write (%s); "
                "they will be written to history.json by the next write",
                len(ids),
                session,
                exc,
            )

    def _append_private(self, session: str, batch: list[Message]) -> list[Message]:
        """A temporary chat's append: history.json only; trimmed (not archived) past the size limit."""
        path = self.paths.history_file(session)
        with file_errors(f"history.json of session {session}"):
            try:
                records = self.files.read(path)
            except HistoryUnreadable:
                self.files.quarantine(path, self.clock())
                records = []
            size = self.files.append(path, [to_record(m) for m in batch])
            if size > self._settings.max_history_bytes:
                records = self.files.read(path)
                cut = compaction.plan_cut(records, size, self._settings.max_history_bytes)
                if cut:
                    self.files.write(path, records[cut:])
                    log.info("trimmed %d messages of temporary chat %s (not archived)", cut, session)
        return [Message(m.role, m.content, m.send_at, m.sender, None, session) for m in batch]

    def _backfill(
        self, conn: Connection, session: str, records: list[Any], meta: archive.Meta, now: int
    ) -> archive.Meta:
        """First encounter: archive a history.json that predates the archive (seed §2.3 step 6)."""
        old = [m for m in (from_record(r) for r in records) if m is not None]
        ids = archive.insert(conn, session, old, now)
        stored = [m.with_id(i, session) for m, i in zip(old, ids, strict=True) if i is not None]
        for tier in self.tiers:
            tier.messages_added(conn, stored)
        log.info("backfilled %d messages of session %s into the archive", len(stored), session)
        if not stored:
            return meta
        updated = archive.Meta(meta.start_at, meta.start_id, stored[-1].id or 0)
        archive.save_meta(conn, session, updated)
        return updated

    def _pending(
        self, conn: Connection, session: str, meta: archive.Meta, records: list[Any]
    ) -> list[Message]:
        """Archived rows of an interrupted append that history.json lacks (to be written again).

        Rows above ``hot_last_id`` belong to appends whose file write has not been confirmed yet: the last
        finished append (its rows end the file) and at most one interrupted append after it (its rows are
        missing from the file, which is written in one atomic rename). Marks the written ones done.
        """
        rows = archive.rows_from(conn, session, meta.hot_last_id + 1)
        if not rows:
            return []
        tail: list[Message] = []
        for record in reversed(records):
            if len(tail) == len(rows):
                break
            message = from_record(record)
            if message is not None and message.content.strip():
                tail.append(message)
        tail.reverse()
        # The rows of finished appends sit at the end of the file; those of an interrupted one follow them
        # in the archive but not in the file. Find the longest run of rows the file's tail already holds.
        seen = [(m.role, m.content) for m in tail]
        wanted = [(r.role, r.content) for r in rows]
        written = next((k for k in range(len(rows), 0, -1) if seen[len(seen) - k :] == wanted[:k]), 0)
        if written:
            archive.save_meta(
                conn, session, archive.Meta(meta.start_at, meta.start_id, rows[written - 1].id or 0)
            )
        missing = rows[written:]
        if missing:
            log.warning(
                "replaying %d archived messages of session %s missing from history.json",
                len(missing),
                session,
            )
        return missing

    def _repair_locked(self, session: str) -> list[Any]:
        """history.json's records after finishing an interrupted compaction or append, if there was one."""
        records = self._read_or_rebuild(session)
        if is_private(session):
            return records
        with self.store.read() as conn:
            meta = archive.meta(conn, session)
            interrupted = archive.rows_from(conn, session, meta.hot_last_id + 1)
            hot = archive.rows_from(conn, session, meta.start_id) if meta.start_id else []
        if meta.start_id:
            done = [m for m in hot if (m.id or 0) <= meta.hot_last_id]
            records = self._finish_compaction(session, records, done)
        if not interrupted:
            return records
        with self.store.write() as conn:
            replay = self._pending(conn, session, archive.meta(conn, session), records)
        if replay:
            with file_errors(f"history.json of session {session}"):
                self.files.append(self.paths.history_file(session), [to_record(m) for m in replay])
            with self.store.write() as conn:
                current = archive.meta(conn, session)
                archive.save_meta(
                    conn, session, archive.Meta(current.start_at, current.start_id, replay[-1].id or 0)
                )
            records = self.files.read(self.paths.history_file(session))
        return records

    def _finish_compaction(self, session: str, records: list[Any], hot: list[Message]) -> list[Any]:
        """Trim history.json to the cut when a compaction was interrupted after it moved the cut.

        The cut is committed before history.json is rewritten; a process killed in between leaves the file
        with messages from before the cut at its start. They are archived, so they are dropped here, but
        only when the file's newest messages match the archive's (else the file is left as it is).
        """
        textual = [
            i for i, r in enumerate(records) if (m := from_record(r)) is not None and m.content.strip()
        ]
        hot_count = len([m for m in hot if m.content.strip()])
        excess = len(textual) - hot_count
        if excess <= 0 or hot_count == 0:
            return records
        kept = [from_record(records[i]) for i in textual[excess:]]
        if [(m.role, m.content) for m in kept if m is not None] != [(m.role, m.content) for m in hot]:
            return records
        remaining = records[textual[excess] :]
        with file_errors(f"history.json of session {session}"):
            self.files.write(self.paths.history_file(session), remaining)
        log.warning(
            "finished an interrupted compaction of session %s: %d archived messages left history.json",
            session,
            len(records) - len(remaining),
        )
        return remaining

    def _read_or_rebuild(self, session: str) -> list[Any]:
        """The session's history.json records; an unreadable or lost file is rebuilt from the archive."""
        path = self.paths.history_file(session)
        try:
            records = self.files.read(path)
        except HistoryUnreadable:
            with file_errors(f"history.json of session {session}"):
                self.files.quarantine(path, self.clock())
        else:
            if records or path.exists():
                return records
        if is_private(session):
            return []
        with self.store.read() as conn:
            meta = archive.meta(conn, session)
            rows = archive.rows_from(conn, session, meta.start_id) if archive.has_rows(conn, session) else []
        if not rows and not path.parent.is_dir():
            return []
        records = [to_record(m) for m in rows]
        if rows:
            with file_errors(f"history.json of session {session}"):
                self.files.write(path, records)
            log.warning(
                "rebuilt history.json of session %s from the archive (%d messages)", session, len(rows)
            )
            if meta.hot_last_id < (rows[-1].id or 0):
                with self.store.write() as conn:
                    archive.save_meta(
                        conn, session, archive.Meta(meta.start_at, meta.start_id, rows[-1].id or 0)
                    )
        return records

    # -- reading ----------------------------------------------------------------------------------

    def history(self, session: str) -> list[Message]:
        """Every message in history.json, oldest first, with archive ids where known.

        Raises:
            SessionNotFound: no such session.
        """
        self._require(session)
        with self.locks.hold(session):
            records = self._repair_locked(session)
            with self.store.read() as conn:
                meta = archive.meta(conn, session)
                rows = archive.rows_from(conn, session, meta.start_id)
        messages = [m for m in (from_record(r) for r in records) if m is not None]
        return alignment.attach_ids(session, messages, rows)

    def window(self, session: str) -> list[Message]:
        """The last ``max_history_messages`` messages (by count), oldest first."""
        return self.history(session)[-self._settings.max_history_messages :]

    def archive_page(self, session: str, before_id: int | None = None, limit: int = 200) -> list[Message]:
        """Archived messages of a session older than ``before_id``, newest first (for lazy scrolling)."""
        self._require(session)
        with self.store.read() as conn:
            return archive.page(conn, session, before_id, max(1, min(limit, 5000)))

    def around(self, session: str, message_id: int, before: int = 2, after: int = 1) -> list[Message]:
        """A message with ``before`` archived messages before it and ``after`` after it, oldest first.

        The context a search result is shown with (the seed's 2-before/1-after expansion).
        """
        self._require(session)
        with self.store.read() as conn:
            older = archive.page(conn, session, message_id + 1, max(1, before + 1))
            newer = archive.after(conn, session, message_id, max(0, after)) if after > 0 else []
        return list(reversed(older)) + newer

    def compaction_cut(self, session: str) -> int:
        """The id of the first message still in history.json (0 if never compacted)."""
        with self.store.read() as conn:
            return archive.meta(conn, session).start_id

    def search(
        self,
        query: str,
        session: str | None = None,
        match: str = "hybrid",
        scope: str = "all",
        time_range: str | None = None,
        limit: int = 10,
    ) -> list[Hit]:
        """Search the memory.

        Args:
            query: natural-language text; ``"quoted phrases"`` stay phrases.
            session: one session, or None for all of them.
            match: ``keyword``, ``semantic`` or ``hybrid``.
            scope: ``recent`` (still in history.json) or ``all`` (everything archived).
            time_range: ``1d``, ``7d``, ``1m``, ``1y`` or None for no bound.
            limit: at most this many hits (1-200).

        Raises:
            InvalidInput: an unknown match, scope or range, or a bad limit.
            SessionNotFound: the session does not exist.
        """
        search.check_arguments(match, scope, time_range, limit)
        if session is not None:
            self._require(session)
        after = self.clock() - TIME_RANGES[time_range] if time_range else 0
        return self._search.search(
            query, session=session, match=match, scope=scope, after_ns=after, limit=limit
        )

    def seed_keyword_search(
        self, session: str, keyword_text: str, time_range: str = "1d", limit: int = 8
    ) -> tuple[list[Hit], list[Hit]]:
        """The ``chat_history`` tool's keyword mode: (archive hits, recent hits), newest first."""
        self._require(session)
        after = self.clock() - TIME_RANGES.get(time_range, TIME_RANGES["1d"])
        return self._search.seed_keyword_search(session, keyword_text, after_ns=after, limit=limit)

    def iter_archive(self, session: str, batch: int = 2000) -> Iterator[Message]:
        """Every archived message of a session, oldest first (export, re-embedding)."""
        self._require(session)
        last = 0
        while True:
            with self.store.read() as conn:
                rows = archive.after(conn, session, last, batch)
            if not rows:
                return
            yield from rows
            last = rows[-1].id or last

    def import_sessions(
        self, imported: Sequence[ImportedSession], progress: Callable[[int, int], None] | None = None
    ) -> ImportReport:
        """Append imported conversations, skipping messages the session already holds.

        A message counts as present when the archive has one with the same role, text and time, so
        importing the same file twice adds nothing. ``progress(done, total)`` is called per session.
        """
        added = present = 0
        skipped: dict[str, int] = {}
        total = sum(len(s.messages) for s in imported)
        done = 0
        for item in imported:
            with self.locks.hold(item.session):
                with self.store.read() as conn:
                    known = archive.fingerprints(conn, item.session)
                times = archive.archive_times(item.messages)
                fresh = [
                    m
                    for m, t in zip(item.messages, times, strict=True)
                    if (m.role, m.content, t) not in known and m.content.strip()
                ]
                present += len(item.messages) - len(fresh)
                if fresh:
                    self.paths.session_dir(item.session).mkdir(parents=True, exist_ok=True, mode=0o700)
                    self._append_locked(item.session, fresh)
                    added += len(fresh)
                if item.summary is not None:
                    self._install_summary(item.session, item.summary)
            for reason, count in item.skipped.items():
                skipped[reason] = skipped.get(reason, 0) + count
            done += len(item.messages)
            if progress is not None:
                progress(done, total)
        return ImportReport(len(imported), added, present, skipped)

    def _install_summary(self, session: str, summary: dict[str, object]) -> None:
        path = self.paths.summary_file(session)
        if path.exists():
            return
        data = json.dumps(summary, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        atomic_write(path, data, tmp_dir=self.paths.store_dir / "tmp")

    # -- compaction, reset, removal ---------------------------------------------------------------

    def compact(self, session: str) -> CompactResult:
        """Compact history.json now if it is over ``max_history_bytes`` (§7); report what was done."""
        self._require(session)
        with self.locks.hold(session):
            return self._compact_locked(session)

    def _compact_locked(self, session: str) -> CompactResult:
        started = time.perf_counter()
        path = self.paths.history_file(session)
        records = self._repair_locked(session)
        before = self.files.size(path)
        cut = compaction.plan_cut(records, before, self._settings.max_history_bytes)
        if is_private(session):
            after = before
            if cut:
                with file_errors(f"history.json of session {session}"):
                    after = self.files.write(path, records[cut:])
            elapsed = time.perf_counter() - started
            return CompactResult(session, cut, len(records) - cut, before, after, 0, elapsed)
        if cut == 0:
            for tier in self.tiers:
                tier.session_compacted(session, self.compaction_cut(session))
            return CompactResult(session, 0, len(records), before, before, 0, time.perf_counter() - started)
        removed, remaining = records[:cut], records[cut:]
        archived_removed = sum(
            1 for m in (from_record(r) for r in removed) if m is not None and m.content.strip()
        )
        archived_kept = sum(
            1 for m in (from_record(r) for r in remaining) if m is not None and m.content.strip()
        )
        start_at = compaction.first_send_at(remaining)
        with self.store.write() as conn:
            meta = archive.meta(conn, session)
            hot = [
                int(r[0])
                for r in conn.execute(
                    text("SELECT id FROM messages WHERE session_id = :s AND id >= :i ORDER BY id"),
                    {"s": session, "i": meta.start_id},
                )
            ]
            if len(hot) >= archived_kept:
                # history.json is a suffix of the archive: the kept messages are the last ones.
                start_id = (
                    hot[len(hot) - archived_kept]
                    if archived_kept
                    else (hot[-1] + 1 if hot else meta.start_id)
                )
            else:
                start_id = meta.start_id
            if len(hot) != archived_removed + archived_kept:
                log.warning(
                    "history.json of session %s and the archive disagree (%d vs %d messages); "
                    "the cut was aligned from the newest message",
                    session,
                    archived_removed + archived_kept,
                    len(hot),
                )
            archive.save_meta(
                conn, session, archive.Meta(start_at or meta.start_at, start_id, meta.hot_last_id)
            )
        with file_errors(f"history.json of session {session}"):
            after = self.files.write(path, remaining)
        for tier in self.tiers:
            tier.session_compacted(session, start_id)
        elapsed = time.perf_counter() - started
        log.info(
            "compacted session %s: %d messages trimmed, %d kept, %d -> %d bytes in %.2fs",
            session,
            cut,
            len(remaining),
            before,
            after,
            elapsed,
        )
        return CompactResult(session, cut, len(remaining), before, after, start_at, elapsed)

    def forget_message(self, message_id: int) -> Message:
        """Forget one archived message everywhere: history.json, the archive, FTS and every tier.

        The deleted rows are overwritten (``secure_delete``), the FTS indexes are merged so no old segment
        keeps the words, and the write-ahead log is truncated. The session's summary.json and cursor are
        deleted so the next summary run rebuilds the summary from what remains. history.json is changed
        first, so repeating a forget that was interrupted finishes it.

        Returns:
            The forgotten message.

        Raises:
            NotFound: no archived message has this id.
        """
        with self.store.read() as conn:
            found = archive.by_ids(conn, [message_id]).get(message_id)
        if found is None or found.session is None:
            raise NotFound(f"no message #{message_id}")
        session = found.session
        with self.locks.hold(session):
            records = self._repair_locked(session)
            with self.store.read() as conn:
                rows = archive.rows_from(conn, session, archive.meta(conn, session).start_id)
            index = alignment.record_index(records, rows, found)
            if index is not None:
                with file_errors(f"history.json of session {session}"):
                    self.files.write(self.paths.history_file(session), records[:index] + records[index + 1 :])
            with self.store.write() as conn:
                for tier in self.tiers:
                    tier.message_forgotten(conn, session, message_id)
                conn.execute(text("DELETE FROM messages WHERE id = :i"), {"i": message_id})
            self.store.scrub()
            with file_errors(f"the summary of session {session}"):
                session_files.mark_summary_stale(self.paths, session)
        log.info("forgot message #%d of session %s; its summary will be rebuilt", message_id, session)
        return found

    def reset(self, session: str, *, include_summary: bool = False) -> ResetResult:
        """Clear a session's history and archive; keep summary.json and the cursor unless asked.

        Error memory is global and never touched.
        """
        self._require(session)
        with self.locks.hold(session):
            deleted = self._clear_archive(session)
            session_files.remove_files(self.paths, session, keep_summary=not include_summary)
            self.files.forget(self.paths.history_file(session))
        log.info(
            "reset session %s (%d archived messages deleted, summary %s)",
            session,
            deleted,
            "deleted" if include_summary else "kept",
        )
        return ResetResult(session, deleted, not include_summary)

    def remove(self, session: str) -> ResetResult:
        """Delete a session entirely: its folder, archive rows and vectors. Error memory is kept."""
        self._require(session)
        with self.locks.hold(session):
            deleted = self._clear_archive(session, unregister=True)
            self.files.forget(self.paths.history_file(session))
            session_files.remove_folder(self.paths, session)
        self.locks.forget(session)
        log.info("removed session %s (%d archived messages deleted)", session, deleted)
        return ResetResult(session, deleted, False)

    def _clear_archive(self, session: str, *, unregister: bool = False) -> int:
        with self.store.write() as conn:
            for tier in self.tiers:
                tier.session_cleared(conn, session)
            deleted = archive.delete_session(conn, session)
            if unregister:
                conn.execute(text("DELETE FROM sessions WHERE id = :s"), {"s": session})
        return deleted

    def cleanup_temp_sessions(self, idle_ns: int = session_files.TEMP_IDLE_NS) -> list[str]:
        """Remove ``temp-`` sessions idle for longer than ``idle_ns`` (files, archive rows, vectors)."""
        now = self.clock()
        removed = []
        for sid in session_files.session_ids(self.paths):
            idle = now - session_files.newest_mtime(self.paths.session_dir(sid))
            if sid.startswith(session_files.TEMP_PREFIX) and idle > idle_ns:
                self.remove(sid)
                removed.append(sid)
        return removed

    # -- the rolling summary (engine.summary) -------------------------------------------------------

    @cached_property
    def summaries(self) -> Summaries:
        """The summarizer: ``generate``, ``pending``, ``status``, ``load``, ``cursor`` (replaceable in tests)."""
        from engine.summary import Summaries

        return Summaries(self)

    def turn_context(self, session: str, request: str = "") -> TurnContext:
        """What an LLM call gets this turn: the window with prefixes, then the turn-context message."""
        return self.summaries.turn_context(session, request)

    # -- lifecycle --------------------------------------------------------------------------------

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until background embedding and index work is done; False if ``timeout`` passed first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for tier in self.tiers:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not tier.wait_idle(remaining):
                return False
        return True

    def close(self) -> None:
        for tier in self.tiers:
            tier.close()
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

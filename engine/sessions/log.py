"""The session log: tiers 1 and 3 kept in step for every session (:class:`SessionLog`).

A session's messages live in two places: its history.json (tier 1, the recent window the LLM sees,
compacted when it grows past ``max_history_bytes``) and its rows in the SQLite archive with the FTS
indexes (tier 3, every message ever written). Listeners (the vectors) follow the archive through the
:class:`~engine.sessions.listeners.ArchiveListener` hooks, inside the archive's write transactions.

The invariants: history.json's messages with text are the archive's rows of the session from the
compaction cut (``start_id``) on, in the same order (messages without text are in the file only). Rows
above ``hot_last_id`` are not yet confirmed in the file: the last finished append's, and at most one
interrupted append's after them.

Writes to a session happen under that session's lock (threads and processes). An append is written to
the archive first (committed), then to history.json (atomic rename); the next call that holds the
session's lock finds those rows at the end of the file and records them as done, so an append costs one
write transaction. If a process dies between the two writes, that next call replays what the archive has
and the file lacks (:mod:`engine.sessions.recovery`), so an acknowledged message is never lost and never
doubled. A write that fails cleanly (a full disk) takes back its archive rows, so a message the call did
not acknowledge is not stored half-way. A compaction commits the new cut before it rewrites history.json;
if it is interrupted in between, the next repair drops the archived messages left at the file's start.

A session whose id starts with ``priv-`` is a temporary chat (:func:`engine.sessions.folders.is_private`):
its messages live in its history.json only, never in SQLite, the FTS indexes, the vectors or a summary.

:meth:`SessionLog.forget` removes one message from history.json, the archive and FTS (the pages are
overwritten, ``secure_delete``), calls every listener's ``message_forgotten`` hook, and deletes the
session's summary and cursor so the next summary run rebuilds it from what remains.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator, Sequence

from engine.clock import Clock
from engine.errors import EngineError, InvalidInput, NotFound, SessionNotFound
from engine.importers import ImportedSession, ImportReport
from engine.messages import Message, from_record, to_record, validate
from engine.paths import Paths, validate_session_id
from engine.sessions import alignment, archive, compaction, titles
from engine.sessions import folders as session_files
from engine.sessions.compaction import CompactResult
from engine.sessions.folders import SessionInfo, is_private
from engine.sessions.historyfile import HistoryUnreadable, HotFiles
from engine.sessions.listeners import ArchiveListener, ResetResult
from engine.sessions.recovery import Recovery
from engine.settings import Settings
from engine.storage.atomic import atomic_write
from engine.storage.diskerrors import file_errors
from engine.storage.locks import SessionLocks
from engine.storage.store import Store

log = logging.getLogger("memtray.sessions")

MAX_APPEND = 100_000


class SessionLog:
    """Every session of one home: history.json and the archive, written together under the session's lock.

    Args:
        settings: the settings in use now (``max_history_bytes``, ``max_history_messages``).

    Attributes:
        locks: the per-session locks (threads and processes); the summarizer takes its own names here.
        files: the history.json files.
        listeners: the parts that follow the archive (the vectors), called in its transactions.
    """

    def __init__(self, paths: Paths, store: Store, clock: Clock, settings: Callable[[], Settings]) -> None:
        self.paths = paths
        self._store = store
        self._clock = clock
        self._settings = settings
        self.locks = SessionLocks(paths.locks_dir)
        self.files = HotFiles(paths.store_dir / "tmp")
        self.files.clean_tmp()
        self.listeners: list[ArchiveListener] = []
        self._recovery = Recovery(paths, store, self.files, clock, self.listeners)

    # -- sessions ---------------------------------------------------------------------------------

    def exists(self, session: str) -> bool:
        return self.paths.session_dir(session).is_dir()

    def require(self, session: str) -> None:
        """Raises SessionNotFound when the session does not exist."""
        if not self.exists(session):
            raise SessionNotFound(f"no session {session!r}")

    def sessions(self, *, include_temp: bool = True) -> list[SessionInfo]:
        """Every session, the one with the latest message first."""
        with self._store.read() as conn:
            known = archive.stats(conn)
            infos = []
            for sid in session_files.session_ids(self.paths):
                temporary = sid.startswith(session_files.TEMP_PREFIX)
                if temporary and not include_temp:
                    continue
                info = known.get(sid, archive.SessionStats())
                title, source = info.title, info.title_source
                if not title and info.total:
                    title, source = titles.shorten(archive.first_user_text(conn, sid)), "auto"
                infos.append(
                    SessionInfo(
                        id=sid,
                        last_activity=info.last_at or session_files.newest_mtime(self.paths.session_dir(sid)),
                        hot_messages=info.total - info.before_cut,
                        archived_messages=info.before_cut,
                        history_bytes=self.files.size(self.paths.history_file(sid)),
                        summary_updated=session_files.mtime(self.paths.summary_file(sid)),
                        temporary=temporary,
                        private=is_private(sid),
                        title=title if title else "",
                        title_source=source if title else "",
                        first_message_at=info.first_at,
                        last_message_at=info.last_at,
                    )
                )
        infos.sort(key=lambda info: (info.last_activity, info.id), reverse=True)
        return infos

    def set_title(self, session: str, title: str) -> str:
        """Give a session a title of the user's (an empty one goes back to the first user message).

        Returns:
            The title as stored (one line, at most :data:`engine.sessions.titles.MAX_TITLE` characters).

        Raises:
            SessionNotFound: no such session.
            InvalidInput: a temporary chat (``priv-``), which is never stored in the database.
        """
        self.require(session)
        if is_private(session):
            raise InvalidInput("a temporary chat keeps no title")
        cleaned = titles.clean(title)
        with self.locks.hold(session), self._store.write() as conn:
            archive.set_title(conn, session, cleaned, titles.USER, self._clock())
        return cleaned

    # -- writing ----------------------------------------------------------------------------------

    def append(self, session: str, messages: Sequence[Message], *, create: bool = True) -> list[Message]:
        """Append messages to a session (see :meth:`engine.memory.Memory.append`)."""
        validate_session_id(session)
        if len(messages) > MAX_APPEND:
            raise InvalidInput(f"at most {MAX_APPEND} messages per append")
        batch = [validate(m) for m in messages]
        if not batch:
            return []
        if not create:
            self.require(session)
        with self.locks.hold(session):
            with file_errors("the session folder"):
                self.paths.session_dir(session).mkdir(parents=True, exist_ok=True, mode=0o700)
            return self._append_locked(session, batch)

    def _append_locked(self, session: str, batch: list[Message]) -> list[Message]:
        if is_private(session):
            return self._append_private(session, batch)
        now = self._clock()
        records = self._recovery.records(session)
        with self._store.write() as conn:
            meta = archive.meta(conn, session)
            replay = self._recovery.pending(conn, session, meta, records)
            if records and not meta.hot_last_id and not archive.has_rows(conn, session):
                meta = self._recovery.backfill(conn, session, records, meta, now)
            ids = archive.insert(conn, session, batch, now)
            stored = [
                Message(m.role, m.content, m.send_at, m.sender, i, session)
                for m, i in zip(batch, ids, strict=True)
            ]
            for listener in self.listeners:
                listener.messages_added(conn, [m for m in stored if m.id is not None])
        new_records = [to_record(m) for m in replay] + [to_record(m) for m in batch]
        try:
            with file_errors(f"history.json of session {session}"):
                size = self.files.append(self.paths.history_file(session), new_records)
        except EngineError:
            self._undo_append(session, [i for i in ids if i is not None])
            raise
        # The rows written now are marked done by the next writer of this session, which finds them at
        # the end of history.json (Recovery.pending): one write transaction per append instead of two.
        if size > self._settings().max_history_bytes:
            last_id = max([i for i in ids if i is not None] + [m.id or 0 for m in replay], default=0)
            if last_id:
                with self._store.write() as conn:
                    current = archive.meta(conn, session)
                    archive.save_meta(
                        conn, session, archive.Meta(current.start_at, current.start_id, last_id)
                    )
            self._compact_locked(session)
        return stored

    def _undo_append(self, session: str, ids: list[int]) -> None:
        """Take back the archive rows of an append whose history.json write failed (not acknowledged)."""
        try:
            with self._store.write() as conn, archive.without_overwrite(conn):
                for message_id in ids:
                    for listener in self.listeners:
                        listener.message_forgotten(conn, session, message_id)
                archive.delete_range(conn, session, min(ids, default=0), max(ids, default=-1))
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
                self.files.quarantine(path, self._clock())
                records = []
            size = self.files.append(path, [to_record(m) for m in batch])
            if size > self._settings().max_history_bytes:
                records = self.files.read(path)
                cut = compaction.plan_cut(records, size, self._settings().max_history_bytes)
                if cut:
                    self.files.write(path, records[cut:])
                    log.info("trimmed %d messages of temporary chat %s (not archived)", cut, session)
        return [Message(m.role, m.content, m.send_at, m.sender, None, session) for m in batch]

    def import_sessions(
        self, imported: Sequence[ImportedSession], progress: Callable[[int, int], None] | None = None
    ) -> ImportReport:
        """Append imported conversations, skipping messages the session already holds (see
        :meth:`engine.memory.Memory.import_sessions`)."""
        added = present = 0
        skipped: dict[str, int] = {}
        total = sum(len(s.messages) for s in imported)
        done = 0
        for item in imported:
            with self.locks.hold(item.session):
                with self._store.read() as conn:
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
                if item.title and not is_private(item.session) and self.exists(item.session):
                    self._import_title(item.session, item.title)
            for reason, count in item.skipped.items():
                skipped[reason] = skipped.get(reason, 0) + count
            done += len(item.messages)
            if progress is not None:
                progress(done, total)
        return ImportReport(len(imported), added, present, skipped)

    def _import_title(self, session: str, title: str) -> None:
        """Store an imported title, unless the user gave the session one of their own."""
        cleaned = titles.clean(title)
        with self._store.write() as conn:
            current = archive.stats_title(conn, session)
            if cleaned and current != (cleaned, titles.IMPORTED) and current[1] != titles.USER:
                archive.set_title(conn, session, cleaned, titles.IMPORTED, self._clock())

    def _install_summary(self, session: str, summary: dict[str, object]) -> None:
        path = self.paths.summary_file(session)
        if path.exists():
            return
        data = json.dumps(summary, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        atomic_write(path, data, tmp_dir=self.paths.store_dir / "tmp")

    # -- reading ----------------------------------------------------------------------------------

    def history(self, session: str) -> list[Message]:
        """Every message in history.json, oldest first, with archive ids where known."""
        self.require(session)
        with self.locks.hold(session):
            records = self._recovery.repair(session)
            with self._store.read() as conn:
                meta = archive.meta(conn, session)
                rows = archive.rows_from(conn, session, meta.start_id)
        messages = [m for m in (from_record(r) for r in records) if m is not None]
        return alignment.attach_ids(session, messages, rows)

    def window(self, session: str) -> list[Message]:
        """The last ``max_history_messages`` messages (by count), oldest first."""
        return self.history(session)[-self._settings().max_history_messages :]

    def archive_page(self, session: str, before_id: int | None = None, limit: int = 200) -> list[Message]:
        """Archived messages of a session older than ``before_id``, newest first (for lazy scrolling)."""
        self.require(session)
        with self._store.read() as conn:
            return archive.page(conn, session, before_id, max(1, min(limit, 5000)))

    def around(self, session: str, message_id: int, before: int = 2, after: int = 1) -> list[Message]:
        """A message with ``before`` archived messages before it and ``after`` after it, oldest first."""
        self.require(session)
        with self._store.read() as conn:
            older = archive.page(conn, session, message_id + 1, max(1, before + 1))
            newer = archive.after(conn, session, message_id, max(0, after)) if after > 0 else []
        return list(reversed(older)) + newer

    def archived(self, session: str, *, recent: bool) -> list[Message]:
        """The session's archived messages, oldest first: those since the compaction cut, or all of them."""
        with self._store.read() as conn:
            cut = archive.meta(conn, session).start_id if recent else 0
            return archive.rows_from(conn, session, cut)

    def compaction_cut(self, session: str) -> int:
        """The id of the first message still in history.json (0 if never compacted)."""
        with self._store.read() as conn:
            return archive.meta(conn, session).start_id

    def iter_archive(self, session: str, batch: int = 2000) -> Iterator[Message]:
        """Every archived message of a session, oldest first, read ``batch`` at a time."""
        self.require(session)
        last = 0
        while True:
            with self._store.read() as conn:
                rows = archive.after(conn, session, last, batch)
            if not rows:
                return
            yield from rows
            last = rows[-1].id or last

    # -- compaction -------------------------------------------------------------------------------

    def compact(self, session: str) -> CompactResult:
        """Compact history.json now if it is over ``max_history_bytes``; report what was done."""
        self.require(session)
        with self.locks.hold(session):
            return self._compact_locked(session)

    def _compact_locked(self, session: str) -> CompactResult:
        started = time.perf_counter()
        path = self.paths.history_file(session)
        records = self._recovery.repair(session)
        before = self.files.size(path)
        cut = compaction.plan_cut(records, before, self._settings().max_history_bytes)
        if is_private(session):
            after = before
            if cut:
                with file_errors(f"history.json of session {session}"):
                    after = self.files.write(path, records[cut:])
            elapsed = time.perf_counter() - started
            return CompactResult(session, cut, len(records) - cut, before, after, 0, elapsed)
        if cut == 0:
            for listener in self.listeners:
                listener.session_compacted(session, self.compaction_cut(session))
            return CompactResult(session, 0, len(records), before, before, 0, time.perf_counter() - started)
        removed, remaining = records[:cut], records[cut:]
        archived_removed = sum(
            1 for m in (from_record(r) for r in removed) if m is not None and m.content.strip()
        )
        archived_kept = sum(
            1 for m in (from_record(r) for r in remaining) if m is not None and m.content.strip()
        )
        start_at = compaction.first_send_at(remaining)
        with self._store.write() as conn:
            meta = archive.meta(conn, session)
            hot = archive.ids_from(conn, session, meta.start_id)
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
        for listener in self.listeners:
            listener.session_compacted(session, start_id)
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

    # -- forgetting, reset, removal ---------------------------------------------------------------

    def forget(self, message_id: int) -> Message:
        """Forget one archived message everywhere (see :meth:`engine.memory.Memory.forget_message`).

        history.json is changed first, so repeating a forget that was interrupted finishes it.
        """
        with self._store.read() as conn:
            found = archive.by_ids(conn, [message_id]).get(message_id)
        if found is None or found.session is None:
            raise NotFound(f"no message #{message_id}")
        session = found.session
        with self.locks.hold(session):
            records = self._recovery.repair(session)
            with self._store.read() as conn:
                rows = archive.rows_from(conn, session, archive.meta(conn, session).start_id)
            index = alignment.record_index(records, rows, found)
            if index is not None:
                with file_errors(f"history.json of session {session}"):
                    self.files.write(self.paths.history_file(session), records[:index] + records[index + 1 :])
            with self._store.write() as conn:
                for listener in self.listeners:
                    listener.message_forgotten(conn, session, message_id)
                archive.delete_message(conn, message_id)
            self._store.scrub()
            with file_errors(f"the summary of session {session}"):
                session_files.mark_summary_stale(self.paths, session)
        log.info("forgot message #%d of session %s; its summary will be rebuilt", message_id, session)
        return found

    def reset(self, session: str, *, include_summary: bool = False) -> ResetResult:
        """Clear a session's history and archive; keep summary.json and the cursor unless asked."""
        self.require(session)
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
        """Delete a session entirely: its folder, archive rows and what the listeners derived from them."""
        self.require(session)
        with self.locks.hold(session):
            deleted = self._clear_archive(session, unregister=True)
            self.files.forget(self.paths.history_file(session))
            session_files.remove_folder(self.paths, session)
        self.locks.forget(session)
        log.info("removed session %s (%d archived messages deleted)", session, deleted)
        return ResetResult(session, deleted, False)

    def _clear_archive(self, session: str, *, unregister: bool = False) -> int:
        with self._store.write() as conn:
            for listener in self.listeners:
                listener.session_cleared(conn, session)
            deleted = archive.delete_session(conn, session)
            if unregister:
                archive.unregister(conn, session)
        return deleted

    def cleanup_temp_sessions(self, idle_ns: int) -> list[str]:
        """Remove ``temp-`` sessions idle for longer than ``idle_ns``."""
        now = self._clock()
        removed = []
        for sid in session_files.session_ids(self.paths):
            idle = now - session_files.newest_mtime(self.paths.session_dir(sid))
            if sid.startswith(session_files.TEMP_PREFIX) and idle > idle_ns:
                self.remove(sid)
                removed.append(sid)
        return removed

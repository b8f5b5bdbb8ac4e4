"""The session log: tiers 1 and 3 kept in step for every session (:class:`SessionLog`).

A session's messages live in two places: its history.json (tier 1, the recent window the LLM sees,
compacted when it grows past ``max_history_bytes``) and its rows in the SQLite archive with the FTS
indexes (tier 3, every message ever written). Listeners (the vectors, the context index) follow the
archive through the :class:`~engine.sessions.listeners.ArchiveListener` hooks, inside the archive's write
transactions.

This module implements the append/replay protocol that keeps the two copies in step. The protocol is
written in full once, in ``docs/architecture.md``, section *The session log: append, replay, compaction*:
the invariants and ``message_meta`` (``start_id``, ``hot_last_id``, the replayed rows), the session's
lock, the append (archive committed first, then history.json by atomic rename, marked done by the next
call), replay, the undo of a failed write and the client's retry, imports in batches, private
(``priv-``) sessions, compaction and forget. What an interrupted write leaves behind is put right by
:mod:`engine.sessions.recovery`; which rows the file holds is decided by :mod:`engine.sessions.alignment`.
The append's steps (:meth:`SessionLog.stage_all`, :meth:`SessionLog.write_history`,
:meth:`SessionLog.settle`) also serve imports, a batch of sessions at a time
(:mod:`engine.sessions.batchimport`); forgets are :mod:`engine.sessions.forgetting`, and the time order
sync asks for is :mod:`engine.sessions.timeorder`.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from engine.clock import Clock
from engine.errors import EngineError, InvalidInput, SessionNotFound
from engine.imported import ImportedSession, ImportReport
from engine.messages import Message, to_record, validate
from engine.paths import Paths, validate_session_id
from engine.sessions import alignment, archive, compaction, identity, titles, tombkeys, tombstones
from engine.sessions import folders as session_files
from engine.sessions.batchimport import BatchImport
from engine.sessions.compaction import CompactResult
from engine.sessions.folders import SessionInfo, is_private, ordering_time
from engine.sessions.forgetting import Forgetting
from engine.sessions.historyfile import HistoryUnreadable, HotFiles
from engine.sessions.listeners import ArchiveListener, ResetResult
from engine.sessions.recovery import Recovery, replayed_tail, retried
from engine.sessions.staged import Staged
from engine.sessions.timeorder import TimeOrder
from engine.settings import Settings
from engine.storage.atomic import atomic_write
from engine.storage.diskerrors import file_errors, storage_error
from engine.storage.locks import SessionLocks
from engine.storage.sql import Connection
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
        self._sessions_dir = str(paths.sessions_dir)
        self._settings = settings
        self.locks = SessionLocks(paths.locks_dir)
        self.files = HotFiles(paths.store_dir / "tmp")
        self.files.clean_tmp()
        self.listeners: list[ArchiveListener] = []
        self._recovery = Recovery(paths, store, self.files, clock, self.listeners)
        self.tomb_keys = tombkeys.TombKeys(paths)
        self._forgetting = Forgetting(
            paths, store, self.files, self.locks, self._recovery, self.listeners, clock, self.tomb_keys
        )
        self._imports = BatchImport(paths, store, self.locks, self._recovery, clock, self.tomb_keys, self)
        self._time_order = TimeOrder(
            paths, store, self.files, self.locks, self._recovery, self.listeners, clock
        )

    # -- sessions ---------------------------------------------------------------------------------

    def exists(self, session: str) -> bool:
        return self.paths.session_dir(session).is_dir()

    def require(self, session: str) -> None:
        """Raises SessionNotFound when the session does not exist."""
        if not self.exists(session):
            raise SessionNotFound(f"no session {session!r}")

    def sessions(
        self, *, include_temp: bool = True, limit: int | None = None, with_files: bool = True
    ) -> list[SessionInfo]:
        """Every session (or the ``limit`` most recent), the one with the latest message first (see
        :func:`~engine.sessions.folders.ordering_time`).

        It reads what it shows: one pass over the archive's counts and times orders every session; only
        the sessions returned get a title (from the first characters of their first user message, never a
        whole message) and, ``with_files``, the size and times of their files (``history_bytes`` and
        ``summary_updated`` are 0 without).
        """
        ids = [
            sid
            for sid in session_files.session_ids(self.paths)
            if include_temp or not sid.startswith(session_files.TEMP_PREFIX)
        ]
        now = self._clock()
        with self._store.read() as conn:
            known = archive.stats(conn)
            empty = archive.SessionStats()
            activity = {sid: self._activity(sid, known.get(sid, empty)) for sid in ids}
            order = sorted(
                ids,
                key=lambda sid: (ordering_time(activity[sid], lambda: self._file_activity(sid), now), sid),
                reverse=True,
            )
            chosen = order if limit is None else order[: max(0, limit)]
            firsts = archive.first_user_texts(conn) if len(chosen) > FIRSTS_IN_ONE_QUERY else None
            return [
                self._info(conn, sid, known.get(sid, empty), firsts, activity[sid], now, with_files)
                for sid in chosen
            ]

    def session_info(self, session: str) -> SessionInfo:
        """What the session list shows of one session (without listing the others).

        Raises:
            SessionNotFound: no such session.
        """
        self.require(session)
        with self._store.read() as conn:
            info = archive.stats(conn, session).get(session, archive.SessionStats())
            return self._info(conn, session, info, None, self._activity(session, info), self._clock(), True)

    def _folder(self, sid: str) -> str:
        """A session's folder as a ``str`` (see :func:`engine.sessions.folders.size_and_mtime`)."""
        return f"{self._sessions_dir}{os.sep}{sid}"

    def _activity(self, sid: str, info: archive.SessionStats) -> int:
        """The time of the session's latest message; without one, of the newest change to its files."""
        return info.last_at or session_files.newest_mtime(Path(self._folder(sid)))

    def _file_activity(self, sid: str) -> int:
        """When history.json (else the folder) last changed."""
        folder = self._folder(sid)
        return session_files.mtime(f"{folder}{os.sep}history.json") or session_files.mtime(folder)

    def _info(
        self,
        conn: Connection,
        sid: str,
        info: archive.SessionStats,
        firsts: dict[str, str] | None,
        activity: int,
        now: int,
        with_files: bool,
    ) -> SessionInfo:
        """One session's :class:`SessionInfo` (``firsts``: the first user texts of every session, or None to
        look this one's up)."""
        title, source = info.title, info.title_source
        if not title and info.total:
            first = (firsts or {}).get(sid, "")
            if not first.strip():  # not known, or its first characters are blank: ask for this session
                first = archive.first_user_text(conn, sid)
            title, source = titles.shorten(first), "auto"
        folder = self._folder(sid)
        history_bytes = summary_updated = 0
        if with_files:
            history_bytes = session_files.size_and_mtime(f"{folder}{os.sep}history.json")[0]
            summary_updated = session_files.mtime(f"{folder}{os.sep}summary.json")
        return SessionInfo(
            id=sid,
            last_activity=activity,
            hot_messages=info.total - info.before_cut,
            archived_messages=info.before_cut,
            history_bytes=history_bytes,
            summary_updated=summary_updated,
            temporary=sid.startswith(session_files.TEMP_PREFIX),
            private=is_private(sid),
            title=title if title else "",
            title_source=source if title else "",
            first_message_at=info.first_at,
            last_message_at=info.last_at,
            file_activity=0 if session_files.believed(activity, now) else self._file_activity(sid),
        )

    def set_title(self, session: str, title: str, *, source: str = titles.USER, told: bool = False) -> str:
        """Give a session a title of the user's (an empty one goes back to the first user message).

        ``told``: a title another device set, which a sync applies (``source`` says its kind): stored, and
        not journaled, so it is not sent back as a change of this device's.

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
            now = self._clock()
            archive.set_title(conn, session, cleaned, source, now)
            if not told:
                identity.record_title(conn, session, cleaned, source, now)
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
            return self.append_private(session, batch)
        records = self._recovery.records(session)
        with self._store.write() as conn:
            staged = self._stage(conn, session, batch, records, self._clock())
        if staged.held:
            return staged.stored
        try:
            size = self.write_history(staged)
        except EngineError:
            self.undo_append(session, staged.ids)
            raise
        self.settle([(staged, size)])
        return staged.stored

    def _stage(
        self, conn: Connection, session: str, batch: list[Message], records: list[Any], now: int
    ) -> Staged:
        """The archive's part of an append, inside the caller's write transaction (see :meth:`stage_all`)."""
        return self.stage_all(conn, [(session, batch, records)], now)[0]

    def stage_all(
        self, conn: Connection, appends: Sequence[tuple[str, list[Message], list[Any]]], now: int
    ) -> list[Staged]:
        """The archive's part of appends to different sessions (``(session, batch, history.json's
        records)``), inside the caller's write transaction: for each, finish the appends before it (mark
        done what history.json holds, backfill a file that predates the archive) and see whether it is a
        failed try's retry (:func:`retried`: it takes that try's rows); then insert every other batch, in
        the same statements, and tell the listeners."""
        plans: list[tuple[str, list[Message], list[Message], list[Message], bool]] = []
        stocked = archive.with_rows(conn, (s for s, _, records in appends if not records))
        for session, batch, records in appends:
            if not records and session not in stocked:  # new here: no append before it to finish or retry
                plans.append((session, batch, [], [], False))
                continue
            meta = archive.meta(conn, session)
            pending = self._recovery.pending(conn, session, meta, records)
            if pending.written:  # the finished appends before this one: history.json holds them
                Recovery.confirm(conn, session, pending.written[-1].id or 0)
            elif records and not meta.hot_last_id and not archive.has_rows(conn, session):
                meta = self._recovery.backfill(conn, session, records, meta, now)
            adopted = retried(pending.missing, batch)
            replay = pending.missing[: len(pending.missing) - len(adopted)]
            held = False  # the adopted rows are in history.json already (a read replayed them)
            if not adopted and not pending.missing:
                adopted = retried(replayed_tail(conn, session, meta), batch)
                held = bool(adopted)
            if adopted:
                log.info("session %s: an append retried after a failure took its archived rows", session)
            plans.append((session, batch, replay, adopted, held))
        inserted = iter(
            archive.insert_sessions(
                conn, [(s, batch) for s, batch, _, adopted, _ in plans if not adopted], now
            )
        )
        staged = []
        added: list[Message] = []  # every session's new rows: the listeners are told once
        for session, batch, replay, adopted, held in plans:
            ids = [m.id or 0 for m in adopted] if adopted else next(inserted)
            stored = [
                Message(m.role, m.content, m.send_at, m.sender, i, session)
                for m, i in zip(batch, ids, strict=True)
            ]
            if not adopted:  # adopted rows were given to the listeners when they were inserted
                added.extend(stored)
            staged.append(Staged(session, batch, stored, ids, replay, bool(adopted), held))
        if added:
            for listener in self.listeners:
                listener.messages_added(conn, added)
        return staged

    def write_history(self, staged: Staged) -> int:
        """history.json's part of an append (after its archive rows committed); return the file's size.

        Raises:
            EngineError: the file could not be written (the caller takes back the archive rows).
        """
        if staged.replay:
            Recovery.log_replay(staged.session, staged.replay)
        new_records = [to_record(m) for m in staged.replay] + [to_record(m) for m in staged.batch]
        with file_errors(f"history.json of session {staged.session}"):
            return self.files.append(self.paths.history_file(staged.session), new_records)

    def write_histories(self, appends: Sequence[Staged]) -> list[int | Exception]:
        """history.json's part of appends to different sessions (after their archive rows committed), all
        files synced together (:meth:`HotFiles.append_all`); per append the file's size, or what stopped it
        (an ``OSError`` as the StorageError :meth:`write_history` would raise: the caller takes back that
        append's archive rows)."""
        for staged in appends:
            if staged.replay:
                Recovery.log_replay(staged.session, staged.replay)
        written = self.files.append_all(
            [
                (
                    self.paths.history_file(staged.session),
                    [to_record(m) for m in staged.replay] + [to_record(m) for m in staged.batch],
                )
                for staged in appends
            ]
        )
        return [
            storage_error(r, f"history.json of session {staged.session}") if isinstance(r, OSError) else r
            for staged, r in zip(appends, written, strict=True)
        ]

    def settle(self, written: Sequence[tuple[Staged, int]], *, settled: bool = False) -> None:
        """After history.json got the appends (``(append, file size)``): mark done what must be, compact.

        ``settled``: an import's batch: its sessions written now leave ``unsettled_sessions``.
        """
        # The rows written now are marked done by the next writer of this session, which finds them at
        # the end of history.json (Recovery.pending): one write transaction per append instead of two.
        # Replayed rows are marked now, so no row is ever written to the file twice; so are the rows of
        # an append that compacts.
        limit = self._settings().max_history_bytes
        due = [(staged, size > limit) for staged, size in written]
        now = [(staged, compact) for staged, compact in due if staged.replay or staged.adopted or compact]
        if now or (settled and written):
            with self._store.write() as conn:
                if settled:
                    conn.execute(
                        "DELETE FROM unsettled_sessions WHERE session_id = ?",
                        [(s.session,) for s, _ in written],
                    )
                for staged, _ in now:
                    Recovery.confirm(conn, staged.session, staged.ids[-1])
                    if staged.replay:
                        first, last = staged.replay[0].id or 0, staged.replay[-1].id or 0
                        archive.mark_replayed(conn, staged.session, first, last)
        for staged, compact in due:
            if compact:
                self._compact_locked(staged.session)

    def undo_append(self, session: str, ids: list[int]) -> None:
        """Take back the archive rows of an append whose history.json write failed (not acknowledged).

        If that fails too, the rows stay above ``hot_last_id``: a retry of the same append takes them
        (:func:`retried`); any other next write puts them in history.json.
        """
        try:
            with self._store.write() as conn, archive.without_overwrite(conn):
                for message_id in ids:
                    for listener in self.listeners:
                        listener.message_forgotten(conn, session, message_id)
                archive.delete_range(conn, session, min(ids), max(ids))
        except EngineError as exc:
            log.warning(
                "could not take back %d archived messages of session %s after a failed write (%s); "
                "a retry of the same messages takes them, any other write puts them in history.json",
                len(ids),
                session,
                exc,
            )

    def append_private(self, session: str, batch: list[Message]) -> list[Message]:
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
        """Append imported conversations a batch of sessions at a time (:mod:`engine.sessions.batchimport`;
        see :meth:`engine.memory.Memory.import_sessions`)."""
        return self._imports.run(imported, progress)

    def settle_imports(self) -> int:
        """Write the history.json an import killed after its commit left behind (when the memory opens);
        return how many sessions (:meth:`engine.sessions.batchimport.BatchImport.settle_pending`)."""
        return self._imports.settle_pending()

    def restore_emptied(self) -> int:
        """Archive every session's history.json again when the archive has no message at all (a missing,
        zero-length or replaced database, see :mod:`engine.repair.emptied`); return how many messages.

        Reads only, unless the archive is empty and some history.json holds messages.
        """
        with self._store.read() as conn:
            if not archive.archive_empty(conn):
                return 0
        sessions = session_files.sessions_with_history(self.paths, self.files.read)
        restored = count = 0
        now = self._clock()
        for session in sessions:
            with self.locks.hold(session):
                records = self._recovery.records(session)
                with self._store.write() as conn:
                    if archive.has_rows(conn, session):
                        continue  # another program restored it meanwhile
                    archive.clear_meta(conn, session)
                    self._recovery.backfill(conn, session, records, archive.Meta(), now)
                    restored += len(alignment.usable(records))
                    count += 1
        if restored:
            log.warning(
                "the memory database %s had no messages although %d session(s) have a history.json (it was "
                "missing, emptied or replaced): their %d messages were archived again; messages compacted "
                "out of history.json before are not in it",
                self._store.path,
                count,
                restored,
            )
        return restored

    # -- reading ----------------------------------------------------------------------------------

    def history(self, session: str) -> list[Message]:
        """Every message in history.json, oldest first, with archive ids where known.

        Reads without the session's lock and without writing; only when something is to be finished (an
        interrupted append or compaction, a lost or damaged file) does it take the lock and repair.
        """
        self.require(session)
        hot = self._recovery.peek(session)
        if hot is None:
            with self.locks.hold(session):
                hot = self._recovery.hot(session)
        messages = [m for _, m in alignment.usable(hot.records)]
        return alignment.attach_ids(session, messages, hot.rows)

    def window(self, session: str) -> list[Message]:
        """The last ``max_history_messages`` messages (by count), oldest first."""
        return self.history(session)[-self._settings().max_history_messages :]

    def archive_page(self, session: str, before_id: int | None = None, limit: int = 200) -> list[Message]:
        """Archived messages of a session older than ``before_id``, newest first (for lazy scrolling)."""
        self.require(session)
        with self._store.read() as conn:
            return archive.page(conn, session, before_id, max(1, min(limit, 5000)))

    def archive_count(self, session: str) -> int:
        """How many messages of the session are archived."""
        self.require(session)
        with self._store.read() as conn:
            return archive.count_before(conn, session)

    def archive_position(self, session: str, message_id: int) -> int:
        """The archived messages of the session older than ``message_id`` (its row, oldest first)."""
        self.require(session)
        with self._store.read() as conn:
            return archive.count_before(conn, session, message_id)

    def archive_slice(self, session: str, offset: int, limit: int) -> list[Message]:
        """Archived messages from position ``offset`` (0: the oldest), oldest first; at most 5,000."""
        self.require(session)
        with self._store.read() as conn:
            return archive.at_offset(conn, session, max(0, offset), max(1, min(limit, 5000)))

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
        hot = self._recovery.hot(session)
        records = hot.records
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
        remaining = records[cut:]
        found = alignment.usable(records)
        paired = alignment.align([m for _, m in found], hot.rows)
        kept = [
            hot.rows[j] for (index, _), j in zip(found, paired, strict=True) if index >= cut and j is not None
        ]
        matched = sum(1 for j in paired if j is not None)
        start_at = compaction.first_send_at(remaining)
        with self._store.write() as conn:
            meta = archive.meta(conn, session)
            if kept:
                start_id = kept[0].id or 0
            else:  # nothing kept is archived: the cut is past the newest row
                start_id = (hot.rows[-1].id or 0) + 1 if hot.rows else meta.start_id
            if matched != len(hot.rows):
                log.warning(
                    "history.json of session %s and the archive disagree (%d vs %d messages); "
                    "the cut was aligned from the newest message",
                    session,
                    matched,
                    len(hot.rows),
                )
            # history.json holds every row from the cut on now (hot() replayed what it lacked): all are done.
            done = max(meta.hot_last_id, hot.rows[-1].id or 0) if hot.rows else meta.hot_last_id
            archive.save_meta(conn, session, archive.Meta(start_at or meta.start_at, start_id, done))
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

    def order_by_time(self, session: str) -> bool:
        """Put the session's recent messages in time order, ties by global id (what sync does after messages
        of another device arrived: :mod:`engine.sessions.timeorder`); whether anything moved."""
        return self._time_order.session(session)

    # -- forgetting, reset, removal ---------------------------------------------------------------

    def forget(self, message_id: int) -> Message:
        """Forget one archived message everywhere (see :meth:`engine.memory.Memory.forget_message`): a
        recorded intent, finished at the next open if interrupted, remembered as a tombstone
        (:mod:`engine.sessions.forgetting`)."""
        return self._forgetting.message(message_id)

    def forget_session(self, session: str) -> ResetResult:
        """Forget a whole session (see :meth:`engine.memory.Memory.forget_session`)."""
        deleted = self._forgetting.session(session, lambda: self._remove_locked(session))
        return ResetResult(session, deleted, False)

    def finish_forgets(self) -> int:
        """Finish the forgets a kill interrupted (when the memory opens); return how many."""
        return self._forgetting.finish_pending(self._remove_locked)

    def reset(self, session: str, *, include_summary: bool = False) -> ResetResult:
        """Clear a session's history and archive; keep summary.json and the cursor unless asked.

        The deleted text is scrubbed from the database's files (see :meth:`forget`).
        """
        self.require(session)
        with self.locks.hold(session):
            deleted = self._clear_archive(session, summary=include_summary)
            with file_errors(f"the files of session {session}"):
                session_files.remove_files(self.paths, session, keep_summary=not include_summary)
                self.files.drop_leftovers(self.paths.history_file(session))
            self.files.forget(self.paths.history_file(session))
            self._store.scrub()
        log.info(
            "reset session %s (%d archived messages deleted, summary %s)",
            session,
            deleted,
            "deleted" if include_summary else "kept",
        )
        return ResetResult(session, deleted, not include_summary)

    def remove(self, session: str) -> ResetResult:
        """Delete a session entirely: its folder (for a link: memtray's files in its target, and the
        link), archive rows, what the listeners derived from them, and its lock files; the deleted text
        is scrubbed from the database's files (see :meth:`forget`)."""
        self.require(session)
        deleted = self._remove_locked(session)
        log.info("removed session %s (%d archived messages deleted)", session, deleted)
        return ResetResult(session, deleted, False)

    def _remove_locked(self, session: str) -> int:
        """:meth:`remove`'s work, for a session whose folder may be gone already (a forget finished at
        open); return how many archived messages were deleted."""
        with self.locks.hold(session):
            deleted = self._clear_archive(session, unregister=True)
            self.files.forget(self.paths.history_file(session))
            with file_errors(f"the files of session {session}"):
                self.files.drop_leftovers(self.paths.history_file(session))
            if self.paths.session_dir(session).is_dir() or self.paths.session_dir(session).is_symlink():
                with file_errors(f"the folder of session {session}"):
                    session_files.remove_folder(self.paths, session)
            self._store.scrub()
        self.locks.remove_files(session)
        self.locks.forget(session)
        return deleted

    def _clear_archive(self, session: str, *, unregister: bool = False, summary: bool = False) -> int:
        """Delete a session's rows (and, ``unregister``, the session), leaving tombstones and a journal
        entry; ``summary``: a reset that deletes the summary too (the other devices' go as well)."""
        with self._store.write() as conn:
            kind = identity.REMOVE if unregister else identity.RESET
            rows = archive.rows_from(conn, session, 0)
            if rows:  # no import or sync brings them back; the journal tells the other devices
                keys, now = self.tomb_keys.writing(conn), self._clock()
                for message in rows:
                    tombstones.bury(conn, keys, message, now, cause=kind)
                cleared = tombstones.journal(conn, keys, session, rows)
                if summary:
                    cleared["summary"] = True
                if cleared["gids"] or cleared["graves"]:
                    identity.record_change(conn, kind, session, cleared, now)
            if unregister:  # its titles go with it, on every device (a removal is a change of title)
                identity.drop_titles(conn, session)
                identity.record_title(conn, session, "", "", self._clock())
            for listener in self.listeners:
                listener.session_cleared(conn, session)
            deleted = archive.delete_session(conn, session)
            if unregister:
                archive.unregister(conn, session)
        return deleted

    def cleanup_temp_sessions(self, idle_ns: int) -> list[str]:
        """Remove ``temp-`` sessions idle for longer than ``idle_ns``, and lock files of sessions that
        no longer exist."""
        now = self._clock()
        removed = []
        for sid in session_files.session_ids(self.paths):
            if not sid.startswith(session_files.TEMP_PREFIX):
                continue
            if now - session_files.newest_mtime(self.paths.session_dir(sid)) > idle_ns:
                self.remove(sid)
                removed.append(sid)
        self.remove_stale_locks(always=True)
        return removed

    def remove_stale_locks(self, *, always: bool = False) -> int:
        """Delete the lock files of sessions that no longer exist (when a home opens, and at cleanup).

        A lock file goes stale only when a session folder goes, which changes the sessions folder's
        modification time; that time is noted in the store's folder after each cleanup, and a home whose
        sessions folder has not changed since is not listed again (unless ``always``): opening a home of
        100,000 sessions costs two stats, not two listings.
        """
        stamp = self.paths.store_dir / "locks-checked"
        seen = str(session_files.mtime(self.paths.sessions_dir))
        if not always:
            try:
                if stamp.read_text(encoding="ascii") == seen:
                    return 0
            except (OSError, ValueError):
                pass
        existing = set(session_files.session_ids(self.paths))
        removed = self.locks.remove_stale(lambda session: session in existing or self.exists(session))
        try:
            atomic_write(stamp, seen.encode("ascii"))
        except OSError:  # a read-only home: listed again next time
            pass
        return removed


FIRSTS_IN_ONE_QUERY = 200
"""Listing more sessions than this, their first user messages are read in one query; fewer, one by one."""

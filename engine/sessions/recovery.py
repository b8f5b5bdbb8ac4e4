"""Bringing a session's two copies back in step after an interrupted write (:class:`Recovery`).

The session log (:mod:`engine.sessions.log`) calls these under the session's lock, before it writes or
reads history.json. What an interrupted write can leave behind, and what is done about it:

- history.json unreadable (not a JSON array) or lost: the file is moved aside and rebuilt from the
  archive's rows after the compaction cut (:meth:`Recovery.records`).
- an append killed after its archive rows committed and before history.json was renamed: the rows above
  ``hot_last_id`` that the file's tail lacks are written to the file again (:meth:`Recovery.pending`).
- a compaction killed after it moved the cut and before it rewrote history.json: the archived messages
  still at the file's start are dropped, if the file's newest messages match the archive's.
- a history.json that predates the archive (first encounter): its messages are archived
  (:meth:`Recovery.backfill`).

:meth:`Recovery.repair` runs the first three before a compaction, a forget or a read; an append runs
:meth:`Recovery.records`, :meth:`Recovery.pending` and :meth:`Recovery.backfill` itself, inside its own
write transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection

from engine.clock import Clock
from engine.messages import Message, from_record, to_record
from engine.paths import Paths
from engine.sessions import archive
from engine.sessions.folders import is_private
from engine.sessions.historyfile import HistoryUnreadable, HotFiles
from engine.sessions.listeners import ArchiveListener
from engine.storage.diskerrors import file_errors
from engine.storage.store import Store

log = logging.getLogger("memtray.sessions")


class Recovery:
    """The recovery steps of one home's sessions; the caller holds the session's lock.

    Args:
        listeners: told of backfilled messages (the session log's list, shared).
    """

    def __init__(
        self,
        paths: Paths,
        store: Store,
        files: HotFiles,
        clock: Clock,
        listeners: Sequence[ArchiveListener],
    ) -> None:
        self._paths = paths
        self._store = store
        self._files = files
        self._clock = clock
        self._listeners = listeners

    def records(self, session: str) -> list[Any]:
        """The session's history.json records; an unreadable or lost file is rebuilt from the archive."""
        path = self._paths.history_file(session)
        try:
            records = self._files.read(path)
        except HistoryUnreadable:
            with file_errors(f"history.json of session {session}"):
                self._files.quarantine(path, self._clock())
        else:
            if records or path.exists():
                return records
        if is_private(session):
            return []
        with self._store.read() as conn:
            meta = archive.meta(conn, session)
            rows = archive.rows_from(conn, session, meta.start_id) if archive.has_rows(conn, session) else []
        if not rows and not path.parent.is_dir():
            return []
        records = [to_record(m) for m in rows]
        if rows:
            with file_errors(f"history.json of session {session}"):
                self._files.write(path, records)
            log.warning(
                "rebuilt history.json of session %s from the archive (%d messages)", session, len(rows)
            )
            if meta.hot_last_id < (rows[-1].id or 0):
                with self._store.write() as conn:
                    archive.save_meta(
                        conn, session, archive.Meta(meta.start_at, meta.start_id, rows[-1].id or 0)
                    )
        return records

    def repair(self, session: str) -> list[Any]:
        """history.json's records after finishing an interrupted compaction or append, if there was one."""
        records = self.records(session)
        if is_private(session):
            return records
        with self._store.read() as conn:
            meta = archive.meta(conn, session)
            interrupted = archive.rows_from(conn, session, meta.hot_last_id + 1)
            hot = archive.rows_from(conn, session, meta.start_id) if meta.start_id else []
        if meta.start_id:
            done = [m for m in hot if (m.id or 0) <= meta.hot_last_id]
            records = self._finish_compaction(session, records, done)
        if not interrupted:
            return records
        with self._store.write() as conn:
            replay = self.pending(conn, session, archive.meta(conn, session), records)
        if replay:
            with file_errors(f"history.json of session {session}"):
                self._files.append(self._paths.history_file(session), [to_record(m) for m in replay])
            with self._store.write() as conn:
                current = archive.meta(conn, session)
                archive.save_meta(
                    conn, session, archive.Meta(current.start_at, current.start_id, replay[-1].id or 0)
                )
            records = self._files.read(self._paths.history_file(session))
        return records

    def pending(
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

    def backfill(
        self, conn: Connection, session: str, records: list[Any], meta: archive.Meta, now: int
    ) -> archive.Meta:
        """First encounter: archive the messages of a history.json that predates the archive."""
        old = [m for m in (from_record(r) for r in records) if m is not None]
        ids = archive.insert(conn, session, old, now)
        stored = [m.with_id(i, session) for m, i in zip(old, ids, strict=True) if i is not None]
        for listener in self._listeners:
            listener.messages_added(conn, stored)
        log.info("backfilled %d messages of session %s into the archive", len(stored), session)
        if not stored:
            return meta
        updated = archive.Meta(meta.start_at, meta.start_id, stored[-1].id or 0)
        archive.save_meta(conn, session, updated)
        return updated

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
            self._files.write(self._paths.history_file(session), remaining)
        log.warning(
            "finished an interrupted compaction of session %s: %d archived messages left history.json",
            session,
            len(records) - len(remaining),
        )
        return remaining

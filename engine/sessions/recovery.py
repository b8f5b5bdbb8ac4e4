"""Bringing a session's two copies back in step after an interrupted write (:class:`Recovery`).

The session log (:mod:`engine.sessions.log`) calls these under the session's lock, before it writes or
reads history.json (the protocol in full: ``docs/architecture.md``, *The session log: append, replay,
compaction*). What an interrupted write can leave behind, and what is done about it:

- history.json unreadable (not a JSON array, nested too deeply) or lost: the file is moved aside and
  rebuilt from the archive's rows after the compaction cut (:meth:`Recovery.records`).
- an append killed (or failed) after its archive rows committed and before history.json was renamed:
  the rows above ``hot_last_id`` that the file's tail lacks are written to the file again
  (:meth:`Recovery.pending` finds them), and recorded as done as soon as the file holds them, so a row is
  written again at most once, whatever the file's text looks like.
- a compaction killed after it moved the cut and before it rewrote history.json: the archived messages
  still at the file's start are dropped, if the file's newest messages match the archive's.
- a history.json that predates the archive (first encounter, or an emptied database): its messages are
  archived as written (:meth:`Recovery.backfill`).

:meth:`Recovery.hot` runs the first three before a compaction, a forget or a read, and writes nothing
when there is nothing to finish (a read takes no write lock); an append runs :meth:`Recovery.records`,
:meth:`Recovery.pending` and :meth:`Recovery.backfill` itself, inside its own write transaction. Which
rows the file holds is decided by :mod:`engine.sessions.alignment`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.clock import Clock
from engine.messages import Message, to_record
from engine.paths import Paths
from engine.sessions import alignment, archive
from engine.sessions.folders import is_private
from engine.sessions.historyfile import HistoryUnreadable, HotFiles
from engine.sessions.listeners import ArchiveListener
from engine.storage.diskerrors import file_errors
from engine.storage.sql import Connection
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

    def hot(self, session: str) -> Hot:
        """history.json's records and the rows they hold, after finishing an interrupted compaction or
        append if there was one. Writes nothing when there is nothing to finish."""
        records = self.records(session)
        if is_private(session):
            return Hot(records, [])
        with self._store.read() as conn:
            meta = archive.meta(conn, session)
            rows = archive.rows_from(conn, session, meta.start_id)
        unconfirmed = [m for m in rows if (m.id or 0) > meta.hot_last_id]
        messages = [m for _, m in alignment.usable(records)]
        missing = unconfirmed[alignment.written(messages, unconfirmed) :]
        held = rows[: len(rows) - len(missing)]
        if meta.start_id and held:
            records = self._finish_compaction(session, records, held, meta.start_id)
        if not missing:
            return Hot(records, rows)
        self.log_replay(session, missing)
        with file_errors(f"history.json of session {session}"):
            self._files.append(self._paths.history_file(session), [to_record(m) for m in missing])
        with self._store.write() as conn:
            self.confirm(conn, session, missing[-1].id or 0)
            archive.mark_replayed(conn, session, missing[0].id or 0, missing[-1].id or 0)
        return Hot(self._files.read(self._paths.history_file(session)), rows)

    def peek(self, session: str) -> Hot | None:
        """history.json's records and rows, read without the session's lock, when there is nothing to
        finish; None when there may be (then :meth:`hot` is called under the lock).

        The file is read before the rows, so the rows are at least as new as the file: an append under
        way shows as rows the file lacks, a compaction under way as messages before the cut (both: None).
        """
        path = self._paths.history_file(session)
        try:
            records = self._files.read(path)
        except HistoryUnreadable:
            return None
        if is_private(session):
            return Hot(records, [])
        with self._store.read() as conn:
            meta = archive.meta(conn, session)
            rows = archive.rows_from(conn, session, meta.start_id)
        if not records and rows and not path.exists():
            return None  # lost: to be rebuilt from the archive
        messages = [m for _, m in alignment.usable(records)]
        unconfirmed = [m for m in rows if (m.id or 0) > meta.hot_last_id]
        if alignment.written(messages, unconfirmed) < len(unconfirmed):
            return None
        if meta.start_id and rows and alignment.tail_start(messages, rows):
            return None  # messages from before the cut at the file's start
        return Hot(records, rows)

    def repair(self, session: str) -> list[Any]:
        """history.json's records after finishing an interrupted compaction or append (see :meth:`hot`)."""
        return self.hot(session).records

    def pending(self, conn: Connection, session: str, meta: archive.Meta, records: list[Any]) -> Pending:
        """The unconfirmed rows (above ``hot_last_id``): those history.json holds and those it lacks.

        They belong to appends whose file write has not been confirmed yet: the last finished append (its
        rows end the file) and at most one interrupted or failed append after it (its rows are missing
        from the file, which is written in one atomic rename). Reads only.
        """
        rows = archive.rows_from(conn, session, max(meta.hot_last_id + 1, meta.start_id))
        if not rows:
            return Pending([], [])
        count = alignment.written([m for _, m in alignment.usable(records)], rows)
        return Pending(rows[:count], rows[count:])

    @staticmethod
    def confirm(conn: Connection, session: str, last_id: int) -> None:
        """Record that history.json holds the session's rows up to ``last_id`` (never moves back)."""
        current = archive.meta(conn, session)
        if last_id > current.hot_last_id:
            archive.save_meta(conn, session, archive.Meta(current.start_at, current.start_id, last_id))

    @staticmethod
    def log_replay(session: str, missing: Sequence[Message]) -> None:
        log.warning(
            "replaying %d archived messages of session %s missing from history.json", len(missing), session
        )

    def backfill(
        self, conn: Connection, session: str, records: list[Any], meta: archive.Meta, now: int
    ) -> archive.Meta:
        """First encounter: archive the messages of a history.json that predates the archive, as written."""
        old = [m for _, m in alignment.usable(records)]
        ids = archive.insert(conn, session, old, now)
        stored = [m.with_id(i, session) for m, i in zip(old, ids, strict=True)]
        for listener in self._listeners:
            listener.messages_added(conn, stored)
        log.info("backfilled %d messages of session %s into the archive", len(stored), session)
        if not stored:
            return meta
        updated = archive.Meta(meta.start_at, meta.start_id, stored[-1].id or 0)
        archive.save_meta(conn, session, updated)
        return updated

    def _finish_compaction(
        self, session: str, records: list[Any], held: list[Message], start_id: int
    ) -> list[Any]:
        """Trim history.json to the cut when a compaction was interrupted after it moved the cut.

        The cut is committed before history.json is rewritten; a process killed in between leaves the file
        with messages from before the cut at its start. They are archived, so they are dropped here, but
        only when the file's newest messages are the rows from the cut on and every dropped message with
        text is one of the archived rows just before the cut (else the file is left as it is).
        """
        found = alignment.usable(records)
        start = alignment.tail_start([m for _, m in found], held)
        if not start:
            return records
        lead = [m for _, m in found[:start]]
        with self._store.read() as conn:
            before = {(m.role, m.content) for m in archive.page(conn, session, start_id, len(lead))}
        if any(m.content.strip() and (m.role, m.content) not in before for m in lead):
            return records
        remaining = records[found[start][0] :]
        with file_errors(f"history.json of session {session}"):
            self._files.write(self._paths.history_file(session), remaining)
        log.warning(
            "finished an interrupted compaction of session %s: %d archived messages left history.json",
            session,
            len(records) - len(remaining),
        )
        return remaining


def retried(rows: Sequence[Message], batch: Sequence[Message]) -> list[Message]:
    """The rows that an append retried after a failure takes instead of inserting its messages again.

    An append whose history.json write failed takes back its archive rows; if that fails too (a full
    disk), the rows stay, unconfirmed and missing from the file, until the next call replays them. When
    the client then retries, its batch equals those rows, which end the archive: same role, text, time
    (as archived) and sender, in order. ``rows``: the session's newest rows that no append acknowledged
    (missing from the file, or written there by the last replay, nothing after them). Returns the rows
    the batch is (the retry's), or ``[]``: then the batch gets new rows.
    """
    if not batch or len(batch) > len(rows):
        return []
    tail = list(rows[len(rows) - len(batch) :])
    times = archive.archive_times(batch)
    for row, message, send_at in zip(tail, batch, times, strict=True):
        if (row.role, row.content, row.send_at, row.sender) != (
            message.role,
            message.content,
            send_at,
            message.sender,
        ):
            return []
    return tail


def replayed_tail(conn: Connection, session: str, meta: archive.Meta) -> list[Message]:
    """The rows the last replay wrote to history.json, if they still end the archive (else ``[]``)."""
    if not meta.replayed_to:
        return []
    rows = archive.rows_from(conn, session, meta.replayed_from)
    return rows if rows and rows[-1].id == meta.replayed_to else []


@dataclass(frozen=True)
class Hot:
    """history.json's records, and the archive's rows of the session from the compaction cut on."""

    records: list[Any]
    rows: list[Message]


@dataclass(frozen=True)
class Pending:
    """The unconfirmed rows of a session: those history.json holds, and those it lacks (to be written)."""

    written: list[Message]
    missing: list[Message]

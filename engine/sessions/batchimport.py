"""Imports stored a batch of sessions at a time (:class:`BatchImport`), and an import killed after its
commit finished when the memory opens (:meth:`BatchImport.settle_pending`).

Each session of a batch gets one append of the session log's protocol (``docs/architecture.md``, *The
session log*), its steps handed in as :class:`AppendSteps`: every session's archive rows (and imported
title) in one write transaction, committed first; then every history.json; then, in one more transaction
only if needed, what the append protocol marks done at once (replays, compactions). How an import is cut
into batches and which of its messages are new is :mod:`engine.sessions.importing`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from engine.clock import Clock
from engine.errors import EngineError
from engine.imported import ImportedSession, ImportReport
from engine.messages import Message
from engine.paths import Paths
from engine.sessions import archive, importing, titles, tombstones
from engine.sessions.folders import is_private
from engine.sessions.recovery import Recovery
from engine.sessions.staged import Staged
from engine.sessions.tombkeys import TombKeys
from engine.storage.atomic import atomic_write
from engine.storage.diskerrors import file_errors
from engine.storage.locks import SessionLocks
from engine.storage.sql import Connection
from engine.storage.store import Store

log = logging.getLogger("memtray.sessions")

FORGOTTEN = "forgotten earlier"
"""An import's skip reason for messages the memory was told to forget (they never come back)."""


class AppendSteps(Protocol):
    """The session log's append, step by step (:class:`engine.sessions.log.SessionLog` has them)."""

    def exists(self, session: str) -> bool: ...
    def stage_all(
        self, conn: Connection, appends: Sequence[tuple[str, list[Message], list[Any]]], now: int
    ) -> list[Staged]: ...
    def write_histories(self, appends: Sequence[Staged]) -> list[int | Exception]: ...
    def settle(self, written: Sequence[tuple[Staged, int]], *, settled: bool = False) -> None: ...
    def undo_append(self, session: str, ids: list[int]) -> None: ...
    def append_private(self, session: str, batch: list[Message]) -> list[Message]: ...


class BatchImport:
    """The imports of one home, through the session log's append steps."""

    def __init__(
        self,
        paths: Paths,
        store: Store,
        locks: SessionLocks,
        recovery: Recovery,
        clock: Clock,
        tomb_keys: TombKeys,
        steps: AppendSteps,
    ) -> None:
        self._paths = paths
        self._store = store
        self._locks = locks
        self._recovery = recovery
        self._clock = clock
        self._tomb_keys = tomb_keys
        self._steps = steps

    def run(
        self, imported: Sequence[ImportedSession], progress: Callable[[int, int], None] | None = None
    ) -> ImportReport:
        """Append imported conversations, skipping messages the session already holds (see
        :meth:`engine.memory.Memory.import_sessions`); ``progress(done, total)`` after each batch of
        sessions (:func:`engine.sessions.importing.batches`)."""
        added = present = 0
        skipped: dict[str, int] = {}
        total = sum(len(s.messages) for s in imported)
        done = 0
        for batch in importing.batches(imported):
            new, old, forgotten = self._batch(batch)
            added, present = added + new, present + old
            if forgotten:
                skipped[FORGOTTEN] = skipped.get(FORGOTTEN, 0) + forgotten
            for item in batch:
                for reason, count in item.skipped.items():
                    skipped[reason] = skipped.get(reason, 0) + count
                done += len(item.messages)
            if progress is not None:
                progress(done, total)
        return ImportReport(len(imported), added, present, skipped)

    def _batch(self, batch: list[ImportedSession]) -> tuple[int, int, int]:
        """Store a batch of conversations (each session once); return (messages added, already present,
        passed over because they were forgotten: :mod:`engine.sessions.tombstones`).

        Each session gets one append, in this order: every session's archive rows (and imported title)
        in one write transaction, committed first; then every history.json, each in one atomic rename,
        all synced together; then, in one more transaction only if needed, what the append protocol marks done
        at once (replays, compactions). A process killed after the commit leaves each session of the
        batch with at most one interrupted append, which its next reader or writer replays
        (:mod:`engine.sessions.recovery`); a re-import finds the rows and adds nothing. A history.json
        that cannot be written takes back that session's rows, as a failed append does.
        """
        steps = self._steps
        with self._locks.hold_all(item.session for item in batch):  # in one order: never deadlock
            with self._store.read() as conn:
                buried = tombstones.Buried(self._tomb_keys, conn)  # a gone message is never imported again
                found = [
                    importing.fresh(item, archive.fingerprints(conn, item.session), buried) for item in batch
                ]
            news = [new for new, _ in found]
            forgotten = sum(count for _, count in found)
            present = sum(len(item.messages) - len(new) for item, new in zip(batch, news, strict=True))
            present -= forgotten
            todo = [(item.session, new) for item, new in zip(batch, news, strict=True) if new]
            for session, new in todo:
                with file_errors("the session folder"):
                    self._paths.session_dir(session).mkdir(parents=True, exist_ok=True, mode=0o700)
                if is_private(session):
                    steps.append_private(session, new)
            shared = [(session, new) for session, new in todo if not is_private(session)]
            records = {session: self._recovery.records(session) for session, _ in shared}
            now = self._clock()
            with self._store.write() as conn:
                staged = steps.stage_all(conn, [(s, new, records[s]) for s, new in shared], now)
                # Committed with the rows: the sessions whose history.json lags them until written. A
                # kill before that leaves them here, and the next open writes those files.
                if lagging := [(s.session,) for s in staged if not s.held]:
                    conn.execute("INSERT OR IGNORE INTO unsettled_sessions(session_id) VALUES (?)", lagging)
                for item in batch:
                    if item.title and not is_private(item.session) and steps.exists(item.session):
                        self._title(conn, item.session, item.title)
            writing = [s for s in staged if not s.held]
            results = steps.write_histories(writing)
            failed = [(s, r) for s, r in zip(writing, results, strict=True) if isinstance(r, Exception)]
            for s, exc in failed:
                if isinstance(exc, EngineError):
                    steps.undo_append(s.session, s.ids)
            steps.settle(
                [(s, r) for s, r in zip(writing, results, strict=True) if isinstance(r, int)], settled=True
            )
            if failed:
                raise failed[0][1]
            for item in batch:
                if item.summary is not None:
                    self._install_summary(item.session, item.summary)
        return sum(len(new) for _, new in todo), present, forgotten

    def _title(self, conn: Connection, session: str, title: str) -> None:
        """Store an imported title, unless the user gave the session one of their own."""
        cleaned = titles.clean(title)
        current = archive.stats_title(conn, session)
        if cleaned and current != (cleaned, titles.IMPORTED) and current[1] != titles.USER:
            archive.set_title(conn, session, cleaned, titles.IMPORTED, self._clock())

    def _install_summary(self, session: str, summary: dict[str, object]) -> None:
        path = self._paths.summary_file(session)
        if path.exists():
            return
        data = json.dumps(summary, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        atomic_write(path, data, tmp_dir=self._paths.store_dir / "tmp")

    def settle_pending(self) -> int:
        """Write the history.json an import killed after its commit left behind (when the memory opens):
        each session of ``unsettled_sessions`` gets the rows its file lacks (:meth:`Recovery.hot`); return
        how many sessions. Reads only when there is none."""
        with self._store.read() as conn:
            sessions = [str(r[0]) for r in conn.execute("SELECT session_id FROM unsettled_sessions")]
        for session in sessions:
            with self._locks.hold(session):
                if self._steps.exists(session) or self._has_rows(session):
                    self._recovery.hot(session)
                with self._store.write() as conn:
                    conn.execute("DELETE FROM unsettled_sessions WHERE session_id = ?", (session,))
        if sessions:
            log.warning(
                "an interrupted import was finished: the history.json of %d sessions written", len(sessions)
            )
        return len(sessions)

    def _has_rows(self, session: str) -> bool:
        with self._store.read() as conn:
            return archive.has_rows(conn, session)

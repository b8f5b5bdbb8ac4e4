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
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.clock import Clock
from engine.errors import EngineError, StoreLocked
from engine.imported import ImportedSession, ImportReport
from engine.messages import Message
from engine.paths import Paths
from engine.sessions import archive, identity, importing, titles, tombstones
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


@dataclass
class _Filing:
    """A batch whose archive rows are committed and whose history.json files are to be written
    (:meth:`BatchImport._stage`), with its sessions' locks, held until they are."""

    writing: list[Staged]
    summaries: list[tuple[str, dict[str, object]]]
    added: int
    present: int
    forgotten: int
    locks: ExitStack = field(default_factory=ExitStack)
    written: Future[list[int | Exception]] | None = None

    def results(self) -> list[int | Exception]:
        """Per file, its size or what stopped it (waits for the writing thread)."""
        return self.written.result() if self.written is not None else []


class _Pipeline:
    """One thread that writes a batch's history.json files while the importing thread stores the next
    batch's rows: the files' syncs and encoding overlap SQLite's work (which releases the interpreter's
    lock while it steps). At most one batch is being written."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memtray-import-files")
        self._filing: _Filing | None = None
        self.sessions: set[str] = set()

    def __enter__(self) -> _Pipeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True)

    @property
    def busy(self) -> bool:
        return self._filing is not None

    def start(
        self, filing: _Filing, sessions: set[str], write: Callable[[Sequence[Staged]], list[int | Exception]]
    ) -> None:
        """Write ``filing``'s files in the thread (``write``: the session log's ``write_histories``)."""
        filing.written = self._pool.submit(write, filing.writing)
        self._filing, self.sessions = filing, sessions

    def take(self) -> _Filing:
        """The batch being written (its results wait for the thread), no longer the pipeline's."""
        filing, self._filing, self.sessions = self._filing, None, set()
        assert filing is not None
        return filing


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
        sessions (:func:`engine.sessions.importing.batches`).

        Two batches overlap (:class:`_Pipeline`): while a thread writes the history.json files of one
        batch, this one stores the archive rows of the next (a batch sharing a session with the one
        before waits for its files). Every file is written, and every failure raised, before this returns.
        """
        added = present = 0
        skipped: dict[str, int] = {}
        total = sum(len(s.messages) for s in imported)
        done = 0
        with _Pipeline() as pipeline:
            try:
                for batch in importing.batches(imported):
                    sessions = {item.session for item in batch}
                    if pipeline.sessions & sessions:  # its files first: this batch reads them
                        self._finish(pipeline.take())
                    with ExitStack() as held:
                        self._lock_batch(held, sessions, pipeline)
                        filing = self._stage(batch)
                        filing.locks = held.pop_all()  # held until the batch's files are written
                    try:
                        if pipeline.busy:
                            self._finish(pipeline.take())
                    finally:  # the rows are committed: their files are written whatever happened before
                        pipeline.start(filing, sessions, self._steps.write_histories)
                    added, present = added + filing.added, present + filing.present
                    if filing.forgotten:
                        skipped[FORGOTTEN] = skipped.get(FORGOTTEN, 0) + filing.forgotten
                    for item in batch:
                        for reason, count in item.skipped.items():
                            skipped[reason] = skipped.get(reason, 0) + count
                        done += len(item.messages)
                    if progress is not None:
                        progress(done, total)
                if pipeline.busy:
                    self._finish(pipeline.take())
            except BaseException:
                if pipeline.busy:  # a batch whose files are being written: finished before the error goes up
                    try:
                        self._finish(pipeline.take())
                    except Exception as exc:  # the first error is the one told
                        log.warning("an import's history.json files failed after an earlier error: %s", exc)
                raise
        return ImportReport(len(imported), added, present, skipped)

    def _lock_batch(self, held: ExitStack, sessions: set[str], pipeline: _Pipeline) -> None:
        """Take the locks of a batch's sessions into ``held``, in sorted order. With the batch before still
        holding its own (its files being written), they are taken only if none is held elsewhere; else
        that batch is finished first and then they are waited for: an importer never waits while it holds
        locks, so two importers cannot deadlock."""
        if pipeline.busy:
            try:
                held.enter_context(self._locks.hold_all(sessions, wait=False))
                return
            except StoreLocked:
                self._finish(pipeline.take())
        held.enter_context(self._locks.hold_all(sessions))

    def _stage(self, batch: list[ImportedSession]) -> _Filing:
        """The first half of a batch's appends (its sessions' locks held): every session's archive rows
        (and imported title) in one write transaction, committed; the history.json files are
        :meth:`_finish`'s.

        Each session gets one append, in this order: every session's archive rows (and imported title)
        in one write transaction, committed first; then every history.json, each in one atomic rename,
        all synced together; then, in one more transaction only if needed, what the append protocol marks done
        at once (replays, compactions). A process killed after the commit leaves each session of the
        batch with at most one interrupted append, which its next reader or writer replays
        (:mod:`engine.sessions.recovery`), and the next open writes (``unsettled_sessions``); a re-import
        finds the rows and adds nothing. A history.json that cannot be written takes back that session's
        rows, as a failed append does.
        """
        steps = self._steps
        with self._store.read() as conn:
            buried = tombstones.Buried(self._tomb_keys, conn)  # a gone message is never imported again
            held = archive.with_rows(conn, (item.session for item in batch))  # the others: nothing to match
            found = [
                importing.fresh(
                    item, archive.fingerprints(conn, item.session) if item.session in held else set(), buried
                )
                for item in batch
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
        summaries = [(item.session, item.summary) for item in batch if item.summary is not None]
        return _Filing(writing, summaries, sum(len(new) for _, new in todo), present, forgotten)

    def _finish(self, filing: _Filing) -> None:
        """The second half of a batch's appends, once its files are written (:meth:`_stage`): what the
        append protocol marks done, the failed files' rows taken back (and the first failure raised),
        the imported summaries; then the batch's locks are released."""
        steps = self._steps
        with filing.locks:
            results = filing.results()
            writing = filing.writing
            failed = [(s, r) for s, r in zip(writing, results, strict=True) if isinstance(r, Exception)]
            for s, exc in failed:
                if isinstance(exc, EngineError):
                    steps.undo_append(s.session, s.ids)
            steps.settle(
                [(s, r) for s, r in zip(writing, results, strict=True) if isinstance(r, int)], settled=True
            )
            if failed:
                raise failed[0][1]
            for session, summary in filing.summaries:
                self._install_summary(session, summary)

    def _title(self, conn: Connection, session: str, title: str) -> None:
        """Store an imported title, unless the user gave the session one of their own."""
        cleaned = titles.clean(title)
        current = archive.stats_title(conn, session)
        if cleaned and current != (cleaned, titles.IMPORTED) and current[1] != titles.USER:
            now = self._clock()
            archive.set_title(conn, session, cleaned, titles.IMPORTED, now)
            identity.record_title(conn, session, cleaned, titles.IMPORTED, now)

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

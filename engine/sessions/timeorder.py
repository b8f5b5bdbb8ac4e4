"""A session's recent messages put in time order (:class:`TimeOrder`), after another device's arrived.

Sync stores the messages of another device as an import (after the rows already here), so a session
active on two devices may hold its recent messages out of time order. Its window must be the newest
messages of the merged archive, the same on every device: :meth:`TimeOrder.session` stores the recent
rows (history.json and their rows, from the compaction cut on) again in time order, ties by global id.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from engine.clock import Clock
from engine.messages import Message, to_record
from engine.paths import Paths
from engine.sessions import archive, identity
from engine.sessions.folders import is_private
from engine.sessions.historyfile import HotFiles
from engine.sessions.listeners import ArchiveListener
from engine.sessions.recovery import Recovery
from engine.storage.diskerrors import file_errors
from engine.storage.locks import SessionLocks
from engine.storage.store import Store

log = logging.getLogger("memtray.sessions")


class TimeOrder:
    """The time ordering of one home's sessions (the session log's parts, shared)."""

    def __init__(
        self,
        paths: Paths,
        store: Store,
        files: HotFiles,
        locks: SessionLocks,
        recovery: Recovery,
        listeners: Sequence[ArchiveListener],
        clock: Clock,
    ) -> None:
        self._paths = paths
        self._store = store
        self._files = files
        self._locks = locks
        self._recovery = recovery
        self._listeners = listeners
        self._clock = clock

    def session(self, session: str) -> bool:
        """Put the session's recent messages in time order, ties by global id; whether anything moved.

        The rows are taken out and stored again in order (new row ids, the same global ids; the listeners
        drop and re-derive them, as for a forget and an append). history.json is removed first: a process
        killed before the new file is written finds it lost and rebuilds it from the rows.
        """
        if is_private(session) or not self._paths.session_dir(session).is_dir():
            return False
        with self._locks.hold(session):
            self._recovery.repair(session)
            with self._store.read() as conn:
                meta = archive.meta(conn, session)
                rows = archive.rows_from(conn, session, meta.start_id)
                gids = identity.gids_of(conn, [m.id or 0 for m in rows])
            ordered = sorted(rows, key=lambda m: (m.send_at, gids.get(m.id or 0, "")))
            if [m.id for m in ordered] == [m.id for m in rows]:
                return False
            path = self._paths.history_file(session)
            with file_errors(f"history.json of session {session}"):
                path.unlink(missing_ok=True)
                self._files.forget(path)
            with self._store.write() as conn:
                for m in rows:
                    for listener in self._listeners:
                        listener.message_forgotten(conn, session, m.id or 0)
                archive.delete_range(
                    conn, session, min(m.id or 0 for m in rows), max(m.id or 0 for m in rows)
                )
                again = [
                    Message(m.role, m.content, m.send_at, m.sender, gid=gids.get(m.id or 0, ""))
                    for m in ordered
                ]
                ids = archive.insert(conn, session, again, self._clock())
                stored = [m.with_id(i, session) for m, i in zip(again, ids, strict=True)]
                for listener in self._listeners:
                    listener.messages_added(conn, stored)
                start_id = ids[0] if meta.start_id else 0
                archive.save_meta(conn, session, archive.Meta(meta.start_at, start_id, ids[-1]))
            with file_errors(f"history.json of session {session}"):
                self._files.write(path, [to_record(m) for m in stored])
        log.info("session %s: %d recent messages put in time order", session, len(rows))
        return True

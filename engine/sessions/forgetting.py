"""Forgetting as a recorded intent: a message or a whole session, finished even across a kill.

A forget is written before anything is scrubbed, in one durable transaction (synced to disk): the intent
(``forget_intents``: what to forget) and the tombstones (``forgotten``, :mod:`engine.sessions.tombstones`:
session, role, time and a keyed hash of each forgotten text, never the text). Then, under the session's
lock, the scrub: the message leaves history.json, its row and everything the listeners derived from it
(vectors, the context index) leave the archive, the FTS indexes are merged and the WAL truncated
(:meth:`~engine.storage.store.Store.scrub`), the session's summary and cursor are deleted; for a session,
its folder and every row go. Then the intent is deleted. A kill anywhere in between leaves the intent:
the next open of the memory finishes it (:meth:`Forgetting.finish_pending`). A forget asked for again
once done says so (:class:`~engine.errors.AlreadyForgotten`), and the tombstones keep an import of the
same export, or a transcript read again, from bringing a forgotten message back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from engine.clock import Clock
from engine.errors import AlreadyForgotten, NotFound, SessionNotFound
from engine.messages import Message
from engine.paths import Paths
from engine.sessions import alignment, archive, identity, tombkeys, tombstones
from engine.sessions import folders as session_files
from engine.sessions.historyfile import HotFiles
from engine.sessions.listeners import ArchiveListener
from engine.sessions.recovery import Recovery
from engine.storage.diskerrors import file_errors
from engine.storage.locks import SessionLocks
from engine.storage.sql import Connection
from engine.storage.store import Store

log = logging.getLogger("memtray.forget")

MESSAGE = "message"
SESSION = "session"


class Forgetting:
    """The forgets of one home (the session log's parts, shared).

    The session log's removal of a session is handed to :meth:`session` and :meth:`finish_pending`.
    """

    def __init__(
        self,
        paths: Paths,
        store: Store,
        files: HotFiles,
        locks: SessionLocks,
        recovery: Recovery,
        listeners: Sequence[ArchiveListener],
        clock: Clock,
        keys: tombkeys.TombKeys,
    ) -> None:
        self._paths = paths
        self._keys = keys
        self._store = store
        self._files = files
        self._locks = locks
        self._recovery = recovery
        self._listeners = listeners
        self._clock = clock

    # -- one message --------------------------------------------------------------------------------

    def message(self, message_id: int) -> Message:
        """Forget one archived message everywhere (see :meth:`engine.memory.Memory.forget_message`).

        Raises:
            AlreadyForgotten: it was forgotten before (nothing left to do).
            NotFound: no message ever had this id.
        """
        with self._store.read() as conn:
            found = archive.by_ids(conn, [message_id]).get(message_id)
            earlier = tombstones.was_forgotten(conn, message_id) if found is None else None
        if found is None or found.session is None:
            if earlier is not None:
                raise AlreadyForgotten(f"message #{message_id} was forgotten already")
            raise NotFound(f"no message #{message_id}")
        session = found.session
        with self._locks.hold(session):
            self._recovery.repair(session)  # history.json holds every row of the session from the cut on
            with self._store.write(durable=True) as conn:
                if archive.by_ids(conn, [message_id]).get(message_id) is None:  # another program forgot it
                    raise AlreadyForgotten(f"message #{message_id} was forgotten already")
                intent = self._intend(conn, MESSAGE, session, message_id)
                keys = self._keys.writing(conn)
                tombstones.bury(conn, keys, found, self._clock())
                # Recorded as held by the file before it changes: once the message has left history.json,
                # a forget finished after a kill must not take its row for an append's to replay.
                last = conn.execute("SELECT MAX(id) FROM messages WHERE session_id = ?", (session,)).first()
                if last is not None and last[0] is not None:
                    Recovery.confirm(conn, session, int(last[0]))
            self._scrub_message(session, message_id, keys[0][1])
            self._done(intent)
        log.info("forgot message #%d of session %s; its summary will be rebuilt", message_id, session)
        return found

    def _scrub_message(self, session: str, message_id: int, key: bytes | None) -> None:
        """Take the message out of history.json, the archive (with what listeners derived) and the database's
        files; delete the summary. Every step may have been done before (an interrupted forget)."""
        records = self._recovery.repair(session)
        with self._store.read() as conn:
            row = archive.by_ids(conn, [message_id]).get(message_id)
            rows = archive.rows_from(conn, session, archive.meta(conn, session).start_id)
            grave = conn.execute(
                "SELECT role, send_at, digest FROM forgotten WHERE message_id = ? AND scope = ? "
                "ORDER BY id DESC LIMIT 1",
                (message_id, tombkeys.LOCAL),
            ).first()
        index = alignment.record_index(records, rows, row) if row is not None else None
        if index is None and row is None and grave is not None and key is not None:
            index = _record_by_grave(records, key, str(grave[0]), int(grave[1]), str(grave[2]))
        if index is not None:
            with file_errors(f"history.json of session {session}"):
                self._files.write(self._paths.history_file(session), records[:index] + records[index + 1 :])
        with file_errors(f"history.json of session {session}"):
            self._files.drop_leftovers(self._paths.history_file(session))  # a killed write's old text
        if row is not None:
            with self._store.write() as conn:
                # What a sync tells the other devices (their global ids and import keys, never the text).
                forgotten = tombstones.journal(conn, self._keys.writing(conn), session, [row])
                if forgotten["gids"] or forgotten["graves"]:
                    identity.record_change(conn, identity.FORGET, session, forgotten, self._clock())
                for listener in self._listeners:
                    listener.message_forgotten(conn, session, message_id)
                archive.delete_message(conn, message_id)
        self._store.scrub()
        with file_errors(f"the summary of session {session}"):
            session_files.mark_summary_stale(self._paths, session)

    # -- a whole session ----------------------------------------------------------------------------

    def session(self, session: str, remove: Callable[[], int]) -> int:
        """Forget every message of a session and the session itself; return how many archived messages.

        ``remove``: the session's removal (files, rows, derived data, the scrub), run under its lock.

        Raises:
            AlreadyForgotten: the session was forgotten before.
            SessionNotFound: there never was such a session.
        """
        if not self._paths.session_dir(session).is_dir():
            with self._store.read() as conn:
                if tombstones.session_forgotten(conn, session) and not archive.has_rows(conn, session):
                    raise AlreadyForgotten(f"session {session} was forgotten already")
            raise SessionNotFound(f"no session {session!r}")
        with self._locks.hold(session):
            now = self._clock()
            with self._store.write(durable=True) as conn:
                intent = self._intend(conn, SESSION, session, 0)
                keys = self._keys.writing(conn)
                for message in archive.rows_from(conn, session, 0):
                    tombstones.bury(conn, keys, message, now)
            deleted = remove()
            self._done(intent)
        log.info("forgot session %s (%d archived messages)", session, deleted)
        return deleted

    # -- intents ------------------------------------------------------------------------------------

    def _intend(self, conn: Connection, kind: str, session: str, message_id: int) -> int:
        result = conn.execute(
            "INSERT INTO forget_intents(kind, session_id, message_id, created_at) VALUES (?, ?, ?, ?)",
            (kind, session, message_id, self._clock()),
        )
        return int(result.lastrowid or 0)

    def _done(self, intent: int) -> None:
        with self._store.write() as conn:
            conn.execute("DELETE FROM forget_intents WHERE id = ?", (intent,))

    def pending(self) -> list[tuple[int, str, str, int]]:
        """The forgets under way: ``(intent id, kind, session, message id)``, oldest first."""
        with self._store.read() as conn:
            rows = conn.execute("SELECT id, kind, session_id, message_id FROM forget_intents ORDER BY id")
            return [(int(i), str(k), str(s), int(m)) for i, k, s, m in rows]

    def finish_pending(self, remove: Callable[[str], int]) -> int:
        """Finish every forget a kill interrupted (at open); return how many. Reads only when there is none.

        ``remove(session)``: the session's removal, as :meth:`session` uses it.
        """
        self._rekey_plain()
        pending = self.pending()
        for intent, kind, session, message_id in pending:
            with self._locks.hold(session):
                if kind == SESSION:
                    if self._paths.session_dir(session).is_dir() or self._has_rows(session):
                        remove(session)
                else:
                    self._scrub_message(session, message_id, tombkeys.load_key(self._paths, create=False))
                self._done(intent)
            log.warning(
                "an interrupted forget (%s of session %s) was finished",
                f"message #{message_id}" if kind == MESSAGE else "every message",
                session,
            )
        return len(pending)

    def _rekey_plain(self) -> None:
        """Hash the unkeyed tombstones a migration moved in under the home's key, and scrub the database's
        files of the unkeyed ones (once, after ``m015_one_tombstone_table``)."""
        with self._store.read() as conn:
            if not tombstones.has_plain(conn):
                return
        key = self._keys.local(create=True)
        assert key is not None
        with self._store.write() as conn:
            count = tombstones.rekey_plain(conn, key)
        self._store.scrub()
        log.info("%d tombstones of an earlier version were hashed under this home's key", count)

    def _has_rows(self, session: str) -> bool:
        with self._store.read() as conn:
            return archive.has_rows(conn, session)


def _record_by_grave(records: list[object], key: bytes, role: str, send_at: int, hashed: str) -> int | None:
    """The index of the newest history.json record that is the forgotten message (role, time, text hash)."""
    for index, message in reversed(alignment.usable(records)):
        if (
            message.role == role
            and message.send_at in (send_at, 0)
            and tombkeys.digest(key, message.content) == hashed
        ):
            return index
    return None

"""Applying another device's segment here, through the memory's own public methods.

In each segment, in this order:

1. **tombstones** (forget, reset, remove): keyed with the key every device of the folder shares
   (:mod:`engine.sessions.tombstones`), they are recorded first (so no later segment and no later sync
   brings those messages back), then the messages present here they name (by tombstone or global id) are
   deleted by the memory's own ``forget_message``, or by ``reset``/``remove`` when they are every message
   the session has here (the privacy scrub and the local journal are the same code path as a user's);
2. **messages**: one that matches a tombstone here, under any key, is not stored; when that tombstone is
   under this home's own key (forgotten before sync was on), a tombstone under the folder's key is made
   and sent for it, so the device that sent the message scrubs it too. Those not known here (by global
   id, or by import key: the same message captured on two devices is one, and both keep the smaller
   global id) are stored by the memory's import, which writes history.json, the archive, the FTS indexes
   and the embedding queue, keyword-searchable at once;
3. **titles**: the newest change by (time, device) wins on every device, whatever its kind: a user's
   title, an import's (sent when the import stores it, not with the messages, so a reset before the
   next sync does not keep it from the others) or a removal's "no title";
4. **summaries**: the newest summary and its cursor win (:mod:`engine.sync.summaries`);
5. **shared settings**: the newest change wins (:mod:`engine.sync.sharedsettings`).

Then the device's applied cursor moves past the segment, in one transaction. Every step is idempotent, so
a segment whose apply was interrupted (a killed process) is applied again whole.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from engine.errors import InvalidInput, NotFound
from engine.imported import ImportedSession, ImportReport
from engine.messages import Message
from engine.sessions import archive, identity, titles, tombkeys, tombstones
from engine.storage import bulk
from engine.storage.sql import Connection, in_chunks
from engine.storage.store import Store
from engine.sync import errorrecords, export, sharedsettings, state, summaries
from engine.sync.segment import Row, Segment

if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager

    from engine.errormemory import ErrorMemory
    from engine.paths import Paths
    from engine.sessions.listeners import ResetResult
    from engine.settings import Settings

log = logging.getLogger("memtray.sync")


class Target(Protocol):
    """What apply needs of the memory (:class:`engine.memory.Memory` has it)."""

    def exists(self, session: str) -> bool: ...
    def import_sessions(
        self, imported: Sequence[ImportedSession], progress: Callable[[int, int], None] | None = None
    ) -> ImportReport: ...
    def forget_message(self, message_id: int) -> Message: ...
    def reset(self, session: str, *, include_summary: bool = False) -> ResetResult: ...
    def remove(self, session: str) -> ResetResult: ...
    def set_title(self, session: str, title: str, *, source: str = ..., told: bool = ...) -> str: ...
    def order_by_time(self, session: str) -> bool: ...
    def update_settings(self, **changes: Any) -> Settings: ...
    @property
    def errors(self) -> ErrorMemory: ...
    @property
    def tomb_keys(self) -> tombkeys.TombKeys: ...
    @property
    def paths(self) -> Paths: ...
    def history(self, session: str) -> list[Message]: ...
    def summary_lock(self, session: str) -> AbstractContextManager[None]: ...


@dataclass
class Applied:
    """What applying did."""

    messages: int = 0
    present: int = 0
    forgotten: int = 0
    titles: int = 0
    errors: list[str] = field(default_factory=list)
    sessions: set[str] = field(default_factory=set)
    errors_changed: int = 0
    summaries: int = 0
    settings: int = 0

    def add(self, other: Applied) -> None:
        self.messages += other.messages
        self.present += other.present
        self.forgotten += other.forgotten
        self.titles += other.titles
        self.errors += other.errors
        self.sessions |= other.sessions
        self.errors_changed += other.errors_changed
        self.summaries += other.summaries
        self.settings += other.settings


def apply_segment(store: Store, target: Target, segment: Segment, now: int, tomb: tombkeys.Scoped) -> Applied:
    """Apply one segment of another device (see the module's docstring) and move its cursor. ``tomb``:
    the folder's id and tombstone key (:mod:`engine.sync.tombkey`)."""
    done = Applied()
    _apply_tombstones(store, target, segment, now, done, tomb)
    _apply_messages(store, target, segment, done, now, tomb)
    _apply_titles(store, target, segment, done)
    _retry_pending_titles(store, target, done)
    _apply_errors(store, target, segment, now, done, tomb)
    done.summaries += summaries.apply(store, target, segment.device, segment.summaries, tomb[0])
    told = [c for c in segment.changes if c.get("kind") == sharedsettings.KIND]
    if told:
        done.settings += sharedsettings.apply(store, target, segment.device, told)
    with store.write() as conn:
        state.set_applied(conn, segment.device, segment.seq, now)
        state.add_unordered(conn, done.sessions)
    return done


def order_sessions(store: Store, target: Target) -> int:
    """Put every session that got messages in time order (:meth:`Target.order_by_time`), so its window is
    the newest messages of the merged archive; how many moved. Rows that were sent or received keep that
    mark under their new row ids (they are not sent again)."""
    with store.write() as conn:  # those in order already (most): checked and dropped in one transaction
        todo = sorted(state.unordered(conn))
        ordered = {session for session in todo if _in_order(conn, session)}
        if ordered:
            state.drop_unordered(conn, ordered)
    moved = 0
    for session in todo:
        if session in ordered:
            continue
        with store.read() as conn:
            cursor = state.get_int(conn, state.EXPORTED_ID)
            marks: dict[str, list[str]] = {"received": [], "moved": []}
            for gid, kind, mid in conn.execute(
                "SELECT g.gid, r.kind, m.id FROM messages m JOIN message_gids g ON g.id = m.id "
                "LEFT JOIN sync_received r ON r.id = m.id WHERE m.session_id = ?",
                (session,),
            ):
                if kind == "received":
                    marks["received"].append(str(gid))
                elif kind == "moved" or int(mid) <= cursor:
                    marks["moved"].append(str(gid))
        if target.order_by_time(session):
            moved += 1
            for kind, gids in marks.items():
                _mark_received(store, gids, kind)
        with store.write() as conn:
            state.drop_unordered(conn, [session])
    return moved


def _session_rows(store: Store, session: str, key: bytes) -> list[tuple[int, str, tombstones.Grave]]:
    """(row id, global id, tombstone under ``key``) of every archived message of a session."""
    with store.read() as conn:
        rows = conn.execute(
            "SELECT m.id, g.gid, m.role, m.content, m.send_at FROM messages m JOIN message_gids g ON g.id = m.id "
            "WHERE m.session_id = ?",
            (session,),
        ).all()
    return [(int(i), str(g), tombstones.grave_of(key, str(r), int(t), str(c))) for i, g, r, c, t in rows]


def _graves(change: dict[str, object]) -> list[tombstones.Grave]:
    raw = change.get("graves", [])
    return [(str(r), int(t), str(d)) for r, t, d in raw] if isinstance(raw, list) else []


def _apply_tombstones(
    store: Store, target: Target, segment: Segment, now: int, done: Applied, tomb: tombkeys.Scoped
) -> None:
    changes = [
        c for c in segment.changes if c.get("kind") in (identity.FORGET, identity.RESET, identity.REMOVE)
    ]
    if not changes:
        return
    scope, key = tomb
    fresh: list[bool] = []  # whether each change told anything new here
    with store.write() as conn:  # no import here stores them again; known: a forget here is not sent back
        for change in changes:
            graves = _graves(change)
            new = tombstones.add(
                conn, scope, str(change["session"]), graves, now, cause=str(change["kind"]), synced=True
            )
            fresh.append(bool(new))
    with store.read() as conn:
        me = identity.device_id(conn)
    for change, told in zip(changes, fresh, strict=True):
        session, kind = str(change["session"]), str(change["kind"])
        named, gids = set(_graves(change)), set(map(str, change.get("gids", [])))
        rows = _session_rows(store, session, key)
        hit = [i for i, g, grave in rows if grave in named or g in gids]
        with_summary = bool(change.get("summary"))
        try:
            _delete(store, target, session, kind, hit, len(rows), key, done, with_summary)
        except NotFound:
            pass  # gone already (another path deleted it): nothing left to delete
        if (kind != identity.RESET or with_summary) and (told or hit):  # a summary may hold what went
            summaries.forgotten(store, target, session, me, whole=with_summary)


def _delete(
    store: Store,
    target: Target,
    session: str,
    kind: str,
    hit: list[int],
    held: int,
    key: bytes,
    done: Applied,
    with_summary: bool,
) -> None:
    """Delete the messages a tombstone names here (``held``: how many the session has; ``with_summary``:
    a reset that deleted its summary)."""
    # A reset or removal of the messages it names; a session holding none of them (they were forgotten
    # here, or it was started anew) keeps what it has, its title too.
    if kind != identity.FORGET and target.exists(session) and hit and len(hit) == held:
        if kind == identity.REMOVE:
            target.remove(session)
        else:
            target.reset(session, include_summary=with_summary)
        done.forgotten += len(hit)
        return
    for message_id in hit:
        target.forget_message(message_id)
        done.forgotten += 1
    if hit and target.exists(session) and not _session_rows(store, session, key):
        # A snapshot tells a removal as forgets: a session they empty goes, its title with it, as on the
        # device that removed it (a message written there since starts it anew, untitled).
        target.remove(session)


def _apply_errors(
    store: Store, target: Target, segment: Segment, now: int, done: Applied, tomb: tombkeys.Scoped
) -> None:
    """Error-memory records (newest write wins), and forgotten ones deleted by the memory's own forget."""
    scope, key = tomb
    forgets = [c for c in segment.changes if c.get("kind") == identity.ERROR_FORGET]
    every = {g for c in forgets for g in _graves(c)}
    if every:
        with store.write() as conn:
            tombstones.add(conn, scope, "", sorted(every), now, synced=True)
        with store.read() as conn:
            here = conn.execute("SELECT id, dedupe FROM error_memory").all()
        for record_id, dedupe in here:
            if tombstones.grave_of(key, tombstones.ERROR, 0, str(dedupe)) in every:
                try:
                    target.errors.forget(str(record_id))
                except NotFound:
                    pass
    if segment.errors:
        with store.write() as conn:
            buried = tombstones.error_buried(target.tomb_keys, conn)
            done.errors_changed += errorrecords.apply(conn, segment.errors, now, buried)


def _apply_messages(
    store: Store, target: Target, segment: Segment, done: Applied, now: int, tomb: tombkeys.Scoped
) -> None:
    if not segment.messages:
        return
    by_session: dict[str, list[Row]] = defaultdict(list)
    for row in segment.messages:
        by_session[row[1]].append(row)
    dead = _buried(store, target, segment.messages, now, tomb)
    merges: list[tuple[str, str]] = []
    imported: list[ImportedSession] = []
    wanted: list[str] = []
    with store.read() as conn:
        held = archive.with_rows(conn, by_session)  # the others have no message here to match
    for session, rows in by_session.items():
        local: dict[object, str] = {}
        if session in held:
            local.update(_local_keys(store, session, sorted({row[4] for row in rows})))
        # Without local messages at those times, a message's (role, text, time) tells the segment's own
        # repeats apart as its import key would (the session is the same), without a digest.
        hashed = bool(local)
        fresh: list[Message] = []
        for gid, _, role, content, send_at, sender in rows:
            if gid in dead:
                continue
            key = (
                identity.message_key(session, role, content, send_at) if hashed else (role, content, send_at)
            )
            if key in local:  # here already (or the same message captured here too: one message, and
                if gid < local[key]:  # both devices keep the smaller global id)
                    merges.append((local[key], gid))
                done.present += 1
                continue
            fresh.append(Message(role, content, send_at, sender, gid=gid))
            local[key] = gid
        if fresh:
            fresh.sort(key=lambda m: (m.send_at, m.gid))  # untimed first: their times stay 0
            imported.append(ImportedSession(session, fresh))  # its title comes as a change of its own
            wanted.extend(m.gid for m in fresh)
    if merges:
        with store.write() as conn:
            conn.execute("UPDATE message_gids SET gid = ? WHERE gid = ?", [(new, old) for old, new in merges])
    if imported:
        with store.read() as conn:  # the rows the import stores come after this one
            before = int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM message_gids").scalar_one())
        try:
            report = target.import_sessions(imported)
        except InvalidInput as exc:  # a session id or message this memtray refuses: told, not applied
            done.errors.append(f"segment {segment.seq} of {segment.device}: {exc}")
            log.warning("sync: segment %d of %s could not be stored: %s", segment.seq, segment.device, exc)
            return
        done.messages += report.messages_added
        done.sessions.update(item.session for item in imported)
        _mark_arrived(store, wanted, before)


def _buried(store: Store, target: Target, rows: Sequence[Row], now: int, tomb: tombkeys.Scoped) -> set[str]:
    """The global ids of arriving messages that match a tombstone here. One under this home's own key
    only (a forget before sync was on) gets its tombstone under the folder's key, journaled as a forget,
    so the next export tells the device that sent the message, which scrubs it too."""
    scope, key = tomb
    dead: set[str] = set()
    rekeyed: list[Row] = []
    with store.read() as conn:
        buried = tombstones.Buried(target.tomb_keys, conn)
        for row in rows:
            found = buried.scope(row[1], row[2], row[3], row[4])
            if found is not None:
                dead.add(row[0])
                if found != scope:
                    rekeyed.append(row)
    if rekeyed:
        with store.write() as conn:
            for gid, session, role, content, send_at, _ in rekeyed:
                grave = tombstones.grave_of(key, role, send_at, content)
                if tombstones.add(conn, scope, session, [grave], now):
                    gids = [] if gid.startswith(identity.IMPORT_PREFIX) else [gid]
                    detail = {"gids": gids, "graves": {scope: [list(grave)]}}
                    identity.record_change(conn, identity.FORGET, session, detail, now)
    return dead


def _local_keys(store: Store, session: str, times: Sequence[int]) -> dict[str, str]:
    """Import key -> global id of the session's messages archived at one of ``times``."""
    found: dict[str, str] = {}
    with store.read() as conn:
        for chunk, marks in in_chunks(times):
            for role, content, send_at, gid in conn.execute(
                "SELECT m.role, m.content, m.send_at, g.gid FROM messages m JOIN message_gids g ON g.id = m.id "
                f"WHERE m.session_id = ? AND m.send_at IN ({marks})",
                (session, *chunk),
            ):
                found[identity.message_key(session, str(role), str(content), int(send_at))] = str(gid)
    return found


def _in_order(conn: Connection, session: str) -> bool:
    """Whether the session's recent rows (from its compaction cut on) are in time order, ties by global
    id, already: one cheap read, so most sessions never take their lock."""
    rows = conn.execute(
        "SELECT m.send_at, g.gid FROM messages m JOIN message_gids g ON g.id = m.id WHERE m.session_id = ? "
        "AND m.id >= COALESCE((SELECT start_id FROM message_meta WHERE session_id = ?), 0) ORDER BY m.id",
        (session, session),
    ).all()
    keys = [(int(t), str(g)) for t, g in rows]
    return all(keys[i] <= keys[i + 1] for i in range(len(keys) - 1))


def _mark_arrived(store: Store, gids: Sequence[str], after: int) -> None:
    """Mark the rows an import just stored for these global ids (row ids above ``after``) as received: one
    scan of the new rows, not a look-up of each global id (see :func:`_mark_received`)."""
    wanted = set(gids)
    with store.write() as conn:
        found = conn.execute("SELECT id, gid FROM message_gids WHERE id > ?", (after,)).all()
        rows = [(i, "received") for i, g in found if g in wanted]
        bulk.insert_rows(conn, "INSERT OR IGNORE INTO sync_received(id, kind) VALUES", rows)


def _mark_received(store: Store, gids: Sequence[str], kind: str = "received") -> None:
    """Mark the rows of these global ids as not to be sent (see :class:`engine.sync.tables.SyncReceivedRow`)."""
    with store.write() as conn:
        for chunk, marks in in_chunks(gids):
            conn.execute(
                f"INSERT OR IGNORE INTO sync_received(id, kind) SELECT id, ? FROM message_gids WHERE gid IN ({marks})",
                (kind, *chunk),
            )


def _apply_titles(store: Store, target: Target, segment: Segment, done: Applied) -> None:
    # An earlier build's imported titles, beside the messages: as changes older than any other.
    changes = [export.title_change(s, t, titles.IMPORTED, 0) for s, t in sorted(segment.titles.items())]
    changes += [c for c in segment.changes if c.get("kind") == identity.TITLE]
    if not changes:
        return
    newer: dict[str, tuple[str, str]] = {}
    with store.write() as conn:
        for change in changes:
            session, title, at = (
                str(change["session"]),
                str(change.get("title", "")),
                int(change.get("at", 0)),
            )
            source = str(change.get("source", titles.USER)) if title else ""
            clock = state.title_clock(conn, session)
            if clock is not None and (at, segment.device) <= clock[:2]:
                continue  # an older change than the one in force
            state.set_title_clock(conn, session, at, segment.device, title, source)
            newer[session] = (title, source)
    _set_titles(store, target, newer, done)


def _set_titles(store: Store, target: Target, told: dict[str, tuple[str, str]], done: Applied) -> None:
    """Give sessions the titles in force (session → (title, source)); those whose messages have not
    arrived yet wait in :data:`PENDING_TITLES`, and are set when they do."""
    waiting: dict[str, tuple[str, str]] = {}
    for session, (title, source) in told.items():
        if target.exists(session):
            target.set_title(session, title, source=source or titles.USER, told=True)
            done.titles += 1
        else:
            waiting[session] = (title, source)
    with store.write() as conn:
        pending = _pending(conn)
        kept = {s: t for s, t in pending.items() if s not in told} | waiting
        if kept != pending:
            _save_pending(conn, kept)


def _retry_pending_titles(store: Store, target: Target, done: Applied) -> None:
    with store.read() as conn:
        pending = _pending(conn)
    arrived = {s: t for s, t in pending.items() if target.exists(s)}
    if arrived:
        _set_titles(store, target, arrived, done)


PENDING_TITLES = "pending_titles"


def _pending(conn: Connection) -> dict[str, tuple[str, str]]:
    """Titles whose session has not arrived yet: session → (title, source); an earlier build kept the
    title alone (a user's)."""
    raw = json.loads(state.get(conn, PENDING_TITLES, "{}") or "{}")
    return {
        str(k): (str(v), titles.USER) if isinstance(v, str) else (str(v[0]), str(v[1]))
        for k, v in raw.items()
    }


def _save_pending(conn: Connection, pending: dict[str, tuple[str, str]]) -> None:
    state.put(conn, PENDING_TITLES, json.dumps(pending, ensure_ascii=False))

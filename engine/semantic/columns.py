"""What a search filter reads of the messages behind vectors, as numpy columns (:class:`Columns`).

A vector ranking applies a :class:`engine.messages.MessageFilter` before it takes its top k, as a mask over
these columns: each message's id, session, time, role and sender. Sessions and senders are held as small
integer codes (:class:`Codes`), so a sender filter (any case) compares the few distinct senders as text
and the rows as integers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.messages import MessageFilter
from engine.storage.sql import Connection, in_chunks

Ids = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]

ROLE_CODES = {"user": 0, "assistant": 1}
OTHER_ROLE = 2


class Codes:
    """Strings as small integers, in order of first sight (sessions, senders)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._codes: dict[str, int] = {}

    def code(self, name: str) -> int:
        found = self._codes.get(name)
        if found is None:
            found = self._codes[name] = len(self.names)
            self.names.append(name)
        return found

    def get(self, name: str) -> int | None:
        return self._codes.get(name)

    def matching(self, test: Callable[[str], bool]) -> npt.NDArray[np.int32]:
        return np.asarray([c for c, name in enumerate(self.names) if test(name)], dtype=np.int32)


@dataclass
class Columns:
    """One row per message, in the order given (``message_id``; ``found`` is False for a message that is
    gone)."""

    message_id: Ids
    found: Mask
    session: npt.NDArray[np.int32]
    send_at: Ids
    role: npt.NDArray[np.int8]
    sender: npt.NDArray[np.int32]

    def admitted(self, where: MessageFilter, senders: Codes) -> Mask:
        """Which rows ``where`` admits (the rule of :meth:`MessageFilter.admits`, over arrays)."""
        return admitted(
            where, allowed_senders(where, senders), self.found, self.send_at, self.role, self.sender
        )


def allowed_senders(where: MessageFilter, senders: Codes) -> npt.NDArray[np.int32] | None:
    """The codes of the senders ``where`` admits; None when it admits anyone's."""
    return None if where.sender is None else senders.matching(where.sender_matches)


def admitted(
    where: MessageFilter,
    senders: npt.NDArray[np.int32] | None,
    found: Mask,
    send_at: Ids,
    role: npt.NDArray[np.int8],
    sender: npt.NDArray[np.int32],
) -> Mask:
    """Which rows of these columns ``where`` admits (``senders``: :func:`allowed_senders`): ``found`` rows
    of its role, one of its senders, within its times."""
    mask = found.copy()
    if where.role is not None:
        mask &= role == ROLE_CODES.get(where.role, -1)
    if senders is not None:
        mask &= np.isin(sender, senders)
    if where.since:
        mask &= send_at >= where.since
    if where.until is not None:
        mask &= (send_at > 0) & (send_at <= where.until)
    return mask


def read(conn: Connection, message_ids: Ids, sessions: Codes, senders: Codes) -> Columns:
    """The columns of ``message_ids``, in their order (codes interned in ``sessions`` and ``senders``)."""
    wanted = np.unique(message_ids)
    parts: list[Columns] = []
    for chunk, marks in in_chunks([int(i) for i in wanted]):
        got = conn.execute(f"{_SELECT} WHERE id IN ({marks}) ORDER BY id", chunk).all()
        parts.append(_from_rows(got, sessions, senders))
    return lookup(_concatenate(parts), np.asarray(message_ids, dtype=np.int64))


def read_range(conn: Connection, session: str, lo: int, hi: int, sessions: Codes, senders: Codes) -> Columns:
    """The columns of the session's messages with ``lo <= id < hi``, ordered by id."""
    got = conn.execute(
        f"{_SELECT} WHERE session_id = ? AND id >= ? AND id < ? ORDER BY id", (session, lo, hi)
    ).all()
    return _from_rows(got, sessions, senders)


def read_all(conn: Connection, sessions: Codes, senders: Codes) -> Columns:
    """The columns of every message, ordered by id (one pass over the table, to build an index)."""
    cursor = conn.raw.cursor()
    parts: list[Columns] = []
    try:
        cursor.execute(f"{_SELECT} ORDER BY id")
        while got := cursor.fetchmany(8192):
            parts.append(_from_rows(got, sessions, senders))
    finally:
        cursor.close()
    return _concatenate(parts)


def lookup(table: Columns, message_ids: Ids) -> Columns:
    """The rows of ``table`` (ordered by id) for ``message_ids``, in their order; a message not in the
    table is not ``found``."""
    n = len(message_ids)
    if n == 0 or len(table.message_id) == 0:
        return _empty(np.asarray(message_ids, dtype=np.int64))
    pos = np.minimum(np.searchsorted(table.message_id, message_ids), len(table.message_id) - 1)
    hit = table.message_id[pos] == message_ids
    return Columns(
        message_id=np.asarray(message_ids, dtype=np.int64),
        found=hit & table.found[pos],
        session=np.where(hit, table.session[pos], 0).astype(np.int32),
        send_at=np.where(hit, table.send_at[pos], 0).astype(np.int64),
        role=np.where(hit, table.role[pos], OTHER_ROLE).astype(np.int8),
        sender=np.where(hit, table.sender[pos], 0).astype(np.int32),
    )


_SELECT = "SELECT id, session_id, send_at, role, sender FROM messages"
_FIELDS = ("message_id", "found", "session", "send_at", "role", "sender")


def _empty(message_ids: Ids) -> Columns:
    n = len(message_ids)
    return Columns(
        message_id=message_ids,
        found=np.zeros(n, dtype=np.bool_),
        session=np.zeros(n, dtype=np.int32),
        send_at=np.zeros(n, dtype=np.int64),
        role=np.full(n, OTHER_ROLE, dtype=np.int8),
        sender=np.zeros(n, dtype=np.int32),
    )


def _from_rows(got: Sequence[Sequence[Any]], sessions: Codes, senders: Codes) -> Columns:
    """Columns of fetched ``(id, session_id, send_at, role, sender)`` rows, in their order."""
    n = len(got)
    return Columns(
        message_id=np.fromiter((int(r[0]) for r in got), dtype=np.int64, count=n),
        found=np.ones(n, dtype=np.bool_),
        session=np.fromiter((sessions.code(str(r[1])) for r in got), dtype=np.int32, count=n),
        send_at=np.fromiter((int(r[2] or 0) for r in got), dtype=np.int64, count=n),
        role=np.fromiter((ROLE_CODES.get(str(r[3]), OTHER_ROLE) for r in got), dtype=np.int8, count=n),
        sender=np.fromiter((senders.code(str(r[4] or "")) for r in got), dtype=np.int32, count=n),
    )


def _concatenate(parts: Sequence[Columns]) -> Columns:
    if not parts:
        return _empty(np.zeros(0, dtype=np.int64))
    return Columns(*(np.concatenate([getattr(p, f) for p in parts]) for f in _FIELDS))

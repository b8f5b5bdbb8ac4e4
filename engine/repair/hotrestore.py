"""After a repair: each session's history.json made the newest part of its rebuilt archive again.

The rows salvaged from a damaged database and the messages of history.json overlap: the file holds the
session's rows from the compaction cut on. Which salvaged row is which file message is decided by
identity, never by text alone: the same role, text and sender, the same time (a message written without
one matches any row at or after the previous match, since the archive gave it a time of its own), and
the order (the file's messages are the rows in id order, so a match is searched after the previous one,
from the cut the damaged file recorded when it still reads). A salvaged row is never dropped: "ok"
archived a hundred times stays a hundred rows, whatever the file holds.

A file message with no salvaged row (its row was on a damaged page) gets a row of its own at the id its
lost row had, between its neighbours' rows, so the file stays the archive's suffix in order. When no such
id is free (the file held a message the archive never had), that message, the messages after it and the
salvaged rows after its predecessor are stored again, in that order, at new ids at the end: each
salvaged text is kept once and each file message once.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from engine.cjk import cjk_bigrams
from engine.messages import Message
from engine.sessions import archive
from engine.storage.sql import Connection


@dataclass(frozen=True)
class Placed:
    """What :func:`restore_session` did: file messages given a row, and the meta it saved."""

    added: int
    meta: archive.Meta


def pair(hot: Sequence[Message], rows: Sequence[Message]) -> list[int | None]:
    """For each file message, the index of its row in ``rows`` (the session's salvaged rows from the cut,
    id order), or None. A row is the message's when role, text and sender are equal and so is the time;
    matches keep the order. Messages with a time are paired first (each with the first fitting row after
    the previous such match), then each message written without one, only among the rows between its
    neighbours' matches and at or after the previous match's time (the archive may have given it a time
    of its own): so an untimed "ok" never takes the row of a timed "ok" that follows it in the file."""
    timed: dict[tuple[str, str, str, int], list[int]] = {}
    untimed: dict[tuple[str, str, str], list[int]] = {}
    for k, row in enumerate(rows):
        timed.setdefault((row.role, row.content, row.sender, row.send_at), []).append(k)
        untimed.setdefault((row.role, row.content, row.sender), []).append(k)
    paired: list[int | None] = [None] * len(hot)
    j = 0
    for i, message in enumerate(hot):
        if message.send_at:
            places = timed.get((message.role, message.content, message.sender, message.send_at), [])
            at = bisect.bisect_left(places, j)
            if at < len(places):
                paired[i] = places[at]
                j = places[at] + 1
    following: list[int] = [len(rows)] * len(hot)  # the row of the next timed match after each message
    upcoming = len(rows)
    for i in range(len(hot) - 1, -1, -1):
        following[i] = upcoming
        if paired[i] is not None:
            upcoming = paired[i] or 0
    low = 0  # the first row an untimed message may take: after every match before it
    for i, message in enumerate(hot):
        if message.send_at:
            if paired[i] is not None:
                low = (paired[i] or 0) + 1
            continue
        after = rows[low - 1].send_at if low > 0 else 0
        places = untimed.get((message.role, message.content, message.sender), [])
        found = next(
            (
                k
                for k in places[bisect.bisect_left(places, low) :]
                if k < following[i] and rows[k].send_at >= after
            ),
            None,
        )
        paired[i] = found
        if found is not None:
            low = found + 1
    return paired


def restore_session(
    conn: Connection,
    session: str,
    hot: Sequence[Message],
    cut: int,
    used: set[int],
    now: int,
) -> Placed:
    """Make ``hot`` (history.json's messages) the newest part of ``session``'s archive (see the module).

    Args:
        cut: the compaction cut the damaged file recorded (0 when unknown).
        used: every row id in the rebuilt archive (grown by the ids given here).
    """
    every = archive.rows_from(conn, session, 0)
    rows = [r for r in every if (r.id or 0) >= cut] if any((r.id or 0) >= cut for r in every) else every
    from_cut = {r.id for r in rows}
    floor = max((r.id or 0 for r in every if r.id not in from_cut), default=0)  # the archive before the cut
    paired = pair(hot, rows)
    ids: list[int | None] = [rows[k].id if k is not None else None for k in paired]
    added = 0
    for index, message in enumerate(hot):
        if ids[index] is not None:
            continue
        low = max((i for i in ids[:index] if i is not None), default=max(floor, _before(rows, paired)))
        high = next((i for i in ids[index + 1 :] if i is not None), None)
        if high is None:
            later = [r.id or 0 for r in rows if (r.id or 0) > low and (r.id or 0) not in ids]
            high = min(later) if later else None
        free = _free_between(low, high, used)
        if free is None:
            added += _store_anew(conn, session, hot, ids, index, low, rows, used, now)
            break
        _insert_at(conn, session, message, free, now)
        used.add(free)
        ids[index] = free
        added += 1
    kept = [i for i in ids if i is not None]
    if not kept:
        last = max((r.id or 0 for r in rows), default=0)
        return Placed(added, archive.Meta(0, last + 1 if last else 0, last))
    start_at = next((m.send_at for m in hot if m.send_at), 0)
    return Placed(added, archive.Meta(start_at, kept[0], kept[-1]))


def _before(rows: Sequence[Message], paired: Sequence[int | None]) -> int:
    """The id a row of the first file messages must be above: the last salvaged row before the first match
    (or before the cut), 0 when none."""
    first = next((k for k in paired if k is not None), None)
    if first is not None:
        return (rows[first - 1].id or 0) if first > 0 else 0
    return 0


def _free_between(low: int, high: int | None, used: set[int]) -> int | None:
    """The lowest id above ``low`` and below ``high`` (None: no bound) no row has; None when there is none."""
    candidate = low + 1
    while high is None or candidate < high:
        if candidate not in used:
            return candidate if high is not None else max(candidate, max(used, default=0) + 1)
        candidate += 1
    return None


def _insert_at(conn: Connection, session: str, message: Message, ident: int, now: int) -> None:
    key = archive.session_key(conn, session, now)
    conn.execute(
        "INSERT INTO messages(id, session_id, skey, send_at, role, content, sender) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (ident, session, key, message.send_at, message.role, message.content, message.sender),
    )
    if grams := cjk_bigrams(message.content):
        conn.execute("INSERT INTO messages_cjk(id, skey, grams) VALUES (?, ?, ?)", (ident, key, grams))


def _store_anew(
    conn: Connection,
    session: str,
    hot: Sequence[Message],
    ids: list[int | None],
    index: int,
    low: int,
    rows: Sequence[Message],
    used: set[int],
    now: int,
) -> int:
    """Store ``hot[index:]`` and the salvaged rows of the session above ``low`` again at new ids, in that
    order (their old rows deleted, each text kept once); return how many file messages got a new row."""
    matched = {i for i in ids[index:] if i is not None}
    trailing = [r for r in rows if (r.id or 0) > low and (r.id or 0) not in matched]
    for ident in matched | {r.id or 0 for r in trailing}:
        conn.execute("DELETE FROM messages WHERE id = ?", (ident,))
        used.discard(ident)
    fresh = list(hot[index:])
    again = [Message(r.role, r.content, r.send_at, r.sender) for r in trailing]
    new_ids = archive.insert(conn, session, fresh + again, now)
    used.update(new_ids)
    ids[index:] = new_ids[: len(fresh)]
    return len(fresh) - len(matched)

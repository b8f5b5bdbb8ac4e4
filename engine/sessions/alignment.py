"""Matching history.json's messages with the archive's rows.

history.json's messages are the archive's newest rows of the session (from the compaction cut on), in the
same order, so the two are paired from the end. Two kinds of record have no row: a record that is not a
usable message (kept in the file as it is), and a message without text written by an older version, which
did not archive those. A message is the same as a row when role and text are equal; a file message whose
text differs from its row (the file was edited) is still paired by position, never taken for a new one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.messages import Message, from_record


def same(message: Message, row: Message) -> bool:
    """The same message: equal role and text (the time and sender are not compared)."""
    return message.role == row.role and message.content == row.content


def _unarchived(message: Message) -> bool:
    """A message without text: an older version kept it in history.json only."""
    return not message.content.strip()


def usable(records: Sequence[Any]) -> list[tuple[int, Message]]:
    """``(index in records, message)`` of every record that is a usable message, in order."""
    return [(i, m) for i, r in enumerate(records) if (m := from_record(r)) is not None]


def align(messages: Sequence[Message], rows: Sequence[Message]) -> list[int | None]:
    """For each message, the index of its row in ``rows`` (None: it has none), pairing from the end.

    ``rows`` are the rows history.json holds, oldest first (the archive from the cut on, once an
    interrupted append is replayed). A message without text that does not match its row is an older
    version's (not archived) and is passed over; any other message takes the next row, equal or not.
    """
    paired: list[int | None] = [None] * len(messages)
    j = len(rows) - 1
    for i in range(len(messages) - 1, -1, -1):
        if j < 0:
            break
        if not same(messages[i], rows[j]) and _unarchived(messages[i]):
            continue
        paired[i] = j
        j -= 1
    return paired


def tail_start(messages: Sequence[Message], rows: Sequence[Message]) -> int | None:
    """Where the run of ``rows`` that ends ``messages`` starts (an index in ``messages``), or None when
    ``messages`` do not end with ``rows``. Unarchived messages without text in between are passed over."""
    i = len(messages)
    for row in reversed(rows):
        i -= 1
        while i >= 0 and not same(messages[i], row) and _unarchived(messages[i]):
            i -= 1
        if i < 0 or not same(messages[i], row):
            return None
    if not rows:
        return len(messages)
    return i


def written(messages: Sequence[Message], rows: Sequence[Message]) -> int:
    """How many of ``rows`` (the unconfirmed rows, oldest first) history.json already holds.

    An append reaches the file in one atomic rename, so the file ends with ``rows[:k]`` for the largest
    such k: the finished appends; the rows after them belong to an interrupted one. Only the ``k`` whose
    last row matches one of the file's last messages are tried.
    """
    if not rows or not messages:
        return 0
    if tail_start(messages, rows) is not None:
        return len(rows)
    end = next((i for i in range(len(messages) - 1, -1, -1) if not _unarchived(messages[i])), 0)
    last = messages[end:]  # the newest message with text and any without text after it
    for k in range(len(rows) - 1, 0, -1):
        if any(same(m, rows[k - 1]) for m in last) and tail_start(messages, rows[:k]) is not None:
            return k
    return 0


def record_index(records: list[Any], rows: list[Message], target: Message) -> int | None:
    """The index in ``records`` of the archived message ``target``, or None if history.json lacks it.

    ``rows``: the archive's rows from the cut on. The pairing from the end is confirmed by role and text;
    without it, the newest record with the same role, text and time is taken.
    """
    found = usable(records)
    paired = align([m for _, m in found], rows)
    for (index, message), row in zip(found, paired, strict=True):
        if row is not None and rows[row].id == target.id and same(message, target):
            return index
    for index, message in reversed(found):
        if same(message, target) and message.send_at == target.send_at:
            return index
    return None


def attach_ids(session: str, messages: list[Message], rows: Sequence[Message]) -> list[Message]:
    """Give history messages their archive ids (see :func:`align`); the session is set on all of them."""
    paired = align(messages, rows)
    return [
        Message(m.role, m.content, m.send_at, m.sender, rows[j].id if j is not None else None, session)
        for m, j in zip(messages, paired, strict=True)
    ]

"""Matching history.json's records with the archive's rows.

history.json's text messages are the archive's newest rows of the session (from the compaction cut on),
in the same order; messages without text are in the file only. These functions pair the two from the end.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.messages import Message, from_record


def record_index(records: list[Any], rows: list[Message], target: Message) -> int | None:
    """The index in ``records`` of the archived message ``target``, or None if history.json lacks it.

    history.json's text messages are the archive's newest rows (from the cut on), so they are matched
    from the end; the match is confirmed by role and text.
    """
    textual = [i for i, r in enumerate(records) if (m := from_record(r)) is not None and m.content.strip()]
    for index, row in zip(reversed(textual), reversed(rows), strict=False):
        if row.id == target.id:
            message = from_record(records[index])
            if message is not None and (message.role, message.content) == (target.role, target.content):
                return index
            break
    for index in reversed(textual):
        message = from_record(records[index])
        if message is not None and (message.role, message.content, message.send_at) == (
            target.role,
            target.content,
            target.send_at,
        ):
            return index
    return None


def attach_ids(session: str, messages: list[Message], rows: Iterable[Message]) -> list[Message]:
    """Give history messages their archive ids: history.json's text messages are the archive's newest."""
    rows = list(rows)
    textual = [i for i, m in enumerate(messages) if m.content.strip()]
    result = [Message(m.role, m.content, m.send_at, m.sender, None, session) for m in messages]
    for index, row in zip(reversed(textual), reversed(rows), strict=False):
        result[index] = Message(
            result[index].role,
            result[index].content,
            result[index].send_at,
            result[index].sender,
            row.id,
            session,
        )
    return result

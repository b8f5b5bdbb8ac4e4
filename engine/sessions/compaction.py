"""Compaction of history.json: where to cut, as a pure function (docs/architecture.md, *Compaction*).

When history.json grows past ``max_history_bytes`` the oldest messages are trimmed until it is about 80 %
of the limit, the cut ending right after an assistant message (a complete user+assistant pair). The
archive keeps every message; only the boundary between "recent" and "archive" moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.sessions.historyfile import dumps

TARGET_RATIO = 0.8
MIN_MESSAGES = 4


@dataclass(frozen=True)
class CompactResult:
    """What a compaction did.

    Attributes:
        session: the session id.
        trimmed: messages removed from history.json (0 when nothing was cut).
        kept: messages left in history.json.
        bytes_before: size of history.json before.
        bytes_after: size after.
        start_at: the new cutoff (first kept ``sendAt``), 0 if none.
        seconds: how long it took, index rebuild included.
    """

    session: str
    trimmed: int
    kept: int
    bytes_before: int
    bytes_after: int
    start_at: int
    seconds: float = 0.0


def plan_cut(records: Sequence[Any], current_bytes: int, max_bytes: int) -> int:
    """How many leading records to remove (0: none).

    Args:
        records: the history.json records, oldest first.
        current_bytes: the serialized size of ``records``.
        max_bytes: the limit; the file is trimmed to ``int(max_bytes * 0.8)``.
    """
    if len(records) < MIN_MESSAGES:
        return 0
    need_remove = current_bytes - int(max_bytes * TARGET_RATIO)
    if need_remove <= 0:
        return 0
    acc, idx = 0, 0
    for i, record in enumerate(records):
        acc += len(dumps(record)) + 1
        if acc >= need_remove:
            idx = i + 1
            break
    if idx <= 0:
        return 0
    while idx < len(records) and _role(records[idx - 1]) != "assistant":
        idx += 1
    if idx >= len(records):
        return 0
    return idx


def _role(record: Any) -> Any:
    return record.get("role") if isinstance(record, dict) else None


def first_send_at(records: Sequence[Any]) -> int:
    """The first positive ``sendAt`` among ``records``, 0 if none."""
    for record in records:
        value = record.get("sendAt") if isinstance(record, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return 0

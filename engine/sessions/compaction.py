"""Compaction of history.json: where to cut, as a pure function (docs/architecture.md, *Compaction*).

When history.json grows past ``max_history_bytes`` the oldest messages are trimmed until it is about 80 %
of the limit. The cut ends right after an assistant message (a complete user+assistant pair); in a
session without such a boundary past that point (only user messages, say) it comes right before a user
message, and in a session without user messages at any message. The newest exchange (the newest user message and
what follows it) always stays: when it alone is over the limit, everything before it is cut. The
archive keeps every message; only the boundary between "recent" and "archive" moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.sessions.historyfile import dumps

TARGET_RATIO = 0.8
MIN_MESSAGES = 4


def target_bytes(max_bytes: int) -> int:
    """The size a compaction trims history.json to (about; it cuts between messages)."""
    return int(max_bytes * TARGET_RATIO)


def may_trim(current_bytes: int, messages: int, max_bytes: int) -> bool:
    """Whether compacting a history.json of ``current_bytes`` holding ``messages`` would trim it (the
    cut may still fall at 0 when the newest exchange alone is that large); False when it changes nothing."""
    return messages >= MIN_MESSAGES and current_bytes > target_bytes(max_bytes)


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
    """How many leading records to remove (0: none); at least one record always stays.

    Args:
        records: the history.json records, oldest first.
        current_bytes: the serialized size of ``records``.
        max_bytes: the limit; the file is trimmed to ``int(max_bytes * 0.8)``.
    """
    if len(records) < MIN_MESSAGES:
        return 0
    need_remove = current_bytes - target_bytes(max_bytes)
    if need_remove <= 0:
        return 0
    idx, acc = len(records), 0
    for i, record in enumerate(records):
        acc += len(dumps(record)) + 1
        if acc >= need_remove:
            idx = i + 1
            break
    roles = [_role(r) for r in records]
    users = [i for i, role in enumerate(roles) if role == "user"]
    last = users[-1] if users else len(records) - 1  # the furthest cut: the newest exchange stays
    for cut in range(idx, last + 1):  # a pair boundary: right after an assistant message
        if roles[cut - 1] == "assistant":
            return cut
    if not users:
        return min(idx, last)
    return next((i for i in users if i >= idx), last)


def _role(record: Any) -> Any:
    return record.get("role") if isinstance(record, dict) else None


def first_send_at(records: Sequence[Any]) -> int:
    """The first positive ``sendAt`` among ``records``, 0 if none."""
    for record in records:
        value = record.get("sendAt") if isinstance(record, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return 0

"""Session folders: listing, session info, and the removal of files (reset, remove, temp cleanup)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from engine.errors import InvalidSessionId
from engine.paths import Paths, validate_session_id

TEMP_PREFIX = "temp-"
TEMP_IDLE_NS = 30 * 60 * 1_000_000_000
PRIVATE_PREFIX = "priv-"
"""A temporary chat: history.json only; never archived, embedded, summarized or searched."""


def is_private(session_id: str) -> bool:
    """True for a temporary chat (``priv-<id>``): its messages never reach the archive or any other tier.

    Every tier checks this before it stores anything about a session (the vectors, the summarizer); the
    facade itself never writes a private session's messages to SQLite.
    """
    return session_id.startswith(PRIVATE_PREFIX)


@dataclass(frozen=True)
class SessionInfo:
    """What the session list shows.

    Attributes:
        id: the session id.
        last_activity: Unix ns of its last message; where no message has a time, of the newest change to
            its files (0 if none). Lists sort by it, newest first.
        hot_messages: archived messages still in history.json.
        archived_messages: archived messages cut out of history.json by compaction.
        history_bytes: the size of history.json.
        summary_updated: Unix ns when summary.json last changed, 0 if there is none.
        temporary: a ``temp-`` session (subagents; cleaned when idle).
        private: a ``priv-`` session, a temporary chat that is never archived (see :func:`is_private`).
        title: what lists show: the imported or user-given title, else the first user message shortened
            ("" when the session has no user message).
        title_source: ``imported`` or ``user`` for a stored title, ``auto`` for one made from a message.
        first_message_at: Unix ns of its earliest message with a known time (0: unknown).
        last_message_at: Unix ns of its latest message (0: unknown).
    """

    id: str
    last_activity: int
    hot_messages: int
    archived_messages: int
    history_bytes: int
    summary_updated: int
    temporary: bool
    private: bool = False
    title: str = ""
    title_source: str = ""
    first_message_at: int = 0
    last_message_at: int = 0

    @property
    def total_messages(self) -> int:
        return self.hot_messages + self.archived_messages


def session_ids(paths: Paths) -> list[str]:
    """Every session folder's id (a folder whose name is not a valid id is ignored)."""
    found = []
    for entry in paths.sessions_dir.iterdir() if paths.sessions_dir.exists() else []:
        if not entry.is_dir():
            continue
        try:
            found.append(validate_session_id(entry.name))
        except InvalidSessionId:
            continue
    return sorted(found)


def newest_mtime(folder: Path) -> int:
    """The newest modification time (ns) of the folder and the files in it."""
    newest = 0
    try:
        newest = folder.stat().st_mtime_ns
        for child in folder.iterdir():
            newest = max(newest, child.stat().st_mtime_ns)
    except FileNotFoundError:
        pass
    return newest


def mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:
        return 0


def remove_files(paths: Paths, session_id: str, *, keep_summary: bool) -> None:
    """Delete history.json (and, unless kept, summary.json and the cursor) of a session."""
    paths.history_file(session_id).unlink(missing_ok=True)
    if not keep_summary:
        paths.summary_file(session_id).unlink(missing_ok=True)
        paths.cursor_file(session_id).unlink(missing_ok=True)


def mark_summary_stale(paths: Paths, session_id: str) -> None:
    """Delete summary.json and its cursor so the next summary run rebuilds it from what remains.

    Used when a message is forgotten: the old summary may mention it. Deleting only the cursor would not
    do, since a summary without a cursor just gets its cursor set (step 1 of ``Generate``) and is kept.
    """
    paths.summary_file(session_id).unlink(missing_ok=True)
    paths.cursor_file(session_id).unlink(missing_ok=True)


def remove_folder(paths: Paths, session_id: str) -> None:
    shutil.rmtree(paths.session_dir(session_id), ignore_errors=True)

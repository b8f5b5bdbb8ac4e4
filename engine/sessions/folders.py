"""Session folders: listing, session info, and the removal of files (reset, remove, temp cleanup).

A session folder may be a symbolic link to a folder elsewhere (the user's choice). Removing such a
session deletes what memtray keeps in the link's target (:data:`OWNED_FILES`: history.json,
summary.json, the cursor, and the copies of them kept aside) and the link itself; the target folder and
anything else in it are left alone, since memtray did not make them.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import InvalidSessionId
from engine.messages import from_record
from engine.paths import Paths, validate_session_id
from engine.sessions.historyfile import HistoryUnreadable

log = logging.getLogger("memtray.sessions")

OWNED_FILES = ("history.json*", "summary.json*", ".summary_cursor*")
"""What memtray writes in a session folder (``*``: the copies kept aside, ``history.json.corrupt-<time>``)."""

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
        file_activity: when ``last_activity`` lies more than a day in the future, Unix ns of the newest
            change to history.json (or the folder), which lists order by instead (:func:`ordering_time`);
            else 0.
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
    file_activity: int = 0

    @property
    def total_messages(self) -> int:
        return self.hot_messages + self.archived_messages


def session_ids(paths: Paths) -> list[str]:
    """Every session folder's id (a folder whose name is not a valid id is ignored); one listing of the
    sessions folder, no stat per entry where the file system tells the kind of each."""
    found = []
    try:
        entries = os.scandir(paths.sessions_dir)
    except FileNotFoundError:
        return []
    with entries:
        for entry in entries:
            try:
                if not entry.is_dir():
                    continue
                found.append(validate_session_id(entry.name))
            except (InvalidSessionId, OSError):
                continue
    return sorted(found)


FUTURE_SLACK = 86_400 * 1_000_000_000
"""How far past now a message time is believed when lists are ordered: a day (a clock a little ahead, a
time zone written wrong)."""


def believed(last_activity: int, now: int) -> bool:
    """Whether a session's last activity is believed for ordering: no more than a day past ``now``."""
    return last_activity <= now + FUTURE_SLACK


def ordering_time(last_activity: int, file_activity: Callable[[], int], now: int) -> int:
    """The time a list orders a session by: its last activity, unless that is not :func:`believed` (a
    message dated 2191, a clock set years ahead): then when its files last changed (``file_activity()``, at
    most ``now``), so such a time never pins its session first in every list. The time itself is stored
    and shown as it was given."""
    return last_activity if believed(last_activity, now) else min(file_activity(), now)


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


def mtime(path: Path | str) -> int:
    """The modification time (ns) of a file, 0 when there is none."""
    return size_and_mtime(path)[1]


def size_and_mtime(path: Path | str) -> tuple[int, int]:
    """(size in bytes, modification time in ns) of a file, (0, 0) when there is none: one stat.

    A ``str`` path is welcome: listing 100,000 sessions, making a Path for each file costs more than the
    stat itself.
    """
    try:
        st = os.stat(path)  # noqa: PTH116 (a str path, see the docstring)
    except (FileNotFoundError, NotADirectoryError):
        return 0, 0
    return st.st_size, st.st_mtime_ns


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
    """Delete a session's folder; for a symbolic link, memtray's files in its target and the link.

    Raises:
        OSError: something could not be deleted (a read-only folder).
    """
    folder = paths.session_dir(session_id)
    if folder.is_symlink():
        target = folder.resolve()
        for pattern in OWNED_FILES:
            for path in target.glob(pattern):
                if path.is_file() and not path.is_symlink():
                    path.unlink()
        folder.unlink()
        log.info(
            "session %s was a link to another folder: memtray's files there and the link deleted", session_id
        )
        return
    if folder.exists():
        shutil.rmtree(folder)


def sessions_with_history(paths: Paths, read: Callable[[Path], list[Any]]) -> list[str]:
    """The sessions (not ``priv-`` ones) whose history.json holds at least one message.

    Args:
        read: history.json's records (raises HistoryUnreadable for a damaged file, which is left out).
    """
    found = []
    for session in session_ids(paths):
        if is_private(session):
            continue
        try:
            records = read(paths.history_file(session))
        except HistoryUnreadable:
            continue
        if any(from_record(r) is not None for r in records):
            found.append(session)
    return found

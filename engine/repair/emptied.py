"""An emptied database: the archive holds no message while sessions' history.json files hold some.

A missing or zero-length ``history.db`` is created anew when the memory opens, and a new database looks
like an empty memory: search finds nothing, export writes nothing. Each session's history.json still
holds its recent messages, so when the archive has no message and some session's history.json has, the
memory says so (one WARNING) and archives every such file again at open
(:meth:`engine.sessions.log.SessionLog.restore_emptied`, in the session log below this package: it asks
:func:`engine.sessions.archive.archive_empty` and :func:`engine.sessions.folders.sessions_with_history`).
Messages compacted out of history.json before cannot come back. :func:`describe` finds the same state
without opening (creating) the database, for ``memtray repair --check``.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from engine.paths import Paths
from engine.sessions.folders import sessions_with_history
from engine.sessions.historyfile import HistoryUnreadable
from engine.storage.sql import SQLITE_FAILURES


@dataclass(frozen=True)
class Emptied:
    """The database's state in words (``missing``, ``empty``, ``without messages``) and the sessions
    whose history.json holds messages."""

    state: str
    sessions: tuple[str, ...]

    def sentence(self, database: Path) -> str:
        return (
            f"the memory database {database} is {self.state} although {len(self.sessions)} session(s) have "
            "messages in their history.json; opening memtray (or 'memtray repair') archives them again "
            "(messages compacted out of history.json before cannot be recovered)"
        )


def _read_only(path: Path) -> list[Any]:
    """history.json's records, read without the cache (which needs a folder for temporary files)."""
    try:
        records = json.loads(path.read_bytes())
    except FileNotFoundError:
        return []
    except (OSError, ValueError, RecursionError) as exc:
        raise HistoryUnreadable(str(exc)) from exc
    return records if isinstance(records, list) else []


def describe(paths: Paths) -> Emptied | None:
    """An emptied database found without creating or changing it; None when it holds messages, when it
    cannot be read (another check says why) or when no history.json holds any."""
    state = _state(paths.database)
    if state is None:
        return None
    sessions = sessions_with_history(paths, _read_only)
    return Emptied(state, tuple(sessions)) if sessions else None


def _state(database: Path) -> str | None:
    if not database.exists():
        return "missing"
    if database.stat().st_size == 0:
        return "empty (zero bytes)"
    try:
        db = sqlite3.connect(f"file:{quote(str(database))}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        row = db.execute("SELECT 1 FROM messages LIMIT 1").fetchone()
    except sqlite3.OperationalError as exc:
        return "new (it has no tables)" if "no such table" in str(exc) else None
    except SQLITE_FAILURES:
        return None
    finally:
        db.close()
    return "without messages" if row is None else None

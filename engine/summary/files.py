"""The summary's two files of a session: ``summary.json`` and ``.summary_cursor``.

``summary.json`` is written atomically; a file that cannot be read or parsed counts as ``{}`` (it is left
as it is until the next successful merge replaces it). The cursor is one line of plain text, the local time
``YYYY-MM-DD HH:MM:SS`` of the last summarized message; it is compared with message times as strings,
which at one-second precision is chronological order. The older ``summary.meta.json`` is never read.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from engine.clock import format_local
from engine.paths import Paths
from engine.storage.atomic import atomic_write
from engine.summary.schema import Summary, coerce

log = logging.getLogger("memtray.summary")


def load_raw(paths: Paths, session: str) -> dict[str, Any]:
    """The parsed ``summary.json`` (``{}`` when missing, unreadable or not an object)."""
    path = paths.summary_file(session)
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning(
            "summary.json of session %s is unreadable, treated as empty: %s", session, type(exc).__name__
        )
        return {}
    return data if isinstance(data, dict) else {}


def load(paths: Paths, session: str) -> Summary:
    """The session's summary (empty when there is none)."""
    return coerce(load_raw(paths, session))


def save(paths: Paths, session: str, summary: Summary) -> None:
    """Write ``summary.json`` atomically."""
    data = json.dumps(summary.to_json(), ensure_ascii=False, indent=2).encode("utf-8")
    atomic_write(paths.summary_file(session), data, tmp_dir=_tmp(paths))


def read_cursor(paths: Paths, session: str) -> str:
    """The cursor (``YYYY-MM-DD HH:MM:SS``), or ``""`` when there is none."""
    try:
        return paths.cursor_file(session).read_text(encoding="utf-8").strip()
    except (FileNotFoundError, UnicodeDecodeError):
        return ""


def write_cursor(paths: Paths, session: str, cursor: str) -> None:
    atomic_write(paths.cursor_file(session), (cursor + "\n").encode("utf-8"), tmp_dir=_tmp(paths))


def time_key(send_at: int) -> str:
    """A message's time in the cursor's format (``""`` for a message without a time)."""
    return format_local(send_at) if send_at else ""


def _tmp(paths: Paths) -> Path:
    folder = paths.store_dir / "tmp"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder

"""The summary's two files of a session: ``summary.json`` and ``.summary_cursor``.

``summary.json`` is written atomically; a file that cannot be read counts as ``{}``, and a damaged one (not
a summary, or a key of the wrong type) is moved aside and the cursor deleted, so the next run rebuilds the
summary. The cursor is one line of plain text, the local time ``YYYY-MM-DD HH:MM:SS`` of the last
summarized message; it is compared with message times as strings, which at one-second precision is
chronological order. A cursor that is not such a time, or lies in the future, is damaged: the run moves
it aside and reads history.json from its start. The older ``summary.meta.json`` is never read.
"""

from __future__ import annotations

import json
import logging
import re
import time
from pathlib import Path
from typing import Any

from engine.clock import format_local
from engine.paths import Paths
from engine.storage.atomic import atomic_write
from engine.storage.diskerrors import file_errors
from engine.summary.schema import KEYS, LEGACY_KEYS, Summary, coerce

log = logging.getLogger("memtray.summary")

DAY = 86_400 * 1_000_000_000
_CURSOR = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")


def load_raw(paths: Paths, session: str) -> dict[str, Any]:
    """The parsed ``summary.json`` (``{}`` when missing or unreadable).

    A damaged file (not JSON, not an object, no summary key, a key of the wrong type) is moved aside as
    ``summary.json.corrupt-<time>`` with a warning, and the cursor is deleted: the session has no summary
    yet, and the next summary run rebuilds it from history.json.
    """
    path = paths.summary_file(session)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        log.warning("summary.json of session %s is unreadable, treated as empty: %s", session, exc.strerror)
        return {}
    problem: str | None
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        problem = f"not valid JSON: {type(exc).__name__}"
    else:
        problem = damage(data)
        if problem is None:
            return dict(data)
    _move_aside(paths, session, path, raw, problem)
    return {}


def damage(data: Any) -> str | None:
    """What is wrong with a parsed summary.json, or None when it can be used ({} included)."""
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not an object"
    if data and not any(k in data for k in KEYS + LEGACY_KEYS):
        return "no summary key in it"
    expected = {
        "key_decisions": (list, str),
        "past_discussions": (list,),
        "current_discussion": (dict, str),
    }
    for key, types in expected.items():
        value = data.get(key)
        if value is not None and not isinstance(value, types):
            return f"{key} is a JSON {type(value).__name__}"
    return None


def _move_aside(paths: Paths, session: str, path: Path, raw: bytes, problem: str) -> None:
    target = path.with_name(f"{path.name}.corrupt-{time.time_ns()}")
    try:
        if path.read_bytes() != raw:
            return  # replaced meanwhile (a summary run saved a new one): nothing to do
        path.replace(target)
        paths.cursor_file(session).unlink(missing_ok=True)
    except OSError as exc:
        log.warning(
            "summary.json of session %s is damaged (%s) and could not be moved aside: %s",
            session,
            problem,
            exc,
        )
        return
    log.warning(
        "summary.json of session %s was damaged (%s); moved aside to %s: the next summary run rebuilds it",
        session,
        problem,
        target.name,
    )


def load(paths: Paths, session: str) -> Summary:
    """The session's summary (empty when there is none)."""
    return coerce(load_raw(paths, session))


def save(paths: Paths, session: str, summary: Summary) -> None:
    """Write ``summary.json`` atomically."""
    data = json.dumps(summary.to_json(), ensure_ascii=False, indent=2).encode("utf-8")
    atomic_write(paths.summary_file(session), data, tmp_dir=_tmp(paths))


def read_cursor(paths: Paths, session: str) -> str:
    """The cursor (``YYYY-MM-DD HH:MM:SS``), or ``""`` when there is none (bytes that are not UTF-8 are
    replaced, so a damaged cursor reads as one: see :func:`cursor_damaged`)."""
    try:
        return paths.cursor_file(session).read_bytes().decode("utf-8", "replace").strip()
    except FileNotFoundError:
        return ""


def cursor_damaged(cursor: str, newest: str, now: int) -> bool:
    """Whether a cursor is damaged: not a ``YYYY-MM-DD HH:MM:SS`` time, or in the future (later than the
    newest message's time ``newest`` and than ``now`` + 1 day), which would stop every later summary."""
    if not _CURSOR.fullmatch(cursor):
        return True
    return cursor > newest and cursor > time_key(now + DAY)


def move_cursor_aside(paths: Paths, session: str, cursor: str) -> None:
    """Move a damaged cursor aside as ``.summary_cursor.corrupt-<time>``, with a warning."""
    path = paths.cursor_file(session)
    target = path.with_name(f"{path.name}.corrupt-{time.time_ns()}")
    with file_errors(f"the summary cursor of session {session}"):
        path.replace(target)
    log.warning(
        "the summary cursor of session %s was damaged (%r); moved aside to %s: the next run re-reads "
        "history.json from its start",
        session,
        cursor[:40],
        target.name,
    )


def write_cursor(paths: Paths, session: str, cursor: str) -> None:
    atomic_write(paths.cursor_file(session), (cursor + "\n").encode("utf-8"), tmp_dir=_tmp(paths))


def time_key(send_at: int) -> str:
    """A message's time in the cursor's format (``""`` for a message without a time)."""
    return format_local(send_at) if send_at else ""


def _tmp(paths: Paths) -> Path:
    folder = paths.store_dir / "tmp"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder

"""Agenvoy import: its home (``~/.config/agenvoy``), its ``sessions/`` folder, one session folder, or history.db.

A session folder ``sessions/<id>/`` holds ``history.json`` (a JSON array of ``{"role", "content", "sendAt"?,
"sender"?}``) and ``summary.json``. What Agenvoy compacted out of history.json is still in its archive,
``.store/history.db`` beside ``sessions/`` (:mod:`engine.importers.agenvoy_db`, opened read-only): both are
read and merged, a message in both (same role and text, at the same time or at a time one of them only
guessed) counted once. A session only in history.db is imported too.

Times and senders: a record's ``sendAt`` (any epoch unit, told by its size; an impossible time is skipped
with the reason) and ``sender`` come first, then history.db's ``send_at`` and ``sender``, then the header
older versions wrote into the text, which is removed (every layout: :mod:`engine.importers.agenvoy_headers`).
Content given as a list keeps its text parts. ``summary.json`` is mapped to today's keys
(:mod:`engine.importers.agenvoy_summary`) and installed only when the memtray session has no summary yet.

The folder name is the session id (``cli-…``, ``tg-…``, ``dc-…``, ``http-…``). ``temp-`` sessions (throwaway
subagent runs) and hidden folders (``.Trash``) are skipped with a reason, and so are system and tool
messages and assistant messages that carry tool calls (Agenvoy never saves those).

What is fatal: for one session folder, an unreadable ``history.json`` is an error and nothing is imported.
For a ``sessions/`` folder, such a session is skipped (named in the log) and the others are imported; so is
an unreadable history.db (history.json is then all there is). A broken record is skipped and counted.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import engine.importers.reasons as reasons
from engine.errors import ImportFormatError, InvalidInput
from engine.imported import ImportedSession, ReadResult
from engine.importers import agenvoy_db, agenvoy_headers, agenvoy_summary, detect
from engine.importers.records import BadTime, Tally, epoch_ns, message, short
from engine.messages import Message, text_of
from engine.paths import validate_session_id

log = logging.getLogger("memtray.import")

TEMP_PREFIX = "temp-"
HISTORY, SUMMARY, SESSIONS, DATABASE = "history.json", "summary.json", "sessions", "history.db"
MAX_FILE_BYTES = 512 * 1024 * 1024
NS = 1_000_000_000
ZONE_STEP_NS = 15 * 60 * NS
MAX_ZONE_NS = 26 * 3600 * NS
"""Two copies of a message whose times differ by whole quarter hours (up to 26 h) differ by a time zone:
a header's local time read on another machine than the one that wrote it."""


class UnreadableSession(Exception):
    """A session folder whose history.json cannot be used at all."""


class Rank:
    """How much a message's time can be trusted, best last: where it came from."""

    NONE, HEADER, DATABASE, RECORD = 0, 1, 2, 3


@dataclass(frozen=True)
class Parsed:
    """A message and the :class:`Rank` of its time and of its sender."""

    message: Message
    time_rank: int
    sender_rank: int


def read(path: Path, session: str | None = None) -> ReadResult:
    """Read an Agenvoy home, ``sessions/`` folder, one session folder (or its history.json), or history.db.

    Args:
        path: the folder or file.
        session: import into this session instead; only for one session folder.

    Raises:
        InvalidInput: the path is not a folder, or ``session`` with a folder of many sessions.
        ImportFormatError: a single session's history.json is not a JSON list (nothing is imported), the
            folder holds no session, or the path looks like another kind of history.
    """
    path = path.expanduser()
    database: Path | None = None
    if path.is_file() and path.name in (HISTORY, SUMMARY):
        path = path.parent
    elif path.is_file() and path.name == DATABASE:
        database, path = path, path.parent.parent if path.parent.name == ".store" else path.parent
        if not agenvoy_db.is_archive(database):
            raise ImportFormatError(f"{database}: not Agenvoy's history.db (no messages table)")
    detect.require(path, "agenvoy")
    if not path.is_dir():
        raise InvalidInput(f"not a folder: {path} (give an Agenvoy sessions/ folder or one session folder)")
    if is_session_folder(path) and database is None:
        return _single(path, session)
    if database is None:
        database = _database_of(path)
    if (path / SESSIONS).is_dir():
        path = path / SESSIONS  # the Agenvoy home (~/.config/agenvoy)
    if session is not None:
        raise InvalidInput(f"--session needs one session folder; {path} is a folder of sessions")
    tally = Tally()
    archived = _rows(database, None, tally)
    folders = {f.name: f for f in _subfolders(path) if is_session_folder(f)} if path.is_dir() else {}
    if not folders and not archived:
        raise ImportFormatError(
            f"{path}: no Agenvoy session in this folder (no history.json or summary.json)"
        )
    sessions: list[ImportedSession] = []
    for name in sorted(set(folders) | set(archived)):
        if name.startswith(TEMP_PREFIX):
            tally.skip(reasons.TEMPORARY_SESSION)
            continue
        try:
            session_id = validate_session_id(name)
        except InvalidInput:
            tally.broken(reasons.NOT_A_SESSION_ID, str(path / name), "not a valid session id")
            continue
        try:
            item = read_session(folders.get(name), session_id, archived.get(name, []))
        except UnreadableSession as exc:
            tally.broken(reasons.UNREADABLE_HISTORY, str(path / name), str(exc))
            continue
        _add(item, sessions, tally)
    return ReadResult(sessions, tally.as_dict())


def _database_of(path: Path) -> Path | None:
    """history.db of an Agenvoy home, or of the home whose ``sessions/`` folder ``path`` is."""
    for home in (path, path.parent) if path.name == SESSIONS else (path,):
        candidate = home / ".store" / DATABASE
        if candidate.is_file():
            return candidate
    return None


def _rows(database: Path | None, only: str | None, tally: Tally) -> dict[str, list[agenvoy_db.Row]]:
    if database is None:
        return {}
    try:
        return agenvoy_db.read_rows(database, only)
    except agenvoy_db.UnreadableDatabase as exc:
        tally.broken(reasons.UNREADABLE_DATABASE, str(database), str(exc))
        return {}


def _single(folder: Path, session: str | None) -> ReadResult:
    tally = Tally()
    if session is None and folder.name.startswith(TEMP_PREFIX):
        tally.skip(reasons.TEMPORARY_SESSION)
        return ReadResult([], tally.as_dict())
    try:
        target = validate_session_id(session or folder.name)
    except InvalidInput as exc:
        raise InvalidInput(
            f"cannot use the folder name {folder.name!r} as a session id; pass --session"
        ) from exc
    database = _database_of(folder.parent) if folder.parent.name == SESSIONS else None
    rows = _rows(database, folder.name, tally).get(folder.name, [])
    try:
        item = read_session(folder, target, rows)
    except UnreadableSession as exc:
        raise ImportFormatError(f"{folder / HISTORY}: {exc}") from exc
    sessions: list[ImportedSession] = []
    _add(item, sessions, tally)
    return ReadResult(sessions, tally.as_dict())


def _add(item: ImportedSession, sessions: list[ImportedSession], tally: Tally) -> None:
    if item.messages:
        sessions.append(item)
        return
    tally.skip(reasons.SESSION_WITHOUT_MESSAGES)
    if item.summary is not None:
        tally.skip(reasons.SUMMARY_WITHOUT_MESSAGES)


def is_session_folder(folder: Path) -> bool:
    return (folder / HISTORY).is_file() or (folder / SUMMARY).is_file()


def _subfolders(path: Path) -> list[Path]:
    try:
        return sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from exc


def read_session(
    folder: Path | None, session_id: str, rows: Iterable[agenvoy_db.Row] = ()
) -> ImportedSession:
    """One session: its history.db rows and its folder's history.json merged (oldest first), its summary.

    Raises:
        UnreadableSession: history.json exists but is not a readable JSON list.
    """
    tally = Tally()
    archived = [p for i, row in enumerate(rows, start=1) if (p := _row(row, tally, f"{session_id} row {i}"))]
    recent: list[Parsed] = []
    summary = None
    if folder is not None:
        history = _load(folder / HISTORY)
        if history is not None:
            if not isinstance(history, list):
                raise UnreadableSession(f"expected a JSON list of messages, not {type(history).__name__}")
            for index, record in enumerate(history, start=1):
                found = _record(record, tally, f"{folder.name}/{HISTORY} record {index}")
                if found is not None:
                    recent.append(found)
        summary = _summary(folder, tally)
    merged = merge(archived, recent, tally) if archived else [p.message for p in recent]
    return ImportedSession(session_id, merged, summary, tally.as_dict())


def _summary(folder: Path, tally: Tally) -> dict[str, object] | None:
    try:
        raw_summary = _load(folder / SUMMARY)
    except UnreadableSession as exc:
        tally.broken(reasons.UNREADABLE_SUMMARY, f"{folder.name}/{SUMMARY}", str(exc))
        return None
    if raw_summary is None or raw_summary == {}:
        return None  # no summary yet: Agenvoy writes {} before its first summary
    summary = agenvoy_summary.convert(raw_summary)
    if summary is None:
        tally.broken(reasons.SUMMARY_WITHOUT_KEYS, f"{folder.name}/{SUMMARY}", "no summary keys")
    return summary


def merge(archived: list[Parsed], recent: list[Parsed], tally: Tally) -> list[Message]:
    """history.db's messages with history.json's: one message for a pair with the same role and text whose
    times agree (equal, one of them unknown, or a time zone apart), with the better time and sender.

    The order is history.db's, history.json's messages not in it after them; by time when every message
    has one.
    """
    waiting: dict[tuple[str, str], list[int]] = {}
    for index, item in enumerate(archived):
        waiting.setdefault((item.message.role, item.message.content), []).append(index)
    merged = list(archived)
    extra: list[Parsed] = []
    for item in recent:
        candidates = waiting.get((item.message.role, item.message.content), [])
        match = next((i for i in candidates if _same_time(archived[i], item)), None)
        if match is None:
            extra.append(item)
            continue
        candidates.remove(match)
        merged[match] = _better(archived[match], item)
        tally.skip(reasons.MESSAGE_IN_BOTH)
    result = [p.message for p in merged + extra]
    if all(m.send_at for m in result):
        result.sort(key=lambda m: m.send_at)
    return result


def _same_time(a: Parsed, b: Parsed) -> bool:
    x, y = a.message.send_at, b.message.send_at
    if x == y or not x or not y:
        return True
    apart = abs(x - y)
    return Rank.HEADER in (a.time_rank, b.time_rank) and apart <= MAX_ZONE_NS and apart % ZONE_STEP_NS == 0


def _better(a: Parsed, b: Parsed) -> Parsed:
    send_at = a.message.send_at if a.time_rank >= b.time_rank else b.message.send_at
    sender = a.message.sender if a.sender_rank >= b.sender_rank else b.message.sender
    return Parsed(
        replace(a.message, send_at=send_at, sender=sender),
        max(a.time_rank, b.time_rank),
        max(a.sender_rank, b.sender_rank),
    )


def _load(path: Path) -> Any:
    """The parsed JSON file, or None if there is none.

    Raises:
        UnreadableSession: it cannot be read or parsed.
    """
    try:
        if not path.is_file():
            return None
        if path.stat().st_size > MAX_FILE_BYTES:
            raise UnreadableSession(f"larger than {MAX_FILE_BYTES // 1024**2} MiB")
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableSession(f"cannot read it ({exc.strerror or exc})") from exc
    if not data.strip():
        return None
    try:
        return json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise UnreadableSession(f"not UTF-8 text (byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise UnreadableSession(f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from exc
    except RecursionError as exc:
        raise UnreadableSession("JSON nested too deeply") from exc
    except ValueError as exc:
        raise UnreadableSession(f"not usable JSON ({exc})") from exc


def parse_record(record: Any, tally: Tally, where: str) -> Message | None:
    """A message from one history.json record (any version), or None (counted) to skip it."""
    found = _record(record, tally, where)
    return found.message if found is not None else None


def _record(record: Any, tally: Tally, where: str) -> Parsed | None:
    if not isinstance(record, dict):
        tally.broken(reasons.BROKEN_MESSAGE, where, "not an object")
        return None
    role = record.get("role")
    if role in ("system", "tool"):
        tally.skip(reasons.fill(reasons.ROLE_MESSAGE, role))
        return None
    if role not in ("user", "assistant"):
        tally.broken(reasons.BROKEN_MESSAGE, where, f"role {short(role)}")
        return None
    if role == "assistant" and record.get("tool_calls"):
        tally.skip(reasons.TOOL_CALL)
        return None
    content = record.get("content")
    if isinstance(content, list):
        parts = len(content)
        content = text_of(content)
        texts = sum(1 for p in record["content"] if isinstance(p, dict) and p.get("type") == "text")
        tally.skip(reasons.NON_TEXT_CONTENT_PART, parts - texts)
    if content is None:
        content = ""
    if not isinstance(content, str):
        tally.broken(reasons.BROKEN_MESSAGE, where, "'content' is not text")
        return None
    try:
        send_at = epoch_ns(record.get("sendAt"))
    except BadTime as exc:
        tally.broken(str(exc), where, f"sendAt {short(record.get('sendAt'))}")
        return None
    sender = record.get("sender", "")
    sender = sender if isinstance(sender, str) else ""
    return _parsed(role, content, (send_at, Rank.RECORD), (sender, Rank.RECORD), tally, where)


def _row(row: agenvoy_db.Row, tally: Tally, where: str) -> Parsed | None:
    if row.role not in ("user", "assistant"):
        tally.skip(reasons.fill(reasons.ROLE_MESSAGE, short(row.role, 20)))
        return None
    return _parsed(
        row.role, row.content, (row.send_at, Rank.DATABASE), (row.sender, Rank.DATABASE), tally, where
    )


def _parsed(
    role: str, content: str, time: tuple[int, int], sender: tuple[str, int], tally: Tally, where: str
) -> Parsed | None:
    """The message with its header removed; the header's time and sender where none was given."""
    stripped = agenvoy_headers.strip(content)
    send_at, time_rank = (
        time if time[0] else (stripped.send_at, Rank.HEADER if stripped.send_at else Rank.NONE)
    )
    who, sender_rank = (
        sender if sender[0] else (stripped.sender, Rank.HEADER if stripped.sender else Rank.NONE)
    )
    found = message(role, stripped.text, send_at, who, tally, where)
    return Parsed(found, time_rank, sender_rank) if found is not None else None

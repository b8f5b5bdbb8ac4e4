"""Agenvoy import: a ``sessions/`` folder (one subfolder per session), its parent, or one session folder.

A session folder holds ``history.json`` (a JSON array of ``{"role", "content", "sendAt"?, "sender"?}``)
and ``summary.json`` (memory-engine.md §1.2, §2.1, §8.1). Both history formats are read: records with
``sendAt`` (Unix ns), and the older ones whose time sits in a ``當前時間:`` header inside the content
(§2.5, converted by :func:`engine.messages.normalize_legacy`). Content given as a list keeps its text
parts. ``summary.json`` is mapped to today's keys (:mod:`engine.importers.agenvoy_summary`) and installed
only when the memtray session has no summary yet.

The folder name is the session id (``cli-…``, ``tg-…``, ``dc-…``, ``http-…``). ``temp-`` sessions (throwaway
subagent runs) and hidden folders (``.Trash``) are skipped with a reason, and so are system and tool
messages and assistant messages that carry tool calls (Agenvoy never saves those, §2.2).

What is fatal: for one session folder, an unreadable ``history.json`` is an error and nothing is imported.
For a ``sessions/`` folder, such a session is skipped (named in the log) and the others are imported.
A broken record inside a history is skipped and counted.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from engine.errors import ImportFormatError, InvalidInput
from engine.importers import ImportedSession, ReadResult, agenvoy_summary
from engine.importers.records import Tally, message, short
from engine.messages import MAX_SEND_AT, Message, normalize_legacy, text_of
from engine.paths import validate_session_id

log = logging.getLogger("memtray.import")

TEMP_PREFIX = "temp-"
HISTORY, SUMMARY = "history.json", "summary.json"
MAX_FILE_BYTES = 512 * 1024 * 1024


class UnreadableSession(Exception):
    """A session folder whose history.json cannot be used at all."""


def read(path: Path, session: str | None = None) -> ReadResult:
    """Read an Agenvoy ``sessions/`` folder, one session folder, or a session's ``history.json``.

    Args:
        path: the folder (or the ``history.json`` in a session folder).
        session: import into this session instead; only for one session folder.

    Raises:
        InvalidInput: the path is not a folder, or ``session`` with a folder of many sessions.
        ImportFormatError: a single session's history.json is not a JSON list (nothing is imported), or
            the folder holds no session.
    """
    path = path.expanduser()
    if path.is_file() and path.name in (HISTORY, SUMMARY):
        path = path.parent
    if not path.is_dir():
        raise InvalidInput(f"not a folder: {path} (give an Agenvoy sessions/ folder or one session folder)")
    if is_session_folder(path):
        return _single(path, session)
    if (path / "sessions").is_dir():
        path = path / "sessions"  # the Agenvoy home (~/.config/agenvoy)
    folders = _subfolders(path)
    if session is not None:
        raise InvalidInput(f"--session needs one session folder; {path} is a folder of sessions")
    tally = Tally()
    sessions: list[ImportedSession] = []
    found = 0
    for folder in folders:
        if not is_session_folder(folder):
            continue
        found += 1
        if folder.name.startswith(TEMP_PREFIX):
            tally.skip("temp- session (throwaway)")
            continue
        try:
            session_id = validate_session_id(folder.name)
        except InvalidInput:
            tally.broken("folder name is not a session id", str(folder), "not a valid session id")
            continue
        try:
            item = read_session(folder, session_id)
        except UnreadableSession as exc:
            tally.broken("session with an unreadable history.json", str(folder), str(exc))
            continue
        _add(item, sessions, tally)
    if not found:
        raise ImportFormatError(
            f"{path}: no Agenvoy session in this folder (no history.json or summary.json)"
        )
    return ReadResult(sessions, tally.as_dict())


def _single(folder: Path, session: str | None) -> ReadResult:
    tally = Tally()
    if session is None and folder.name.startswith(TEMP_PREFIX):
        tally.skip("temp- session (throwaway)")
        return ReadResult([], tally.as_dict())
    try:
        target = validate_session_id(session or folder.name)
    except InvalidInput as exc:
        raise InvalidInput(
            f"cannot use the folder name {folder.name!r} as a session id; pass --session"
        ) from exc
    try:
        item = read_session(folder, target)
    except UnreadableSession as exc:
        raise ImportFormatError(f"{folder / HISTORY}: {exc}") from exc
    sessions: list[ImportedSession] = []
    _add(item, sessions, tally)
    return ReadResult(sessions, tally.as_dict())


def _add(item: ImportedSession, sessions: list[ImportedSession], tally: Tally) -> None:
    if item.messages:
        sessions.append(item)
        return
    tally.skip("session without messages")
    if item.summary is not None:
        tally.skip("summary.json of a session without messages")


def is_session_folder(folder: Path) -> bool:
    return (folder / HISTORY).is_file() or (folder / SUMMARY).is_file()


def _subfolders(path: Path) -> list[Path]:
    try:
        return sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from exc


def read_session(folder: Path, session_id: str) -> ImportedSession:
    """One session folder: its messages (oldest first), its summary, and what was skipped.

    Raises:
        UnreadableSession: history.json exists but is not a readable JSON list.
    """
    tally = Tally()
    messages: list[Message] = []
    history = _load(folder / HISTORY)
    if history is not None:
        if not isinstance(history, list):
            raise UnreadableSession(f"expected a JSON list of messages, not {type(history).__name__}")
        for index, record in enumerate(history, start=1):
            found = parse_record(record, tally, f"{folder.name}/{HISTORY} record {index}")
            if found is not None:
                messages.append(found)
    summary = None
    try:
        raw_summary = _load(folder / SUMMARY)
    except UnreadableSession as exc:
        tally.broken("unreadable summary.json", f"{folder.name}/{SUMMARY}", str(exc))
    else:
        if raw_summary is not None:
            summary = agenvoy_summary.convert(raw_summary)
            if summary is None:
                tally.broken(
                    "summary.json without summary keys", f"{folder.name}/{SUMMARY}", "no summary keys"
                )
    return ImportedSession(session_id, messages, summary, tally.as_dict())


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
    """A message from one history.json record (either format), or None (counted) to skip it."""
    if not isinstance(record, dict):
        tally.broken("broken message", where, "not an object")
        return None
    role = record.get("role")
    if role in ("system", "tool"):
        tally.skip(f"{role} message")
        return None
    if role not in ("user", "assistant"):
        tally.broken("broken message", where, f"role {short(role)}")
        return None
    if role == "assistant" and record.get("tool_calls"):
        tally.skip("assistant call to a tool")
        return None
    content = record.get("content")
    if isinstance(content, list):
        parts = len(content)
        content = text_of(content)
        texts = sum(1 for p in record["content"] if isinstance(p, dict) and p.get("type") == "text")
        tally.skip("non-text content part (image, file)", parts - texts)
    if content is None:
        content = ""
    if not isinstance(content, str):
        tally.broken("broken message", where, "'content' is not text")
        return None
    send_at = record.get("sendAt", 0)
    if send_at is None:
        send_at = 0
    if isinstance(send_at, float) and send_at.is_integer():
        send_at = int(send_at)
    if not isinstance(send_at, int) or isinstance(send_at, bool) or not 0 <= send_at <= MAX_SEND_AT:
        tally.broken("broken message", where, f"sendAt {short(send_at)}")
        return None
    sender = record.get("sender", "")
    if not isinstance(sender, str):
        sender = ""
    legacy = normalize_legacy(Message(role=role, content=content, send_at=send_at, sender=sender))
    return message(legacy.role, legacy.content, legacy.send_at, legacy.sender, tally, where)

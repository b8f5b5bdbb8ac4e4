"""The summary's two files of a session: ``summary.json`` and ``.summary_cursor``.

``summary.json`` is written atomically; a file that cannot be read counts as ``{}``, and a damaged one (not
a summary, or a key of the wrong type) is moved aside and the cursor deleted, so the next run rebuilds the
summary.

The cursor says how far into history.json the summary reaches, by what was sent, never by the clock: one line
of JSON ``{"id": N, "after": K, "at": T, "mark": M, "written": W}``, where ``N`` is the archive id of the last
summarized message that has one (the anchor), ``M`` that message's mark (its time and a hash of its text),
``K`` how many messages after it (in history.json's order) were summarized too, ``T`` the time of the last
summarized message (Unix ns, UTC), and ``W`` when the summarizer wrote it (the newest summary wins across
synced devices). So a message without a time is summarized once, a message dated 2191 or a clock set wrong
freezes nothing, and a change of the machine's time zone loses nothing. The anchor is found by its id and
mark, else by its mark alone (a database rebuilt from the history files numbers its rows anew); when it is in
history.json under neither, and older ids are, the messages after ``T`` are the new ones (the anchor was
forgotten, or the rows renumbered): the one case where the time counts. An older cursor (one line ``YYYY-MM-DD
HH:MM:SS``, a local time) is read once by time and replaced by the new form at the next run. A cursor that is
neither, or an older one in the future, is damaged: the run moves it aside and reads history.json from its
start. The older ``summary.meta.json`` is never read.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engine.clock import format_local, parse_local
from engine.messages import Message
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


@dataclass(frozen=True)
class Cursor:
    """How far the summary reaches (see the module docstring).

    Attributes:
        id: the archive id of the last summarized message that has one (0: none).
        after: messages after that one (or from the start, when ``id`` is 0) summarized too.
        at: the time of the last summarized message with a time (Unix ns, UTC; 0: none). Shown only.
        legacy: an older cursor's local time ``YYYY-MM-DD HH:MM:SS`` (then ``at`` is that time read as
            local): messages are compared with it by time, once.
        mark: the anchor's :func:`mark` ("" when there is no anchor).
        written: when the summarizer wrote this summary and cursor (Unix ns, its own clock; 0: unknown, an
            older cursor): the newest summary wins when devices sync (:mod:`engine.sync.summaries`). Not
            part of where the cursor points (equality ignores it).
    """

    id: int = 0
    after: int = 0
    at: int = 0
    legacy: str = ""
    mark: str = ""
    written: int = field(default=0, compare=False)

    def display(self) -> str:
        """The time of the last summarized message (local), for people; ``""`` before any."""
        if self.legacy:
            return self.legacy
        if self.at:
            return format_local(self.at)
        return f"message {self.id}" if self.id else ""

    def to_line(self) -> str:
        data: dict[str, object] = {"id": self.id, "after": self.after, "at": self.at, "mark": self.mark}
        if self.written:
            data["written"] = self.written
        return json.dumps(data)


def mark(message: Message) -> str:
    """What tells a message again when its archive id changed: its time and a hash of its text."""
    digest = hashlib.sha256(message.content.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{message.send_at}:{digest}"


def _read_cursor_text(paths: Paths, session: str) -> str:
    try:
        return paths.cursor_file(session).read_bytes().decode("utf-8", "replace").strip()
    except FileNotFoundError:
        return ""


def parse_cursor(text: str) -> Cursor | None:
    """The cursor in a cursor file's text, or None when it is neither form (damaged)."""
    if _CURSOR.fullmatch(text):
        return Cursor(at=parse_local(text), legacy=text)
    try:
        data = json.loads(text) if len(text) < 200 else None
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    values = [data.get(k, 0) for k in ("id", "after", "at", "written")]
    if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in values):
        return None
    anchor_mark = data.get("mark", "")
    if not isinstance(anchor_mark, str):
        return None
    return Cursor(id=values[0], after=values[1], at=values[2], mark=anchor_mark, written=values[3])


def read_cursor(paths: Paths, session: str) -> str:
    """The cursor for people: the local time of the last summarized message, ``""`` when there is none;
    a damaged cursor's text as it is."""
    text = _read_cursor_text(paths, session)
    cursor = parse_cursor(text) if text else None
    return cursor.display() if cursor is not None else text


def load_cursor(paths: Paths, session: str, now: int) -> tuple[Cursor | None, bool]:
    """The session's cursor (None when there is none) and whether a damaged one was moved aside: one that
    is neither form, or an older one later than ``now`` + 1 day (which would stop every later summary)."""
    text = _read_cursor_text(paths, session)
    if not text:
        return None, False
    cursor = parse_cursor(text)
    if cursor is not None and not (cursor.legacy and cursor.legacy > time_key(now + DAY)):
        return cursor, False
    move_cursor_aside(paths, session, text)
    return None, True


def unsummarized(messages: Sequence[Message], cursor: Cursor | None, now: int) -> list[int]:
    """The positions in ``messages`` (history.json, oldest first) the summary does not reach yet."""
    if cursor is None:
        return list(range(len(messages)))
    if cursor.legacy:
        return [i for i, m in enumerate(messages) if not m.send_at or m.send_at > cursor.at]
    if not cursor.id:  # no anchor: the summarized messages are the first ``after``
        return list(range(min(cursor.after, len(messages)), len(messages)))
    anchor = _anchor(messages, cursor)
    if anchor is not None:
        return list(range(min(anchor + 1 + cursor.after, len(messages)), len(messages)))
    if all(m.id is None or m.id > cursor.id for m in messages):  # every message came after the anchor
        return list(range(len(messages)))
    # The anchor is gone (forgotten) or the rows were numbered anew: the time is all that is left.
    trusted = cursor.at <= now + DAY
    return [i for i, m in enumerate(messages) if not trusted or not m.send_at or m.send_at > cursor.at]


def _anchor(messages: Sequence[Message], cursor: Cursor) -> int | None:
    """The anchor's position: by id and mark, else by mark alone; None when it is not there."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].id == cursor.id and (not cursor.mark or mark(messages[i]) == cursor.mark):
            return i
    if cursor.mark:
        for i in range(len(messages) - 1, -1, -1):
            if mark(messages[i]) == cursor.mark:
                return i
    return None


def cursor_through(messages: Sequence[Message], last: int) -> Cursor:
    """The cursor once ``messages[: last + 1]`` are summarized."""
    anchor = next((i for i in range(last, -1, -1) if messages[i].id is not None), -1)
    at = next((messages[i].send_at for i in range(last, -1, -1) if messages[i].send_at), 0)
    if anchor < 0:
        return Cursor(0, last + 1, at)
    message_id = messages[anchor].id
    assert message_id is not None
    return Cursor(message_id, last - anchor, at, mark=mark(messages[anchor]))


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


def write_cursor(paths: Paths, session: str, cursor: Cursor | str) -> None:
    """Write the cursor atomically (a ``str`` is written as it is: older cursors, in tests). A cursor
    without its ``written`` time gets the time now: the summarizer's own stamp on what it wrote."""
    if isinstance(cursor, Cursor) and not cursor.written:
        cursor = replace(cursor, written=time.time_ns())
    line = cursor.to_line() if isinstance(cursor, Cursor) else cursor
    atomic_write(paths.cursor_file(session), (line + "\n").encode("utf-8"), tmp_dir=_tmp(paths))


def time_key(send_at: int) -> str:
    """A message's time in the cursor's format (``""`` for a message without a time)."""
    return format_local(send_at) if send_at else ""


def _tmp(paths: Paths) -> Path:
    folder = paths.store_dir / "tmp"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder

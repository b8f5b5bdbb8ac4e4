"""Reading agents' JSONL transcripts (Claude Code, Codex), incrementally: one session per transcript file.

:func:`read` finds the transcripts at a path (the file, or every ``*.jsonl`` below a folder, in name order),
reads each from where the last import stopped (:mod:`engine.importers.importstate`; from the start without
a state), and hands the complete lines to the format's ``parse``. Only complete lines are read: a last line
without its newline is still being written and is left for the next import. A line that is not JSON is
skipped and counted. A file of another kind (a Codex rollout among Claude Code transcripts) is skipped with
a reason; a path that looks like another kind altogether is an error naming it.

``parse(lines, meta, tally)`` turns lines into messages and keeps in ``meta`` (saved with the file's state)
what a later read needs: ``session`` (the session id, fixed by the first read; ``fallback(file)`` when the
lines name none), what ``title(meta)`` makes the title from, and whatever else.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import chain, islice
from pathlib import Path, PurePath
from typing import Any

import engine.importers.reasons as reasons
from engine.errors import ImportFormatError, InvalidInput
from engine.imported import ImportedSession, ReadResult
from engine.importers import detect
from engine.importers.importstate import HEAD_BYTES, FileState, ImportState
from engine.importers.records import Tally, retarget
from engine.messages import Message

Lines = Iterable[tuple[int, Any]]
"""(line number, parsed JSON) of complete lines, read as they are used (a transcript can be large)."""
Parse = Callable[[Lines, dict[str, Any], Tally], list[Message]]


class LineReader:
    """The complete JSON lines of a transcript after where the last import stopped, one at a time.

    ``fresh`` tells whether the previous state no longer applied (first import, or the file was replaced,
    shrank or was rewritten) so that it is read from the start. Iterate it once; then :meth:`state` says
    where reading stopped and ``bad`` how many complete lines were not JSON.

    Raises:
        OSError: the file cannot be read (on creation).
    """

    def __init__(self, path: Path, previous: FileState | None) -> None:
        self._handle = path.open("rb")
        try:
            self._info = os.fstat(self._handle.fileno())
            valid = previous is not None and _still_valid(self._handle, self._info, previous)
        except BaseException:
            self._handle.close()
            raise
        self.previous = previous if valid else None
        self.fresh = self.previous is None
        self.offset, self.lines = (previous.offset, previous.lines) if previous and valid else (0, 0)
        self.bad = 0

    def __enter__(self) -> LineReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        self._handle.seek(self.offset)
        for raw in self._handle:
            if not raw.endswith(b"\n"):
                return  # still being written: left for the next import
            self.offset += len(raw)
            self.lines += 1
            if self.lines == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            if not raw.strip():
                continue
            try:
                parsed = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError):
                self.bad += 1
                continue
            yield self.lines, parsed

    def state(self, meta: dict[str, Any]) -> FileState:
        """Where this read stopped, with ``meta`` for the next one."""
        self._handle.seek(0)
        head = hashlib.sha256(self._handle.read(min(self.offset, HEAD_BYTES))).hexdigest()
        return FileState(self._info.st_ino, self.offset, self.lines, head, meta)


def _still_valid(handle: Any, info: os.stat_result, previous: FileState) -> bool:
    """True if ``previous`` still describes the start of this file (same inode, not shorter, same head)."""
    if previous.inode != info.st_ino or info.st_size < previous.offset:
        return False
    handle.seek(0)
    head = hashlib.sha256(handle.read(min(previous.offset, HEAD_BYTES))).hexdigest()
    return bool(head == previous.head)


def read(
    path: Path,
    session: str | None,
    state: ImportState | None,
    *,
    kind: str,
    files: Callable[[Path, Tally], list[Path]],
    parse: Parse,
    title: Callable[[dict[str, Any]], str | None],
    fallback: Callable[[Path], str],
) -> ReadResult:
    """Read the transcripts of ``kind`` at ``path``, one session each (see the module's docstring).

    Raises:
        InvalidInput: the path does not exist, or ``--session`` with more than one transcript.
        ImportFormatError: the path looks like another kind, or holds no transcript.
    """
    path = path.expanduser()
    if not path.exists():
        raise InvalidInput(f"no such file or folder: {path}")
    detect.require(path, kind)
    tally = Tally()
    found = files(path, tally)
    if not found:
        raise ImportFormatError(f"{path}: no transcript (.jsonl file) here")
    sessions: list[ImportedSession] = []
    unchanged = 0
    for file in found:
        previous = state.get(file) if state is not None else None
        try:
            with LineReader(file, previous) as reader:
                item = _read_file(reader, kind, parse, title, tally, str(file))
                new_state = reader.state(dict(reader.previous.meta) if reader.previous else {})
        except OSError as exc:
            tally.broken(reasons.UNREADABLE_TRANSCRIPT, str(file), exc.strerror or str(exc))
            continue
        except _OtherKind:
            continue
        if previous is not None and not reader.fresh and new_state.offset == previous.offset:
            unchanged += 1
            continue
        tally.skip(reasons.NOT_JSON, reader.bad)
        meta = item.meta if item is not None else dict(new_state.meta)
        if not isinstance(meta.get("session"), str):
            try:
                meta["session"] = fallback(file)
            except InvalidInput:
                tally.broken(reasons.TRANSCRIPT_WITHOUT_ID, str(file), "no id in its lines or name")
                continue
        if state is not None:
            state.put(file, replace(new_state, meta=meta))
        if item is None:
            tally.skip(reasons.TRANSCRIPT_WITHOUT_MESSAGES)
            continue
        old_title = title(reader.previous.meta) if reader.previous is not None else None
        if item.session.messages or item.session.title != old_title:
            sessions.append(replace(item.session, session=str(meta["session"])))
    if session is not None and not sessions:
        return ReadResult([], tally.as_dict(), unchanged)
    return ReadResult(retarget(sessions, session), tally.as_dict(), unchanged)


class _OtherKind(Exception):
    """A transcript of another kind than the one being read (counted where it is raised)."""


@dataclass(frozen=True)
class _Read:
    session: ImportedSession
    meta: dict[str, Any]


def _read_file(
    reader: LineReader,
    kind: str,
    parse: Parse,
    title: Callable[[dict[str, Any]], str | None],
    tally: Tally,
    where: str,
) -> _Read | None:
    """The messages of the lines ``reader`` gives, as a session (its id still to be settled), or None.

    Raises:
        _OtherKind: a transcript read from the start whose first lines are of another kind.
    """
    lines: Iterator[tuple[int, Any]] = iter(reader)
    if reader.fresh:
        head = list(islice(lines, detect.SAMPLE_LINES))
        other = detect.of_lines([line for _, line in head])
        if other is not None and other != kind:
            label = detect.KINDS[kind].label
            tally.broken(
                reasons.fill(reasons.OTHER_KIND, label), where, f"it looks like {detect.KINDS[other].label}"
            )
            raise _OtherKind
        lines = chain(head, lines)
    meta = dict(reader.previous.meta) if reader.previous is not None else {}
    file_tally = Tally()
    messages = parse(lines, meta, file_tally)
    if not messages and reader.fresh and title(meta) is None:
        return None
    return _Read(ImportedSession("", messages, skipped=file_tally.as_dict(), title=title(meta)), meta)


def jsonl_files(folder: Path, keep: Callable[[Path], bool] = lambda p: True) -> Iterable[Path]:
    """The ``*.jsonl`` files below ``folder`` (or ``folder`` itself if it is a file), in path order."""
    if folder.is_file():
        return [folder]
    return sorted(p for p in folder.rglob("*.jsonl") if p.is_file() and keep(p))


TITLE_CHARS = 80


def titled(meta: dict[str, Any], *keys: str) -> str | None:
    """``project: text``, the text being the first of ``meta[key]`` that is set (None if none is)."""
    text = next((meta[k] for k in keys if isinstance(meta.get(k), str) and meta[k]), None)
    if text is None:
        return None
    project = meta.get("project")
    return f"{project}: {text}" if isinstance(project, str) and project else str(text)


def one_line(text: str) -> str:
    """``text`` on one line, at most 80 characters: fit for a title."""
    flat = " ".join(text.split())
    return flat if len(flat) <= TITLE_CHARS else flat[: TITLE_CHARS - 1].rstrip() + "…"


def project_of(cwd: object) -> str | None:
    """The project named by a working directory: its last part (``/home/u/app`` -> ``app``)."""
    if not isinstance(cwd, str) or not cwd.strip():
        return None
    return PurePath(cwd.replace("\\", "/")).name or cwd

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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from engine.errors import ImportFormatError, InvalidInput
from engine.importers import ImportedSession, ReadResult, detect
from engine.importers.importstate import HEAD_BYTES, FileState, ImportState
from engine.importers.records import Tally, retarget
from engine.messages import Message

Lines = list[tuple[int, Any]]
"""(line number, parsed JSON) of complete lines."""
Parse = Callable[[Lines, dict[str, Any], Tally], list[Message]]


@dataclass(frozen=True)
class Chunk:
    """The complete lines read from one file this time, and where reading stopped.

    Attributes:
        lines: (line number, parsed JSON) of each complete JSON line read.
        state: the file's state after this read (``meta`` still the previous one's).
        fresh: read from the start (first import, or the file was replaced, shrank or was rewritten).
        bad: complete lines that are not JSON.
    """

    lines: Lines
    state: FileState
    fresh: bool
    bad: int


def read_chunk(path: Path, previous: FileState | None) -> Chunk:
    """The complete lines of ``path`` after ``previous`` (all of them if it no longer applies).

    Raises:
        OSError: the file cannot be read.
    """
    with path.open("rb") as handle:
        info = os.fstat(handle.fileno())
        start = previous if previous is not None and _still_valid(handle, info, previous) else None
        offset, number = (start.offset, start.lines) if start is not None else (0, 0)
        handle.seek(offset)
        lines: Lines = []
        bad = 0
        for raw in handle:
            if not raw.endswith(b"\n"):
                break  # still being written: left for the next import
            offset += len(raw)
            number += 1
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            if not raw.strip():
                continue
            try:
                lines.append((number, json.loads(raw.decode("utf-8"))))
            except (UnicodeDecodeError, ValueError, RecursionError):
                bad += 1
        handle.seek(0)
        head = hashlib.sha256(handle.read(min(offset, HEAD_BYTES))).hexdigest()
    meta = dict(start.meta) if start is not None else {}
    state = FileState(inode=info.st_ino, offset=offset, lines=number, head=head, meta=meta)
    return Chunk(lines, state, start is None, bad)


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
    label = detect.KINDS[kind].label
    for file in found:
        previous = state.get(file) if state is not None else None
        try:
            chunk = read_chunk(file, previous)
        except OSError as exc:
            tally.broken("unreadable transcript", str(file), exc.strerror or str(exc))
            continue
        if previous is not None and not chunk.fresh and chunk.state.offset == previous.offset:
            unchanged += 1
            continue
        if chunk.fresh:
            other = detect.of_lines([line for _, line in chunk.lines[: detect.SAMPLE_LINES]])
            if other is not None and other != kind:
                tally.broken(
                    f"file that is not {label}", str(file), f"it looks like {detect.KINDS[other].label}"
                )
                continue
        tally.skip("line that is not JSON", chunk.bad)
        meta = dict(chunk.state.meta)
        file_tally = Tally()
        messages = parse(chunk.lines, meta, file_tally)
        if not isinstance(meta.get("session"), str):
            meta["session"] = fallback(file)
        new_state = FileState(
            chunk.state.inode, chunk.state.offset, chunk.state.lines, chunk.state.head, meta
        )
        if state is not None:
            state.put(file, new_state)
        old_title = title(previous.meta) if previous is not None and not chunk.fresh else None
        new_title = title(meta)
        if messages or new_title != old_title:
            sessions.append(
                ImportedSession(str(meta["session"]), messages, skipped=file_tally.as_dict(), title=new_title)
            )
        elif chunk.fresh and not messages:
            tally.skip("transcript without messages")
    if session is not None and not sessions:
        return ReadResult([], tally.as_dict(), unchanged)
    return ReadResult(retarget(sessions, session), tally.as_dict(), unchanged)


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

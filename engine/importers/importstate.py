"""How far each transcript was imported, so that importing it again reads only what was appended.

The state is one small JSON file, ``<home>/.store/import-state.json``: per transcript (its absolute path),
the inode, the number of bytes consumed up to the end of the last complete line, the lines consumed, a
hash of the file's first bytes and one of the bytes just before that offset, and what the reader needs to carry on mid-file (the session id, the title,
the project). A reader takes a file's :class:`FileState` with :meth:`ImportState.get`, reads from its
offset, and records the new one with :meth:`ImportState.put`; the caller :meth:`~ImportState.save`\\ s the
state only after the messages are stored. A crash in between leaves the old offsets, so the next import
reads those lines again and the archive's duplicate check (same role, text and time) adds nothing twice.

A file whose inode changed, that shrank below its offset, whose first bytes changed, or that was rewritten
in place so that its offset no longer ends a line or the bytes before it changed is read again from the
start (never from the middle of a line). An unreadable or damaged state file is treated as empty (everything is read again, safely).
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engine.storage.atomic import atomic_write

log = logging.getLogger("memtray.import")

FILE_NAME = "import-state.json"
VERSION = 1
HEAD_BYTES = 4096
"""How much of a file's start is hashed to notice that it was rewritten in place."""
TAIL_BYTES = 4096
"""How much of a file just before the offset is hashed, for the same reason."""


@dataclass(frozen=True)
class FileState:
    """Where the last import of one transcript stopped.

    Attributes:
        inode: the file's inode then (0 where the system has none).
        offset: bytes consumed: the end of the last complete line read.
        lines: lines consumed.
        head: sha256 (hex) of the file's first ``min(offset, 4096)`` bytes.
        meta: what the format's reader carries from one read to the next (session id, title, …).
        tail: sha256 (hex) of the ``min(offset, 4096)`` bytes before ``offset`` ("" in a state written
            before it was kept: only the line boundary is then checked).
    """

    inode: int
    offset: int
    lines: int
    head: str
    meta: dict[str, Any] = field(default_factory=dict)
    tail: str = ""


class ImportState:
    """The import state of one memtray home, read on creation and written by :meth:`save`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._files: dict[str, FileState] = _load(path)
        self._changed = False

    @classmethod
    def for_store(cls, store_dir: Path) -> ImportState:
        return cls(store_dir / FILE_NAME)

    def get(self, file: Path) -> FileState | None:
        return self._files.get(_key(file))

    def put(self, file: Path, state: FileState) -> None:
        """Record where reading ``file`` stopped (kept in memory until :meth:`save`)."""
        key = _key(file)
        if self._files.get(key) != state:
            self._files[key] = state
            self._changed = True

    def save(self) -> None:
        """Write the state atomically (nothing is written if nothing changed)."""
        if not self._changed:
            return
        data = {
            "version": VERSION,
            "files": {key: asdict(value) for key, value in sorted(self._files.items())},
        }
        atomic_write(self.path, json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8"))
        self._changed = False


def _key(file: Path) -> str:
    return str(file.expanduser().absolute())


def _load(path: Path) -> dict[str, FileState]:
    try:
        raw = json.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError) as exc:
        log.warning(
            "the import state %s is unreadable (%s): transcripts are read again from the start", path, exc
        )
        return {}
    files = raw.get("files") if isinstance(raw, dict) and raw.get("version") == VERSION else None
    if not isinstance(files, dict):
        log.warning("the import state %s is not in the expected shape: transcripts are read again", path)
        return {}
    found: dict[str, FileState] = {}
    for key, value in files.items():
        try:
            state = FileState(**value)
        except TypeError:
            continue
        if (
            isinstance(state.inode, int)
            and isinstance(state.offset, int)
            and isinstance(state.lines, int)
            and state.offset >= 0
            and isinstance(state.head, str)
            and isinstance(state.meta, dict)
            and isinstance(state.tail, str)
        ):
            found[key] = state
    return found

"""``history.json``: the hot message log, read and written safely.

Every write is atomic: the new content goes to a temporary file in ``<home>/.store/tmp``, is flushed to
disk (fsync), then renamed over the old file, and the folder is synced, so a reader or a crash sees either
the old file or the new one, never half of one. An append reuses the bytes already known for the file (a
per-process cache keyed by the file's identity) so appending to a 4 MiB file does not re-parse it.

A file that cannot be parsed is never overwritten silently: :func:`quarantine` moves it aside as
``history.json.corrupt-<time>`` and the caller rebuilds it from the archive.
"""

from __future__ import annotations

import glob
import json
import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.storage.atomic import atomic_write, tmp_prefix

log = logging.getLogger("memtray.history")

_CACHE_LIMIT = 8


class HistoryUnreadable(Exception):
    """history.json exists but is not a JSON array, or cannot be parsed (internal: the engine repairs it
    from the archive)."""


def dumps(record: Any) -> bytes:
    """Compact JSON, as the file is written."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


@dataclass
class _Cached:
    identity: tuple[int, int, int]
    data: bytearray  # the file's bytes, trailing white space removed; grown in place by appends
    records: list[Any]


class HotFiles:
    """Reads and writes the history.json files of one home, with a small cache of recent files."""

    def __init__(self, tmp_dir: Path) -> None:
        self._tmp_dir = tmp_dir
        self._tmp_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._cache: OrderedDict[Path, _Cached] = OrderedDict()
        self._guard = threading.Lock()

    def _identity(self, path: Path) -> tuple[int, int, int] | None:
        try:
            st = path.stat()
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def _load(self, path: Path) -> _Cached | None:
        identity = self._identity(path)
        if identity is None:
            return None
        with self._guard:
            cached = self._cache.get(path)
            if cached is not None and cached.identity == identity:
                self._cache.move_to_end(path)
                return cached
        try:
            data = path.read_bytes()
            records = json.loads(data.decode("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise HistoryUnreadable(f"{path}: {exc}") from exc
        except RecursionError as exc:  # nested too deeply for the parser: damaged, or not memtray's
            raise HistoryUnreadable(f"{path}: JSON nested too deeply") from exc
        if not isinstance(records, list):
            raise HistoryUnreadable(f"{path}: not a JSON array")
        entry = _Cached(identity, bytearray(data.rstrip()), records)
        self._remember(path, entry)
        return entry

    def _remember(self, path: Path, entry: _Cached) -> None:
        with self._guard:
            self._cache[path] = entry
            self._cache.move_to_end(path)
            while len(self._cache) > _CACHE_LIMIT:
                self._cache.popitem(last=False)

    def read(self, path: Path) -> list[Any]:
        """The records of ``path`` (a copy); ``[]`` when the file does not exist.

        Raises:
            HistoryUnreadable: the file exists but is not a JSON array.
        """
        entry = self._load(path)
        return list(entry.records) if entry else []

    def size(self, path: Path) -> int:
        identity = self._identity(path)
        return identity[1] if identity else 0

    def append(self, path: Path, records: list[Any]) -> int:
        """Append ``records`` atomically; return the new file size in bytes.

        Raises:
            HistoryUnreadable: the existing file is not a JSON array (nothing is written).
        """
        entry = self._load(path)
        if entry is None:
            return self.write(path, records)
        if not entry.data.endswith(b"]"):
            raise HistoryUnreadable(f"{path}: does not end with ']'")
        # Grow the cached bytes in place (no copy of the whole file), then write them out atomically.
        data = entry.data
        del data[-1]
        if entry.records:
            data += b","
        data += b",".join(dumps(r) for r in records)
        data += b"]"
        entry.records.extend(records)
        try:
            self._replace(path, data, entry.records)
        except BaseException:
            self.forget(path)
            raise
        return len(data)

    def write(self, path: Path, records: list[Any]) -> int:
        """Replace the whole file with ``records``; return its size in bytes."""
        data = bytearray(b"[")
        data += b",".join(dumps(r) for r in records)
        data += b"]"
        self._replace(path, data, list(records))
        return len(data)

    def _replace(self, path: Path, data: bytearray, records: list[Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write(path, data, tmp_dir=self._tmp_dir)
        identity = self._identity(path)
        if identity is not None:
            self._remember(path, _Cached(identity, data, records))

    def forget(self, path: Path) -> None:
        with self._guard:
            self._cache.pop(path, None)

    def quarantine(self, path: Path, stamp: int) -> Path:
        """Move an unreadable file aside as ``history.json.corrupt-<stamp>``; return the new path."""
        target = path.with_name(f"{path.name}.corrupt-{stamp}")
        path.replace(target)
        self.forget(path)
        log.warning("history file %s was unreadable; moved aside to %s", path, target.name)
        return target

    def drop_leftovers(self, path: Path) -> int:
        """Delete the temporary files a killed write of ``path`` left behind (they hold its old text);
        the caller holds the session's lock, so no write of ``path`` is under way. Returns how many."""
        dropped = 0
        for leftover in self._tmp_dir.glob(f"{glob.escape(tmp_prefix(path))}*.tmp"):
            leftover.unlink(missing_ok=True)
            dropped += 1
        return dropped

    def clean_tmp(self, older_than_s: float = 600.0) -> None:
        """Remove temporary files a crash left behind (old enough not to belong to a live writer)."""
        cutoff = time.time() - older_than_s
        for leftover in self._tmp_dir.glob("*.tmp"):
            try:
                if leftover.stat().st_mtime < cutoff:
                    leftover.unlink()
            except FileNotFoundError:
                continue

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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.storage.atomic import atomic_write, tmp_prefix, write_all

log = logging.getLogger("memtray.history")

_CACHE_LIMIT = 8


class HistoryUnreadable(Exception):
    """history.json exists but is not a JSON array, or cannot be parsed (internal: the engine repairs it
    from the archive)."""


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""``json.dumps`` with these options, made once (``dumps`` would make an encoder for every record)."""


def dumps(record: Any) -> bytes:
    """Compact JSON, as the file is written."""
    return _ENCODER.encode(record).encode("utf-8")


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
        data, every = self._grown(path, records)
        try:
            self._replace(path, data, every)
        except BaseException:
            self.forget(path)
            raise
        return len(data)

    def append_all(self, appends: Sequence[tuple[Path, list[Any]]]) -> list[int | Exception]:
        """Append records to many files (each once), each atomically as :meth:`append` does, their syncs
        done together (:func:`engine.storage.atomic.write_all`).

        Returns:
            Per file, its new size in bytes, or what stopped it: ``HistoryUnreadable`` (the existing file is
            not a JSON array) or an ``OSError`` (see :func:`~engine.storage.atomic.write_all`).
        """
        results: list[int | Exception] = [0] * len(appends)
        grown: list[tuple[int, Path, bytearray, list[Any]]] = []
        for index, (path, records) in enumerate(appends):
            try:
                data, every = self._grown(path, records)
            except HistoryUnreadable as exc:
                results[index] = exc
                continue
            if not path.parent.is_dir():
                try:
                    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                except OSError as exc:
                    self.forget(path)
                    results[index] = exc
                    continue
            grown.append((index, path, data, every))
        try:
            written = write_all([(path, data) for _, path, data, _ in grown], tmp_dir=self._tmp_dir)
        except BaseException:
            for _, path, _, _ in grown:
                self.forget(path)
            raise
        for (index, path, data, every), failed in zip(grown, written, strict=True):
            if failed is not None:
                self.forget(path)
                results[index] = failed
                continue
            results[index] = len(data)
            identity = self._identity(path)
            if identity is not None:
                self._remember(path, _Cached(identity, data, every))
        return results

    def _grown(self, path: Path, records: list[Any]) -> tuple[bytearray, list[Any]]:
        """The bytes and records of ``path`` with ``records`` appended (the cached entry's, grown in place:
        forgotten if the write fails).

        Raises:
            HistoryUnreadable: the existing file is not a JSON array.
        """
        entry = self._load(path)
        if entry is None:
            return bytearray(dumps(records)), list(records)
        if not entry.data.endswith(b"]"):
            raise HistoryUnreadable(f"{path}: does not end with ']'")
        data = entry.data
        del data[-1]
        if entry.records and records:
            data += b","
        data += dumps(records)[1:]  # the records without the list's "[": one call encodes them all
        entry.records.extend(records)
        return data, entry.records

    def write(self, path: Path, records: list[Any]) -> int:
        """Replace the whole file with ``records``; return its size in bytes."""
        data = bytearray(dumps(records))
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

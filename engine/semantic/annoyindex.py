"""Per-session Annoy indexes over the archive: files in ``<home>/.store/vectors/``, caches of SQLite.

An index covers the session's vectors with message id below the compaction cut it was built for, and the
passages of its long messages. Item ``i`` of the Annoy file is the ``i``-th row of
:func:`engine.semantic.rows.load` (the vectors by message id, then the passages by message id and place),
so the file needs no id map: the ids come back from SQLite, a long message's id once per passage. Beside each ``.ann`` file a small ``.json`` records what it was built from
(embedder, cut, count, id sum, file size and a checksum of its head and tail); an index whose record does
not match SQLite or its file is rebuilt, with a log line, never trusted.

The files are owner-only (0600), like everything memtray writes. Builds go to a temporary file
(``*.tmp-<pid>``) that ``os.replace`` moves into place; the record is written
after, so a crash in between leaves a mismatch that the next load rebuilds. A temporary file whose process
is gone is deleted when the next process opens the semantic tier (:func:`clean_leftovers`).

Annoy's default ``search_k`` (``n_trees * k``) gives poor recall at these dimensions, so it is set from
the index size (:func:`search_k`, measured in ``bench/vectors.py``); below :data:`EXACT_BELOW` vectors no
Annoy file is made, because exact search is faster there.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.semantic.rows import Stats

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from engine.embedders import Vectors

log = logging.getLogger("memtray.vectors")

EXACT_BELOW = 20_000
"""Archives with fewer vectors are searched exactly (faster there; see bench/README.md)."""
N_TREES = 40
SEARCH_K_FACTOR = 0.2
"""``search_k`` is this fraction of the index size (at least ``MIN_SEARCH_K``). Measured on 100k real
sentence embeddings (``bench/vectors.py --data stdlib --sizes 100000 --trees 30,40,50``): 40 trees at
0.2 n give recall@10 0.953 at 3.3 ms (exact: 7–16 ms) and rebuild in 9.4 s; 50 trees gain 0.002 recall
for 13 s rebuilds; 30 trees give 0.952 but slower searches."""
MIN_SEARCH_K = 4_000
_CHECK_BYTES = 1 << 16


def search_k(n_items: int, k: int) -> int:
    return max(MIN_SEARCH_K, int(n_items * SEARCH_K_FACTOR), k * N_TREES)


@dataclass(frozen=True)
class Record:
    """What an index file was built from."""

    embedder: str
    dim: int
    cut: int
    count: int
    max_id: int
    id_sum: int
    n_trees: int
    size: int
    check: int

    def matches(self, embedder: str, dim: int, cut: int, stats: Stats) -> bool:
        return (self.embedder, self.dim, self.cut, self.count, self.max_id, self.id_sum) == (
            embedder,
            dim,
            cut,
            stats.count,
            stats.max_id,
            stats.id_sum,
        )


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def paths_for(folder: Path, session_key: str, embedder: str) -> tuple[Path, Path]:
    stem = f"{session_key}.{_safe(embedder)}"
    return folder / f"{stem}.ann", folder / f"{stem}.json"


def file_check(path: Path) -> tuple[int, int]:
    """(size, crc32 of the first and last 64 KiB) of a file."""
    size = path.stat().st_size
    with open(path, "rb") as handle:
        head = handle.read(_CHECK_BYTES)
        handle.seek(max(0, size - _CHECK_BYTES))
        tail = handle.read(_CHECK_BYTES)
    return size, zlib.crc32(tail, zlib.crc32(head))


class AnnoyArchive:
    """One loaded Annoy index of a session's archive."""

    def __init__(self, index: Any, record: Record, ids: npt.NDArray[np.int64]) -> None:
        import numpy as np

        self.index = index
        self.record = record
        self.ids = ids
        self.repeats = len(ids) - len(np.unique(ids))
        """Items beyond one per message (a long message's passages: see :mod:`engine.semantic.passages`)."""

    def search(self, query: Vectors, k: int) -> tuple[npt.NDArray[np.int64], Vectors]:
        """Message ids and cosine scores of the ``k`` nearest archived vectors, best first."""
        import numpy as np

        n = self.record.count
        items, distances = self.index.get_nns_by_vector(
            np.asarray(query, dtype=np.float32).tolist(), k, search_k(n, k), include_distances=True
        )
        # Annoy's angular distance is sqrt(2 - 2 cos).
        dist = np.asarray(distances, dtype=np.float32)
        return self.ids[np.asarray(items, dtype=np.int64)], 1.0 - dist * dist / 2.0

    def unload(self) -> None:
        self.index.unload()


def read_record(json_path: Path) -> Record | None:
    try:
        data = json.loads(json_path.read_text(encoding="utf-8"))
        return Record(**data)
    except (OSError, ValueError, TypeError):
        return None


def load(ann_path: Path, json_path: Path, ids: npt.NDArray[np.int64]) -> AnnoyArchive | None:
    """Load an index if its files are intact and hold ``len(ids)`` items; else ``None``."""
    from annoy import AnnoyIndex

    record = read_record(json_path)
    if record is None or not ann_path.exists():
        return None
    try:
        if file_check(ann_path) != (record.size, record.check):
            return None
        index = AnnoyIndex(record.dim, "angular")
        index.load(str(ann_path))
    except OSError:
        return None
    if index.get_n_items() != len(ids) or index.f != record.dim:
        index.unload()
        return None
    return AnnoyArchive(index, record, ids)


def _writer_ended(leftover: Path) -> bool:
    """Whether the process named in a ``*.tmp-<pid>`` file's name is gone (POSIX; False when unsure: on
    Windows, for this process, or for a live pid, which may be a build in another process)."""
    if os.name != "posix":
        return False
    try:
        pid = int(leftover.name.rsplit(".tmp-", 1)[1])
    except (IndexError, ValueError):
        return False
    if pid <= 0 or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # PermissionError: alive, another user's
        return False
    return False


def clean_leftovers(folder: Path, older_than_s: float = 600.0) -> int:
    """Delete index files half-written by a process that died (``*.tmp-<pid>`` whose process is gone, or
    old enough not to be a live build's); return how many were removed. Run when the semantic tier opens."""
    if not folder.is_dir():
        return 0
    cutoff = time.time() - older_than_s
    removed = 0
    for leftover in folder.glob("*.tmp-*"):
        try:
            if _writer_ended(leftover) or leftover.stat().st_mtime < cutoff:
                leftover.unlink()
                removed += 1
        except FileNotFoundError:
            continue
    if removed:
        log.info("removed %d half-written index files left by a crash", removed)
    return removed


def build(
    ann_path: Path,
    json_path: Path,
    ids: npt.NDArray[np.int64],
    matrix: Vectors,
    *,
    embedder: str,
    cut: int,
    stats: Stats,
    n_trees: int = N_TREES,
) -> Record:
    """Build an index over ``matrix`` (row ``i`` is message ``ids[i]``) into place; return its record."""
    import numpy as np
    from annoy import AnnoyIndex

    started = time.perf_counter()
    dim = int(matrix.shape[1])
    index = AnnoyIndex(dim, "angular")
    # Plain lists: add_item converts them faster than numpy rows (measured ~15 % of a 100k rebuild).
    for i, row in enumerate(np.asarray(matrix, dtype=np.float32).tolist()):
        index.add_item(i, row)
    index.build(n_trees, n_jobs=-1)
    ann_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = ann_path.with_name(ann_path.name + f".tmp-{os.getpid()}")
    index.save(str(tmp))  # Annoy creates it with the umask's mode: made owner-only like every other file
    index.unload()
    if os.name == "posix":
        os.chmod(tmp, 0o600)
    size, check = file_check(tmp)
    os.replace(tmp, ann_path)
    record = Record(embedder, dim, cut, stats.count, stats.max_id, stats.id_sum, n_trees, size, check)
    tmp_json = json_path.with_name(json_path.name + f".tmp-{os.getpid()}")
    fd = os.open(tmp_json, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(asdict(record)))
    os.replace(tmp_json, json_path)
    log.info(
        "built the archive index %s: %d vectors, %d trees, in %.2fs",
        ann_path.name,
        len(ids),
        n_trees,
        time.perf_counter() - started,
    )
    return record


def remove(ann_path: Path, json_path: Path) -> None:
    for path in (json_path, ann_path):
        try:
            path.unlink()
        except FileNotFoundError:
            pass

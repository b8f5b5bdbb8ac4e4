"""When the database gets its full integrity check: never at an ordinary open, which reads only its header.

SQLite's full check (``PRAGMA quick_check``, :meth:`engine.storage.store.Store.check`) reads every page:
seconds on a large archive, too slow for each command. So an open looks only at the header
(:func:`header_fault`: a file shorter than the header says, or not a whole number of pages, gets the full
check at once), every statement that meets damage raises :class:`~engine.errors.CorruptStore` as it goes,
and the long-running programs (the tray app, ``memtray daemon``) run the full check at most once a day
in the background (:func:`due`, :func:`record`: the time of the last one is kept in a small file beside
the database, so a restart does not run it again).
"""

from __future__ import annotations

import logging
from pathlib import Path

from engine.storage.atomic import atomic_write

log = logging.getLogger("memtray.store")

DAY_NS = 24 * 3600 * 10**9
HEADER = b"SQLite format 3\x00"


def header_fault(path: Path) -> str | None:
    """What looks wrong with the database file's header, or None (also for a new, empty or foreign file:
    SQLite itself says a foreign file is "not a database")."""
    try:
        with path.open("rb") as f:
            head = f.read(100)
        size = path.stat().st_size
    except OSError:
        return None  # SQLite's own open says what is wrong with the file
    if len(head) < 100 or not head.startswith(HEADER):
        return None
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    if page < 512 or page & (page - 1):
        return None  # a garbled header: SQLite refuses the file
    if size % page:
        return f"{size:,} bytes is not a whole number of {page:,}-byte pages"
    pages = int.from_bytes(head[28:32], "big")
    valid = head[92:96] == head[24:28]  # the page count is kept up to date by this SQLite version
    if valid and pages and size < pages * page:
        return f"the file has {size // page:,} of its {pages:,} pages"
    return None


def due(stamp: Path, now: int, every_ns: int = DAY_NS) -> bool:
    """Whether the full check last ran (as recorded in ``stamp``) ``every_ns`` or longer before ``now``."""
    try:
        last = int(stamp.read_text(encoding="ascii").strip() or 0)
    except (OSError, ValueError):
        return True
    return not 0 <= now - last < every_ns


def record(stamp: Path, now: int) -> None:
    """Remember that the full check ran at ``now`` (a failure to write is logged: the check then runs again)."""
    try:
        atomic_write(stamp, f"{now}\n".encode("ascii"), tmp_dir=stamp.parent)
    except OSError as exc:
        log.warning("could not record the integrity check in %s: %s", stamp, exc)

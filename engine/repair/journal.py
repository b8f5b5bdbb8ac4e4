"""The journal of a repair under way: ``<home>/.store/repair.journal``, written and synced before anything
moves, deleted when the rebuilt database is in place.

A repair (:mod:`engine.repair.rebuild`) is a transaction over files: the damaged database is moved
aside, a new one is built beside it and renamed into place. The journal says which damaged copy the
repair works from and, once the new database is complete and synced, what was read back (for the report).
A repair killed at any point leaves the journal; the next open of the memory, or the next
``memtray repair``, finishes it from there, and the moved-aside copy is read again until then.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.storage.atomic import atomic_write, sync_dir
from engine.storage.diskerrors import file_errors

NAME = "repair.journal"


@dataclass(frozen=True)
class Journal:
    """A repair under way.

    Attributes:
        moved: the name (in ``.store``) the damaged database is moved to.
        problem: the damage found, in words.
        report: what the rebuild read back, once the new database is complete and synced (else None).
    """

    moved: str
    problem: str
    report: dict[str, Any] | None = None


def read(store_dir: Path) -> Journal | None:
    """The repair under way in this home, or None. A journal that cannot be read names no repair (it is
    written atomically, so that only happens to a file memtray did not write) and is left alone."""
    path = store_dir / NAME
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("moved"), str):
        return None
    moved = Path(data["moved"]).name  # a name in .store, nothing else
    if not moved.startswith("history.db.corrupt-"):
        return None
    report = data.get("report")
    return Journal(moved, str(data.get("problem", "")), report if isinstance(report, dict) else None)


def save(store_dir: Path, journal: Journal) -> None:
    """Write the journal durably (synced, and its folder)."""
    data = json.dumps({"moved": journal.moved, "problem": journal.problem, "report": journal.report})
    with file_errors("the repair journal"):
        atomic_write(store_dir / NAME, data.encode("utf-8"))


def remove(store_dir: Path) -> None:
    """Delete the journal: the repair is complete."""
    with file_errors("the repair journal"):
        (store_dir / NAME).unlink(missing_ok=True)
        sync_dir(store_dir)

"""A plain ``sqlite3`` connection to a home's database, as a test reaches past the engine to damage or edit
it: with the SQL function the full-text triggers call (``memtray_fold``), as every connection of the
store has, so a row written here is indexed as the engine would index it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from engine.textfold import SQL_FUNCTION, sql_fold


def connect(path: Path | str, **options: Any) -> sqlite3.Connection:
    """``sqlite3.connect(path, **options)`` with ``memtray_fold`` registered."""
    conn = sqlite3.connect(path, **options)
    conn.create_function(SQL_FUNCTION, 1, sql_fold, deterministic=True)
    return conn

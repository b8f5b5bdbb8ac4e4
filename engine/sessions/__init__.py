"""Tiers 1 and 3 kept in step: each session's history.json and its rows in the SQLite archive.

The append/replay protocol that keeps them consistent is written in full in ``docs/architecture.md``
(*The session log: append, replay, compaction*) and implemented by :mod:`engine.sessions.log`, the
recovery after an interrupted write by :mod:`engine.sessions.recovery`; the archive's SQL in
:mod:`engine.sessions.archive`; the history file in :mod:`engine.sessions.historyfile`.
"""

from __future__ import annotations

from engine.sessions.compaction import may_trim, target_bytes
from engine.sessions.export import FORMATS as EXPORT_FORMATS
from engine.sessions.export import render as render_export

__all__ = ["EXPORT_FORMATS", "may_trim", "render_export", "target_bytes"]

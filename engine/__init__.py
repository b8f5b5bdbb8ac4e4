"""memtray's memory engine: three tiers of conversation memory plus a cross-session error memory.

The public face is small and stable; everything else is internal::

    from engine import Memory, Message
    mem = Memory.open(home=None)              # None: MEMTRAY_HOME or the platform default
    mem.append("cli-abc", [Message(role="user", content="hi", send_at=...)])
    hits = mem.search("query", session=None, match="keyword", scope="all", limit=10)
    result = mem.search_with_coverage("query")  # .hits, and .coverage of the meaning search
    query_terms("query")                      # what a search looks for, to highlight in its hits
    mem.wait_idle()
    mem.close()

This package never imports Qt or the desktop app. Plain frozen dataclasses cross its border, and every
error it raises on purpose is an :class:`engine.errors.EngineError`.
"""

from __future__ import annotations

from engine.errors import EngineError
from engine.memory import Memory
from engine.messages import Message
from engine.search.pipeline import Hit, SearchResult
from engine.search.query import query_terms
from engine.sessions.compaction import CompactResult
from engine.sessions.folders import SessionInfo
from engine.sessions.listeners import ResetResult
from engine.settings import Settings

__all__ = [
    "CompactResult",
    "EngineError",
    "Hit",
    "Memory",
    "Message",
    "ResetResult",
    "SearchResult",
    "SessionInfo",
    "Settings",
    "query_terms",
]

"""memtray's memory engine: three tiers of conversation memory plus a cross-session error memory.

The public face is small and stable; everything else is internal::

    from engine import Memory, Message, MessageFilter
    mem = Memory.open(home=None)              # None: MEMTRAY_HOME or the platform default
    mem.append("cli-abc", [Message(role="user", content="hi", send_at=...)])
    hits = mem.search("query", session=None, match="keyword", scope="all", limit=10)
    result = mem.search_with_coverage("query")  # .hits, and .coverage of the meaning search
    mem.search("query", where=MessageFilter(role="user", sender="ann", since=..., until=...))
    query_terms("query")                      # what a search looks for, to highlight in its hits
    mem.wait_idle()
    mem.close()

This package never imports Qt or the desktop app. Plain frozen dataclasses cross its border, and every
error it raises on purpose is an :class:`engine.errors.EngineError`.

The design follows the memory of Agenvoy, an LLM agent whose session folders memtray reads and writes
alike; comments call it "the original". ``docs/architecture.md`` explains the tiers, the layers, the
append/replay protocol, the search pipeline and where each tuned number came from.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine import errors, settings
    from engine.errors import EngineError
    from engine.imported import ImportReport
    from engine.importers import reasons as import_reasons
    from engine.importers.watch import agent_folders, import_agent_folders, import_transcripts
    from engine.jobs import add_maintenance
    from engine.logs import configure as configure_logging
    from engine.memory import Memory
    from engine.messages import Message, MessageFilter
    from engine.paths import Paths, platform_home
    from engine.repair.rebuild import RepairReport
    from engine.search.hits import Hit, SearchResult
    from engine.search.query import query_terms
    from engine.semantic.progress import Coverage
    from engine.semantic.tier import SemanticStatus
    from engine.sessions.compaction import CompactResult
    from engine.sessions.folders import SessionInfo
    from engine.sessions.listeners import ResetResult
    from engine.settings import Settings

_WHERE: dict[str, tuple[str, str | None]] = {
    "errors": ("engine.errors", None),
    "EngineError": ("engine.errors", "EngineError"),
    "ImportReport": ("engine.imported", "ImportReport"),
    "agent_folders": ("engine.importers.watch", "agent_folders"),
    "import_agent_folders": ("engine.importers.watch", "import_agent_folders"),
    "import_transcripts": ("engine.importers.watch", "import_transcripts"),
    "import_reasons": ("engine.importers.reasons", None),
    "add_maintenance": ("engine.jobs", "add_maintenance"),
    "configure_logging": ("engine.logs", "configure"),
    "Memory": ("engine.memory", "Memory"),
    "Message": ("engine.messages", "Message"),
    "MessageFilter": ("engine.messages", "MessageFilter"),
    "Paths": ("engine.paths", "Paths"),
    "platform_home": ("engine.paths", "platform_home"),
    "Hit": ("engine.search.hits", "Hit"),
    "SearchResult": ("engine.search.hits", "SearchResult"),
    "query_terms": ("engine.search.query", "query_terms"),
    "SemanticStatus": ("engine.semantic.tier", "SemanticStatus"),
    "Coverage": ("engine.semantic.progress", "Coverage"),
    "CompactResult": ("engine.sessions.compaction", "CompactResult"),
    "SessionInfo": ("engine.sessions.folders", "SessionInfo"),
    "ResetResult": ("engine.sessions.listeners", "ResetResult"),
    "RepairReport": ("engine.repair.rebuild", "RepairReport"),
    "Settings": ("engine.settings", "Settings"),
    "settings": ("engine.settings", None),
}
"""Where each public name lives. ``import engine`` loads none of it: a name is imported when first used
(PEP 562), so a CLI command loads only the parts it runs."""


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    module = importlib.import_module(where[0])
    value = module if where[1] is None else getattr(module, where[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "CompactResult",
    "Coverage",
    "EngineError",
    "Hit",
    "ImportReport",
    "Memory",
    "Message",
    "MessageFilter",
    "Paths",
    "RepairReport",
    "ResetResult",
    "SearchResult",
    "SemanticStatus",
    "SessionInfo",
    "Settings",
    "add_maintenance",
    "agent_folders",
    "configure_logging",
    "errors",
    "import_agent_folders",
    "import_reasons",
    "import_transcripts",
    "platform_home",
    "query_terms",
    "settings",
]

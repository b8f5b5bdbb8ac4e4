"""How the MCP tools show time to an agent: UTC ISO times (snippets: :mod:`engine.search.snippets`).

Times go out as ISO 8601 in UTC (``2025-01-31T18:04:05Z``).
"""

from __future__ import annotations

from datetime import UTC, datetime

from engine.clock import NS_PER_SECOND


def iso(ns: int) -> str | None:
    """Unix nanoseconds as ``YYYY-MM-DDTHH:MM:SSZ`` (UTC); None for 0 (unknown)."""
    if not ns:
        return None
    moment = datetime.fromtimestamp(ns // NS_PER_SECOND, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")

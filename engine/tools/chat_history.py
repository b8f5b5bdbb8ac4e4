"""The ``chat_history`` tool: search this session's conversation memory.

``DECLARATION`` is the function declaration (a JSON-schema dict that Gemini function calling and MCP
both accept); :func:`execute` runs a call and returns the text the model reads.

The original's semantics by default:

- ``match=semantic`` (the default): vector search over the session's recent tier (messages since the
  compaction cut), leaving out the messages already in the model's context (the window + the current
  input); each hit is expanded to 2 messages before and 1 after; lines are chronological
  ``[RFC3339 · role] content``, with a blank line between non-contiguous runs. ``time_range`` is ignored
  here, as in the original.
- ``match=keyword``: the keyword as one phrase; an ``[archive]`` section (full-text search of what
  compaction cut out of history.json) then a ``[recent]`` section (substring match on what is still in
  it, newest first, duplicates of archive lines dropped); ``time_range`` bounds both.

Added by memtray: ``match=hybrid`` (keyword and semantic rankings fused by ``engine.search.fusion``, formatted
like semantic) and ``scope=all`` (semantic and hybrid search the archive too, through the Annoy index).
``mode=list|read`` exist for parity with the action history of the original; memtray keeps no action
history, so they answer ``no finished tasks yet``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from engine.clock import format_rfc3339
from engine.errors import EngineError, VectorIndexError
from engine.memory import Memory
from engine.messages import Message
from engine.search.hits import Hit
from engine.search.query import clean

log = logging.getLogger("memtray.tools")

NAME = "chat_history"
DEFAULT_LIMIT = 8
MAX_LIMIT = 32
NO_TASKS = "no finished tasks yet"

DECLARATION: dict[str, Any] = {
    "name": NAME,
    "description": (
        "Search this conversation's memory for things said earlier that are no longer in view. "
        "mode=search with a keyword: match=semantic (default) finds messages by meaning among the recent "
        "conversation and shows each with 2 messages before and 1 after; match=keyword finds the exact "
        "phrase in the full archive and the recent messages (time_range limits how far back); "
        "match=hybrid combines both rankings. scope=all makes semantic and hybrid search reach the whole "
        "archive instead of the recent conversation only. mode=list and mode=read would show past task "
        "runs, but this memory keeps no task history, so they always answer that there are none."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "mode": {
                "type": "string",
                "enum": ["search", "list", "read"],
                "description": "search (needs keyword); list/read: past task runs (none are kept).",
            },
            "keyword": {"type": "string", "description": "What to look for (a phrase or a question)."},
            "match": {
                "type": "string",
                "enum": ["semantic", "keyword", "hybrid"],
                "description": "semantic (by meaning, default), keyword (exact phrase) or hybrid.",
            },
            "scope": {
                "type": "string",
                "enum": ["recent", "all"],
                "description": "recent (default): since the last compaction; all: the whole archive.",
            },
            "time_range": {
                "type": "string",
                "enum": ["1d", "7d", "1m", "1y"],
                "description": "How far back keyword search looks (default 1d).",
            },
            "limit": {
                "type": "integer",
                "description": f"Hits per source, 1-{MAX_LIMIT} (default {DEFAULT_LIMIT}).",
            },
            "task_id": {"type": "string", "description": "For mode=read: the task run to show."},
        },
    },
}


def execute(mem: Memory, session: str | None, args: Mapping[str, Any]) -> str:
    """Run one ``chat_history`` call for ``session`` and return the text for the model."""
    if not session or not mem.exists(session):
        return "session not exist"
    keyword = str(args.get("keyword") or args.get("query") or "").strip()
    mode = str(args.get("mode") or "").strip()
    if not mode:
        mode = "read" if args.get("task_id") else ("search" if keyword else "list")
    if mode in ("list", "read"):
        return NO_TASKS
    if mode != "search":
        return f"unknown mode: {mode}"
    if not keyword:
        return "keyword is required for mode=search"
    limit = _limit(args.get("limit"))
    match = str(args.get("match") or "semantic")
    scope = "all" if args.get("scope") == "all" else "recent"
    try:
        if match == "keyword":
            return _keyword(mem, session, keyword, str(args.get("time_range") or "1d"), limit)
        return _semantic(mem, session, keyword, "hybrid" if match == "hybrid" else "semantic", scope, limit)
    except EngineError as exc:
        log.warning("chat_history failed: %s", exc)
        return f"no matches with keyword: {keyword}"


def _limit(value: Any) -> int:
    try:
        limit = int(value)
    except (TypeError, ValueError):
        return DEFAULT_LIMIT
    return DEFAULT_LIMIT if limit <= 0 else min(limit, MAX_LIMIT)


def line(message: Message, *, with_sender: bool = False) -> str:
    """``[2025-01-02T15:04:05+08:00 · role] content`` (``role · sender`` when asked and set)."""
    who = f"{message.role} · {message.sender}" if with_sender and message.sender else message.role
    return f"[{format_rfc3339(message.send_at)} · {who}] {message.content}"


def _semantic(mem: Memory, session: str, keyword: str, match: str, scope: str, limit: int) -> str:
    semantic = mem.semantic
    sequence = mem.archived(session, scope)
    if not sequence:
        return "no history found"
    skip = min(len(mem.window(session)) + 1, len(sequence))
    excluded = {m.id for m in sequence[len(sequence) - skip :]}
    try:
        if match == "semantic":
            ranked = [
                i
                for i, _ in semantic.search_vectors(
                    clean(keyword), session=session, scope=scope, k=limit + len(excluded)
                )
            ]
        else:
            hits: list[Hit] = mem.search(
                keyword, session=session, match="hybrid", scope=scope, limit=min(200, limit + len(excluded))
            )
            ranked = [h.message.id or 0 for h in hits]
    except VectorIndexError as exc:
        log.warning("chat_history semantic search unavailable: %s", exc)
        return f"no matches with keyword: {keyword}"
    return format_expanded(sequence, excluded, ranked, limit) or f"no matches with keyword: {keyword}"


def format_expanded(
    sequence: Sequence[Message], excluded: set[int | None], ranked: Sequence[int], limit: int
) -> str:
    """The original's expansion: each of the first ``limit`` non-excluded hits with 2 before and 1 after.

    Args:
        sequence: the searchable messages, oldest first.
        excluded: ids already in the model's context (left out of hits and of the expansion).
        ranked: hit ids, best first.
        limit: hits to expand.

    Returns:
        Chronological lines, a blank line between non-contiguous runs; empty when nothing is left.
    """
    position = {m.id: i for i, m in enumerate(sequence)}
    chosen = [position[i] for i in ranked if i not in excluded and i in position][:limit]
    keep: set[int] = set()
    last = len(sequence) - 1
    for i in chosen:
        keep.update(j for j in range(max(i - 2, 0), min(i + 1, last) + 1) if sequence[j].id not in excluded)
    lines: list[str] = []
    previous = None
    for j in sorted(keep):
        if previous is not None and j != previous + 1:
            lines.append("")
        lines.append(line(sequence[j]))
        previous = j
    return "\n".join(lines)


def _keyword(mem: Memory, session: str, keyword: str, time_range: str, limit: int) -> str:
    archive_hits, recent_hits = mem.seed_keyword_search(session, keyword, time_range, limit)
    lines: list[str] = []
    if archive_hits:
        lines.append("[archive]")
        lines.extend(line(h.message, with_sender=True) for h in archive_hits)
    if recent_hits:
        if lines:
            lines.append("")
        lines.append("[recent]")
        lines.extend(line(h.message, with_sender=True) for h in recent_hits)
    return "\n".join(lines) if lines else f"no matches with keyword: {keyword}"

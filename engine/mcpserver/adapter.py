"""What the MCP tools need from the memory that :class:`engine.Memory` does not offer (yet), built only
on its public calls. Each piece is small so it can move into the facade as it is:

- :class:`Catalog`: every session's overview (title, first and last message times, count, from
  ``Memory.sessions()``), cached per session while its message count and last activity stay the same,
  and a session's title for search hits and reads.
- :func:`message_in`, :func:`after_id`: one archived message of a session by id; the messages after one.
- :func:`save`: append messages, leaving out those the session already holds with the same role, text
  and time (an exact retry stores nothing twice), and find the ids of all of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.imported import ImportedSession
from engine.mcpserver.kept import Kept
from engine.mcpserver.rankings import Ranking
from engine.messages import Message
from engine.sessions.folders import ordering_time

if TYPE_CHECKING:
    from engine import SessionInfo
    from engine.memory import Memory

_ID_SCAN = 2000


@dataclass(frozen=True)
class Overview:
    """One session as the agent sees it in a list."""

    id: str
    title: str
    first_at: int
    last_at: int
    messages: int
    temporary: bool
    order_at: int = 0  # what lists order by: last_at, unless that lies in the future (ordering_time)


class Catalog:
    """The sessions' overviews (temporary chats left out: they are not kept in the memory)."""

    def __init__(self, mem: Memory) -> None:
        self._mem = mem
        self._cache: dict[str, tuple[tuple[int, int], Overview]] = {}

    def overviews(self, *, include_temp: bool) -> list[Overview]:
        """Every session's overview, most recent last message first."""
        infos = [i for i in self._mem.sessions(include_temp=include_temp, with_files=False) if not i.private]
        found = [self._overview(info) for info in infos]
        alive = {info.id for info in infos}
        if not include_temp:
            alive |= {sid for sid, (_, o) in self._cache.items() if o.temporary}
        for gone in set(self._cache) - alive:
            del self._cache[gone]
        found.sort(key=lambda o: (o.order_at, o.id), reverse=True)
        return found

    def _overview(self, info: SessionInfo) -> Overview:
        count = info.hot_messages + info.archived_messages
        order_at = ordering_time(info.last_activity, lambda: info.file_activity, self._mem.clock())
        key = (count, order_at)
        cached = self._cache.get(info.id)
        if cached is not None and cached[0] == key:
            return cached[1]
        overview = Overview(
            info.id, info.title, info.first_message_at, info.last_message_at, count, info.temporary, order_at
        )
        self._cache[info.id] = (key, overview)
        return overview

    def title(self, session: str) -> str:
        """The session's title ("" for an unknown one), from the overviews (built once, then cached)."""
        cached = self._cache.get(session)
        if cached is None:
            self.overviews(include_temp=True)
            cached = self._cache.get(session)
        return cached[1].title if cached is not None else ""

    def forget(self, session: str) -> None:
        self._cache.pop(session, None)


@dataclass
class Context:
    """What a tool call works with: the memory, the server's session overviews, and the listings its
    searches and session lists page through (:mod:`engine.mcpserver.kept`)."""

    mem: Memory
    catalog: Catalog
    rankings: Kept[Ranking] = field(default_factory=Kept)
    session_lists: Kept[tuple[str, ...]] = field(default_factory=Kept)


def message_in(mem: Memory, session: str, message_id: int) -> Message | None:
    """The archived message ``message_id`` if it belongs to ``session``."""
    found = mem.around(session, message_id, 0, 0)
    return found[0] if found and found[0].id == message_id else None


def after_id(mem: Memory, session: str, message_id: int, limit: int) -> list[Message]:
    """Up to ``limit`` archived messages of ``session`` after ``message_id``, oldest first."""
    return [m for m in mem.around(session, message_id, 0, limit) if (m.id or 0) > message_id]


@dataclass(frozen=True)
class Saved:
    added: int
    present: int
    ids: list[int | None]


def save(mem: Memory, session: str, messages: Sequence[Message]) -> Saved:
    """Append ``messages`` (each with its time set) except those already stored with the same role,
    text and time (in the archive or earlier in ``messages``); return the counts and every message's id,
    the id of the row that holds it (None if it could not be found).

    The check and the append happen under the session's lock (``Memory.import_sessions``), so two
    identical retries racing each other still store the messages once. Callers validate first.
    """
    first: dict[tuple[str, str, int], Message] = {}
    for m in messages:  # the same message twice in one call is one message, as on a retry
        first.setdefault((m.role, m.content, m.send_at), m)
    unique = list(first.values())
    report = mem.import_sessions([ImportedSession(session, unique)])
    wanted = {(m.role, m.content, m.send_at): None for m in messages}
    ids: dict[tuple[str, str, int], int] = {}
    before: int | None = None
    scanned = 0
    while len(ids) < len(wanted) and scanned < _ID_SCAN:
        page = mem.archive_page(session, before, 200)
        if not page:
            break
        for stored in page:
            key = (stored.role, stored.content, stored.send_at)
            if key in wanted and key not in ids and stored.id is not None:
                ids[key] = stored.id
        scanned += len(page)
        before = page[-1].id
    return Saved(
        report.messages_added,
        report.messages_already_present + len(messages) - len(unique),
        [ids.get((m.role, m.content, m.send_at)) for m in messages],
    )

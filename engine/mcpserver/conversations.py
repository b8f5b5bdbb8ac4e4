"""The MCP tools that find and read conversations: ``search``, ``list_sessions`` and ``read``.

All three are read-only, bounded (every result under :data:`~engine.mcpserver.paging.PAGE_CHARS`
characters of JSON) and paged with an opaque ``nextCursor``.

- ``search``: every session and all time by default (the chat window's ``chat_history`` keeps its
  in-session semantics; this one does not). Each hit names its session (id and title), time, role,
  sender, a snippet of at most 300 characters around the words that matched, its message id and the
  ``read`` arguments that show it in context, its score and what matched (``kind``: keyword, meaning or
  both); a result says whether anything ``matched`` (never padded with near misses) and, when meaning
  search was partial, its ``coverage``. Pages are slices of one ranking (see
  :class:`engine.search.conductor.Search`), the one the first page made, which the server keeps
  (:mod:`engine.mcpserver.rankings`): paging meets each hit once, even while messages arrive or are
  embedded between the pages. Filters (role, sender, dates) choose the messages before
  they are ranked, so a filtered page is as full as an unfiltered one; paging goes 200 hits deep.
- ``list_sessions``: titles, first and last message times and message counts, newest last message
  first, filtered by text (title or id) and by dates. Pages slice the list the first page made (kept as
  the search's ranking is), so a session that gets a message meanwhile, and moves up, is not skipped.
- ``read``: a conversation from its start or its end, a window around a message, or the whole text of
  one long message in slices.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import InvalidInput, NotFound
from engine.mcpserver import paging
from engine.mcpserver.adapter import Context, Overview, after_id, message_in
from engine.mcpserver.rankings import FIRST_DEPTH, Ranked, Ranking
from engine.mcpserver.spec import (
    CURSOR,
    MESSAGE_ID,
    SESSION_ID,
    Args,
    Result,
    ToolSpec,
    date,
    limit,
    nullable,
    obj,
)
from engine.mcpserver.text import iso
from engine.messages import Message, MessageFilter
from engine.search.hits import MAX_LIMIT, Hit
from engine.search.query import MAX_QUERY_CHARS
from engine.search.snippets import SNIPPET_CHARS, shorten, snippet, snippet_terms
from engine.sessions.folders import is_private
from engine.timewords import parse_bound

MESSAGE_CHARS = 4000
"""A message's text in a ``read`` page is cut here; ``read`` with ``message`` gives the rest."""
SLICE_CHARS = 12_000
"""One slice of a long message (``read`` with ``message``)."""

_TIME = nullable({"type": "string", "description": "ISO 8601, UTC; null when unknown."})
_READ_HANDLE = obj({"session": {"type": "string"}, "around": {"type": "integer"}}, ("session", "around"))
_SINCE = date(
    "Only from this date on (YYYY-MM-DD, a whole UTC day; an ISO date-time; or words such as 'yesterday', "
    "'last week', '3 days ago', '上個月', in the user's time zone: from the first instant of the day, week "
    "or month they name)."
)
_UNTIL = date(
    "Only up to this date, inclusive (YYYY-MM-DD, a whole UTC day; an ISO date-time; or words such as "
    "'yesterday' or 'June 2025', in the user's time zone: to the last instant of the day or month they name)."
)
_SUMMARY = {"type": "string", "description": "What this page holds, in words."}


def _bounds(args: Args, now_ns: int | None = None) -> tuple[int | None, int | None]:
    since = parse_bound("since", args["since"], end=False, now_ns=now_ns) if "since" in args else None
    until = parse_bound("until", args["until"], end=True, now_ns=now_ns) if "until" in args else None
    if since is not None and until is not None and since > until:
        raise InvalidInput("since is after until: no time is in that range")
    return since, until


# -- search --------------------------------------------------------------------------------------------

SEARCH_INPUT = obj(
    {
        "query": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_QUERY_CHARS,
            "description": 'What to look for: words, a question, or "a quoted phrase".',
        },
        "match": {
            "type": "string",
            "enum": ["hybrid", "keyword", "semantic"],
            "description": "hybrid (default): words and meaning; keyword: the words only; semantic: "
            "meaning only.",
        },
        "session": {**SESSION_ID, "description": "Only this session (default: every session)."},
        "role": {"type": "string", "enum": ["user", "assistant"], "description": "Only this role."},
        "sender": {
            "type": "string",
            "minLength": 1,
            "maxLength": 256,
            "description": "Only messages by this sender (display name, any case).",
        },
        "since": _SINCE,
        "until": _UNTIL,
        "limit": limit(10, 50, "hits"),
        "cursor": CURSOR,
    },
    ("query",),
)
_HIT = obj(
    {
        "session": {"type": "string"},
        "title": {"type": "string"},
        "time": _TIME,
        "role": {"type": "string"},
        "sender": {"type": "string"},
        "snippet": {"type": "string", "maxLength": 300},
        "matched": {"type": "array", "items": {"type": "string"}},
        "messageId": {"type": "integer"},
        "read": _READ_HANDLE,
        "score": {
            "type": "number",
            "description": "Higher is better, comparable within one search: keyword, BM25; semantic, the "
            "cosine similarity; hybrid, the fused score.",
        },
        "kind": {
            "type": "string",
            "enum": ["keyword", "meaning", "both"],
            "description": "What matched: the words, the meaning, or both.",
        },
        "passage": {
            **obj(
                {"start": {"type": "integer", "minimum": 0}, "end": {"type": "integer", "minimum": 0}},
                ("start", "end"),
            ),
            "description": "Present when a long message was found by meaning in one of its passages: the "
            "characters [start, end) of its text that matched (the snippet is taken from them).",
        },
    },
    (
        "session",
        "title",
        "time",
        "role",
        "sender",
        "snippet",
        "matched",
        "messageId",
        "read",
        "score",
        "kind",
    ),
)
SEARCH_OUTPUT = obj(
    {
        "query": {"type": "string"},
        "match": {"type": "string"},
        "hits": {"type": "array", "items": _HIT},
        "matched": {
            "type": "boolean",
            "description": "Whether anything matched at all (false: the memory holds no match; no hits are "
            "ever padded in).",
        },
        "coverage": {
            "type": "string",
            "description": "Present when meaning search was partial: how many messages it covered (the "
            "rest are found by their words only until they are embedded).",
        },
        "nextCursor": CURSOR,
        "summary": _SUMMARY,
    },
    ("query", "match", "hits", "matched", "summary"),
)


def _hit(found: Hit, title: str, terms: list[str]) -> dict[str, Any]:
    message = found.message
    shown, matched = snippet(message.content, terms)
    session = message.session or ""
    hit: dict[str, Any] = {
        "session": session,
        "title": title,
        "time": iso(message.send_at),
        "role": message.role,
        "sender": message.sender,
        "snippet": shown,
        "matched": matched,
        "messageId": message.id or 0,
        "read": {"session": session, "around": message.id or 0},
        "score": round(found.score, 6),
        "kind": found.kind,
    }
    if found.passage is not None:
        start, end = found.passage
        hit["passage"] = {"start": start, "end": end}
        if not matched:  # found by meaning alone: show what matched, not the message's start
            body, _ = snippet(message.content[start:end], [], SNIPPET_CHARS - 1)
            hit["snippet"] = ("…" if start > 0 else "") + body
    return hit


def _where(args: Args) -> str:
    parts = [f"session {args['session']}" if "session" in args else "all sessions"]
    parts += [f"{name} {args[name]}" for name in ("role", "sender", "since", "until") if name in args]
    return ", ".join(parts)


def _ranking(ctx: Context, args: Args, depth: int) -> tuple[Ranking, dict[int, Message]]:
    """The ranking of the search ``args`` ask for, ``depth`` deep, and the messages it read (by id)."""
    since, until = _bounds(args, ctx.mem.clock())
    where = MessageFilter(args.get("role"), args.get("sender"), since or 0, until)
    found = ctx.mem.search_with_coverage(
        args["query"], args.get("session"), args.get("match", "hybrid"), "all", None, depth, where=where
    )
    kept = [h for h in found.hits if h.message.id is not None]
    partial = found.coverage is not None and not found.coverage.complete
    ranking = Ranking(
        tuple(
            Ranked(h.message.id or 0, h.message.session or "", h.score, h.source, h.kind, h.passage)
            for h in kept
        ),
        found.coverage.describe() if found.coverage is not None and partial else None,
        depth,
    )
    return ranking, {h.message.id or 0: h.message for h in kept}


def _read_again(ctx: Context, ranked: Ranked, read: dict[int, Message]) -> Hit | None:
    """The hit ``ranked`` with its message (the one ``read`` holds, or read again); None when the message
    was forgotten since it was ranked."""
    message = read.get(ranked.message_id) or message_in(ctx.mem, ranked.session, ranked.message_id)
    if message is None:
        return None
    return Hit(message, ranked.score, ranked.source, ranked.kind, ranked.passage)


def search(ctx: Context, args: Args) -> Result:
    query, match = args["query"], args.get("match", "hybrid")
    if not query.strip():
        raise InvalidInput("query is blank: give words to look for")
    size = args.get("limit", 10)
    fingerprint = paging.fingerprint("search", args)
    offset, token = 0, None
    if "cursor" in args:
        offset, token = paging.kept_position(paging.decode("search", args, args["cursor"]), MAX_LIMIT)
    ranking = ctx.rankings.get(token, fingerprint) if token is not None else None
    read: dict[int, Message] = {}
    needed = min(MAX_LIMIT, offset + size + 1)  # one more than the page: whether there is a next one
    if ranking is None or token is None:  # a first page, or a ranking this server no longer keeps
        ranking, read = _ranking(ctx, args, max(FIRST_DEPTH, needed))
        token = ctx.rankings.keep(fingerprint, ranking)
    elif ranking.cut and needed > len(ranking.hits):  # past the kept depth: go on with a deeper ranking
        deeper, read = _ranking(ctx, args, min(MAX_LIMIT, max(needed, 2 * ranking.depth)))
        ranking = ranking.extended(deeper)
        ctx.rankings.replace(token, fingerprint, ranking)
    terms = snippet_terms(query)
    titles: dict[str, str] = {}
    result: Result = {
        "query": query,
        "match": match,
        "hits": [],
        "matched": bool(ranking.hits),
        "summary": "",
    }
    if ranking.coverage is not None:
        result["coverage"] = ranking.coverage
    after = offset
    for place in range(offset, len(ranking.hits)):
        if len(result["hits"]) >= size:
            break
        each = _read_again(ctx, ranking.hits[place], read)
        if each is not None:
            session = each.message.session or ""
            if session not in titles:
                titles[session] = ctx.catalog.title(session)
            hit = _hit(each, titles[session], terms)
            if result["hits"] and not paging.fits(
                {**result, "hits": [*result["hits"], hit]}, paging.PAGE_CHARS - 600
            ):
                break
            result["hits"].append(hit)
        after = place + 1
    shown = len(result["hits"])
    if after < len(ranking.hits):
        result["nextCursor"] = paging.encode("search", args, {"o": after, "r": token})
    scope = f"{match} search over {_where(args)}" + (
        "" if "since" in args or "until" in args else ", all time"
    )
    covered = f" ({result['coverage']}; the rest by their words only)" if "coverage" in result else ""
    if not shown:
        result["summary"] = (
            f"No messages match {shorten(query, 80)!r} ({scope}){covered}."
            if offset == 0
            else "No more hits."
        )
    else:
        worded = sum(1 for h in result["hits"] if h["matched"])
        meaning = "" if worded == shown else f"; {shown - worded} match by meaning only (matched is empty)"
        result["summary"] = f"Hits {offset + 1}-{offset + shown} ({scope}){meaning}{covered}. " + (
            "More: call again with nextCursor." if "nextCursor" in result else "No more hits."
        )
    return result


SEARCH = ToolSpec(
    name="search",
    title="Search the memory",
    description=(
        "Search every conversation in memtray's memory (all sessions, all time, imported ones included) "
        "for words or meaning. Each hit has its session id and title, time (UTC), role, sender, a snippet "
        "around the matched words, and `read` arguments that show the message in context. Filter with "
        "session, role, sender, since/until. Paged: pass nextCursor to get more."
    ),
    input_schema=SEARCH_INPUT,
    output_schema=SEARCH_OUTPUT,
    run=search,
    read_only=True,
    recalls=True,
)

# -- list_sessions -------------------------------------------------------------------------------------

LIST_INPUT = obj(
    {
        "query": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "description": "Only sessions whose title or id contains this text (any case).",
        },
        "since": date("Only sessions with messages on or after this date (YYYY-MM-DD or ISO, UTC)."),
        "until": date("Only sessions with messages on or before this date (YYYY-MM-DD or ISO, UTC)."),
        "include_temp": {"type": "boolean", "description": "Include temporary (temp-) sessions."},
        "limit": limit(20, 100, "sessions"),
        "cursor": CURSOR,
    }
)
_SESSION_ITEM = obj(
    {
        "id": {"type": "string"},
        "title": {"type": "string"},
        "firstMessage": _TIME,
        "lastMessage": _TIME,
        "messages": {"type": "integer"},
    },
    ("id", "title", "firstMessage", "lastMessage", "messages"),
)
LIST_OUTPUT = obj(
    {
        "sessions": {"type": "array", "items": _SESSION_ITEM},
        "total": {"type": "integer", "description": "How many sessions match, on all pages."},
        "nextCursor": CURSOR,
        "summary": _SUMMARY,
    },
    ("sessions", "total", "summary"),
)


def _session_item(o: Overview) -> dict[str, Any]:
    return {
        "id": o.id,
        "title": o.title,
        "firstMessage": iso(o.first_at),
        "lastMessage": iso(o.last_at),
        "messages": o.messages,
    }


def matching_sessions(ctx: Context, args: Args) -> list[Overview]:
    """The overviews ``list_sessions`` pages through, in order (also the resources' list)."""
    since, until = _bounds(args, ctx.mem.clock())
    text = args.get("query", "").casefold()
    found = []
    for o in ctx.catalog.overviews(include_temp=args.get("include_temp", False)):
        if text and text not in o.title.casefold() and text not in o.id.casefold():
            continue
        if since is not None and o.last_at < since:
            continue
        if until is not None and not (0 < o.first_at <= until):
            continue
        found.append(o)
    return found


def after_position(items: list[Overview], position: Any) -> list[Overview]:
    """The items after an ``[order_at, id]`` keyset position in (order_at, id) descending order."""
    mark = paging.keyset_position(position)
    return [o for o in items if (o.order_at, o.id) < mark]


@dataclass(frozen=True)
class SessionListing:
    """A page of a session listing: the session ids it pages through (as its first page listed them, kept
    by the server), where this page starts in them, the listing's token for the next cursor, and the
    sessions' overviews as they are now (a session removed since the first page has none)."""

    ids: tuple[str, ...]
    offset: int
    token: str
    now: dict[str, Overview]


def session_listing(ctx: Context, kind: str, args: Args) -> SessionListing:
    """The page ``args["cursor"]`` asks for of a session listing of ``kind`` (``sessions``:
    ``list_sessions``; ``resources``); one read of the sessions either way."""
    fingerprint = paging.fingerprint(kind, args)
    offset, token, position = 0, None, None
    if "cursor" in args:
        position = paging.decode(kind, args, args["cursor"])
        if isinstance(position, dict):
            offset, token = paging.kept_position(position, paging.MAX_POSITION)
    kept = ctx.session_lists.get(token, fingerprint) if token is not None else None
    if kept is not None and token is not None:
        now = ctx.catalog.overviews(include_temp=args.get("include_temp", False))
        return SessionListing(kept, offset, token, {o.id: o for o in now})
    found = matching_sessions(ctx, args)  # a first page, a listing no longer kept, or a keyset cursor
    if position is not None and not isinstance(position, dict):
        offset = len(found) - len(after_position(found, position))
    ids = tuple(o.id for o in found)
    return SessionListing(ids, offset, ctx.session_lists.keep(fingerprint, ids), {o.id: o for o in found})


def list_sessions(ctx: Context, args: Args) -> Result:
    listing = session_listing(ctx, "sessions", args)
    ids, offset, now = listing.ids, listing.offset, listing.now  # each page shows them as they are now
    size = args.get("limit", 20)
    result: Result = {"sessions": [], "total": len(ids), "summary": ""}
    after = offset
    for session in ids[offset:]:
        if len(result["sessions"]) >= size:
            break
        if session in now:  # a session removed since the first page is left out
            item = _session_item(now[session])
            if result["sessions"] and not paging.fits(
                {**result, "sessions": [*result["sessions"], item]}, paging.PAGE_CHARS - 400
            ):
                break
            result["sessions"].append(item)
        after += 1
    shown = len(result["sessions"])
    if after < len(ids):
        result["nextCursor"] = paging.encode("sessions", args, {"o": after, "r": listing.token})
    if not ids:
        result["summary"] = (
            "No sessions match." if len(args.keys() - {"limit", "cursor"}) else "No sessions yet."
        )
    elif not shown:
        result["summary"] = f"No more sessions (there are {len(ids)})."
    else:
        result["summary"] = (
            f"Sessions {offset + 1}-{offset + shown} of {len(ids)}, the most recent last message first "
            "(as the first page found them). "
            + ("More: call again with nextCursor." if "nextCursor" in result else "That is all of them.")
        )
    return result


LIST_SESSIONS = ToolSpec(
    name="list_sessions",
    title="List conversations",
    description=(
        "The conversations (sessions) in memtray's memory, the most recent last message first: id, "
        "title (imported, given by the user, or the first user message shortened), first and last message times (UTC) and message "
        "count. Filter by text in the title or id and by dates. Paged: pass nextCursor to get more."
    ),
    input_schema=LIST_INPUT,
    output_schema=LIST_OUTPUT,
    run=list_sessions,
    read_only=True,
    recalls=True,
)

# -- read ----------------------------------------------------------------------------------------------

READ_INPUT = obj(
    {
        "session": SESSION_ID,
        "around": {**MESSAGE_ID, "description": "Show a window of messages around this message id."},
        "message": {
            **MESSAGE_ID,
            "description": "Show the whole text of this one message, in slices (see offset).",
        },
        "offset": {
            "type": "integer",
            "minimum": 0,
            "description": "With message: the character to start at (nextOffset of the previous slice).",
        },
        "order": {
            "type": "string",
            "enum": ["oldest", "newest"],
            "description": "oldest (default): from the start, forwards; newest: from the end, backwards.",
        },
        "limit": limit(20, 50, "messages"),
        "cursor": CURSOR,
    },
    ("session",),
)
_MESSAGE = obj(
    {
        "id": {"type": "integer"},
        "time": _TIME,
        "role": {"type": "string"},
        "sender": {"type": "string"},
        "text": {"type": "string"},
        "chars": {"type": "integer", "description": "The whole text's length, when text is a part."},
        "offset": {"type": "integer"},
        "nextOffset": {"type": "integer", "description": "Where the rest starts (read with message)."},
    },
    ("id", "time", "role", "sender", "text"),
)
READ_OUTPUT = obj(
    {
        "session": {"type": "string"},
        "title": {"type": "string"},
        "order": {"type": "string"},
        "messages": {"type": "array", "items": _MESSAGE},
        "nextCursor": CURSOR,
        "summary": _SUMMARY,
    },
    ("session", "title", "order", "messages", "summary"),
)


def _message_item(message: Message, cut: int = MESSAGE_CHARS) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": message.id or 0,
        "time": iso(message.send_at),
        "role": message.role,
        "sender": message.sender,
        "text": message.content[:cut],
    }
    if len(message.content) > cut:
        item["chars"] = len(message.content)
        item["nextOffset"] = cut
    return item


def _slice(ctx: Context, session: str, args: Args) -> Result:
    if "around" in args or "cursor" in args:
        raise InvalidInput("message reads one message: give it without around or cursor")
    message = message_in(ctx.mem, session, args["message"])
    if message is None:
        raise NotFound(f"no message #{args['message']} in session {session}")
    start = args.get("offset", 0)
    total = len(message.content)
    if start > total:
        raise InvalidInput(f"offset {start} is past the end of message #{message.id} ({total} characters)")
    item = _message_item(message, 0)
    item.update(text=message.content[start : start + SLICE_CHARS], chars=total, offset=start)
    item.pop("nextOffset", None)
    if start + SLICE_CHARS < total:
        item["nextOffset"] = start + SLICE_CHARS
    shown = f"characters {start}-{start + len(item['text'])} of {total}"
    return {
        "session": session,
        "title": ctx.catalog.title(session),
        "order": "oldest",
        "messages": [item],
        "summary": f"Message #{message.id}, {shown}."
        + (" More: read again with nextOffset as offset." if "nextOffset" in item else ""),
    }


def _window(ctx: Context, session: str, args: Args, size: int, order: str) -> tuple[list[Message], bool]:
    """The page's messages in reading order, and whether more follow in that direction."""
    if "around" in args and "cursor" not in args:
        anchor = args["around"]
        before = (size - 1) // 2
        after = size - 1 - before
        if order == "oldest":
            rows = ctx.mem.around(session, anchor, before, after + 1)
        else:
            rows = list(reversed(ctx.mem.around(session, anchor, before + 1, after)))
        index = next((i for i, m in enumerate(rows) if m.id == anchor), None)
        if index is None:
            raise NotFound(f"no message #{anchor} in session {session}")
        take = index + 1 + (after if order == "oldest" else before)
        return rows[:take], len(rows) > take
    position = (
        paging.offset_position(paging.decode("read", args, args["cursor"])) if "cursor" in args else None
    )
    if order == "oldest":
        rows = after_id(ctx.mem, session, position or 0, size + 1)
    else:
        rows = ctx.mem.archive_page(session, position, size + 1)
    return rows[:size], len(rows) > size


def read(ctx: Context, args: Args) -> Result:
    session = args["session"]
    if is_private(session):
        raise InvalidInput(f"session {session} is a temporary chat: its messages are not kept in the memory")
    if "message" in args:
        return _slice(ctx, session, args)
    if "offset" in args:
        raise InvalidInput("offset goes with message (one message's text); pages use cursor")
    order, size = args.get("order", "oldest"), args.get("limit", 20)
    rows, more = _window(ctx, session, args, size, order)
    result: Result = {
        "session": session,
        "title": ctx.catalog.title(session),
        "order": order,
        "messages": [],
        "summary": "",
    }
    for message in rows:
        item = _message_item(message)
        if result["messages"] and not paging.fits(
            {**result, "messages": [*result["messages"], item]}, paging.PAGE_CHARS - 600
        ):
            more = True
            break
        result["messages"].append(item)
    items = result["messages"]
    if more and items:
        result["nextCursor"] = paging.encode("read", args, items[-1]["id"])
    if not items:
        result["summary"] = "No messages." if "cursor" not in args else "No more messages."
    else:
        span = f"#{items[0]['id']} ({items[0]['time']}) to #{items[-1]['id']} ({items[-1]['time']})"
        cut = sum(1 for i in items if "chars" in i)
        result["summary"] = (
            f"{len(items)} messages, {order} first: {span}."
            + (f" {cut} long messages are cut: read them with message and offset." if cut else "")
            + (
                " More: call again with nextCursor."
                if "nextCursor" in result
                else " No more in this direction."
            )
        )
    return result


READ = ToolSpec(
    name="read",
    title="Read a conversation",
    description=(
        "Read the messages of a session, paged: from the start (order=oldest, the default) or the end "
        "(order=newest), or a window around a message id (around; e.g. a search hit's read arguments). "
        "Texts over 4,000 characters are cut; read one message whole with message (and offset). Pass "
        "nextCursor to continue in the same direction."
    ),
    input_schema=READ_INPUT,
    output_schema=READ_OUTPUT,
    run=read,
    read_only=True,
    recalls=True,
)

"""The sessions as MCP resources (``memtray://session/{id}``) and the server's prompts, as plain data.

``resources/list`` pages through the sessions (newest last message first, at most
:data:`RESOURCE_PAGE` per page and under the size bound, temporary chats left out); reading one gives the ``read`` tool's page of its newest messages as
JSON. The prompts are ``recall(topic)`` and ``catch_up(session)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.errors import InvalidInput, NotFound
from engine.mcpserver import paging
from engine.mcpserver.adapter import Context
from engine.mcpserver.conversations import read, session_listing
from engine.mcpserver.spec import SESSION_ID
from engine.mcpserver.text import iso
from engine.sessions.folders import is_private

RESOURCE_PAGE = 100
URI_PREFIX = "memtray://session/"
URI_TEMPLATE = URI_PREFIX + "{id}"
_SESSION = re.compile(SESSION_ID["pattern"])
MAX_PROMPT_ARGUMENT = 500
_RESOURCE_OVERHEAD = 40  # the wire's key names (mimeType, ...) beside the fields measured


@dataclass(frozen=True)
class SessionResource:
    uri: str
    name: str
    title: str
    description: str


def list_page(ctx: Context, cursor: str | None) -> tuple[list[SessionResource], str | None]:
    """One page of session resources and the cursor of the next (None at the end).

    Raises:
        InvalidInput: a cursor that is not one of this listing's.
    """
    listing = session_listing(ctx, "resources", {} if cursor is None else {"cursor": cursor})
    ids, offset, now = listing.ids, listing.offset, listing.now
    page: list[SessionResource] = []
    size = 0
    after = offset
    for session in ids[offset : offset + RESOURCE_PAGE]:
        o = now.get(session)
        if o is not None:  # a session removed since the first page is left out
            resource = SessionResource(
                URI_PREFIX + o.id,
                o.id,
                o.title or o.id,
                f"{o.messages} messages, {iso(o.first_at) or '?'} to {iso(o.last_at) or '?'}",
            )
            size += len(paging.dumps(resource.__dict__)) + _RESOURCE_OVERHEAD
            if page and size > paging.PAGE_CHARS:
                break
            page.append(resource)
        after += 1
    if after >= len(ids):
        return page, None
    return page, paging.encode("resources", {}, {"o": after, "r": listing.token})


def read_session(ctx: Context, uri: str) -> str:
    """The JSON text of a session resource: its newest messages (``read`` with ``order=newest``).

    Raises:
        NotFound: not a session URI of this server, or no such session.
    """
    session = uri[len(URI_PREFIX) :] if uri.startswith(URI_PREFIX) else ""
    if (
        not _SESSION.match(session)
        or len(session) > 128
        or is_private(session)
        or not ctx.mem.exists(session)
    ):
        raise NotFound(f"no session resource {uri[:200]}")
    return paging.dumps(read(ctx, {"session": session, "order": "newest", "limit": 50}))


@dataclass(frozen=True)
class PromptSpec:
    name: str
    title: str
    description: str
    argument: str
    argument_description: str


PROMPTS = (
    PromptSpec(
        "recall",
        "Recall a topic",
        "Recall what we discussed about a topic, from every past conversation in memtray's memory.",
        "topic",
        "What to recall (a subject, a name, a decision).",
    ),
    PromptSpec(
        "catch_up",
        "Catch up on a conversation",
        "Where a past conversation left off: what was decided, what is still open.",
        "session",
        "The session id (from list_sessions or a search hit).",
    ),
)


def render_prompt(name: str, arguments: dict[str, str] | None) -> tuple[str, str]:
    """The prompt's description and its user message.

    Raises:
        InvalidInput: an unknown prompt, or a missing or bad argument.
    """
    spec = next((p for p in PROMPTS if p.name == name), None)
    if spec is None:
        raise InvalidInput(f"no prompt {name[:80]!r}: the prompts are {', '.join(p.name for p in PROMPTS)}")
    value = (arguments or {}).get(spec.argument)
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"prompt {name} needs the argument {spec.argument}")
    if len(value) > MAX_PROMPT_ARGUMENT:
        raise InvalidInput(f"{spec.argument} is too long: at most {MAX_PROMPT_ARGUMENT} characters")
    value = value.strip()
    if name == "recall":
        text = (
            f"Recall what we discussed about {value}. Search memtray's memory for it with the search "
            "tool (every session, all time; try other words if little is found), then read around the "
            "best hits with the read tool. Tell me what was said, when, and in which conversation "
            "(its title), and say plainly if nothing about it is in the memory."
        )
    else:
        if not _SESSION.match(value) or len(value) > 128:
            raise InvalidInput(f"session {value[:80]!r} is not a session id")
        text = (
            f"Catch up on the conversation {value}: read its latest messages with memtray's read tool "
            f"(session {value}, order newest) and tell me where it left off: what was decided, and what "
            "is still open."
        )
    return spec.description, text

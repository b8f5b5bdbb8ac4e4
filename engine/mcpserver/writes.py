"""The MCP tools that keep a conversation: ``turn_context`` and ``save``; and the two that delete:
``forget_message`` and ``forget_session``.

- ``save(session, messages)``: append ``[{role, content, sendAt?, sender?}]`` to a session (created if
  new); a message without ``sendAt`` gets the time of the call. ``sendAt`` is read as the JSONL import
  reads a time: seconds, milliseconds, microseconds or nanoseconds, told apart by size; before 1990 is
  refused (a unit mistake). A message the session already holds with the same role, text and time is not
  stored again, so retrying a call is safe; the same message twice in one call is stored once. Each
  message's id in the answer is the id of the row that holds it.
- ``turn_context(session, request?)``: what an LLM call gets from the memory this turn (the window with
  prefixes, the turn-context message, the system-prompt guidance), as ``memtray context --json``.
- ``forget_message(session, message)``: the message is deleted everywhere (history, archive, indexes) and
  the session's summary is rebuilt without it. ``forget_session(session)``: the whole session goes.
"""

from __future__ import annotations

from typing import Any

from engine.chat.prompt import context_for
from engine.errors import InvalidInput, NotFound
from engine.importers.records import BadTime, epoch_ns
from engine.mcpserver import adapter
from engine.mcpserver.adapter import Context, message_in
from engine.mcpserver.spec import MESSAGE_ID, SESSION_ID, Args, Result, ToolSpec, nullable, obj
from engine.mcpserver.text import iso
from engine.messages import MAX_CONTENT_CHARS, MAX_SEND_AT, MAX_SENDER, Message, validate
from engine.paths import validate_session_id

MAX_MESSAGES = 1000
MAX_REQUEST_CHARS = 10_000

_SUMMARY = {"type": "string", "description": "What was done, in words."}

# -- save ----------------------------------------------------------------------------------------------

SAVE_INPUT = obj(
    {
        "session": {
            **SESSION_ID,
            "description": "The session (conversation) id: 1-128 letters, digits, '.', '_' or '-'; "
            "created if new. Keep one id per conversation.",
        },
        "messages": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_MESSAGES,
            "description": f"The new messages, oldest first (1 to {MAX_MESSAGES}).",
            "items": obj(
                {
                    "role": {"type": "string", "enum": ["user", "assistant"]},
                    "content": {"type": "string", "minLength": 1, "maxLength": MAX_CONTENT_CHARS},
                    "sendAt": {
                        "type": "number",
                        "minimum": 0,
                        "maximum": MAX_SEND_AT,
                        "description": "When it was written: Unix time (UTC) in seconds, milliseconds, "
                        "microseconds or nanoseconds (told apart by size; before 1990 is refused); "
                        "default now. Give it to make a retry safe.",
                    },
                    "sender": {
                        "type": "string",
                        "maxLength": MAX_SENDER,
                        "description": "The display name of the author.",
                    },
                },
                ("role", "content"),
            ),
        },
    },
    ("session", "messages"),
)
SAVE_OUTPUT = obj(
    {
        "session": {"type": "string"},
        "saved": {"type": "integer", "description": "Messages stored by this call."},
        "alreadyPresent": {"type": "integer", "description": "Messages the session already held."},
        "ids": {"type": "array", "items": {"type": ["integer", "null"]}},
        "summary": _SUMMARY,
    },
    ("session", "saved", "alreadyPresent", "ids", "summary"),
)


def save(ctx: Context, args: Args) -> Result:
    session = validate_session_id(args["session"])
    now = ctx.mem.clock()
    batch = []
    for index, raw in enumerate(args["messages"]):
        if not raw["content"].strip():
            raise InvalidInput(f"messages[{index}].content is blank: there is nothing to save")
        try:
            send_at = epoch_ns(raw.get("sendAt")) or now + index
        except BadTime as exc:
            why = str(exc).removeprefix("message with ")
            raise InvalidInput(
                f"messages[{index}].sendAt {raw['sendAt']!r} is not a usable time: {why}"
            ) from None
        message = Message(raw["role"], raw["content"], send_at, raw.get("sender", ""))
        try:
            batch.append(validate(message))
        except InvalidInput as exc:
            raise InvalidInput(f"messages[{index}]: {exc}") from None
    done = adapter.save(ctx.mem, session, batch)
    note = f" ({done.present} {'was' if done.present == 1 else 'were'} already there)" if done.present else ""
    return {
        "session": session,
        "saved": done.added,
        "alreadyPresent": done.present,
        "ids": done.ids,
        "summary": f"Saved {done.added} message{'s' if done.added != 1 else ''} to {session}{note}.",
    }


SAVE = ToolSpec(
    name="save",
    title="Save messages",
    description=(
        "Save messages of this conversation to memtray's memory (searchable later, summarised). After "
        "each turn save the user's message and your final reply (never tool calls). The session is "
        "created if new. A message already saved with the same role, content and sendAt is not stored "
        "twice, so retrying is safe when sendAt is given."
    ),
    input_schema=SAVE_INPUT,
    output_schema=SAVE_OUTPUT,
    run=save,
    read_only=False,
    idempotent=False,
)

# -- turn_context --------------------------------------------------------------------------------------

CONTEXT_INPUT = obj(
    {
        "session": SESSION_ID,
        "request": {
            "type": "string",
            "maxLength": MAX_REQUEST_CHARS,
            "description": "The user's request this turn (picks the relevant parts of the summary).",
        },
    },
    ("session",),
)
CONTEXT_OUTPUT = obj(
    {
        "session": {"type": "string"},
        "request": {"type": "string"},
        "system": {"type": "string", "description": "Guidance to add to your system prompt."},
        "messages": {
            "type": "array",
            "items": obj({"role": {"type": "string"}, "content": {"type": "string"}}, ("role", "content")),
        },
        "summary": nullable({"type": "object"}),
        "summaryFiltered": {"type": "boolean"},
    },
    ("session", "request", "system", "messages", "summary"),
)


def turn_context(ctx: Context, args: Args) -> Result:
    session = validate_session_id(args["session"])
    value: dict[str, Any] = context_for(ctx.mem, session, args.get("request", "")).to_json()
    return value


TURN_CONTEXT = ToolSpec(
    name="turn_context",
    title="Context for this turn",
    description=(
        "What to give the model this turn from memtray's memory: the latest messages of the session "
        "(each with a sendAt line), a turn-context message with the relevant prior summary, and guidance "
        "for the system prompt. A new session has only the turn-context message."
    ),
    input_schema=CONTEXT_INPUT,
    output_schema=CONTEXT_OUTPUT,
    run=turn_context,
    read_only=True,
    recalls=True,
)

# -- forget --------------------------------------------------------------------------------------------

FORGET_MESSAGE_INPUT = obj({"session": SESSION_ID, "message": MESSAGE_ID}, ("session", "message"))
FORGET_MESSAGE_OUTPUT = obj(
    {
        "session": {"type": "string"},
        "messageId": {"type": "integer"},
        "time": nullable({"type": "string"}),
        "role": {"type": "string"},
        "summary": _SUMMARY,
    },
    ("session", "messageId", "time", "role", "summary"),
)


def forget_message(ctx: Context, args: Args) -> Result:
    session, message_id = args["session"], args["message"]
    if message_in(ctx.mem, session, message_id) is None:
        raise NotFound(f"no message #{message_id} in session {session}")
    gone = ctx.mem.forget_message(message_id)
    ctx.catalog.forget(session)
    return {
        "session": session,
        "messageId": message_id,
        "time": iso(gone.send_at),
        "role": gone.role,
        "summary": f"Forgot message #{message_id} of {session}; the session's summary will be rebuilt.",
    }


FORGET_MESSAGE = ToolSpec(
    name="forget_message",
    title="Forget a message",
    description=(
        "Delete one message for good: from the conversation, the archive and the search indexes; the "
        "session's summary is rebuilt without it. Only when the user asks to forget it."
    ),
    input_schema=FORGET_MESSAGE_INPUT,
    output_schema=FORGET_MESSAGE_OUTPUT,
    run=forget_message,
    read_only=False,
    destructive=True,
)

FORGET_SESSION_INPUT = obj({"session": SESSION_ID}, ("session",))
FORGET_SESSION_OUTPUT = obj(
    {"session": {"type": "string"}, "removedMessages": {"type": "integer"}, "summary": _SUMMARY},
    ("session", "removedMessages", "summary"),
)


def forget_session(ctx: Context, args: Args) -> Result:
    session = validate_session_id(args["session"])
    removed = ctx.mem.remove(session)
    ctx.catalog.forget(session)
    return {
        "session": session,
        "removedMessages": removed.messages_deleted,
        "summary": f"Removed session {session} and its {removed.messages_deleted} messages.",
    }


FORGET_SESSION = ToolSpec(
    name="forget_session",
    title="Forget a conversation",
    description=(
        "Delete a whole session for good: its messages, summary and search indexes. Only when the user "
        "asks to forget that conversation."
    ),
    input_schema=FORGET_SESSION_INPUT,
    output_schema=FORGET_SESSION_OUTPUT,
    run=forget_session,
    read_only=False,
    destructive=True,
)

"""The error-memory tools of ``memtray mcp``: ``search_error_memory``, ``read_error``, ``remember_error``
and ``forget_error``, over ``mem.errors`` (shared by every session, kept 90 days after last use).

A record goes out as ``{id, tool, keywords, symptom, cause, action, outcome, createdAt, expiresAt}``
with UTC ISO times. Its three texts are cut at :data:`SEARCH_FIELD_CHARS` characters in search results and at
:data:`READ_FIELD_CHARS` elsewhere (``cut`` says so), which keeps every result under the size bound.
"""

from __future__ import annotations

from typing import Any

from engine.errormemory import OUTCOMES, ErrorRecord
from engine.errormemory.records import MAX_KEYWORD_CHARS, MAX_KEYWORDS, MAX_TOOL_CHARS
from engine.errors import InvalidInput
from engine.mcpserver import paging
from engine.mcpserver.adapter import Context
from engine.mcpserver.spec import Args, Result, ToolSpec, obj
from engine.mcpserver.text import iso

SEARCH_FIELD_CHARS = 1000
READ_FIELD_CHARS = 3000
MAX_TEXT_CHARS = 8192  # the engine checks the real limit (8 KiB of UTF-8)

_WRITE_WHEN = (
    "Write only when a non-trivial fix has been confirmed (outcome=resolved), a strategy has been "
    "confirmed not to work (failed), or three or more approaches have been exhausted (abandoned). Skip "
    "typos, fixes that worked on the first retry, and transient errors."
)
_ERROR_ID = {
    "type": "string",
    "maxLength": 64,
    "pattern": "^[0-9a-fA-F]{8,64}$",
    "description": "An error record id, or at least its first 8 hex characters.",
}
_TOOL = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_TOOL_CHARS,
    "description": "The tool that failed (its name, no spaces).",
}
_RECORD = obj(
    {
        "id": {"type": "string"},
        "tool": {"type": "string"},
        "keywords": {"type": "array", "items": {"type": "string"}},
        "symptom": {"type": "string"},
        "cause": {"type": "string"},
        "action": {"type": "string"},
        "outcome": {"type": "string"},
        "createdAt": {"type": ["string", "null"]},
        "expiresAt": {"type": ["string", "null"]},
        "cut": {
            "type": "boolean",
            "description": f"Texts were shortened (search: {SEARCH_FIELD_CHARS:,} characters each, "
            f"read_error: {READ_FIELD_CHARS:,}).",
        },
    },
    ("id", "tool", "keywords", "symptom", "cause", "action", "outcome", "createdAt", "expiresAt"),
)
_SUMMARY = {"type": "string"}


def _record(record: ErrorRecord, cut: int) -> dict[str, Any]:
    texts = {"symptom": record.symptom, "cause": record.cause, "action": record.action}
    out: dict[str, Any] = {
        "id": record.id,
        "tool": record.tool_name,
        "keywords": list(record.keywords),
        **{name: value[:cut] for name, value in texts.items()},
        "outcome": record.outcome,
        "createdAt": iso(record.created_at),
        "expiresAt": iso(record.expires_at),
    }
    if any(len(value) > cut for value in texts.values()):
        out["cut"] = True
    return out


SEARCH_ERRORS_INPUT = obj(
    {
        "query": {
            "type": "string",
            "minLength": 1,
            "maxLength": 4096,
            "description": "The error text or keywords to look for.",
        },
        "tool": {**_TOOL, "description": "Only errors of this tool."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 16, "description": "Default 4, at most 16."},
    }
)
SEARCH_ERRORS_OUTPUT = obj(
    {"records": {"type": "array", "items": _RECORD}, "summary": _SUMMARY}, ("records", "summary")
)


def search_errors(ctx: Context, args: Args) -> Result:
    query, tool = args.get("query", ""), args.get("tool")
    if not query.strip() and not tool:
        raise InvalidInput("give query (the error text or keywords), tool, or both")
    found = ctx.mem.errors.search(query, tool_name=tool, limit=args.get("limit", 4))
    result: Result = {"records": [], "summary": ""}
    for record in found:
        item = _record(record, SEARCH_FIELD_CHARS)
        if result["records"] and not paging.fits({**result, "records": [*result["records"], item]}):
            break
        result["records"].append(item)
    shown = len(result["records"])
    result["summary"] = (
        f"{shown} past error{'s' if shown != 1 else ''} found, newest first."
        if shown
        else "No past errors like this are remembered."
    )
    return result


SEARCH_ERRORS = ToolSpec(
    name="search_error_memory",
    title="Search past tool errors",
    description=(
        "Search the memory of past tool errors and their fixes, shared by all conversations: what "
        "failed (tool, symptom), why, what was done, and the outcome. Use it when a tool fails. "
        "A record found is kept 90 more days."
    ),
    input_schema=SEARCH_ERRORS_INPUT,
    output_schema=SEARCH_ERRORS_OUTPUT,
    run=search_errors,
    read_only=True,
    recalls=True,
)

READ_ERROR_INPUT = obj({"id": _ERROR_ID}, ("id",))
ONE_RECORD_OUTPUT = obj({"record": _RECORD, "summary": _SUMMARY}, ("record", "summary"))


def read_error(ctx: Context, args: Args) -> Result:
    record = ctx.mem.errors.read(args["id"])
    return {"record": _record(record, READ_FIELD_CHARS), "summary": f"Error record {record.id[:12]}."}


READ_ERROR = ToolSpec(
    name="read_error",
    title="Read a past tool error",
    description="One error record of the error memory, by its id (or its first 8+ hex characters).",
    input_schema=READ_ERROR_INPUT,
    output_schema=ONE_RECORD_OUTPUT,
    run=read_error,
    read_only=True,
    recalls=True,
)

_TEXT = {"type": "string", "minLength": 1, "maxLength": MAX_TEXT_CHARS}
REMEMBER_INPUT = obj(
    {
        "tool_name": _TOOL,
        "symptom": {**_TEXT, "description": "What went wrong, as observed (the error text)."},
        "action": {**_TEXT, "description": "What was done about it."},
        "outcome": {"type": "string", "enum": list(OUTCOMES), "description": "How it ended."},
        "cause": {**_TEXT, "minLength": 0, "description": "Why it went wrong, if known."},
        "keywords": {
            "type": "array",
            "maxItems": MAX_KEYWORDS,
            "items": {"type": "string", "maxLength": MAX_KEYWORD_CHARS},
            "description": f"Short keywords for finding it again (at most {MAX_KEYWORDS}).",
        },
    },
    ("tool_name", "symptom", "action", "outcome"),
)
REMEMBER_OUTPUT = obj(
    {"record": _RECORD, "refreshed": {"type": "boolean"}, "summary": _SUMMARY},
    ("record", "refreshed", "summary"),
)


def remember_error(ctx: Context, args: Args) -> Result:
    done = ctx.mem.errors.remember(
        args["tool_name"],
        args["symptom"],
        args["action"],
        args["outcome"],
        cause=args.get("cause", ""),
        keywords=list(args.get("keywords", [])),
    )
    verb = "Refreshed the existing" if done.refreshed else "Remembered a new"
    return {
        "record": _record(done.record, READ_FIELD_CHARS),
        "refreshed": done.refreshed,
        "summary": f"{verb} error record {done.record.id[:12]}.",
    }


REMEMBER_ERROR = ToolSpec(
    name="remember_error",
    title="Remember a tool error",
    description="Remember a tool error and what was done about it, for later conversations. " + _WRITE_WHEN,
    input_schema=REMEMBER_INPUT,
    output_schema=REMEMBER_OUTPUT,
    run=remember_error,
    read_only=False,
    idempotent=True,  # the same tool, symptom and action refresh one record
)

FORGET_ERROR_INPUT = obj({"id": _ERROR_ID}, ("id",))


def forget_error(ctx: Context, args: Args) -> Result:
    record = ctx.mem.errors.forget(args["id"])
    return {"record": _record(record, READ_FIELD_CHARS), "summary": f"Forgot error record {record.id[:12]}."}


FORGET_ERROR = ToolSpec(
    name="forget_error",
    title="Forget a tool error",
    description="Delete one record of the error memory for good, by its id (or its first 8+ hex characters).",
    input_schema=FORGET_ERROR_INPUT,
    output_schema=ONE_RECORD_OUTPUT,
    run=forget_error,
    read_only=False,
    destructive=True,
)

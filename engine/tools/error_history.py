"""The error-memory tools for an LLM: ``error_history`` and its aliases ``remember_error`` and
``search_error_memory`` (older names of the same tool, kept for callers that use them).

Each tool is a declaration — ``{"name", "description", "parameters"}`` with a JSON-schema object, usable as
a Gemini function declaration and, with ``parameters`` as ``inputSchema``, as an MCP tool — and an
executor that takes the call's arguments and returns the text the model sees:

* search → a JSON list of records, or ``NONE``;
* read → the record as JSON, or ``not found``;
* write → ``recorded`` (synchronously: a bad write is reported, not lost in the background).

``error_history`` infers a missing ``mode`` as the original: ``hash`` given → read; ``outcome`` given →
write; otherwise search. Bad arguments come back as one line of text starting ``invalid input:``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from engine.errormemory import OUTCOMES, ErrorMemory
from engine.errormemory.hint import as_text
from engine.errors import AmbiguousId, InvalidInput, NotFound

Arguments = Mapping[str, Any]

_WRITE_WHEN = (
    "Write only when: a non-trivial fix has been confirmed (outcome=resolved); a strategy has been "
    "confirmed not to work (outcome=failed); or three or more approaches have been exhausted "
    "(outcome=abandoned). Skip typos, fixes that worked on the first retry, and transient errors."
)
_RECORD_PROPERTIES: dict[str, Any] = {
    "tool_name": {"type": "string", "description": "The tool that failed."},
    "keywords": {
        "type": "array",
        "items": {"type": "string"},
        "description": "Short keywords for finding this error again (max 32).",
    },
    "symptom": {"type": "string", "description": "What went wrong, as observed (the error text)."},
    "cause": {"type": "string", "description": "Why it went wrong, if known."},
    "action": {"type": "string", "description": "What was done about it."},
    "outcome": {"type": "string", "enum": list(OUTCOMES), "description": "How it ended."},
}
_SEARCH_PROPERTIES: dict[str, Any] = {
    "keyword": {"type": "string", "description": "Error text or keywords to look for."},
    "limit": {"type": "integer", "description": "How many records (default 4, at most 16)."},
}

ERROR_HISTORY: dict[str, Any] = {
    "name": "error_history",
    "description": (
        "Memory of past tool errors and their fixes, shared by all conversations (kept 90 days after last "
        "use). mode=search finds records related to an error (keyword required); mode=read returns one "
        "record by its id (hash, at least 8 hex characters); mode=write remembers an error and its fix. "
        + _WRITE_WHEN
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "mode": {"type": "string", "enum": ["search", "read", "write"]},
            **_SEARCH_PROPERTIES,
            "hash": {"type": "string", "description": "mode=read: the record id or a prefix of it."},
            **_RECORD_PROPERTIES,
        },
    },
}
REMEMBER_ERROR: dict[str, Any] = {
    "name": "remember_error",
    "description": "Remember a tool error and its fix for later conversations. " + _WRITE_WHEN,
    "parameters": {
        "type": "object",
        "properties": _RECORD_PROPERTIES,
        "required": ["tool_name", "keywords", "symptom", "action", "outcome"],
    },
}
SEARCH_ERROR_MEMORY: dict[str, Any] = {
    "name": "search_error_memory",
    "description": (
        "Search the memory of past tool errors and their fixes. Returns a JSON list of records or NONE."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            **_SEARCH_PROPERTIES,
            "tool_name": {"type": "string", "description": "Only errors of this tool."},
        },
    },
}
DECLARATIONS: list[dict[str, Any]] = [ERROR_HISTORY, REMEMBER_ERROR, SEARCH_ERROR_MEMORY]


def infer_mode(args: Arguments) -> str:
    """``mode`` if given, else read (``hash`` given), write (``outcome`` given) or search."""
    mode = args.get("mode")
    if isinstance(mode, str) and mode.strip():
        return mode.strip().lower()
    if args.get("hash"):
        return "read"
    if args.get("outcome"):
        return "write"
    return "search"


def _limit(value: object) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise InvalidInput("limit must be a number")
    try:
        return int(value)
    except ValueError:
        raise InvalidInput("limit must be a number") from None


def _text(args: Arguments, name: str) -> str:
    value = args.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be text")
    return value


def search(errors: ErrorMemory, args: Arguments) -> str:
    query = _text(args, "keyword")
    tool = _text(args, "tool_name") or None
    return as_text(errors.search(query, tool_name=tool, limit=_limit(args.get("limit"))))


def read(errors: ErrorMemory, args: Arguments) -> str:
    try:
        return errors.read(_text(args, "hash")).dumps()
    except NotFound:
        return "not found"


def write(errors: ErrorMemory, args: Arguments) -> str:
    keywords = args.get("keywords") or []
    errors.remember(
        args.get("tool_name"),  # type: ignore[arg-type]  # checked by remember()
        args.get("symptom"),  # type: ignore[arg-type]
        args.get("action"),  # type: ignore[arg-type]
        args.get("outcome"),  # type: ignore[arg-type]
        cause=args.get("cause") or "",
        keywords=keywords,
    )
    return "recorded"


_MODES: dict[str, Callable[[ErrorMemory, Arguments], str]] = {"search": search, "read": read, "write": write}


def error_history(errors: ErrorMemory, args: Arguments) -> str:
    """Run ``error_history``; the text for the model."""
    mode = infer_mode(args)
    handler = _MODES.get(mode)
    if handler is None:
        return f"invalid input: mode must be search, read or write, not {mode!r}"
    return _guarded(handler, errors, args)


def remember_error(errors: ErrorMemory, args: Arguments) -> str:
    """Run ``remember_error`` (a write)."""
    return _guarded(write, errors, args)


def search_error_memory(errors: ErrorMemory, args: Arguments) -> str:
    """Run ``search_error_memory`` (a search)."""
    return _guarded(search, errors, args)


def _guarded(handler: Callable[[ErrorMemory, Arguments], str], errors: ErrorMemory, args: Arguments) -> str:
    try:
        return handler(errors, args)
    except AmbiguousId as exc:
        return f"ambiguous id: {exc}"
    except InvalidInput as exc:
        return str(exc) if str(exc).startswith("keyword is required") else f"invalid input: {exc}"


EXECUTORS: dict[str, Callable[[ErrorMemory, Arguments], str]] = {
    "error_history": error_history,
    "remember_error": remember_error,
    "search_error_memory": search_error_memory,
}


def execute(errors: ErrorMemory, name: str, args: Arguments | str | None) -> str:
    """Run the tool ``name`` with ``args`` (a mapping, or its JSON text); the text for the model.

    Raises:
        KeyError: ``name`` is not one of :data:`EXECUTORS` (the caller routes only these names here).
    """
    executor = EXECUTORS[name]
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError:
            return "invalid input: the arguments are not JSON"
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        return "invalid input: the arguments must be an object"
    return executor(errors, args)

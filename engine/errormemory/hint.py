"""The automatic hint after a tool call, as text for the tool message.

After a tool call the chat loop asks :func:`after_tool_call` for the tool message:

* the call failed → ``[<tool>] tool=<tool> failed: <error>\\nrelated_errors: <JSON list | NONE>``, the related
  records being up to 3 records of that tool found for the error text;
* the result is empty or ``no data`` → ``[<tool>] no data``, followed by ``\\nrelated_errors: <JSON list>``
  when that tool has records tagged ``no_result`` (the original replaced ``no data`` with ``NONE``);
* otherwise → ``[<tool>] <result>`` unchanged.

A failure of the error memory itself never hides the tool's own result: it is logged and the hint is left
out.
"""

from __future__ import annotations

import json
import logging

from engine.errormemory.records import ErrorRecord
from engine.errormemory.service import ErrorMemory
from engine.errors import EngineError

log = logging.getLogger("memtray.errormemory")

HINT_LIMIT = 3
NO_DATA = "no data"


def as_text(records: list[ErrorRecord]) -> str:
    """A JSON list of records, or ``NONE`` (the tools' search output)."""
    if not records:
        return "NONE"
    return json.dumps([r.to_json() for r in records], ensure_ascii=False)


def related(errors: ErrorMemory, tool_name: str, error_text: str) -> list[ErrorRecord]:
    """Up to 3 records of ``tool_name`` related to ``error_text`` ([] if the memory cannot answer)."""
    try:
        return errors.search(error_text, tool_name=tool_name, limit=HINT_LIMIT)
    except EngineError:
        log.warning("error memory hint for tool %s failed", tool_name, exc_info=True)
        return []


def failure_text(errors: ErrorMemory, tool_name: str, error_text: str) -> str:
    """``tool=<name> failed: <error>\\nrelated_errors: <JSON list | NONE>``."""
    hint = as_text(related(errors, tool_name, error_text))
    return f"tool={tool_name} failed: {error_text}\nrelated_errors: {hint}"


def is_empty_result(result: str) -> bool:
    return not result.strip() or result.strip().lower() == NO_DATA


def empty_result_text(errors: ErrorMemory, tool_name: str) -> str:
    """``no data``, plus ``\\nrelated_errors: <JSON list>`` when the tool has related records."""
    records = related(errors, tool_name, NO_DATA)
    return NO_DATA if not records else f"{NO_DATA}\nrelated_errors: {as_text(records)}"


def after_tool_call(errors: ErrorMemory, tool_name: str, result: str, error: str | None = None) -> str:
    """The tool message for a finished call: ``[<tool>] <result or failure text>``.

    Args:
        errors: the error memory.
        tool_name: the tool that ran.
        result: what it returned (ignored when ``error`` is given).
        error: the error text if the call failed, else None.
    """
    if error is not None:
        body = failure_text(errors, tool_name, error)
    elif is_empty_result(result):
        body = empty_result_text(errors, tool_name)
    else:
        body = result
    return f"[{tool_name}] {body}"

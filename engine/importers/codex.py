"""Codex CLI import: ``~/.codex/sessions/YYYY/MM/DD/rollout-…-<uuid>.jsonl``, one session per rollout.

Each line is ``{"timestamp", "type", "payload"}``. The prompts and replies the user saw are the
``event_msg`` payloads ``user_message`` and ``agent_message``; the same turns also appear as
``response_item`` messages, together with the context Codex injects, so only one of the two streams is
taken: the events, or, for rollouts written without them, the ``response_item`` messages of role user and
assistant (their ``input_text``/``output_text`` parts). The choice is kept with the file's import state, so
that a rollout read in several imports never takes both.

Left out and counted: injected context (user text starting with ``<environment_context>``,
``<user_instructions>``, ``# AGENTS.md instructions for`` …, events of kind ``environment_context`` or
``user_instructions``), developer and system messages, reasoning, tool calls and their output, and the
structural lines (``session_meta``, ``turn_context``, token counts, ``compacted`` …).

Older rollouts have no envelope: a first line ``{"id", "timestamp", "instructions"}`` and then bare
``{"type": "message", "role", "content"}`` items with no time of their own; those take the first line's
time plus their line number in nanoseconds (stable from one import to the next).

The session id is ``codex-<id>`` (``session_meta.payload.id``, else the uuid at the end of the file name).
The title is the project (the last part of ``cwd``) and the first prompt. Incremental: see
:mod:`engine.importers.transcripts`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import engine.importers.reasons as reasons
from engine.errors import InvalidInput
from engine.imported import ReadResult
from engine.importers import transcripts
from engine.importers.importstate import ImportState
from engine.importers.records import Tally, derived_session_id, iso_to_ns, message
from engine.messages import Message

PREFIX = "codex-"
CONTEXT_PREFIXES = (
    "<environment_context>", "<user_instructions>", "# agents.md instructions for ", "<turn_aborted>",
    "<user_shell_command>", "<skill", "<subagent_notification>", "<collaboration_mode>", "<context_update>",
    "<tool_context>", "<pinned_notes>",
)  # fmt: skip
CONTEXT_KINDS = ("environment_context", "user_instructions")
TOOL_ITEMS = ("function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output",
              "local_shell_call", "web_search_call", "tool_search_call", "tool_search_output",
              "image_generation_call")  # fmt: skip
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)
EVENTS, ITEMS = "events", "items"


def read(path: Path, session: str | None = None, state: ImportState | None = None) -> ReadResult:
    """Read Codex rollouts (a ``.jsonl`` file, or every one below a folder), one session each.

    Args:
        path: a rollout, ``~/.codex/sessions`` or any folder below it, or ``~/.codex``.
        session: import into this session instead; only for one rollout.
        state: where earlier imports stopped; with it only what was appended since is read.

    Raises:
        InvalidInput: the path does not exist, or ``session`` with more than one rollout.
        ImportFormatError: the path looks like another kind of history, or holds no rollout.
    """
    return transcripts.read(
        path, session, state, kind="codex", files=files, parse=parse, title=title, fallback=fallback
    )


def files(path: Path, tally: Tally) -> list[Path]:
    """The rollouts at ``path`` (in ``~/.codex``, those under ``sessions/`` and ``archived_sessions/``)."""
    if path.is_dir() and (path / "sessions").is_dir():
        return [
            file
            for folder in ("sessions", "archived_sessions")
            if (path / folder).is_dir()
            for file in transcripts.jsonl_files(path / folder)
        ]
    return list(transcripts.jsonl_files(path))


def fallback(file: Path) -> str:
    found = _UUID.search(file.stem)
    return derived_session_id(PREFIX, found.group(0) if found else file.stem)


def title(meta: dict[str, Any]) -> str | None:
    """``project: first prompt`` (None before the first prompt)."""
    return transcripts.titled(meta, "first_prompt")


def parse(lines: transcripts.Lines, meta: dict[str, Any], tally: Tally) -> list[Message]:
    """The prompts and replies of these lines, from one stream; ``meta`` keeps the session and choices."""
    events: list[Message] = []
    items: list[Message] = []
    for number, line in lines:
        where = f"line {number}"
        if not isinstance(line, dict):
            tally.broken(reasons.NOT_AN_OBJECT, where, "not a JSON object")
            continue
        kind = line.get("type")
        payload = line.get("payload")
        if "payload" not in line and number == 1 and "id" in line and "type" not in line:
            _session_meta(line, meta)  # an older rollout's header line
            meta["legacy_start"] = iso_to_ns(line.get("timestamp")) or 0
            continue
        if not isinstance(payload, dict):
            if kind == "message":  # an older rollout's bare item
                start = meta.get("legacy_start")
                when = start + number if isinstance(start, int) and start else 0
                found = _item(line, when, tally, where)
                if found is not None:
                    items.append(found)
            else:
                tally.skip(reasons.CODEX_STRUCTURAL)
            continue
        when = iso_to_ns(line.get("timestamp")) or 0
        if kind == "session_meta":
            _session_meta(payload, meta)
            tally.skip(reasons.CODEX_STRUCTURAL)
        elif kind == "event_msg":
            found = _event(payload, when, tally, where)
            if found is not None:
                events.append(found)
        elif kind == "response_item":
            found = _item(payload, when, tally, where)
            if found is not None:
                items.append(found)
        else:
            tally.skip(reasons.CODEX_STRUCTURAL)
    stream = meta.get("stream")
    if stream is None:
        stream = EVENTS if events else ITEMS if items else None
        if stream is not None:
            meta["stream"] = stream
    chosen = events if stream == EVENTS else items if stream == ITEMS else []
    tally.skip(reasons.SAME_TURN_AS_EVENT, len(items if stream == EVENTS else events))
    first = next((m.content for m in chosen if m.role == "user"), None)
    if first is not None:
        meta.setdefault("first_prompt", transcripts.one_line(first))
    return chosen


def _session_meta(payload: dict[str, Any], meta: dict[str, Any]) -> None:
    raw = payload.get("id") or payload.get("session_id")
    if "session" not in meta and isinstance(raw, str) and raw.strip():
        try:
            meta["session"] = derived_session_id(PREFIX, raw.strip())
        except InvalidInput:
            pass  # the file name is used instead
    project = transcripts.project_of(payload.get("cwd"))
    if "project" not in meta and project:
        meta["project"] = project


def _event(payload: dict[str, Any], when: int, tally: Tally, where: str) -> Message | None:
    kind = payload.get("type")
    text = payload.get("message")
    if kind == "user_message":
        if payload.get("kind") in CONTEXT_KINDS or not isinstance(text, str) or _is_context(text):
            tally.skip(reasons.INJECTED_CONTEXT)
            return None
        for key in ("images", "local_images"):
            if isinstance(payload.get(key), list):
                tally.skip(reasons.IMAGE, len(payload[key]))
        return message("user", text, when, "", tally, where)
    if kind == "agent_message" and isinstance(text, str):
        return message("assistant", text, when, "", tally, where)
    if kind in ("agent_reasoning", "agent_reasoning_raw_content"):
        tally.skip(reasons.THINKING)
    else:
        tally.skip(reasons.CODEX_STRUCTURAL)
    return None


def _item(payload: dict[str, Any], when: int, tally: Tally, where: str) -> Message | None:
    kind = payload.get("type")
    if kind == "reasoning":
        tally.skip(reasons.THINKING)
        return None
    if kind in TOOL_ITEMS:
        tally.skip(reasons.TOOL_CALL_OR_RESULT)
        return None
    if kind != "message":
        tally.skip(reasons.CODEX_STRUCTURAL)
        return None
    role = payload.get("role")
    if role not in ("user", "assistant"):
        tally.skip(reasons.DEVELOPER_OR_SYSTEM)
        return None
    content = payload.get("content")
    parts = content if isinstance(content, list) else []
    texts = [
        p["text"]
        for p in parts
        if isinstance(p, dict)
        and p.get("type") in ("input_text", "output_text")
        and isinstance(p.get("text"), str)
    ]
    tally.skip(
        reasons.IMAGE,
        sum(1 for p in parts if isinstance(p, dict) and p.get("type") == "input_image"),
    )
    text = "\n".join(texts) if texts else content if isinstance(content, str) else ""
    if role == "user" and _is_context(text):
        tally.skip(reasons.INJECTED_CONTEXT)
        return None
    return message(str(role), text, when, "", tally, where)


def _is_context(text: str) -> bool:
    return text.lstrip().lower().startswith(CONTEXT_PREFIXES)

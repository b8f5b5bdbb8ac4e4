"""Claude Code import: ``~/.claude/projects/<project>/<session uuid>.jsonl``, one session per transcript.

Each line is one JSON object with a ``type``. Kept, one message per line:

- a user prompt: ``type "user"``, ``message.role "user"``, its content a string or text blocks with no
  ``tool_result``; not a meta, sidechain (subagent), compaction-summary or transcript-only line, not a tool
  result (``toolUseResult``), not typed by the system (``origin.kind`` other than ``human``,
  ``promptSource`` other than ``typed``); not a slash command or its local output (``<command-name>``,
  ``<local-command-stdout>``, ``<bash-input>`` …) and not ``[Request interrupted by user]``. Embedded
  ``<system-reminder>``, ``<ide_opened_file>`` and ``<ide_selection>`` blocks are removed from its text;
- an assistant reply: ``type "assistant"``, its ``text`` blocks; not a sidechain line, an API error or a
  ``<synthetic>`` message. Claude Code writes one content block per line, and each line is imported on
  its own (not joined by ``message.id``), so a transcript read while it is being written gives exactly the
  messages of one read whole.

Left out and counted: tool calls and results, thinking, images, meta and injected lines, the rest
(``system``, ``summary``, ``progress``, snapshots, queue operations) as structural lines.

The session id is ``cc-<sessionId>`` (the file name when no line has one). The title is the project (the
last part of ``cwd``) and the newest ``ai-title``, else a ``summary`` of this transcript, else the first
prompt. Subagent transcripts (``subagents/``, ``agent-*.jsonl``) are skipped. Incremental: see
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

PREFIX = "cc-"
COMMAND_TAGS = (
    "<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>",
    "<local-command-stderr>", "<local-command-caveat>", "<bash-input>", "<bash-stdout>", "<bash-stderr>",
)  # fmt: skip
INTERRUPTED = ("[Request interrupted by user]", "[Request interrupted by user for tool use]")
_INJECTED = re.compile(r"<(system-reminder|ide_opened_file|ide_selection)>.*?</\1>\s*", re.DOTALL)


def read(path: Path, session: str | None = None, state: ImportState | None = None) -> ReadResult:
    """Read Claude Code transcripts (a ``.jsonl`` file, or every one below a folder), one session each.

    Args:
        path: a transcript, a project folder, ``~/.claude/projects`` or ``~/.claude``.
        session: import into this session instead; only for one transcript.
        state: where earlier imports stopped; with it only what was appended since is read.

    Raises:
        InvalidInput: the path does not exist, or ``session`` with more than one transcript.
        ImportFormatError: the path looks like another kind of history, or holds no transcript.
    """
    return transcripts.read(
        path, session, state, kind="claude-code", files=files, parse=parse, title=title, fallback=fallback
    )


def files(path: Path, tally: Tally) -> list[Path]:
    """The transcripts at ``path``; subagent transcripts are counted and left out."""
    if path.is_dir() and (path / "projects").is_dir():
        path = path / "projects"  # ~/.claude
    found = []
    for file in transcripts.jsonl_files(path):
        folders = file.relative_to(path).parts[:-1] if file != path else ()
        if "subagents" in folders or file.name.startswith("agent-"):
            tally.skip(reasons.SUBAGENT_TRANSCRIPT)
            continue
        found.append(file)
    return found


def fallback(file: Path) -> str:
    return derived_session_id(PREFIX, file.stem)


def title(meta: dict[str, Any]) -> str | None:
    """``project: title`` from what the transcript said so far (None before its first prompt)."""
    return transcripts.titled(meta, "ai_title", "summary", "first_prompt")


def parse(lines: transcripts.Lines, meta: dict[str, Any], tally: Tally) -> list[Message]:
    """The prompts and replies of these lines; ``meta`` gets the session id, project and titles."""
    messages: list[Message] = []
    uuids: set[str] = set()
    summaries: list[tuple[str, str]] = []
    for number, line in lines:
        if not isinstance(line, dict):
            tally.broken(reasons.NOT_AN_OBJECT, f"line {number}", "not a JSON object")
            continue
        _remember(line, meta, uuids)
        kind = line.get("type")
        if kind == "ai-title" and isinstance(line.get("aiTitle"), str) and line["aiTitle"].strip():
            meta["ai_title"] = transcripts.one_line(line["aiTitle"])
        elif kind == "summary" and isinstance(line.get("summary"), str):
            summaries.append((str(line.get("leafUuid")), line["summary"]))
        elif kind == "user":
            found = _prompt(line, tally, f"line {number}")
            if found is not None:
                messages.append(found)
                meta.setdefault("first_prompt", transcripts.one_line(found.content))
        elif kind == "assistant":
            found = _reply(line, tally, f"line {number}")
            if found is not None:
                messages.append(found)
        else:
            tally.skip(reasons.CLAUDE_CODE_STRUCTURAL)
    for leaf, summary in summaries:
        if leaf in uuids and summary.strip():
            meta["summary"] = transcripts.one_line(summary)
    return messages


def _remember(line: dict[str, Any], meta: dict[str, Any], uuids: set[str]) -> None:
    if "session" not in meta and isinstance(line.get("sessionId"), str) and line["sessionId"].strip():
        try:
            meta["session"] = derived_session_id(PREFIX, line["sessionId"].strip())
        except InvalidInput:
            pass  # the file name is used instead
    project = transcripts.project_of(line.get("cwd"))
    if "project" not in meta and project:
        meta["project"] = project
    if isinstance(line.get("uuid"), str):
        uuids.add(line["uuid"])


def _prompt(line: dict[str, Any], tally: Tally, where: str) -> Message | None:
    msg = line.get("message")
    if not isinstance(msg, dict) or msg.get("role") != "user":
        tally.skip(reasons.CLAUDE_CODE_STRUCTURAL)
        return None
    if line.get("isSidechain"):
        tally.skip(reasons.SUBAGENT_LINE)
        return None
    if line.get("isCompactSummary"):
        tally.skip(reasons.COMPACTION_SUMMARY)
        return None
    if line.get("isMeta") or line.get("isVisibleInTranscriptOnly") or not _typed_by_a_person(line):
        tally.skip(reasons.META_OR_INJECTED)
        return None
    content = msg.get("content")
    if line.get("toolUseResult") is not None or _has_block(content, "tool_result"):
        tally.skip(reasons.TOOL_CALL_OR_RESULT)
        return None
    text = _text(content, tally)
    stripped = text.strip()
    if stripped.startswith(COMMAND_TAGS):
        tally.skip(reasons.SLASH_COMMAND)
        return None
    if stripped in INTERRUPTED:
        tally.skip(reasons.INTERRUPTION)
        return None
    text = _INJECTED.sub("", text)
    return message("user", text, _time(line), "", tally, where)


def _typed_by_a_person(line: dict[str, Any]) -> bool:
    origin = line.get("origin")
    if isinstance(origin, dict) and origin.get("kind") not in (None, "human"):
        return False
    source = line.get("promptSource")
    return source is None or source == "typed"


def _reply(line: dict[str, Any], tally: Tally, where: str) -> Message | None:
    msg = line.get("message")
    if not isinstance(msg, dict):
        tally.skip(reasons.CLAUDE_CODE_STRUCTURAL)
        return None
    if line.get("isSidechain"):
        tally.skip(reasons.SUBAGENT_LINE)
        return None
    if line.get("isApiErrorMessage") or msg.get("model") == "<synthetic>":
        tally.skip(reasons.API_ERROR)
        return None
    text = _text(msg.get("content"), tally)
    if not text.strip():
        return None  # a line with only a tool call or thinking: counted by _text
    return message("assistant", text, _time(line), "", tally, where)


def _text(content: Any, tally: Tally) -> str:
    """The text blocks of a content (or the content string); other blocks are counted by kind."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind in ("tool_use", "tool_result", "server_tool_use", "web_search_tool_result"):
            tally.skip(reasons.TOOL_CALL_OR_RESULT)
        elif kind in ("thinking", "redacted_thinking"):
            tally.skip(reasons.THINKING)
        elif kind in ("image", "document"):
            tally.skip(reasons.IMAGE_OR_DOCUMENT)
        else:
            tally.skip(reasons.OTHER_BLOCK)
    return "\n\n".join(t for t in texts if t.strip())


def _has_block(content: Any, kind: str) -> bool:
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == kind for b in content)


def _time(line: dict[str, Any]) -> int:
    return iso_to_ns(line.get("timestamp")) or 0

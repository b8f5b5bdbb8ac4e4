"""ChatGPT import: the ``conversations.json`` of a ChatGPT data export, one session per conversation.

Large accounts get the export split into ``conversations-000.json``, ``conversations-001.json`` …: every part
is read, in order (:mod:`engine.importers.exportfile`); a conversation found in two parts is imported once
(the copy updated last).

A conversation is ``{"id"|"conversation_id", "title", "create_time", "mapping", "current_node"}`` where
``mapping`` is a tree of ``{node id: {"message", "parent", "children"}}``: every edit or regeneration is a
branch. What the user last saw is the branch that ends at ``current_node``, so that branch is followed up
through ``parent`` and reversed (oldest first); other branches are not imported. Without a usable
``current_node`` the newest leaf is taken.

Kept: user and assistant messages addressed to everyone, their text parts (citation and entity markers
rendered or removed, :mod:`engine.importers.chatgpt_markers`), the names of their attachments as
``[attached: NAME]`` lines, ``create_time`` (float seconds) as Unix ns, and the conversation's ``title``. A
message whose ``content`` has no ``content_type`` (as some exporters write it) has its text parts read.
Left out and counted: system and tool messages, assistant calls to tools, hidden nodes, non-text messages
(code for a tool, reasoning, ...), image and file parts, attachments' files.

The session id is ``gpt-<conversation id>``, so importing the same export again adds nothing. A broken
conversation is skipped (and named in the log); a file that is neither a JSON list of conversations nor one
conversation object is an error and nothing is imported.
"""

from __future__ import annotations

import hashlib
import math
import re
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeGuard

import engine.importers.reasons as reasons
from engine.errors import InvalidInput
from engine.imported import ImportedSession, ReadResult
from engine.importers import chatgpt_markers, detect, exportfile
from engine.importers.records import (
    BrokenRecord,
    Tally,
    conversation_name,
    derived_session_id,
    message,
    retarget,
    short,
)
from engine.messages import MAX_SEND_AT, Message

PREFIX = "gpt-"
TEXT_TYPES = ("text", "multimodal_text")
TEXT_PART_TYPES = ("text", "audio_transcription")
MAX_ATTACHMENTS = 100
MAX_NAME = 255
"""At most this many attachment names are kept per message, each cut to this many characters."""
_CONTENT_TYPE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


def read(path: Path, session: str | None = None) -> ReadResult:
    """Read a ChatGPT export into one session per conversation.

    Args:
        path: ``conversations.json``, the unpacked export folder, or the export's .zip.
        session: import into this session instead; only for an export with one conversation.

    Raises:
        ImportFormatError: not valid JSON, or not a list of conversations (nothing is imported).
        InvalidInput: the path cannot be read, or ``session`` with more than one conversation.
    """
    detect.require(path, "chatgpt")
    found: dict[str, tuple[float, ImportedSession]] = {}
    file_tally = Tally()
    index = 0
    for part in exportfile.conversation_lists(
        path, "chatgpt", "not a ChatGPT export (no conversation has a 'mapping')"
    ):
        data = part.data
        for conversation in data:
            index += 1
            where = conversation_name(index, conversation, "id")
            tally = Tally()
            try:
                item = conversation_session(conversation, tally, where)
            except BrokenRecord as exc:
                file_tally.broken(reasons.BROKEN_CONVERSATION, where, str(exc))
                continue
            if item is None:
                file_tally.skip(reasons.CONVERSATION_WITHOUT_MESSAGES)
                continue
            updated = conversation.get("update_time")
            when = float(updated) if _is_number(updated) else 0.0
            if item.session in found:
                file_tally.skip(reasons.CONVERSATION_TWICE)
                if found[item.session][0] > when:
                    continue
            found[item.session] = (when, item)
    sessions = [item for _, item in found.values()]
    return ReadResult(retarget(sessions, session), file_tally.as_dict())


def conversation_session(conversation: Any, tally: Tally, where: str) -> ImportedSession | None:
    """One conversation as a session (None if it has no message to import).

    Raises:
        BrokenRecord: the conversation is not in the expected shape.
    """
    if not isinstance(conversation, dict):
        raise BrokenRecord(f"expected an object, not {type(conversation).__name__}")
    mapping = conversation.get("mapping")
    if not isinstance(mapping, dict):
        raise BrokenRecord("'mapping' is not an object")
    session_id = _session_id(conversation)
    messages: list[Message] = []
    for node_id, node in current_branch(mapping, conversation.get("current_node")):
        found = _node_message(node, tally, f"{where}, node {short(node_id, 50)}")
        if found is not None:
            messages.append(found)
    if not messages:
        return None
    title = conversation.get("title")
    title = title.strip() if isinstance(title, str) and title.strip() else None
    return ImportedSession(session_id, messages, skipped=tally.as_dict(), title=title)


def _session_id(conversation: dict[str, Any]) -> str:
    raw = conversation.get("conversation_id") or conversation.get("id")
    if isinstance(raw, str) and raw.strip():
        try:
            return derived_session_id(PREFIX, raw.strip())
        except InvalidInput:
            pass
    # No usable id: derive one from what identifies the conversation, so it is stable across imports.
    basis = f"{conversation.get('title')!r}|{conversation.get('create_time')!r}"
    return PREFIX + hashlib.sha256(basis.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def current_branch(mapping: dict[str, Any], current: Any) -> list[tuple[str, dict[str, Any]]]:
    """The nodes from the root to ``current`` (or the newest leaf), oldest first.

    Raises:
        BrokenRecord: a node that is missing or not an object, or a cycle of parents.
    """
    node_id = current if isinstance(current, str) and current in mapping else _newest_leaf(mapping)
    branch: list[tuple[str, dict[str, Any]]] = []
    seen: set[str] = set()
    while node_id is not None:
        if node_id in seen:
            raise BrokenRecord(f"the message tree loops at node {short(node_id, 50)}")
        seen.add(node_id)
        node = mapping.get(node_id)
        if not isinstance(node, dict):
            raise BrokenRecord(f"node {short(node_id, 50)} is missing or not an object")
        branch.append((node_id, node))
        parent = node.get("parent")
        if parent is not None and not isinstance(parent, str):
            raise BrokenRecord(f"node {short(node_id, 50)} has a parent that is not an id")
        node_id = parent
    branch.reverse()
    return branch


def _newest_leaf(mapping: dict[str, Any]) -> str | None:
    """The leaf with the newest message: the branch shown when ``current_node`` is missing."""
    best: tuple[float, str] | None = None
    for node_id, node in mapping.items():
        if not isinstance(node, dict) or node.get("children"):
            continue
        msg = node.get("message")
        when = msg.get("create_time") if isinstance(msg, dict) else None
        key = (float(when) if _is_number(when) else -1.0, str(node_id))
        if best is None or key > best:
            best = key
    return best[1] if best is not None else None


def _node_message(node: dict[str, Any], tally: Tally, where: str) -> Message | None:
    msg = node.get("message")
    if msg is None:
        return None  # the tree's root: no message
    if not isinstance(msg, dict):
        tally.broken(reasons.BROKEN_MESSAGE, where, "'message' is not an object")
        return None
    author = msg.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    if role in ("system", "tool"):
        tally.skip(reasons.fill(reasons.ROLE_MESSAGE, role))
        return None
    if role not in ("user", "assistant"):
        tally.broken(reasons.UNKNOWN_AUTHOR, where, f"author role {short(role)}")
        return None
    metadata = msg.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    if metadata.get("is_visually_hidden_from_conversation"):
        tally.skip(reasons.HIDDEN)
        return None
    recipient = msg.get("recipient")
    if role == "assistant" and recipient not in (None, "all"):
        tally.skip(reasons.TOOL_CALL)
        return None
    attachments = metadata.get("attachments")
    if isinstance(attachments, list):
        tally.skip(reasons.ATTACHMENT, len(attachments))
    text = _text(msg.get("content"), tally, where)
    if text is None:
        return None
    text = chatgpt_markers.clean(text, metadata)
    names = attachment_names(attachments)
    if names:
        text = "\n\n".join(t for t in (text, names) if t)
    send_at = _send_at(msg.get("create_time"))
    if send_at is None:
        tally.broken(reasons.BROKEN_MESSAGE, where, f"create_time {short(msg.get('create_time'))}")
        return None
    return message(role, text, send_at, "", tally, where)


def _text(content: Any, tally: Tally, where: str) -> str | None:
    """The text of a message's content, or None (counted) for content that is not text."""
    if not isinstance(content, dict):
        tally.broken(reasons.BROKEN_MESSAGE, where, "'content' is not an object")
        return None
    ctype = content.get("content_type")
    if ctype is None and isinstance(content.get("parts"), list):
        pass  # some exporters leave the type out: the parts say what is text
    elif ctype not in TEXT_TYPES:
        shown = ctype if isinstance(ctype, str) and _CONTENT_TYPE.match(ctype) else "unknown"
        tally.skip(reasons.fill(reasons.NON_TEXT_MESSAGE, shown))
        return None
    parts = content.get("parts")
    if not isinstance(parts, list):
        tally.broken(reasons.BROKEN_MESSAGE, where, "'parts' is not a list")
        return None
    texts: list[str] = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif (
            isinstance(part, dict)
            and part.get("content_type") in TEXT_PART_TYPES
            and isinstance(part.get("text"), str)
        ):
            texts.append(part["text"])
        else:
            tally.skip(reasons.IMAGE_OR_FILE_PART)
    return "\n".join(t for t in texts if t)


def attachment_names(attachments: Any) -> str:
    """``[attached: report.pdf]``, one line per attachment that has a name (the file itself is not kept)."""
    if not isinstance(attachments, list):
        return ""
    lines = []
    for item in attachments[:MAX_ATTACHMENTS]:
        name = item.get("name") if isinstance(item, dict) else None
        if isinstance(name, str) and name.strip():
            lines.append(f"[attached: {' '.join(name.split())[:MAX_NAME]}]")
    return "\n".join(lines)


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _send_at(value: Any) -> int | None:
    """Float seconds as Unix ns (0 when absent); None for a value that is not a plausible time."""
    if value is None:
        return 0
    if not _is_number(value):
        return None
    ns = int(Decimal(repr(value)) * 1_000_000_000) if isinstance(value, float) else value * 1_000_000_000
    return ns if 0 <= ns <= MAX_SEND_AT else None

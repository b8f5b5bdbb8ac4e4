"""Claude import: the ``conversations.json`` of a Claude data export, one session per conversation.

A conversation is ``{"uuid", "name", "created_at", "chat_messages": [...]}``; a message is ``{"uuid",
"sender": "human"|"assistant", "text", "content": [{"type", "text"}, ...], "created_at" (ISO 8601),
"attachments", "files"}``. Newer exports also give each message a ``parent_message_uuid`` and the
conversation a ``current_leaf_message_uuid``: then the branch ending at that leaf is imported (what the
user last saw), otherwise the messages in file order.

Kept: the text parts of ``content`` (or ``text`` when there is no content list), the artifacts Claude
wrote (``tool_use`` parts named ``artifacts``: ``[artifact: TITLE]`` and the body in a fenced block,
:func:`artifact`), ``created_at`` as Unix ns, ``human`` as user, the conversation's ``name`` as its title.
Left out and counted: other tool use, tool results, thinking and other non-text parts, attachments and
files (their extracted text too: it is the file, not the conversation).

The session id is ``claude-<conversation uuid>``, so importing the same export again adds nothing. A broken
conversation is skipped (and named in the log); a file that is neither a JSON list of conversations nor one
conversation object is an error and nothing is imported.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import engine.importers.reasons as reasons
from engine.errors import InvalidInput
from engine.imported import ImportedSession, ReadResult
from engine.importers import detect, exportfile
from engine.importers.records import (
    BrokenRecord,
    Tally,
    conversation_name,
    derived_session_id,
    iso_to_ns,
    message,
    retarget,
    short,
)
from engine.messages import Message

PREFIX = "claude-"
ROLES = {"human": "user", "user": "user", "assistant": "assistant"}
_PART_TYPE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_LANGUAGE = re.compile(r"^[A-Za-z0-9_+#.-]{1,30}$")
_BACKTICKS = re.compile(r"`{3,}")


def read(path: Path, session: str | None = None) -> ReadResult:
    """Read a Claude export into one session per conversation.

    Args:
        path: ``conversations.json``, the unpacked export folder, or the export's .zip.
        session: import into this session instead; only for an export with one conversation.

    Raises:
        ImportFormatError: not valid JSON, or not a list of conversations (nothing is imported).
        InvalidInput: the path cannot be read, or ``session`` with more than one conversation.
    """
    detect.require(path, "claude")
    sessions: list[ImportedSession] = []
    file_tally = Tally()
    index = 0
    for part in exportfile.conversation_lists(
        path, "claude", "not a Claude export (no conversation has 'chat_messages')"
    ):
        data = part.data
        for conversation in data:
            index += 1
            where = conversation_name(index, conversation, "uuid")
            try:
                item = conversation_session(conversation, Tally(), where)
            except BrokenRecord as exc:
                file_tally.broken(reasons.BROKEN_CONVERSATION, where, str(exc))
                continue
            if item is None:
                file_tally.skip(reasons.CONVERSATION_WITHOUT_MESSAGES)
                continue
            sessions.append(item)
    return ReadResult(retarget(sessions, session), file_tally.as_dict())


def conversation_session(conversation: Any, tally: Tally, where: str) -> ImportedSession | None:
    """One conversation as a session (None if it has no message to import).

    Raises:
        BrokenRecord: the conversation is not in the expected shape.
    """
    if not isinstance(conversation, dict):
        raise BrokenRecord(f"expected an object, not {type(conversation).__name__}")
    raw_id = conversation.get("uuid")
    if not isinstance(raw_id, str):
        raise BrokenRecord("no 'uuid'")
    try:
        session_id = derived_session_id(PREFIX, raw_id.strip())
    except InvalidInput as exc:
        raise BrokenRecord(f"unusable 'uuid' {short(raw_id)}") from exc
    chat = conversation.get("chat_messages")
    if chat is None:
        return None
    if not isinstance(chat, list):
        raise BrokenRecord("'chat_messages' is not a list")
    messages: list[Message] = []
    for index, item in _branch(chat, conversation.get("current_leaf_message_uuid")):
        found = _message(item, tally, f"{where}, message {index}")
        if found is not None:
            messages.append(found)
    if not messages:
        return None
    name = conversation.get("name")
    title = name.strip() if isinstance(name, str) and name.strip() else None
    return ImportedSession(session_id, messages, skipped=tally.as_dict(), title=title)


def _branch(chat: list[Any], leaf: Any) -> list[tuple[int, Any]]:
    """(1-based position, message) of the current branch, oldest first; all messages without a tree."""
    numbered = list(enumerate(chat, start=1))
    by_uuid = {
        m["uuid"]: (i, m) for i, m in numbered if isinstance(m, dict) and isinstance(m.get("uuid"), str)
    }
    if not isinstance(leaf, str) or leaf not in by_uuid:
        return numbered
    branch: list[tuple[int, Any]] = []
    seen: set[str] = set()
    node: str | None = leaf
    while isinstance(node, str) and node in by_uuid and node not in seen:
        seen.add(node)
        index, item = by_uuid[node]
        branch.append((index, item))
        node = item.get("parent_message_uuid")
    branch.reverse()
    return branch


def _message(item: Any, tally: Tally, where: str) -> Message | None:
    if not isinstance(item, dict):
        tally.broken(reasons.BROKEN_MESSAGE, where, "not an object")
        return None
    sender = item.get("sender")
    role = ROLES.get(sender) if isinstance(sender, str) else None
    if role is None:
        tally.broken(reasons.UNKNOWN_SENDER, where, f"sender {short(sender)}")
        return None
    for key, reason in (("attachments", reasons.ATTACHMENT), ("files", reasons.FILE)):
        value = item.get(key)
        if isinstance(value, list):
            tally.skip(reason, len(value))
    text = _text(item, tally, where)
    if text is None:
        return None
    send_at = iso_to_ns(item.get("created_at"))
    if send_at is None:
        tally.broken(reasons.BROKEN_MESSAGE, where, f"created_at {short(item.get('created_at'))}")
        return None
    return message(role, text, send_at, "", tally, where)


def artifact(part: Any) -> str | None:
    """An ``artifacts`` tool call as text: its title, then its body in a fenced block; None for other parts.

    ``create`` and ``rewrite`` carry the whole body in ``content``; ``update`` the replacement ``new_str``.
    """
    if not isinstance(part, dict) or part.get("type") != "tool_use" or part.get("name") != "artifacts":
        return None
    args = part.get("input")
    if not isinstance(args, dict):
        return None
    body = args.get("content") if args.get("command") != "update" else args.get("new_str")
    if not isinstance(body, str) or not body.strip():
        return None
    title = args.get("title")
    title = " ".join(title.split()) if isinstance(title, str) and title.strip() else "artifact"
    language = args.get("language")
    language = language if isinstance(language, str) and _LANGUAGE.match(language) else ""
    fence = "`" * max(3, _longest_backticks(body) + 1)
    return f"[artifact: {title}]\n{fence}{language}\n{body}\n{fence}"


def _longest_backticks(text: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)


def _text(item: dict[str, Any], tally: Tally, where: str) -> str | None:
    content = item.get("content")
    if isinstance(content, list) and content:
        texts: list[str] = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif (body := artifact(part)) is not None:
                texts.append(body)
            else:
                kind = part.get("type") if isinstance(part, dict) else None
                shown = kind if isinstance(kind, str) and _PART_TYPE.match(kind) else "unknown"
                tally.skip(reasons.fill(reasons.NON_TEXT_PART, shown))
        return "\n\n".join(t for t in texts if t.strip())
    text = item.get("text", "")
    if text is None:
        return ""
    if not isinstance(text, str):
        tally.broken(reasons.BROKEN_MESSAGE, where, "'text' is not text")
        return None
    return text

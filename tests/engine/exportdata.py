"""Small ChatGPT, Claude and Agenvoy exports written by the tests themselves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

T0 = 1_714_538_096  # 2024-05-01 04:34:56 UTC


def gpt_message(
    role: str,
    parts: list[Any],
    when: float | None,
    *,
    content_type: str = "text",
    recipient: str = "all",
    **metadata: Any,
) -> dict[str, Any]:
    return {
        "id": f"m-{role}-{when}",
        "author": {"role": role, "name": None, "metadata": {}},
        "create_time": when,
        "content": {"content_type": content_type, "parts": parts},
        "status": "finished_successfully",
        "recipient": recipient,
        "metadata": metadata,
    }


def gpt_conversation(
    conv_id: str | None, nodes: list[tuple[str, str | None, dict[str, Any] | None]], current: str | None
) -> dict[str, Any]:
    """A conversation from ``(node id, parent id, message)``; children are filled in from the parents."""
    mapping: dict[str, Any] = {
        nid: {"id": nid, "message": msg, "parent": parent, "children": []} for nid, parent, msg in nodes
    }
    for nid, parent, _ in nodes:
        if parent in mapping:
            mapping[parent]["children"].append(nid)
    conversation: dict[str, Any] = {
        "title": f"title of {conv_id}",
        "create_time": float(T0),
        "update_time": float(T0 + 100),
        "mapping": mapping,
        "current_node": current,
    }
    if conv_id is not None:
        conversation["id"] = conversation["conversation_id"] = conv_id
    return conversation


def gpt_linear(conv_id: str, texts: list[str], start: float = T0) -> dict[str, Any]:
    """A conversation without branches: user, assistant, user, ... one second apart."""
    nodes: list[tuple[str, str | None, dict[str, Any] | None]] = [("root", None, None)]
    parent = "root"
    for i, text in enumerate(texts):
        nid = f"n{i}"
        nodes.append((nid, parent, gpt_message("user" if i % 2 == 0 else "assistant", [text], start + i)))
        parent = nid
    return gpt_conversation(conv_id, nodes, parent)


def claude_message(
    sender: str, text: str, when: str, *, content: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "uuid": extra.pop("uuid", f"u-{sender}-{when}"),
        "text": text,
        "content": content if content is not None else [{"type": "text", "text": text}],
        "sender": sender,
        "created_at": when,
        "updated_at": when,
        "attachments": extra.pop("attachments", []),
        "files": extra.pop("files", []),
        **extra,
    }


def claude_conversation(uuid: str, messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "uuid": uuid,
        "name": f"name of {uuid}",
        "created_at": "2024-05-01T04:34:56.000000Z",
        "updated_at": "2024-05-01T05:00:00.000000Z",
        "chat_messages": messages,
        **extra,
    }


def write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
    return path


def gpt_untyped(role: str, parts: list[Any], when: float | None) -> dict[str, Any]:
    """A ChatGPT message as some exporters (browser extensions) write it: ``content`` without a
    ``content_type``, only ``parts``."""
    msg = gpt_message(role, parts, when)
    del msg["content"]["content_type"]
    return msg


def browser_export(conv_id: str, count: int) -> dict[str, Any]:
    """One conversation object (not a list), as a browser extension saves the page it is on: ``count``
    messages, alternately user and assistant, none with a ``content_type``."""
    nodes: list[tuple[str, str | None, dict[str, Any] | None]] = [("root", None, None)]
    parent = "root"
    for i in range(count):
        role = "user" if i % 2 == 0 else "assistant"
        nodes.append((f"n{i}", parent, gpt_untyped(role, [f"{role} line {i} about sourdough"], T0 + i)))
        parent = f"n{i}"
    return gpt_conversation(conv_id, nodes, parent)


def claude_artifact(command: str, title: str, language: str, body: str) -> dict[str, Any]:
    """A Claude.ai export's ``artifacts`` tool call (``create``/``rewrite`` carry ``content``, ``update``
    carries ``old_str``/``new_str``)."""
    args: dict[str, Any] = {"id": "artifact-1", "command": command, "title": title}
    if command == "update":
        args.update(old_str="x", new_str=body)
    else:
        args.update(type="application/vnd.ant.code", language=language, content=body)
    return {
        "type": "tool_use",
        "name": "artifacts",
        "input": args,
        "start_timestamp": "2024-05-01T04:35:00.000000Z",
        "stop_timestamp": "2024-05-01T04:35:02.000000Z",
    }

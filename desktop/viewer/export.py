"""Export a session's complete archive to a file (JSONL in the history.json record shape, or Markdown).

Runs on the store worker; checks its cancel token between messages, and writes to a temporary file that
replaces the target only when complete.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from desktop.tasks import CancelToken
from desktop.viewer.timefmt import local_time
from engine import Message

FORMATS = {"jsonl": "JSON Lines (*.jsonl)", "markdown": "Markdown (*.md)"}


def record(message: Message) -> dict[str, object]:
    data: dict[str, object] = {"role": message.role, "content": message.content}
    if message.send_at:
        data["sendAt"] = message.send_at
    if message.sender:
        data["sender"] = message.sender
    return data


def write_export(
    path: Path, session: str, messages: Iterable[Message], fmt: str, token: CancelToken | None = None
) -> int:
    """Write ``messages`` to ``path`` in ``fmt``; return how many were written."""
    tmp = path.with_name(path.name + ".part")
    count = 0
    try:
        with tmp.open("w", encoding="utf-8") as out:
            if fmt == "markdown":
                out.write(f"# {session}\n")
            for message in messages:
                if token is not None and count % 500 == 0:
                    token.check()
                if fmt == "jsonl":
                    out.write(json.dumps(record(message), ensure_ascii=False) + "\n")
                else:
                    who = f"{message.role} · {message.sender}" if message.sender else message.role
                    out.write(f"\n## {who} — {local_time(message.send_at)}\n\n{message.content}\n")
                count += 1
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return count

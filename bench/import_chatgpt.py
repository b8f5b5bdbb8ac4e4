"""Import throughput for a generated ChatGPT export (messages/s), and when it is keyword-searchable.

Generates ``conversations.json`` with ``--messages`` user/assistant messages (default 50,000) spread over
conversations of ``--per-conversation`` messages, each with a hidden system root and one regenerated reply
off the current branch (so the branch walk does real work), and a word of its own in its first message
(``topic<n>x``), then measures in a fresh temporary home:

- read: parsing and checking the file (``engine.importers.chatgpt.read``);
- import: storing it (``Memory.import_sessions``: archive, FTS, history.json), as ``memtray import`` does
  (no background embedder in the process; the new messages are only queued for embedding);
- searchable: from the end of the import to the first keyword search that finds the last conversation
  by its word (``Memory.search(..., match="keyword")``), and from the start of the import to then;
- again: importing the same file a second time (everything is already present, nothing is added).

``--background`` opens the memory with the background embedder running, as the desktop app does: it
embeds the queued messages while the import runs and competes for the CPU and the write lock.

    python -m bench.import_chatgpt [--messages 50000] [--per-conversation 100] [--background]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import homes
from engine.importers import chatgpt

T0 = 1_700_000_000.0
WORDS = [
    "memory",
    "laptop",
    "search",
    "summary",
    "session",
    "archive",
    "question",
    "answer",
    "browser",
    "tab",
    "python",
    "sqlite",
    "index",
    "記憶體",
    "電腦",
    "搜尋",
    "摘要",
    "對話",
    "問題",
    "回答",
    "瀏覽器",
    "分頁",
    "資料庫",
    "索引",
    "設定",
    "錯誤",
    "時間",
]


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 60)))


def _message(role: str, text: str, when: float, **metadata: Any) -> dict[str, Any]:
    return {
        "author": {"role": role, "name": None, "metadata": {}},
        "create_time": when,
        "content": {"content_type": "text", "parts": [text]},
        "recipient": "all",
        "metadata": metadata,
    }


def topic(index: int) -> str:
    """The word only conversation ``index`` has (in its first message)."""
    return f"topic{index}x"


def conversation(index: int, count: int, rng: random.Random) -> dict[str, Any]:
    """One conversation with ``count`` messages on its current branch (plus a system root and a branch)."""
    start = T0 + index * 3600
    mapping: dict[str, Any] = {
        "root": {"message": None, "parent": None, "children": ["sys"]},
        "sys": {
            "message": _message("system", "", start, is_visually_hidden_from_conversation=True),
            "parent": "root",
            "children": [],
        },
    }
    parent = "sys"
    for i in range(count):
        node = f"n{i}"
        role = "user" if i % 2 == 0 else "assistant"
        text = f"{topic(index)} {_text(rng)}" if i == 0 else _text(rng)
        mapping[node] = {
            "message": _message(role, text, start + i * 7.25),
            "parent": parent,
            "children": [],
        }
        mapping[parent]["children"].append(node)
        if i == 1:  # a regenerated reply that is not on the current branch
            mapping["old"] = {
                "message": _message("assistant", _text(rng), start + 5),
                "parent": "n0",
                "children": [],
            }
            mapping["n0"]["children"].append("old")
        parent = node
    return {
        "id": f"bench-{index:06d}",
        "title": f"conversation {index}",
        "create_time": start,
        "mapping": mapping,
        "current_node": parent,
    }


def generate(path: Path, messages: int, per_conversation: int) -> int:
    """Write the export; return its size in bytes."""
    rng = random.Random(7)
    conversations = []
    left, index = messages, 0
    while left > 0:
        count = min(per_conversation, left)
        conversations.append(conversation(index, count, rng))
        left -= count
        index += 1
    data = json.dumps(conversations, ensure_ascii=False).encode("utf-8")
    path.write_bytes(data)
    return len(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--per-conversation", type=int, default=100)
    parser.add_argument("--background", action="store_true", help="with the background embedder running")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memtray-bench-") as tmp:
        export = Path(tmp) / "conversations.json"
        size = generate(export, args.messages, args.per_conversation)
        print(
            f"export: {args.messages:,} messages in conversations of {args.per_conversation}, {size / 1e6:.1f} MB"
        )

        started = time.perf_counter()
        result = chatgpt.read(export, None)
        read_s = time.perf_counter() - started
        total = sum(len(s.messages) for s in result.sessions)
        assert total == args.messages, (total, args.messages)
        print(
            f"read:   {read_s:7.2f} s  {total / read_s:10,.0f} messages/s  ({len(result.sessions):,} sessions)"
        )

        with homes.open_home(Path(tmp) / "home", background=args.background, model=True) as mem:
            imported = homes.timed_import(mem, result.sessions)
            report, import_s = imported.report, imported.wall
            last = len(result.sessions) - 1
            found_s = homes.searchable(mem, topic(last), result.sessions[last].session)
            assert report.messages_added == total, report
            embedder = "background embedder running" if args.background else "no embedding in the process"
            print(
                f"import: {import_s:7.2f} s  {total / import_s:10,.0f} messages/s  "
                f"(archive + FTS + history.json; {embedder})"
            )
            print(
                f"searchable: {found_s * 1000:.1f} ms after the import returned, {import_s + found_s:.2f} s "
                "after it started (keyword search finds the last conversation)"
            )
            print(
                f"total:  {read_s + import_s:7.2f} s  {total / (read_s + import_s):10,.0f} messages/s  (read + import)"
            )

            started = time.perf_counter()
            again = mem.import_sessions(chatgpt.read(export, None).sessions)
            again_s = time.perf_counter() - started
            assert again.messages_added == 0 and again.messages_already_present == total, again
            print(f"again:  {again_s:7.2f} s  {total / again_s:10,.0f} messages/s  (read + nothing to add)")


if __name__ == "__main__":
    main()

"""One message-size bound for every way in, and the session list: it reads what it shows (never a whole
message for a title), one session's line without listing the others, and a far-future time never pins its
session first."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import replace
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.errors import ImportFormatError, InvalidMessage
from engine.imported import ImportedSession
from engine.importers import jsonl
from engine.importers.records import Tally, message
from engine.mcpserver.adapter import Catalog, Context
from engine.messages import MAX_CONTENT_CHARS
from engine.sessions import archive
from engine.storage.sql import Connection
from tests.engine.mcpserver.test_mcp_tools import call, refused

T0 = 1_700_000_000 * 1_000_000_000
S = 1_000_000_000
OVER = "x" * (MAX_CONTENT_CHARS + 1)


def test_the_same_bound_holds_at_every_way_in(memory: Memory, tmp_path: Path) -> None:
    memory.append("s", [Message("user", "y" * MAX_CONTENT_CHARS, T0)])  # at the bound: stored
    with pytest.raises(InvalidMessage, match="1,000,001 characters; a message may have at most 1,000,000"):
        memory.append("s", [Message("user", OVER, T0 + S)])
    ctx = Context(memory, Catalog(memory))
    words = refused(ctx, "save", {"session": "s", "messages": [{"role": "user", "content": OVER}]})
    assert "1,000,000" in words
    tally = Tally()
    assert message("user", OVER, T0, "", tally, "record 1") is None  # every importer's check: skipped
    assert tally.as_dict() == {"message longer than 1,000,000 characters": 1}
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps({"role": "user", "content": OVER}) + "\n", encoding="utf-8")
    with pytest.raises(ImportFormatError, match="line 1: the message has 1,000,001 characters"):
        jsonl.read(path, "s")
    assert [len(m.content) for m in memory.history("s")] == [MAX_CONTENT_CHARS]


def test_titles_are_made_from_the_first_characters_only(memory: Memory) -> None:
    memory.import_sessions(
        [
            ImportedSession("a", [Message("user", "   \n" + "word " * 1000, T0)]),
            ImportedSession("b", [Message("assistant", "hi", T0), Message("user", "second\nline", T0 + S)]),
            ImportedSession("c", [Message("user", " " * 3000, T0), Message("user", "real title", T0 + S)]),
            ImportedSession("d", [Message("assistant", "no user message", T0)]),
        ]
    )
    raw = sqlite3.connect(memory.paths.database)  # a reader of the real file, beside the memory's own
    try:
        firsts = archive.first_user_texts(Connection(raw))
    finally:
        raw.close()
    assert {k: len(v) for k, v in firsts.items()} == {"a": archive.TITLE_SOURCE_CHARS, "b": 11, "c": 2000}
    by_id = {i.id: i for i in memory.sessions()}
    assert by_id["a"].title.startswith("word word") and by_id["a"].title.endswith("…")
    assert by_id["b"].title == "second"
    assert by_id["c"].title == "real title"  # a blank start: that session's next user message
    assert by_id["d"].title == "" and by_id["d"].total_messages == 1
    for sid, info in by_id.items():
        assert memory.session_info(sid) == info  # one session's line, without listing the others


def test_a_far_future_time_does_not_pin_its_session_first(home: Path) -> None:
    with Memory.open(home, background=False) as mem:  # the real clock
        now = time.time_ns()
        mem.append("old", [Message("user", "last year", now - 365 * 86_400 * S)])
        mem.append("future", [Message("user", "dated 2191", 7_000_000_000 * S)])
        hour_ago = (now - 3600 * S) / S
        os.utime(mem.paths.history_file("future"), (hour_ago, hour_ago))  # written an hour ago
        mem.append("recent", [Message("user", "a minute ago", now - 60 * S)])
        infos = mem.sessions()
        assert [i.id for i in infos] == ["recent", "future", "old"]
        assert mem.sessions(limit=2, with_files=False) == [
            replace(i, history_bytes=0, summary_updated=0) for i in infos[:2]
        ]
        ctx = Context(mem, Catalog(mem))
        assert [o.id for o in ctx.catalog.overviews(include_temp=False)] == ["recent", "future", "old"]
        pages = [call(ctx, "list_sessions", {"limit": 1})]  # the agents' list pages in the same order
        while "nextCursor" in pages[-1]:
            pages.append(call(ctx, "list_sessions", {"limit": 1, "cursor": pages[-1]["nextCursor"]}))
        assert [p["sessions"][0]["id"] for p in pages] == ["recent", "future", "old"]
        future = next(i for i in infos if i.id == "future")
        assert future.last_message_at == 7_000_000_000 * S  # shown as stored
        mem.append("recent", [Message("user", "dated 2192", 7_100_000_000 * S)])
        assert next(i.id for i in mem.sessions()) == "recent"  # written last: first


def test_lock_files_of_a_removed_folder_go_at_the_next_open_and_an_unchanged_home_is_not_listed(
    home: Path,
) -> None:
    import shutil

    with Memory.open(home, background=False) as mem:
        mem.append("kept", [Message("user", "kept", T0)])
        mem.append("gone", [Message("user", "gone", T0)])
    shutil.rmtree(home / "sessions" / "gone")  # by hand, not through memtray
    with Memory.open(home, background=False) as mem:
        assert sorted(p.name for p in mem.paths.locks_dir.iterdir()) == ["kept.lock"]
        assert mem._log.remove_stale_locks() == 0  # nothing changed since: not listed again
        (mem.paths.locks_dir / "never.lock").write_bytes(b"")
        assert mem._log.remove_stale_locks() == 0
        assert mem._log.remove_stale_locks(always=True) == 1  # the periodic cleanup lists anyway

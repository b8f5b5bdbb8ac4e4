"""Property: any text comes back byte-identical, exactly once, through every path that stores or moves it.

Appended (in batches), read back (history, history.json, the archive page by page), compacted (a 4 KiB
limit, so most examples compact several times), exported as JSONL and imported into another session:
each message is there once, with the text, role, time and sender it was written with. The texts mix lines
that look like every header format a reader or importer knows (the window's ``sendAt:`` prefix, Agenvoy's
``---`` blocks, ``ts:`` lines, ChatGPT's marker characters) with control characters, CJK, blank and empty
text.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from itertools import count
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Memory, Message
from engine.embedders.hashing import HashEmbedder
from engine.importers import jsonl
from engine.sessions import export
from engine.sessions.archive import archive_times

LIMIT = 4096
HEADER_LINES = [
    "sendAt: 2026-08-20 02:30:00",
    "sendAt: 2026-08-20 02:30:00, sender: Alice",
    "sendAt: unknown",
    "sender: please review the PR",
    "channelId: 1234567890",
    "當前時間：2024-05-01 12:34",
    "當前時間: 2024-05-01 12:34:56",
    "工作目錄: /home/me/專案",
    "傳送者: 小明",
    "當前頻道 ID: 42",
    "當前 chat ID: 123456",
    "當前 channel: telegram",
    "來源: discord",
    "備註: none",
    "ts:1714538096",
    "---",
    "\ue200cite\ue202turn0search1\ue201",
    "\ue203highlight\ue204 \ue202turn0news3",
    "【4:0†source】 citeturn0search0 :contentReference[oaicite:2]{index=2}",
    "## User",
    "[user] 2024-05-01 12:34:56",
]
SPECIAL = ["", " ", "\n", "\t\n  \r\n", "\u3000", "---\n---", "\x01\x02\x7f", "\u2028\u2029", "\ufeffBOM"]
_chars = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
_line = st.one_of(
    st.sampled_from(HEADER_LINES),
    st.text(_chars, max_size=30),
    st.text(st.sampled_from("記憶體不足我的電腦ありがとう한국어 \t\r"), max_size=12),
)
texts = st.one_of(st.sampled_from(SPECIAL), st.lists(_line, max_size=6).map("\n".join))
messages = st.builds(
    Message,
    role=st.sampled_from(["user", "assistant"]),
    content=texts,
    send_at=st.one_of(st.just(0), st.integers(631_152_000 * 10**9, 4_102_444_800 * 10**9)),  # 1990-2100
    sender=st.one_of(st.just(""), st.sampled_from(["Alice", "小明"]), st.text(_chars, max_size=8)),
)
batches = st.lists(st.lists(messages, min_size=1, max_size=4), min_size=1, max_size=10)


@pytest.fixture(scope="module")
def mem() -> Iterator[Memory]:
    with tempfile.TemporaryDirectory() as home:
        memory = Memory.open(home, embedder=HashEmbedder(), background=False)
        memory.update_settings(max_history_bytes=LIMIT)
        yield memory
        memory.close()


_sessions = count()


def fields(m: Message) -> tuple[str, str, int, str]:
    return (m.role, m.content, m.send_at, m.sender)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(written=batches)
def test_any_text_comes_back_exactly_once(mem: Memory, written: list[list[Message]], tmp_path: Path) -> None:
    session = f"prop-{next(_sessions)}"
    archived_as: list[tuple[str, str, int, str]] = []  # the archive keeps a batch's times as archive_times
    for batch in written:
        stored = mem.append(session, batch)
        assert [fields(m) for m in stored] == [fields(m) for m in batch]
        times = archive_times(batch)
        archived_as += [(m.role, m.content, t, m.sender) for m, t in zip(batch, times, strict=True)]
        mem.history(session)  # reads in between change nothing
    flat = [fields(m) for batch in written for m in batch]

    history = mem.history(session)
    assert [fields(m) for m in history] == flat[len(flat) - len(history) :]  # the newest, as written
    path = mem.paths.history_file(session)
    on_disk = json.loads(path.read_bytes())
    assert [r["content"] for r in on_disk] == [m.content for m in history]
    mem.compact(session)
    size = len(path.read_bytes())
    kept = json.loads(path.read_bytes())
    users = [i for i, r in enumerate(kept) if r["role"] == "user"]
    assert size <= LIMIT or (users and users[-1] == 0) or len(kept) == 1  # only the newest exchange is left

    archive = list(mem.iter_archive(session))
    assert [fields(m) for m in archive] == archived_as  # every message, once, in order
    page = mem.archive_page(session, limit=5000)
    assert [fields(m) for m in reversed(page)] == archived_as
    history = mem.history(session)
    assert [m.id for m in history] == [m.id for m in archive[len(archive) - len(history) :]]

    exported = tmp_path / f"{session}.jsonl"
    exported.write_text("".join(export.jsonl_lines(mem.iter_archive(session))), encoding="utf-8")
    copy = f"{session}-copy"
    for times in (1, 2):  # the second import adds nothing
        report = mem.import_sessions(jsonl.read(exported, copy).sessions)
        assert report.messages_added == (len(archived_as) if times == 1 else 0)
    # One import is one batch: an untimed message after a timed one gets last + 1 there too.
    again = [Message(r, c, t, n) for r, c, t, n in archived_as]
    expected = [(m.role, m.content, t, m.sender) for m, t in zip(again, archive_times(again), strict=True)]
    assert [fields(m) for m in mem.iter_archive(copy)] == expected

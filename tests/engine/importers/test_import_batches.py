"""Imports of many conversations, stored a batch of sessions at a time (``engine.sessions.importing``).

Each batch is one write transaction for the archive, then every session's history.json: what comes out
must be what one append per conversation gave: every message once, history.json equal to the archive,
titles, a re-import adding nothing, keyword search finding the last conversation as soon as the import
returns, and a history.json that cannot be written taking back that session's messages only (the batch
stored while those files were written keeps its messages and gets its files).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import Memory
from engine.errors import EngineError
from engine.imported import ImportedSession
from engine.importers import chatgpt
from engine.messages import Message
from engine.sessions import importing
from engine.storage import atomic
from tests.engine.exportdata import T0, gpt_linear, write_json

CONVERSATIONS = 23


def export(tmp_path: Path) -> Path:
    conversations = [
        gpt_linear(f"c-{n:02d}", [f"question {n} word{n}x", f"answer {n}", f"follow-up {n}"], T0 + n * 100)
        for n in range(CONVERSATIONS)
    ]
    return write_json(tmp_path / "conversations.json", conversations)


def on_disk(memory: Memory, session: str) -> list[str]:
    return [r["content"] for r in json.loads(memory.paths.history_file(session).read_bytes())]


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importing, "BATCH_MESSAGES", 7)  # two conversations (6 messages) per batch


@pytest.mark.usefixtures("small_batches")
def test_a_batched_import_stores_each_conversation_as_one_append(tmp_path: Path, memory: Memory) -> None:
    sessions = chatgpt.read(export(tmp_path), None).sessions
    seen: list[int] = []
    report = memory.import_sessions(sessions, lambda done, total: seen.append(done))

    assert (report.sessions, report.messages_added, report.messages_already_present) == (23, 69, 0)
    assert seen == [*range(6, 69, 6), 69]  # after each batch of two conversations, the last one alone
    for n in range(CONVERSATIONS):
        session = f"gpt-c-{n:02d}"
        archived = [m.content for m in memory.iter_archive(session)]
        assert archived == [f"question {n} word{n}x", f"answer {n}", f"follow-up {n}"]
        assert on_disk(memory, session) == archived
        assert [m.content for m in memory.history(session)] == archived
        assert next(s for s in memory.sessions() if s.id == session).title == f"title of c-{n:02d}"

    again = memory.import_sessions(chatgpt.read(export(tmp_path), None).sessions)
    assert (again.messages_added, again.messages_already_present) == (0, 69)
    assert on_disk(memory, "gpt-c-22") == [m.content for m in memory.iter_archive("gpt-c-22")]


def test_the_last_conversation_is_keyword_searchable_when_the_import_returns(
    tmp_path: Path, memory: Memory
) -> None:
    memory.import_sessions(chatgpt.read(export(tmp_path), None).sessions)
    hits = memory.search("word22x", match="keyword", scope="all")
    assert [(h.message.session, h.message.content) for h in hits] == [("gpt-c-22", "question 22 word22x")]


def test_a_session_twice_in_one_import_gets_two_appends(memory: Memory) -> None:
    first = ImportedSession("twice", [Message("user", "one", T0 * 10**9)])
    second = ImportedSession("twice", [Message("assistant", "two", T0 * 10**9 + 1)])
    assert [len(b) for b in importing.batches([first, second])] == [1, 1]

    report = memory.import_sessions([first, second])
    assert report.messages_added == 2
    assert on_disk(memory, "twice") == ["one", "two"] == [m.content for m in memory.iter_archive("twice")]


def test_batches_keep_the_order_and_never_split_a_conversation() -> None:
    def item(name: str, count: int) -> ImportedSession:
        return ImportedSession(name, [Message("user", str(i), 0) for i in range(count)])

    items = [item("a", 3), item("b", 9), item("c", 2), item("d", 2), item("e", 1)]
    assert [[i.session for i in b] for b in importing.batches(items, size=4)] == [
        ["a"],
        ["b"],
        ["c", "d"],
        ["e"],
    ]
    assert [[i.session for i in b] for b in importing.batches(items, size=100, sessions=2)] == [
        ["a", "b"],
        ["c", "d"],
        ["e"],
    ]


@pytest.mark.usefixtures("small_batches")
def test_a_history_file_that_cannot_be_written_takes_back_its_session_only(
    tmp_path: Path, memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = atomic._write_tmp

    def write(tmp: Path, data: bytes | bytearray, mode: int) -> None:
        if tmp.name.startswith(".gpt-c-05.history.json."):  # the batch's files are written together
            raise OSError(28, "No space left on device")
        real_write(tmp, data, mode)

    monkeypatch.setattr(atomic, "_write_tmp", write)
    with pytest.raises(EngineError, match="disk is full"):
        memory.import_sessions(chatgpt.read(export(tmp_path), None).sessions)
    assert list(memory.iter_archive("gpt-c-05")) == []  # taken back
    assert len(list(memory.iter_archive("gpt-c-04"))) == 3  # its batch companion is stored
    assert not list((memory.paths.store_dir / "tmp").glob("*.tmp"))  # no temporary file left behind
    # The next batch's rows were stored while the failed batch's files were written (two batches
    # overlap): its files are written before the error is raised.
    for n in (6, 7):
        archived = [m.content for m in memory.iter_archive(f"gpt-c-{n:02d}")]
        assert len(archived) == 3 and on_disk(memory, f"gpt-c-{n:02d}") == archived
    assert not memory.exists("gpt-c-08")  # nothing after it

    monkeypatch.setattr(atomic, "_write_tmp", real_write)
    report = memory.import_sessions(chatgpt.read(export(tmp_path), None).sessions)
    # Stored before: c-00 to c-03 (two batches), c-04 (c-05's companion in the failed batch), and the
    # batch stored while that one's files were written: c-06 and c-07.
    assert (report.messages_added, report.messages_already_present) == (3 * (CONVERSATIONS - 7), 3 * 7)
    for n in range(CONVERSATIONS):
        archived = [m.content for m in memory.iter_archive(f"gpt-c-{n:02d}")]
        assert len(archived) == 3 and on_disk(memory, f"gpt-c-{n:02d}") == archived

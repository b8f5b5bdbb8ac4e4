"""An append that failed on a full disk, whose take-back failed too, and the client's retry: stored once."""

from __future__ import annotations

import errno
import json
from collections.abc import Callable

import pytest

from engine import Memory, Message
from engine.errors import StorageError
from engine.sessions import archive
from engine.sessions.historyfile import HotFiles
from tests.engine.conftest import FakeClock


def archived(mem: Memory, session: str) -> list[str]:
    with mem._store.read() as conn:
        return [
            r[0]
            for r in conn.execute("SELECT content FROM messages WHERE session_id = ? ORDER BY id", (session,))
        ]


def in_file(mem: Memory, session: str) -> list[str]:
    return [r["content"] for r in json.loads(mem.paths.history_file(session).read_bytes())]


def full_disk(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """history.json cannot be written (ENOSPC) and the archive rows cannot be taken back; returns undo."""

    def no_space(*_args: object, **_kwargs: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def no_delete(*_args: object, **_kwargs: object) -> None:
        raise StorageError("the disk is full: memtray could not save")

    monkeypatch.setattr(HotFiles, "append", no_space)
    monkeypatch.setattr(archive, "delete_range", no_delete)
    return monkeypatch.undo


@pytest.mark.parametrize("read_between", [False, True])
def test_a_retry_after_a_failed_take_back_is_stored_once(
    memory: Memory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch, read_between: bool
) -> None:
    """The failed rows stay in the archive; the retry takes them, whether a read replayed them into
    history.json before it or not."""
    memory.append("cli-a", [Message("user", "before", clock.advance(1))])
    batch = [
        Message("user", "sendAt: 2026-08-20 02:30:00\nthe question", clock.advance(1)),
        Message("assistant", "the answer", 0, "Bot"),
    ]
    restore = full_disk(monkeypatch)
    with pytest.raises(StorageError, match="disk is full"):
        memory.append("cli-a", batch)
    restore()
    assert archived(memory, "cli-a") == ["before", batch[0].content, "the answer"]  # the take-back failed
    expected = ["before", batch[0].content, "the answer"]
    assert in_file(memory, "cli-a") == ["before"]
    if read_between:  # a read finishes the file (the rows are shown, not acknowledged)
        assert [m.content for m in memory.history("cli-a")] == expected
    stored = memory.append("cli-a", batch)  # the client retries
    assert archived(memory, "cli-a") == expected
    assert in_file(memory, "cli-a") == expected
    assert [m.id for m in stored] == [m.id for m in memory.history("cli-a")[1:]]
    memory.append("cli-a", [Message("user", "after", clock.advance(1))])
    assert archived(memory, "cli-a") == [*expected, "after"]
    assert [m.content for m in memory.history("cli-a")] == [*expected, "after"]


def test_another_append_after_a_failed_take_back_writes_the_rows_once(
    memory: Memory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    failed = [Message("user", "never acknowledged", clock.advance(1))]
    restore = full_disk(monkeypatch)
    with pytest.raises(StorageError):
        memory.append("cli-a", failed)
    restore()
    memory.append("cli-a", [Message("user", "something else", clock.advance(1))])
    memory.append("cli-a", [Message("user", "never acknowledged", clock.advance(1))])  # not a retry: new time
    expected = ["never acknowledged", "something else", "never acknowledged"]
    assert archived(memory, "cli-a") == expected
    assert in_file(memory, "cli-a") == expected


def test_a_retry_of_a_failed_append_whose_take_back_worked_is_stored_once(
    memory: Memory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = [Message("user", "once", clock.advance(1))]

    def no_space(*_args: object, **_kwargs: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(HotFiles, "append", no_space)
    with pytest.raises(StorageError):
        memory.append("cli-a", batch)
    monkeypatch.undo()
    assert archived(memory, "cli-a") == []
    memory.append("cli-a", batch)
    assert archived(memory, "cli-a") == ["once"] and in_file(memory, "cli-a") == ["once"]

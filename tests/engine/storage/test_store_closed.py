"""A closed memory refuses late callers instead of opening its database again."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_a_closed_store_opens_no_connection_again(tmp_path: Path) -> None:
    """A late caller of a closed memory (a task still running when a repair put a new database in place)
    gets MemoryClosed; the file is not opened again behind the new one's back."""
    from engine import Memory, Message
    from engine.errors import MemoryClosed, StorageError

    mem = Memory.open(tmp_path / "home", background=False)
    mem.append("s", [Message("user", "before the close", 1_700_000_000 * 10**9)])
    mem.close()
    assert issubclass(MemoryClosed, StorageError)
    for late in (mem.sessions, lambda: mem.history("s"), lambda: mem.search("before", match="keyword")):
        with pytest.raises(MemoryClosed):
            late()
    with pytest.raises(MemoryClosed):
        mem.append("s", [Message("user", "after the close", 1_700_000_001 * 10**9)])
    with Memory.open(tmp_path / "home", background=False) as again:
        assert [m.content for m in again.history("s")] == ["before the close"]

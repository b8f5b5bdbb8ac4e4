"""The database's full check: never at an ordinary open, at most daily in the background, and at once when
the file's header does not match its size; damage found by any statement is reported as damage."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.errors import CorruptStore
from engine.storage import integrity, store
from tests.engine.conftest import FakeClock

T0 = 1_700_000_000 * 10**9
HOUR = 3600 * 10**9


def fill(home: Path, pairs: int = 200) -> None:
    with Memory.open(home, background=False) as mem:
        for n in range(pairs):
            mem.append(
                "cli-long",
                [
                    Message("user", f"q{n} " + "x" * 300, T0 + 2 * n),
                    Message("assistant", f"a{n}", T0 + 2 * n + 1),
                ],
            )


def garble_middle_leaf(db: Path, name: str = "messages") -> None:
    """Overwrite one of the leaf pages of table or index ``name`` (not the first: an open reads that one)."""
    source = sqlite3.connect(db)
    page = int(source.execute("PRAGMA page_size").fetchone()[0])
    leaves = [
        int(r[0])
        for r in source.execute(
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno", (name,)
        )
    ]
    source.close()
    assert len(leaves) > 2
    data = bytearray(db.read_bytes())
    start = (leaves[len(leaves) // 2] - 1) * page
    data[start : start + page] = bytes(range(256)) * (page // 256)
    db.write_bytes(bytes(data))


def test_an_open_runs_no_full_check(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fill(home, pairs=5)
    statements: list[str] = []
    connect = store._connect

    def traced(path: Path, *, frozen: bool = False) -> sqlite3.Connection:
        raw = connect(path, frozen=frozen)
        raw.set_trace_callback(statements.append)
        return raw

    monkeypatch.setattr(store, "_connect", traced)
    with Memory.open(home, background=False) as mem:
        assert mem.history("cli-long")
        assert mem.search("q1", match="keyword")
        assert not any("check" in s.lower() for s in statements), statements
        mem.check_integrity()
    assert any("quick_check" in s for s in statements)


def test_damage_an_open_does_not_read_is_found_by_the_check_and_by_a_reader(home: Path) -> None:
    fill(home)
    garble_middle_leaf(home / ".store" / "history.db")
    with Memory.open(home, background=False) as mem:  # the open reads none of the damaged page
        with pytest.raises(CorruptStore, match=r"damaged .*memtray repair"):
            mem.check_integrity(daily=True)
        assert not mem.paths.integrity_stamp.exists()  # a damaged database is checked again next time
        with pytest.raises(CorruptStore, match=r"damaged .*memtray repair"):
            mem.archived("cli-long")  # every row: the damaged page too


def test_the_daily_check_runs_at_most_once_a_day(memory: Memory, clock: FakeClock) -> None:
    assert memory.check_integrity(daily=True)
    assert int(memory.paths.integrity_stamp.read_text()) == clock.now
    assert not memory.check_integrity(daily=True)
    clock.now += 23 * HOUR
    assert not memory.check_integrity(daily=True)
    assert memory.check_integrity()  # asked for: runs whenever
    clock.now += 25 * HOUR
    assert memory.check_integrity(daily=True)
    memory.paths.integrity_stamp.write_text("garbage")
    assert memory.check_integrity(daily=True)  # an unreadable record: the check is due


def test_a_database_shorter_than_its_header_says_is_checked_in_full_at_open(home: Path) -> None:
    fill(home, pairs=50)
    db = home / ".store" / "history.db"
    assert integrity.header_fault(db) is None
    size = db.stat().st_size
    with db.open("r+b") as f:
        f.truncate(size // 2 + 100)
    assert "whole number" in (integrity.header_fault(db) or "")
    with db.open("r+b") as f:
        f.truncate(size // 2 // 4096 * 4096)
    assert "pages" in (integrity.header_fault(db) or "")
    with pytest.raises(CorruptStore, match=r"damaged .*memtray repair"):
        Memory.open(home, background=False)


def test_the_header_check_leaves_new_and_foreign_files_to_sqlite(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    foreign = tmp_path / "foreign.db"
    foreign.write_bytes(b"not sqlite" * 100)
    assert integrity.header_fault(empty) is None
    assert integrity.header_fault(foreign) is None
    assert integrity.header_fault(tmp_path / "missing.db") is None


def test_repair_checks_in_full_what_an_open_does_not_read(home: Path) -> None:
    fill(home, pairs=600)
    garble_middle_leaf(
        home / ".store" / "history.db", "ix_messages_session_time"
    )  # an index no read uses here
    problem = Memory.repair(home)
    assert problem.damaged and problem.moved_to is not None
    with Memory.open(home, background=False) as mem:
        assert mem.check_integrity()

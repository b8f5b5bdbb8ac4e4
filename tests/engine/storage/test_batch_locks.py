"""A batch's session locks (``SessionLocks.hold_all``): a plain ``flock`` when uncontended, the same lock
as ``hold`` takes through the file lock library, so it excludes other processes both ways, waits for a
holder, survives a lock file deleted under it, and a CLI appending to a session an import is writing
loses nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.embedders.hashing import HashEmbedder
from engine.errors import StoreLocked
from engine.imported import ImportedSession
from engine.storage import locks as locks_module
from engine.storage.locks import SessionLocks
from tests.clirun import run_cli

pytestmark = pytest.mark.skipif(os.name != "posix", reason="flock and deleting open files are POSIX")

ROOT = Path(__file__).resolve().parents[3]
CLI_APPENDS = 6

HOLDER = """
import sys, time
from pathlib import Path
from engine.storage.locks import SessionLocks
table = SessionLocks(Path(sys.argv[1]), timeout=float(sys.argv[3]))
try:
    with table.hold(sys.argv[2]):
        print("held", flush=True)
        time.sleep(float(sys.argv[4]))
except Exception as exc:
    print(type(exc).__name__, flush=True)
"""


def holder(locks_dir: Path, name: str, timeout: float, keep: float) -> subprocess.Popen[str]:
    """Another process taking ``name`` with ``hold`` (the file lock library), keeping it ``keep`` seconds."""
    return subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(locks_dir), name, str(timeout), str(keep)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_a_batch_excludes_another_process_and_is_excluded_by_it(tmp_path: Path) -> None:
    table = SessionLocks(tmp_path, timeout=0.3)
    with table.hold_all(["s2", "s1"]):
        assert "s1" in table._flocked and "s2" in table._flocked  # the fast path, uncontended
        other = holder(tmp_path, "s1", 0.3, 0)
        assert other.communicate(timeout=60)[0].strip() == "StoreLocked"
    other = holder(tmp_path, "s1", 5, 3)
    assert other.stdout is not None and other.stdout.readline().strip() == "held"
    with pytest.raises(StoreLocked), table.hold_all(["s0", "s1"]):
        pass
    assert not table._flocked and not table._counts().get("s0")  # what was taken was given back
    other.wait(timeout=60)


def test_a_batch_waits_for_a_holder_then_takes_the_lock(tmp_path: Path) -> None:
    table = SessionLocks(tmp_path, timeout=30)
    other = holder(tmp_path, "busy", 5, 1.0)
    assert other.stdout is not None and other.stdout.readline().strip() == "held"
    started = time.monotonic()
    with table.hold_all(["busy", "free"]):
        assert time.monotonic() - started > 0.3  # it waited for the other process
        assert "busy" not in table._flocked and "free" in table._flocked  # taken through the library
    assert other.wait(timeout=60) == 0


def test_a_batch_lock_is_reentrant_and_shared_with_hold_across_threads(tmp_path: Path) -> None:
    table = SessionLocks(tmp_path, timeout=0.3)
    inside: list[str] = []
    with table.hold_all(["a", "b"]):
        with table.hold("a"), table.hold_all(["b"]):  # the same thread again: no new file lock
            inside.append("nested")
        table.forget("a")  # held: the lock object stays
        assert table._thread_lock("a") is table._pair("a")[0]

        def other_thread() -> None:
            try:
                with table.hold("a"):
                    inside.append("other thread got it")
            except StoreLocked:
                inside.append("other thread waited")

        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
    assert inside == ["nested", "other thread waited"]
    assert not table._flocked
    with table.hold("a"):  # released: another taker gets it
        pass


def test_a_file_deleted_under_the_fast_path_is_locked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lock file its holder deleted (removing the session) between our open and our flock is no lock."""
    real = locks_module.fcntl.flock
    calls: list[int] = []

    def flock_then_lose_the_file(fd: int, op: int) -> None:
        real(fd, op)
        if op & locks_module.fcntl.LOCK_EX:
            calls.append(fd)
            if len(calls) == 1:
                (tmp_path / "w.lock").unlink()

    monkeypatch.setattr(locks_module.fcntl, "flock", flock_then_lose_the_file)
    table = SessionLocks(tmp_path)
    with table.hold_all(["w"]):
        assert len(calls) == 2 and (tmp_path / "w.lock").exists()
        fd = table._flocked["w"]
        assert os.fstat(fd).st_ino == (tmp_path / "w.lock").stat().st_ino


def test_removing_a_session_held_by_a_batch_deletes_its_lock_file(tmp_path: Path) -> None:
    table = SessionLocks(tmp_path)
    with table.hold_all(["gone", "kept"]):
        table.remove_files("gone")
        assert not (tmp_path / "gone.lock").exists() and (tmp_path / "kept.lock").exists()


def test_a_cli_appending_while_an_import_writes_the_session_loses_nothing(tmp_path: Path) -> None:
    """A real ``memtray append`` process on a session while this process imports batches into it (each
    batch's locks taken by ``hold_all``): every message once, in the archive and in history.json alike."""
    home = tmp_path / "home"
    memory = Memory.open(home, embedder=HashEmbedder())
    try:
        memory.update_settings(max_history_bytes=16_384)  # history.json compacts all along
        memory.append("shared", [Message("user", "first")])
        errors: list[str] = []

        def cli() -> None:
            for n in range(CLI_APPENDS):
                done = run_cli(
                    home, "append", "--session", "shared", "--role", "user", "--content", f"cli-{n}"
                )
                if done.returncode != 0:
                    errors.append(done.stderr)

        writer = threading.Thread(target=cli)
        writer.start()
        imported = 0
        while writer.is_alive() or imported < 3:
            batch = [
                ImportedSession(f"s{imported}-{k}", [Message("user", f"o{imported}-{k}")]) for k in range(40)
            ]
            texts = [f"import-{imported}-{i} " + "x" * 200 for i in range(50)]
            batch.append(ImportedSession("shared", [Message("user", text) for text in texts]))
            assert memory.import_sessions(batch).messages_added == 90
            imported += 1
        writer.join()
        assert not errors, errors
        history = [m.content for m in memory.history("shared")]
        cut = memory.compaction_cut("shared")
        with memory._store.read() as conn:
            rows = conn.execute(
                "SELECT id, content FROM messages WHERE session_id = ? ORDER BY id", ("shared",)
            ).all()
    finally:
        memory.close()
    contents = [str(r[1]) for r in rows]
    counts = Counter(contents)
    assert [c for c, k in counts.items() if k > 1] == []
    assert {f"cli-{n}" for n in range(CLI_APPENDS)} <= set(contents)
    assert sum(1 for c in contents if c.startswith("import-")) == 50 * imported
    assert len(contents) == 1 + CLI_APPENDS + 50 * imported
    assert history == [r[1] for r in rows if r[0] >= cut]  # history.json is the archive after the cut


def test_hold_all_without_waiting_takes_none_when_one_is_held_elsewhere(tmp_path: Path) -> None:
    table = SessionLocks(tmp_path / "locks", timeout=30)
    (tmp_path / "locks").mkdir()
    proc = holder(tmp_path / "locks", "b", 5, 30)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        started = time.monotonic()
        with pytest.raises(StoreLocked), table.hold_all(["a", "b", "c"], wait=False):
            pass
        assert time.monotonic() - started < 2  # at once, not after the 30 s timeout
        with table.hold_all(["a", "c"], wait=False):  # "a" was let go when "b" could not be had
            pass
    finally:
        proc.kill()
        proc.communicate(timeout=30)
    other = SessionLocks(tmp_path / "locks", timeout=0.5)  # another table of the same folder
    with table.hold_all(["a"]), pytest.raises(StoreLocked), other.hold_all(["a"], wait=False):
        pass
    with other.hold_all(["a", "b"], wait=False):  # nothing held any more
        pass

"""A repair runs alone: while another program holds the memory (``memtray mcp`` in a second real process,
or a memory open in this one) it refuses in one sentence and moves nothing; once that program let go,
it repairs. A repair interrupted at any step is finished by the next open or the next repair."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.embedders.hashing import HashEmbedder
from engine.errors import MemoryInUse
from engine.repair import journal as repairjournal
from engine.repair import rebuild as repair_module
from tests import rawdb
from tests.clirun import CLI, ROOT, run_cli

T0 = 1_700_000_000 * 1_000_000_000


def damaged_home(home: Path) -> list[str]:
    """A home whose database has one garbled hot row (the check finds it); returns the texts of s0."""
    with Memory.open(home, background=False, embedder=HashEmbedder()) as mem:
        mem.update_settings(max_history_bytes=4096)
        for n in range(0, 200, 10):
            mem.append("s0", [Message("user", f"note {n + i} " + "y" * 60, T0 + n + i) for i in range(10)])
        hot = mem.history("s0")
        texts = [m.content for m in mem.iter_archive("s0")]
    db = rawdb.connect(home / ".store" / "history.db")
    db.execute("UPDATE messages SET content = CAST(X'C3FF28' AS TEXT) WHERE id = ?", (hot[-3].id,))
    db.commit()
    db.close()
    return texts


def archived(home: Path) -> list[str]:
    with Memory.open(home, background=False, embedder=HashEmbedder()) as mem:
        return [m.content for m in mem.iter_archive("s0")]


def test_repair_refuses_while_memtray_mcp_holds_the_memory(tmp_path: Path) -> None:
    home = tmp_path / "home"
    texts = damaged_home(home)
    server = subprocess.Popen(
        [sys.executable, "-c", CLI, "--home", str(home), "mcp"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not list((home / ".store" / "holders").glob("*.lock")):
            assert time.monotonic() < deadline and server.poll() is None
            time.sleep(0.05)
        done = run_cli(home, "repair")
        assert done.returncode == 1, done.stdout + done.stderr
        assert (
            done.stderr.count("\n") == 1 and "other program" in done.stderr and "Traceback" not in done.stderr
        )
        assert not list((home / ".store").glob("history.db.corrupt-*"))  # nothing moved
        assert not (home / ".store" / repairjournal.NAME).exists()
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(60)
    done = run_cli(home, "repair")
    assert done.returncode == 0 and "moved aside" in done.stdout, done.stdout + done.stderr
    assert archived(home) == texts


def test_repair_refuses_while_a_memory_is_open_in_this_program(tmp_path: Path) -> None:
    home = tmp_path / "home"
    damaged_home(home)
    mem = Memory.open(home, background=False, embedder=HashEmbedder())
    try:
        with pytest.raises(MemoryInUse, match="other program"):
            Memory.repair(home)
    finally:
        mem.close()
    assert Memory.repair(home).damaged


class Killed(BaseException):
    """Stands for a SIGKILL at one step (the kill loops in tests/e2e kill real processes)."""


@pytest.mark.parametrize("step", ["moved", "built", "synced", "placed"])
def test_a_repair_stopped_after_any_step_is_finished_by_the_next_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    home = tmp_path / "home"
    texts = damaged_home(home)
    real_build, real_save, real_remove = repair_module._build, repairjournal.save, repairjournal.remove

    def build(*args: object, **kw: object) -> object:
        if step == "moved":
            raise Killed
        result = real_build(*args, **kw)  # type: ignore[arg-type]
        if step == "built":
            raise Killed
        return result

    def save(store_dir: Path, job: repairjournal.Journal) -> None:
        real_save(store_dir, job)
        if step == "synced" and job.report is not None:
            raise Killed

    def remove(store_dir: Path) -> None:
        if step == "placed":
            raise Killed
        real_remove(store_dir)

    monkeypatch.setattr(repair_module, "_build", build)
    monkeypatch.setattr(repair_module.journal, "save", save)
    monkeypatch.setattr(repair_module.journal, "remove", remove)
    with pytest.raises(Killed):
        Memory.repair(home)
    monkeypatch.undo()
    assert (home / ".store" / repairjournal.NAME).exists()
    assert archived(home) == texts  # the open finished it: nothing lost, nothing twice
    assert not (home / ".store" / repairjournal.NAME).exists()
    assert len(list((home / ".store").glob("history.db.corrupt-*[0-9]"))) == 1
    done = run_cli(home, "repair")
    assert "nothing to repair" in done.stdout


def test_memtray_repair_finishes_an_interrupted_repair_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    texts = damaged_home(home)

    def build(*args: object, **kw: object) -> object:
        raise Killed

    monkeypatch.setattr(repair_module, "_build", build)
    with pytest.raises(Killed):
        Memory.repair(home)
    monkeypatch.undo()
    assert not (home / ".store" / "history.db").exists()  # moved aside, nothing built yet
    checked = run_cli(home, "repair", "--check")
    assert checked.returncode == 1 and "interrupted" in checked.stdout
    done = run_cli(home, "repair")
    assert done.returncode == 0, done.stderr
    assert "an interrupted repair was found and finished" in done.stdout
    assert archived(home) == texts

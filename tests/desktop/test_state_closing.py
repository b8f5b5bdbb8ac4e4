"""The app's state while the memory closes: a refresh that runs into a closed memory ends quietly (the app
quits, or a repair took the memory's place), instead of logging its parts as failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from desktop.state import AppState, read_snapshot
from desktop.tasks import TaskRunner
from engine import Memory
from engine.embedders.hashing import HashEmbedder
from engine.errors import MemoryClosed


def test_a_snapshot_of_a_closed_memory_is_no_snapshot(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "home", embedder=HashEmbedder(), background=False)
    mem.close()
    with pytest.raises(MemoryClosed):
        read_snapshot(mem, None)


def test_a_refresh_that_finds_the_memory_closed_logs_no_warning(tmp_path: Path, qtbot: Any) -> None:
    """(The autouse ``fail_on_warnings`` fixture fails this test on any warning.)"""
    runner = TaskRunner()
    mem = Memory.open(tmp_path / "home", embedder=HashEmbedder(), background=False)
    try:
        state = AppState(runner)
        state.set_memory(mem, summaries=None, errors=None, keys=None, semantic=False)
        with qtbot.waitSignal(state.state_did_change, timeout=5000):
            state.refresh()
        before = state.snapshot
        mem.close()
        state.refresh()
        qtbot.waitUntil(lambda: not state._refreshing, timeout=5000)
        assert state.snapshot is before  # what was shown stays; nothing half-read replaces it
    finally:
        runner.shutdown()
        if not mem.closed:
            mem.close()

"""Embedding progress: the backlog and the re-embedding in the viewer's status bar; the embedder in settings."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from desktop import state as state_mod
from desktop.settings_window import SettingsWindow
from desktop.state import AppState, Snapshot
from desktop.tasks import TaskRunner
from desktop.viewer.window import ViewerWindow
from engine import Memory, Message
from engine.embedders.hashing import HashEmbedder
from engine.semantic.tier import SemanticStatus
from tests.desktop.conftest import BASE_NS


def test_status_bar_shows_the_backlog_then_clears(
    runner: TaskRunner, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(state_mod, "EMBED_POLL_MS", 50)
    home = tmp_path / "home"
    # No embedder thread in this memory: the appended messages wait in the queue.
    mem = Memory.open(home, embedder=HashEmbedder(), background=False)
    app_state = AppState(runner)
    try:
        mem.append("notes", [Message("user", f"note {i}", BASE_NS + i) for i in range(5)])
        app_state.set_memory(mem, summaries=None, errors=None, keys=None, semantic=True)
        viewer = ViewerWindow(app_state)
        qtbot.addWidget(viewer)
        with qtbot.waitSignal(app_state.state_did_change, timeout=5000):
            app_state.refresh()
        assert not viewer.embedding.isHidden()
        assert viewer.embedding.label.text() == "Embedding 0 of 5"  # no rate seen yet: no estimate
        assert (viewer.embedding.bar.maximum(), viewer.embedding.bar.value()) == (5, 0)
        # Another process (here a second Memory with its embedder thread) embeds the backlog; the
        # state keeps polling while messages wait, so the bar goes away by itself.
        other = Memory.open(home, embedder=HashEmbedder())
        try:
            assert other.wait_idle(30)
        finally:
            other.close()
        qtbot.waitUntil(lambda: viewer.embedding.isHidden(), timeout=5000)
        assert app_state.snapshot.embedding is not None and app_state.snapshot.embedding.queued == 0
    finally:
        app_state.detach()
        mem.close()


def test_reembedding_progress_callback_drives_the_bar(
    runner: TaskRunner, memory: Memory, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert memory.semantic is not None
    callbacks: list[Any] = []
    monkeypatch.setattr(memory.semantic, "set_progress", callbacks.append)
    app_state = AppState(runner)
    app_state.set_memory(memory, summaries=None, errors=None, keys=None, semantic=True)
    viewer = ViewerWindow(app_state)
    qtbot.addWidget(viewer)
    [callback] = callbacks
    seen: list[bool] = []
    app_state.reembed_did_progress.connect(
        lambda *_: seen.append(threading.current_thread() is threading.main_thread())
    )

    def report(done: int, total: int) -> None:  # as the engine's worker thread does
        worker = threading.Thread(target=callback, args=(done, total))
        worker.start()
        worker.join()

    with qtbot.waitSignal(app_state.reembed_did_progress, timeout=5000):
        report(3, 10)
    assert not viewer.embedding.isHidden()
    assert (viewer.embedding.bar.minimum(), viewer.embedding.bar.maximum()) == (0, 10)
    assert viewer.embedding.bar.value() == 3
    assert viewer.embedding.label.text() == "Re-embedding 3 of 10"
    with qtbot.waitSignal(app_state.reembed_did_progress, timeout=5000):
        report(7, 10)
    assert viewer.embedding.bar.value() == 7
    assert viewer.embedding.label.text().startswith("Re-embedding 7 of 10 · ")  # a rate was seen: a time
    with qtbot.waitSignal(app_state.state_did_change, timeout=5000):  # done: the state is re-read
        report(10, 10)
    assert app_state.reembedding is None
    qtbot.waitUntil(lambda: viewer.embedding.isHidden(), timeout=5000)
    assert seen == [True, True, True]  # delivered on the GUI thread


def test_a_real_embedder_switch_reports_to_the_gui_thread(
    runner: TaskRunner, memory: Memory, qtbot: Any
) -> None:
    assert memory.semantic is not None and memory.wait_idle(30)
    app_state = AppState(runner)
    app_state.set_memory(memory, summaries=None, errors=None, keys=None, semantic=True)
    viewer = ViewerWindow(app_state)
    qtbot.addWidget(viewer)
    reports: list[tuple[int, int]] = []
    app_state.reembed_did_progress.connect(lambda done, total: reports.append((done, total)))
    try:
        memory.semantic.switch_embedder(embedder=HashEmbedder(dim=64))
        qtbot.waitUntil(lambda: bool(reports) and reports[-1][0] == reports[-1][1], timeout=30000)
        total = reports[-1][1]
        assert total > 0 and all(t == total and 0 <= d <= t for d, t in reports)
        assert app_state.reembedding is None
        qtbot.waitUntil(lambda: viewer.embedding.isHidden(), timeout=5000)
    finally:
        app_state.detach()


def test_settings_window_shows_the_embedder_in_use_and_why(
    state: AppState, memory: Memory, qtbot: Any
) -> None:
    assert memory.wait_idle(30)
    with qtbot.waitSignal(state.state_did_change, timeout=5000):
        state.refresh()
    window = SettingsWindow(state)
    qtbot.addWidget(window)
    window.show()
    assert window.embedder_in_use.text() == "custom: embedder hash-512 was given by the caller"
    assert "re-embeds every message in the background" in window.embedder_note.text()
    assert window.embedder_note.isVisible()
    # While the model loads, the window says so; the label follows the state as it changes.
    old = state.snapshot
    state.snapshot = Snapshot(old.sessions, old.settings, embedding=SemanticStatus(None, 12))
    state.state_did_change.emit()
    assert window.embedder_in_use.text() == "loading… (12 messages waiting to be embedded)"
    state.detach()


def test_status_bar_shows_an_index_rebuild_then_clears(
    runner: TaskRunner, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(state_mod, "EMBED_POLL_MS", 50)
    mem = Memory.open(tmp_path / "home", embedder=HashEmbedder(), background=False)
    app_state = AppState(runner)
    try:
        mem.semantic._schedule_rebuild("notes")  # what a compaction does; this memory's worker is not running
        assert mem.semantic.status().rebuilding == 1
        app_state.set_memory(mem, summaries=None, errors=None, keys=None, semantic=True)
        viewer = ViewerWindow(app_state)
        qtbot.addWidget(viewer)
        mem.wait_idle(0)
        with qtbot.waitSignal(app_state.state_did_change, timeout=5000):
            app_state.refresh()
        assert not viewer.embedding.isHidden()
        assert viewer.embedding.label.text() == "Rebuilding the search index of 1 session…"
        # A memory without the background worker builds when asked (as a CLI search does), here on the
        # store worker; the state keeps polling while a rebuild waits, so the line goes away by itself.
        runner.run_query(mem.semantic.finish_rebuilds)
        qtbot.waitUntil(lambda: viewer.embedding.isHidden(), timeout=10000)
        assert mem.semantic.status().rebuilding == 0
    finally:
        app_state.detach()
        mem.close()

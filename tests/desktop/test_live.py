"""Live views: what the CLI changes (an append, a config change, a compaction, an error record) shows in
the viewer within seconds, through the change watch polled on the store worker. While the views follow,
the GUI thread runs no SQL at all: every SQLite connection opened during the test reports, statement by
statement, which thread ran it."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop import seams
from desktop.changes import ChangeWatch
from desktop.state import AppState
from desktop.tasks import TaskRunner
from desktop.viewer.window import ViewerWindow
from engine import Memory
from engine.embedders.hashing import HashEmbedder

ROOT = Path(__file__).resolve().parents[2]


class SqlOnTheGuiThread:
    """Wraps ``sqlite3.connect`` (and ``sqlite3.dbapi2.connect``, which SQLAlchemy calls): every statement
    of a connection made meanwhile records its thread."""

    def __init__(self) -> None:
        self.watching = False
        self.seen: list[str] = []
        self.statements = 0

    def connect(self, real: Any) -> Any:
        def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
            conn = real(*args, **kwargs)
            conn.set_trace_callback(self._trace)
            return conn

        return connect

    def _trace(self, statement: str) -> None:
        if not self.watching:
            return
        self.statements += 1
        if threading.current_thread() is threading.main_thread():
            self.seen.append(statement)


@pytest.fixture
def guard(monkeypatch: pytest.MonkeyPatch) -> SqlOnTheGuiThread:
    found = SqlOnTheGuiThread()
    monkeypatch.setattr(sqlite3, "connect", found.connect(sqlite3.connect))
    monkeypatch.setattr(sqlite3.dbapi2, "connect", found.connect(sqlite3.dbapi2.connect))  # SQLAlchemy's
    return found


@pytest.fixture
def live(
    guard: SqlOnTheGuiThread, seeded_home: Path, runner: TaskRunner, qtbot: Any
) -> Iterator[tuple[ViewerWindow, AppState, Memory]]:
    mem = Memory.open(seeded_home, embedder=HashEmbedder())  # after the guard: its connections report
    state = AppState(runner)
    state.set_memory(mem, summaries=None, errors=seams.errors_of(mem), keys=None, semantic=True)
    with qtbot.waitSignal(state.state_did_change, timeout=5000):
        state.refresh()
    watch = ChangeWatch(state)
    viewer = ViewerWindow(state)
    qtbot.addWidget(viewer)
    viewer.present()
    watch.start()
    guard.watching = True
    yield viewer, state, mem
    guard.watching = False
    watch.stop()
    state.detach()
    mem.close()


def cli(home: Path, *args: str) -> None:
    """``memtray --home HOME ARGS`` in its own process, as a person or an agent would run it."""
    subprocess.run(
        [sys.executable, "-m", "desktop.launcher", "--home", str(home), *args],
        check=True,
        cwd=ROOT,
        capture_output=True,
        timeout=60,
    )


def texts(viewer: ViewerWindow) -> list[str]:
    model = viewer.conversation.model
    return [m.content for m in (model.message(r) for r in range(model.rowCount())) if m is not None]


def test_the_viewer_follows_the_cli_without_sql_on_the_gui_thread(
    live: tuple[ViewerWindow, AppState, Memory], guard: SqlOnTheGuiThread, qtbot: Any
) -> None:
    viewer, state, mem = live
    home = mem.paths.home
    with qtbot.waitSignal(viewer.conversation.model.session_did_load, timeout=5000):
        viewer.sessions.select("proj-zh")
    assert len(texts(viewer)) == 4
    cli(home, "append", "--session", "proj-zh", "--role", "user", "--content", "from the command line")
    qtbot.waitUntil(lambda: "from the command line" in texts(viewer), timeout=8000)
    assert state.session("proj-zh") is not None and state.session("proj-zh").hot_messages == 5  # type: ignore[union-attr]
    cli(home, "append", "--session", "cli-new", "--role", "user", "--content", "a new session")
    qtbot.waitUntil(lambda: "cli-new" in viewer.sessions.visible_sessions(), timeout=8000)
    cli(home, "config", "summaries_enabled", "false")  # settings reach the app on the same signal
    qtbot.waitUntil(lambda: not state.snapshot.settings.summaries_enabled, timeout=8000)
    assert guard.statements > 0  # the guard saw the store worker's statements
    assert guard.seen == []


def test_a_compaction_by_the_cli_reloads_the_open_conversation(
    live: tuple[ViewerWindow, AppState, Memory], guard: SqlOnTheGuiThread, qtbot: Any, tmp_path: Path
) -> None:
    viewer, state, mem = live
    model = viewer.conversation.model
    with qtbot.waitSignal(model.session_did_load, timeout=5000):
        viewer.sessions.select("english-notes")
    lines = [
        json.dumps(
            {
                "role": "user" if i % 2 == 0 else "assistant",
                "content": f"reply {i} " + "x" * 300,
                "sendAt": 1_760_000_600 + i,
            }
        )
        for i in range(30)
    ]
    export = tmp_path / "more.jsonl"
    export.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cli(mem.paths.home, "import", "jsonl", str(export), "--session", "english-notes")
    qtbot.waitUntil(lambda: "reply 29 " + "x" * 300 in texts(viewer), timeout=8000)
    assert model.cut == 0
    cli(mem.paths.home, "config", "max_history_bytes", "4096")
    cli(mem.paths.home, "compact", "--session", "english-notes")
    qtbot.waitUntil(lambda: not model.loading and model.cut > 0, timeout=8000)
    info = state.session("english-notes")
    assert info is not None and info.archived_messages > 0
    assert viewer.conversation.title.text().endswith("compacted")
    assert guard.seen == []


def test_the_error_memory_loads_on_open_and_follows(
    live: tuple[ViewerWindow, AppState, Memory], guard: SqlOnTheGuiThread, qtbot: Any
) -> None:
    viewer, _state, mem = live
    panel = viewer.errors
    assert panel is not None
    viewer.tabs.setCurrentWidget(panel)
    qtbot.waitUntil(lambda: panel.status.text() == "0 records", timeout=5000)
    cli(
        mem.paths.home,
        "errors",
        "remember",
        "--tool",
        "fetch_page",
        "--symptom",
        "timeout after 30s",
        "--action",
        "retried with a longer timeout",
        "--outcome",
        "resolved",
    )
    qtbot.waitUntil(lambda: panel.model.rowCount() == 1, timeout=8000)
    assert panel.status.text() == "1 record"
    assert guard.seen == []

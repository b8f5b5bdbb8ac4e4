"""Watching agents' folders: off by default; when on, the import runs on the store worker on a timer and
the open conversation shows the new turns; the import dialog offers every format."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from desktop import agentwatch
from desktop.agentwatch import WATCH_MS, AgentWatch
from desktop.state import AppState
from desktop.viewer.importing import FORMATS, ImportDialog, import_words
from desktop.viewer.window import ViewerWindow
from engine.imported import ImportReport
from engine.importers import readers
from tests.engine.transcriptdata import (
    CC_SESSION,
    append_jsonl,
    cc_prompt,
    cc_reply,
    claude_code_lines,
    text,
    write_jsonl,
)


def save(state: AppState, **changes: Any) -> None:
    """Store settings as the settings window does (a later state refresh reads them back)."""
    assert state.memory is not None
    state.set_settings(state.memory.update_settings(**changes))


def test_off_by_default_and_on_within_a_minute(state: AppState, qtbot: Any, tmp_path: Path) -> None:
    watch = AgentWatch(state)
    assert not watch.watching  # the setting's default
    save(state, watch_agent_folders=True, agent_folders=[str(tmp_path / "none")])
    assert watch.watching and WATCH_MS <= 60_000
    save(state, watch_agent_folders=False)
    assert not watch.watching


def test_the_timer_job_runs_on_the_worker_and_the_view_updates(
    state: AppState, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    projects = tmp_path / "agents" / ".claude" / "projects"
    transcript = write_jsonl(projects / "-home-u-app" / f"{CC_SESSION}.jsonl", claude_code_lines()[:6])
    threads: list[bool] = []
    real = agentwatch.import_agent_folders

    def recorded(mem: Any, folders: Any) -> Any:
        threads.append(threading.current_thread() is threading.main_thread())
        return real(mem, folders)

    monkeypatch.setattr(agentwatch, "import_agent_folders", recorded)
    viewer = ViewerWindow(state)
    qtbot.addWidget(viewer)
    viewer.present()
    watch = AgentWatch(state)
    with qtbot.waitSignal(watch.did_import, timeout=5000) as first:
        save(state, watch_agent_folders=True, agent_folders=[str(projects)])
    assert first.args[0].messages_added == 2 and threads == [False]
    session = f"cc-{CC_SESSION}"
    qtbot.waitUntil(lambda: session in viewer.sessions.visible_sessions(), timeout=5000)
    model = viewer.conversation.model
    with qtbot.waitSignal(model.session_did_load, timeout=5000):
        viewer.open_session(session)
    assert model.rowCount() == 2

    append_jsonl(transcript, [cc_prompt(30, "one more thing"), cc_reply(31, [text("sure")])])
    with qtbot.waitSignal(model.rows_did_append, timeout=5000):
        watch.run_now()  # what the timer does every WATCH_MS; the viewer follows the state's refresh
    assert threads == [False, False]
    assert model.rowCount() == 4
    qtbot.waitUntil(lambda: model.message(3) is not None)
    assert model.message(3).content == "sure"  # type: ignore[union-attr]


def test_the_import_dialog_offers_every_format(qtbot: Any) -> None:
    dialog = ImportDialog()
    qtbot.addWidget(dialog)
    offered = [dialog.format.itemData(i) for i in range(dialog.format.count())]
    assert sorted(offered) == sorted(readers()) == sorted(fmt for fmt, _label in FORMATS)
    dialog.set_format("codex")
    assert "~/.codex/sessions" in dialog.about.text()


def test_the_report_names_transcripts_with_nothing_new() -> None:
    report = ImportReport(1, 2, 0, {"subagent transcript": 1}, unchanged=3)
    words = import_words(report, 0.5)
    assert words.startswith("Read 1 conversation in 0.5 s: 2 messages added.")
    assert "3 transcripts had nothing new since the last import." in words
    assert words.endswith("Left out: 1 × subagent transcript.")

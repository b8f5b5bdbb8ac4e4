"""The tray menu: built from state without I/O, and each action reaches the engine and reports back."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox

from desktop.chooser import SessionChooser
from desktop.operations import Operations, Outcome
from desktop.state import AppState
from desktop.tray import Tray, tooltip_text
from tests.desktop.fakes import FakeSummaries


@pytest.fixture
def tray(state: AppState, qtbot: Any) -> Tray:
    return Tray(state)


@pytest.fixture
def ops(state: AppState) -> Operations:
    return Operations(state)


def outcomes_of(ops: Operations) -> list[Outcome]:
    found: list[Outcome] = []
    ops.operation_did_finish.connect(found.append)
    return found


def test_menu_lists_recent_sessions_without_temporary_ones(tray: Tray, state: AppState) -> None:
    tray.rebuild()
    names = [a.objectName() for a in tray._all_actions(tray.menu) if a.objectName()]
    assert "continue:proj-zh" in names and "continue:english-notes" in names and "continue:long-chat" in names
    assert not any("temp-subagent" in n for n in names)
    assert names[:3] == ["status", "open-sessions", "search"]
    assert not tray.action("status").isEnabled() and tray.action("status").text() == "Up to date"
    assert "compact" in names and "reset" in names and "settings" in names and "quit" in names
    assert not tray.action("summarize").isEnabled()  # no summarizer in this build


def test_compact_and_reset_open_the_chooser(tray: Tray, state: AppState) -> None:
    asked: list[str] = []
    tray.actions.choose_requested.connect(asked.append)
    tray.action("compact").trigger()
    tray.action("reset").trigger()
    assert asked == ["compact", "reset"]


def test_opening_the_menu_does_no_io(tray: Tray, state: AppState, monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*_a: Any, **_k: Any) -> None:
        raise AssertionError("the menu touched the engine")

    assert state.memory is not None
    for name in ("sessions", "history", "search", "compact", "reset", "archive_page"):
        monkeypatch.setattr(state.memory, name, forbidden)
    tray.menu.aboutToShow.emit()
    assert tray.action("continue:proj-zh").text() == "我的電腦記憶體不足，該怎麼辦？"  # the session's title
    assert tray.action("continue:proj-zh").toolTip().endswith("proj-zh")


def test_tooltip_says_sessions_and_work(tray: Tray, state: AppState) -> None:
    text = tooltip_text(state)
    assert text.startswith("memtray — 3 sessions")
    assert "Up to date" in text


def test_compact_action_compacts_and_says_what_was_done(
    tray: Tray, ops: Operations, state: AppState, qtbot: Any
) -> None:
    assert state.memory is not None
    state.memory.update_settings(max_history_bytes=4096)
    chooser = SessionChooser(state, "compact")
    qtbot.addWidget(chooser)
    chooser.session_did_choose.connect(lambda _mode, session: ops.compact(session))
    found = outcomes_of(ops)
    with qtbot.waitSignal(ops.operation_did_finish, timeout=10_000):
        chooser.choose("long-chat")
    assert found[0].ok
    assert (
        found[0].title == "Compacted “long chat message 0: notes about the garden and the roses…”"
    )  # its title
    assert "messages moved to the archive" in found[0].text and " s." in found[0].text
    assert state.memory.compaction_cut("long-chat") > 0


def test_compact_all(state: AppState, ops: Operations, qtbot: Any) -> None:
    chooser = SessionChooser(state, "compact")
    qtbot.addWidget(chooser)
    chooser.all_did_choose.connect(lambda _mode: ops.compact(None))
    found = outcomes_of(ops)
    assert not chooser.all_button.isEnabled() and chooser.all_button.text() == "Compact all (0)"  # all under
    with qtbot.waitSignal(ops.operation_did_finish, timeout=10_000):
        ops.compact(None)
    assert found[0].title == "Nothing to compact"  # never "Compacted" when nothing moved
    assert found[0].text.startswith(
        "The recent history of all 4 sessions is not more than 3.2 MiB (the limit is 4.0 MiB)"
    )


def test_reset_asks_first_and_cancel_keeps_everything(
    tray: Tray, ops: Operations, state: AppState, qtbot: Any
) -> None:
    ops.ask_reset("proj-zh")
    box = ops.confirmation
    assert box is not None and box.isVisible()
    assert "Kept: the session's summary, and the error memory" in box.informativeText()
    assert "its 4 messages" in box.informativeText()
    box.button(QMessageBox.StandardButton.Cancel).click()
    qtbot.waitUntil(lambda: ops.confirmation is None)
    assert state.memory is not None
    assert len(state.memory.history("proj-zh")) == 4


def test_reset_confirmed_deletes_and_reports(
    tray: Tray, ops: Operations, state: AppState, qtbot: Any, screenshot: Any
) -> None:
    found = outcomes_of(ops)
    ops.ask_reset("english-notes")
    box = ops.confirmation
    assert box is not None
    screenshot(box, "reset-confirmation")
    reset_button = next(b for b in box.buttons() if b.text() == "Reset")
    with qtbot.waitSignal(ops.operation_did_finish, timeout=10_000):
        reset_button.click()
    assert found[0].ok
    assert found[0].text.startswith("4 messages deleted; summary and error memory kept")
    assert state.memory is not None
    assert state.memory.archive_page("english-notes") == []


def test_pause_summaries_toggles_the_setting(
    tray: Tray, ops: Operations, state: AppState, qtbot: Any
) -> None:
    tray.actions.pause_requested.connect(ops.set_summaries_paused)
    assert tray.action("pause").text() == "Pa&use summaries"
    with qtbot.waitSignal(state.state_did_change, timeout=5000):
        tray.action("pause").trigger()
    assert state.summaries_paused
    assert state.memory is not None and state.memory.settings.summaries_enabled is False
    tray.rebuild()
    assert tray.action("pause").text() == "Res&ume summaries"


def test_summarize_now_runs_every_pending_session_on_the_network_pool(state: AppState, qtbot: Any) -> None:
    fake = FakeSummaries()
    state.summaries = fake
    tray = Tray(state)
    ops = Operations(state)
    tray.actions.summarize_requested.connect(ops.summarize_now)
    found = outcomes_of(ops)
    tray.rebuild()
    assert tray.action("summarize").isEnabled()
    with qtbot.waitSignal(ops.operation_did_finish, timeout=5000):
        tray.action("summarize").trigger()
    assert fake.generated == ["proj-zh", "english-notes"]
    assert found[0].text.startswith("2 sessions summarized")


@pytest.mark.allow_warnings
def test_failure_is_reported_in_words(
    ops: Operations, state: AppState, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.errors import StoreLocked

    def locked(_session: str) -> None:
        raise StoreLocked("held by another process")

    assert state.memory is not None
    monkeypatch.setattr(state.memory, "compact", locked)
    found = outcomes_of(ops)
    with qtbot.waitSignal(ops.operation_did_finish, timeout=5000):
        ops.compact("proj-zh")
    assert not found[0].ok
    assert found[0].title == "Could not finish compacting “我的電腦記憶體不足，該怎麼辦？”"  # its title
    assert "Try again" in found[0].text

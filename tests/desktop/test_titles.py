"""Sessions are named by their titles wherever an id was shown (search results, the conversation header,
the operations' messages), elided in the middle with the whole title as tooltip; the sessions table keeps
room for titles."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QToolTip

from desktop.operations import Operations, Outcome
from desktop.state import AppState
from desktop.titles import elide_middle
from desktop.viewer.sessions import TITLE, TITLE_CHARS
from desktop.viewer.window import ViewerWindow
from engine import Memory

IMPORTED = (
    "Planning the kitchen renovation: electrician quotes, the tile order for March and who pays the deposit"
)
"""A title as ChatGPT exports give them: long, and alike at the start for related conversations."""


@pytest.fixture
def viewer(state: AppState, memory: Memory, qtbot: Any) -> ViewerWindow:
    memory.set_title("english-notes", IMPORTED)
    with qtbot.waitSignal(state.state_did_change, timeout=5000):
        state.refresh()
    window = ViewerWindow(state)
    qtbot.addWidget(window)
    window.resize(1000, 700)
    window.present()
    return window


def test_elide_middle_keeps_the_start_and_the_end() -> None:
    assert elide_middle("short", 10) == "short"
    assert elide_middle("abcdefghijklmnop", 9) == "abcd…mnop"
    assert len(elide_middle(IMPORTED)) == 60 and elide_middle(IMPORTED).endswith("who pays the deposit")
    assert elide_middle(IMPORTED) == "Planning the kitchen renovatio…arch and who pays the deposit"


def test_search_results_are_headed_by_titles(viewer: ViewerWindow, qtbot: Any, screenshot: Any) -> None:
    viewer.present("search")
    viewer.search.box.setText("budget")
    with qtbot.waitSignal(viewer.search.search_did_finish, timeout=5000):
        viewer.search.button.click()
    page = viewer.search.results_html(viewer.search.results)
    assert f"<b>{elide_middle(IMPORTED)}</b>" in page
    assert "<b>english-notes</b>" not in page
    assert viewer.search.result_tooltip(0) == f"{IMPORTED}\nenglish-notes"  # the whole title, and the id
    viewer.search.view.highlighted.emit(QUrl("memtray:result/0"))  # the pointer over a heading
    assert QToolTip.text() == f"{IMPORTED}\nenglish-notes"
    screenshot(viewer, "search-titles")


def test_the_conversation_is_headed_by_its_title_and_follows_a_rename(
    viewer: ViewerWindow, state: AppState, memory: Memory, qtbot: Any
) -> None:
    pane = viewer.conversation
    viewer.open_session("english-notes")
    qtbot.waitUntil(lambda: not pane.model.loading and "recent message" in pane.title.text(), timeout=5000)
    assert pane.title.text() == f"<b>{elide_middle(IMPORTED)}</b> — 4 recent messages"
    assert pane.title.toolTip() == f"{IMPORTED}\nenglish-notes"
    memory.set_title("english-notes", "Trip budget")
    with qtbot.waitSignal(state.state_did_change, timeout=5000):
        state.refresh()
    assert pane.title.text() == "<b>Trip budget</b> — 4 recent messages"  # at once, not reloaded
    assert pane.title.toolTip() == "Trip budget\nenglish-notes"


def test_the_sessions_table_keeps_room_for_titles(viewer: ViewerWindow, screenshot: Any) -> None:
    table = viewer.sessions.table
    least = table.fontMetrics().averageCharWidth() * TITLE_CHARS
    assert table.columnWidth(TITLE) >= least  # before: 4 characters at this size, the rest cut
    viewer.resize(1600, 900)
    viewer.sessions.fit_title()
    assert table.columnWidth(TITLE) > least  # wider: the title takes the room the others leave
    row = next(
        r
        for r in range(viewer.sessions.proxy.rowCount())
        if "kitchen" in viewer.sessions.proxy.index(r, 0).data()
    )
    assert viewer.sessions.proxy.index(row, 0).data() == IMPORTED  # the view elides it, in the middle
    assert table.textElideMode().name == "ElideMiddle"
    screenshot(viewer, "sessions-titles")


def test_reset_and_compact_messages_name_the_session_by_its_title(
    viewer: ViewerWindow, state: AppState, qtbot: Any
) -> None:
    ops = Operations(state)
    found: list[Outcome] = []
    ops.operation_did_finish.connect(found.append)
    with qtbot.waitSignal(ops.operation_did_finish, timeout=10_000):
        ops.compact("english-notes")
    with qtbot.waitSignal(ops.operation_did_finish, timeout=10_000):
        ops.reset("english-notes")
    assert found[0].title == f"Nothing to compact in “{elide_middle(IMPORTED)}”"
    assert found[1].title == f"Reset “{elide_middle(IMPORTED)}”"
    assert not any("english-notes" in o.title or "english-notes" in o.text for o in found)

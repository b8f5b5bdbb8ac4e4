"""Changing the memory from the viewer: Rename… (the title everywhere), Remove… and Forget… (each asks
first, Cancel is the default and keeps everything), and the chooser of Compact…/Reset… listing every
session, not only the latest eight."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from desktop.actions import AppActions
from desktop.chat.window import ChatWindow
from desktop.chooser import SessionChooser
from desktop.state import AppState
from desktop.tray import Tray
from desktop.viewer.window import ViewerWindow
from engine import Memory, Message
from engine.errors import NotFound
from tests.desktop.conftest import BASE_NS


@pytest.fixture
def viewer(state: AppState, qtbot: Any) -> ViewerWindow:
    window = ViewerWindow(state)
    qtbot.addWidget(window)
    window.present()
    return window


def finished(viewer: ViewerWindow, qtbot: Any) -> Any:
    return qtbot.waitSignal(viewer.editor.edit_did_finish, timeout=10_000)


def cancel_is_the_default(box: QMessageBox) -> None:
    cancel = box.button(QMessageBox.StandardButton.Cancel)
    assert cancel is not None and box.defaultButton() is cancel


def test_rename_shows_the_title_in_the_list_the_tray_and_the_chat(
    viewer: ViewerWindow, state: AppState, memory: Memory, qtbot: Any
) -> None:
    menu = viewer.sessions.menu_for("english-notes")
    [rename] = [a for a in menu.actions() if a.objectName() == "rename-session"]
    rename.trigger()
    dialog = viewer.editor.dialog
    assert dialog is not None and dialog.textValue() == "What did we decide about the database migration?"
    chat = ChatWindow(state, "english-notes")
    qtbot.addWidget(chat)
    dialog.setTextValue("Database migration")
    with finished(viewer, qtbot):
        dialog.accept()
    qtbot.waitUntil(lambda: state.session("english-notes").title == "Database migration", timeout=5000)  # type: ignore[union-attr]
    assert next(s for s in memory.sessions() if s.id == "english-notes").title_source == "user"
    row = viewer.sessions.visible_sessions().index("english-notes")
    assert viewer.sessions.proxy.index(row, 0).data() == "Database migration"
    tray = Tray(state, actions=AppActions(state))
    assert tray.action("continue:english-notes").text() == "Database migration"
    assert chat.windowTitle() == "memtray — chat Database migration"
    assert viewer.statusBar().currentMessage().startswith("Renamed: ")


def test_remove_asks_and_cancel_keeps_the_session(
    viewer: ViewerWindow, state: AppState, memory: Memory, qtbot: Any
) -> None:
    viewer.sessions.remove_requested.emit("proj-zh")
    box = viewer.editor.dialog
    assert isinstance(box, QMessageBox) and box.isVisible()
    cancel_is_the_default(box)
    assert "我的電腦記憶體不足" in box.text()  # by its title
    assert "its 4 messages" in box.informativeText() and "cannot be undone" in box.informativeText()
    box.button(QMessageBox.StandardButton.Cancel).click()
    qtbot.waitUntil(lambda: viewer.editor.dialog is None)
    assert memory.exists("proj-zh")
    viewer.sessions.remove_requested.emit("proj-zh")
    box = viewer.editor.dialog
    assert isinstance(box, QMessageBox)
    with finished(viewer, qtbot):
        next(b for b in box.buttons() if b.text() == "Remove").click()
    assert not memory.exists("proj-zh")
    qtbot.waitUntil(lambda: "proj-zh" not in viewer.sessions.visible_sessions(), timeout=5000)
    assert (
        viewer.statusBar()
        .currentMessage()
        .startswith("Removed “我的電腦記憶體不足，該怎麼辦？”: 4 messages deleted")
    )


def test_forget_asks_then_deletes_the_message_everywhere(
    viewer: ViewerWindow, state: AppState, memory: Memory, qtbot: Any
) -> None:
    model = viewer.conversation.model
    with qtbot.waitSignal(model.session_did_load, timeout=5000):
        viewer.sessions.select("proj-zh")
    message = model.message(2)
    assert message is not None and message.id is not None and message.content.startswith("幫我整理")
    menu = viewer.menu_for_message(message)
    [forget] = [a for a in menu.actions() if a.objectName() == "forget-message"]
    assert forget.isEnabled()
    forget.trigger()
    box = viewer.editor.dialog
    assert isinstance(box, QMessageBox)
    cancel_is_the_default(box)
    assert "幫我整理一下今天的會議紀錄" in box.text() and "summary is deleted too" in box.informativeText()
    box.reject()  # Escape: nothing is forgotten
    qtbot.waitUntil(lambda: viewer.editor.dialog is None)
    assert len(memory.history("proj-zh")) == 4
    [forget] = [a for a in viewer.menu_for_message(message).actions() if a.objectName() == "forget-message"]
    forget.trigger()
    box = viewer.editor.dialog
    assert isinstance(box, QMessageBox)
    with finished(viewer, qtbot):
        next(b for b in box.buttons() if b.text() == "Forget").click()
    assert [m.content for m in memory.history("proj-zh")].count(message.content) == 0
    with pytest.raises(NotFound):
        memory.forget_message(message.id)
    qtbot.waitUntil(lambda: not model.loading and model.rowCount() == 3, timeout=5000)  # reloaded
    unarchived = Message("user", "not archived", 1)  # no archive id: nothing to forget
    [not_there] = [
        a for a in viewer.menu_for_message(unarchived).actions() if a.objectName() == "forget-message"
    ]
    assert not not_there.isEnabled()


def test_the_chooser_lists_every_session_and_filters(state: AppState, memory: Memory, qtbot: Any) -> None:
    for i in range(12):
        memory.append(f"extra-{i:02d}", [Message("user", f"question number {i}", BASE_NS + i)])
    with qtbot.waitSignal(state.state_did_change, timeout=5000):
        state.refresh()
    assert len(state.recent_sessions()) == 8  # what the tray menu's Continue ▸ shows
    chooser = SessionChooser(state, "reset")
    qtbot.addWidget(chooser)
    chooser.show()
    listed = chooser.sessions.visible_sessions()
    assert len(listed) == 15 and {"proj-zh", "english-notes", "long-chat", "extra-00"} <= set(listed)
    assert not chooser.choose_button.isEnabled()  # nothing chosen yet
    columns = [
        chooser.sessions.proxy.headerData(c, Qt.Orientation.Horizontal)
        for c in range(chooser.sessions.proxy.columnCount())
        if not chooser.sessions.table.isColumnHidden(c)
    ]
    assert columns == ["Session", "Last message", "Recent", "Archived", "Size"]
    chooser.sessions.filter.setText("question number 1")  # the title
    assert sorted(chooser.sessions.visible_sessions()) == ["extra-01", "extra-10", "extra-11"]
    chosen: list[tuple[str, str]] = []
    chooser.session_did_choose.connect(lambda mode, sid: chosen.append((mode, sid)))
    assert chooser.sessions.select("extra-10")
    assert chooser.choose_button.isEnabled()
    chooser.choose_button.click()
    assert chosen == [("reset", "extra-10")] and not chooser.isVisible()

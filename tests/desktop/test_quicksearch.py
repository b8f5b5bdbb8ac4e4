"""Search memory…: opened from the tray and the menu bar, searching as you type, Up/Down/Enter/Esc, pages;
``memtray --search`` reaches the running app."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QPalette
from PySide6.QtWidgets import QApplication

from desktop.app import Memtray
from desktop.hotkeys.keys import ShortcutTaken
from desktop.viewer.hits import MAX_RESULTS, PAGE
from engine import Memory
from engine.paths import Paths


@pytest.fixture
def app(qapp: QApplication, memory: Memory, qtbot: Any) -> Iterator[Memtray]:
    memtray = Memtray(
        qapp, Paths.resolve(memory.paths.home), tray_available=True, open_memory=lambda _h: memory
    )
    with qtbot.waitSignal(memtray.memory_did_open, timeout=10_000):
        memtray.start()
    qtbot.waitUntil(lambda: bool(memtray.state.snapshot.sessions), timeout=5000)
    yield memtray
    memtray.stop()


def type_and_wait(window: Any, qtbot: Any, text: str) -> list[Any]:
    with qtbot.waitSignal(window.search_did_finish, timeout=5000) as blocker:
        window.box.setText(text)  # setText, never keyClicks, for non-ASCII text
    return blocker.args[0]


def test_search_memory_opens_from_the_tray_menu_and_the_menu_bar(app: Memtray, qtbot: Any) -> None:
    assert app.tray is not None
    app.tray.rebuild()  # as when the menu opens
    action = app.tray.action("quick-search")
    assert action.text() == "Search &memory…" and action.isEnabled()  # offscreen: no keys beside it
    action.trigger()
    window = app.quick_search
    assert window is not None and window.isVisible()
    assert window.hint.text() == "This desktop offers memtray no global shortcut."
    window.hide()
    viewer = app.show_viewer()
    viewer.action("quick-search").trigger()
    assert window.isVisible() and app.quick_search is window  # one window, shown again


def test_typing_searches_and_enter_opens_the_conversation_at_the_hit(
    app: Memtray, qtbot: Any, screenshot: Any
) -> None:
    window = app.show_quick_search()
    with qtbot.waitSignal(window.search_did_finish, timeout=5000) as blocker:
        qtbot.keyClicks(window.box, "kiwi")
    results = blocker.args[0]  # keywords and meaning (the app has the semantic tier): the match first
    assert "kiwi" in results[0].hit.message.content and results[0].hit.message.session == "long-chat"
    target = results[0].hit.message.id
    row = window.model.rows_html[0]
    marked = window.list.palette().color(QPalette.ColorRole.Highlight).name()
    assert f"background-color:{marked}" in row and ">kiwi</span>" in row
    assert row.startswith("<b>long chat message 0:")  # the session's title (its first user message)
    tip = window.model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert tip == "long chat message 0: notes about the garden and the roses…\nlong-chat"  # whole title, id
    screenshot(window, "quick-search")
    viewer_opened = qtbot.waitSignal(app.show_viewer().conversation.message_did_reveal, timeout=5000)
    with viewer_opened as revealed:
        qtbot.keyClick(window.box, Qt.Key.Key_Return)
    assert revealed.args == [target]
    assert not window.isVisible()
    viewer = app.viewer
    assert viewer is not None and viewer.isVisible()
    assert viewer.tabs.currentWidget() is viewer.conversation
    current = viewer.conversation.list.currentIndex()
    assert viewer.conversation.model.message(current.row()).id == target  # type: ignore[union-attr]
    assert "kiwi fruit harvest" in viewer.conversation.detail.toPlainText()


def test_up_down_move_pages_load_and_esc_closes(app: Memtray, qtbot: Any) -> None:
    window = app.show_quick_search()
    results = type_and_wait(window, qtbot, "garden roses")
    assert len(results) == PAGE and window.status.text() == f"{PAGE} of {MAX_RESULTS}+ results"
    assert window.more_button.isVisible() and window.current() == 0
    qtbot.keyClick(window.box, Qt.Key.Key_Down)
    assert window.current() == 1
    qtbot.keyClick(window.box, Qt.Key.Key_Up)
    qtbot.keyClick(window.box, Qt.Key.Key_Up)
    assert window.current() == 0  # stays at the first
    for _ in range(PAGE - 1):
        window.step(1)
    assert window.current() == PAGE - 1
    with qtbot.waitSignal(window.page_did_load, timeout=5000):
        qtbot.keyClick(window.box, Qt.Key.Key_Down)  # past the last: the next page
    assert window.model.rowCount() == 2 * PAGE
    assert window.status.text() == f"{2 * PAGE} of {MAX_RESULTS}+ results"
    qtbot.keyClick(window.box, Qt.Key.Key_Down)
    assert window.current() == PAGE
    qtbot.keyClick(window.box, Qt.Key.Key_Escape)
    assert not window.isVisible()


def test_chinese_and_enter_before_the_answer(app: Memtray, qtbot: Any) -> None:
    window = app.show_quick_search()
    window.box.setText("記憶體")
    viewer = app.show_viewer()
    window.present()
    with qtbot.waitSignal(viewer.conversation.message_did_reveal, timeout=5000):
        qtbot.keyClick(window.box, Qt.Key.Key_Enter)  # before the typing pause ended
    current = viewer.conversation.list.currentIndex()
    opened = viewer.conversation.model.message(current.row())
    assert opened is not None and opened.session == "proj-zh" and "記憶體" in opened.content
    window.present()
    app.state.semantic = False  # keywords only: meaning always finds something
    assert type_and_wait(window, qtbot, "zzzz-nothing") == []
    assert window.status.text() == "No results."
    window.box.clear()
    assert window.model.rowCount() == 0 and window.status.text() == ""


@pytest.mark.allow_warnings
def test_keys_taken_by_another_app_are_reported(
    qapp: QApplication, memory: Memory, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop.hotkeys import GlobalShortcut
    from desktop.tray import Tray

    def taken(self: Any, platform: str, keys: Any) -> Any:
        raise ShortcutTaken("grabbed by another X client")

    shown: list[tuple[str, str, bool]] = []
    monkeypatch.setattr(GlobalShortcut, "_make", taken)
    monkeypatch.setattr(
        Tray, "show_message", lambda self, title, text, ok=True: shown.append((title, text, ok))
    )
    memtray = Memtray(
        qapp, Paths.resolve(memory.paths.home), tray_available=True, open_memory=lambda _h: memory
    )
    try:
        memtray.start()
        assert memtray.shortcut.status.state == "taken"
        assert shown and shown[0][2] is False
        assert shown[0][1].startswith("Ctrl+Alt+M is already used by another app")
        window = memtray.show_quick_search()
        assert "already used by another app" in window.hint.text()
    finally:
        memtray.stop()


def test_the_first_keystroke_answers_by_keywords_and_meaning_joins(app: Memtray, qtbot: Any) -> None:
    """The first keystroke is searched at once, by keywords while the model is not warm; once the state
    says it is (the warm-up at start), the same words are searched again, by meaning too."""
    qtbot.waitUntil(lambda: app.state.meaning_ready, timeout=10_000)  # the real warm-up at start
    app.state.meaning_ready = False  # as in the first seconds after start, before the model loaded
    window = app.show_quick_search()
    started: list[bool] = []
    window.searcher.search_did_start.connect(lambda: started.append(True))
    with qtbot.waitSignal(window.search_did_finish, timeout=5000):
        window.box.setText("budget")
        assert started  # at once: no wait for the typing pause
    found = window.searcher.found
    assert found is not None and found.query.match == "keyword" and window.results
    with qtbot.waitSignal(window.search_did_finish, timeout=5000):
        app.state.meaning_ready = True
        app.state.meaning_did_become_ready.emit()
    found = window.searcher.found
    assert found is not None and found.query.match == "hybrid" and window.results


def test_the_shortcut_is_set_in_settings_and_applies_at_once(
    app: Memtray, memory: Memory, qtbot: Any
) -> None:
    """Settings… holds the global shortcut; saving other keys makes the app hold those at once (here
    offscreen, where the platform has none: the status names the new keys), and empty means none."""
    settings = app.show_settings()
    field = settings.search_keys
    assert field.keySequence().toString() == "Ctrl+Alt+M"
    assert "no global shortcut" in settings.shortcut_status.text()  # offscreen: said in words
    field.setKeySequence(QKeySequence("Ctrl+Alt+K"))
    with qtbot.waitSignal(settings.settings_did_save, timeout=5000):
        settings.save()
    assert memory.settings.search_shortcut == "Ctrl+Alt+K"
    qtbot.waitUntil(lambda: "K" in app.shortcut.status.keys, timeout=5000)
    assert app.shortcut.status.keys != "Ctrl+Alt+M"
    field.clear()
    with qtbot.waitSignal(settings.settings_did_save, timeout=5000):
        settings.save()
    assert memory.settings.search_shortcut == ""
    qtbot.waitUntil(lambda: app.shortcut.status.keys == "", timeout=5000)
    assert app.actions.quick_search_keys == ""

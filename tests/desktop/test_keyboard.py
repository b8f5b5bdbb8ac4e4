"""The keyboard and screen readers: Tab walks through every pane of the viewer and the settings window and
comes back, each control it reaches has a name a screen reader reads (and says what it is for); Esc
hides, Ctrl+W closes; F2 and Delete act on the current session; the sort arrow points the way the
sessions run."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QAccessible, QColor, QKeySequence, QPainter, QPixmap
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QStyle, QStyleOptionHeader, QWidget

from desktop.settings_window import SettingsWindow
from desktop.state import AppState
from desktop.viewer.window import ViewerWindow


def tab_walk(window: QWidget, first: QWidget, limit: int = 60) -> list[QWidget]:
    """The widgets Tab reaches from ``first`` until it comes back to it."""
    window.activateWindow()
    first.setFocus(Qt.FocusReason.TabFocusReason)
    assert QApplication.focusWidget() is first
    seen = [first]
    for _ in range(limit):
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        now = QApplication.focusWidget()
        assert now is not None
        if now is first:
            return seen
        assert now not in seen, f"Tab went round without coming back to the start: {names([*seen, now])}"
        seen.append(now)
    raise AssertionError(f"Tab never came back: {names(seen)}")


def spoken(widget: QWidget) -> tuple[str, str]:
    """What a screen reader says of ``widget``: its accessible name and description."""
    face = QAccessible.queryAccessibleInterface(widget)
    assert face is not None
    return face.text(QAccessible.Text.Name), face.text(QAccessible.Text.Description)


def activate(window: QWidget, qtbot: Any) -> None:
    window.show()
    window.raise_()
    window.activateWindow()
    handle = window.windowHandle()
    assert handle is not None
    handle.requestActivate()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)


def names(widgets: list[QWidget]) -> list[str]:
    return [w.objectName() or type(w).__name__ for w in widgets]


@pytest.fixture
def viewer(state: AppState, qtbot: Any) -> ViewerWindow:
    window = ViewerWindow(state)
    qtbot.addWidget(window)
    activate(window, qtbot)
    with qtbot.waitSignal(window.conversation.model.session_did_load, timeout=5000):
        window.sessions.select("english-notes")
    return window


def test_tab_walks_every_pane_of_the_viewer_and_each_control_has_a_name(viewer: ViewerWindow) -> None:
    walked = tab_walk(viewer, viewer.sessions.filter)
    reached = set(names(walked))
    for needed in (
        "sessions-filter",
        "sessions-table",
        "qt_tabwidget_tabbar",
        "conversation-list",
        "message-detail",
    ):
        assert needed in reached, f"Tab never reaches {needed}: {names(walked)}"
    assert {"copy", "export"} <= reached
    for widget in walked:
        name, _description = spoken(widget)
        assert name.strip(), f"{names([widget])} has no accessible name"
        assert name not in ("edit", "table", "list"), name
    described = [w for w in walked if spoken(w)[1].strip()]
    assert len(described) >= len(walked) // 2, [names([w]) for w in walked if w not in described]
    viewer.tabs.setCurrentWidget(viewer.search)
    walked = tab_walk(viewer, viewer.search.box)
    assert {"search-box", "search-results"} <= set(names(walked)), names(walked)
    assert all(spoken(w)[0].strip() for w in walked), [names([w]) for w in walked if not spoken(w)[0]]


def test_tab_walks_the_settings_window(state: AppState, qtbot: Any) -> None:
    window = SettingsWindow(state)
    qtbot.addWidget(window)
    activate(window, qtbot)
    window.focusNextChild()
    first = QApplication.focusWidget()
    assert isinstance(first, QWidget) and first.window() is window
    walked = tab_walk(window, first)
    assert len(walked) >= 5
    assert all(spoken(w)[0].strip() for w in walked), [names([w]) for w in walked if not spoken(w)[0]]


@pytest.mark.parametrize("key", ["Esc", "Ctrl+W"])
def test_esc_hides_and_ctrl_w_closes_the_viewer(viewer: ViewerWindow, key: str) -> None:
    QTest.keySequence(viewer.sessions.table, QKeySequence(key))
    assert not viewer.isVisible()  # with a tray, closing the viewer hides it too


@pytest.mark.parametrize("key", ["Esc", "Ctrl+W"])
def test_esc_and_ctrl_w_close_the_settings(state: AppState, qtbot: Any, key: str) -> None:
    settings = SettingsWindow(state)
    qtbot.addWidget(settings)
    activate(settings, qtbot)
    QTest.keySequence(settings.focusWidget() or settings, QKeySequence(key))
    assert not settings.isVisible()


def test_the_main_window_ignores_esc(viewer: ViewerWindow) -> None:
    viewer.become_main_window("no tray")
    QTest.keyClick(viewer.sessions.table, Qt.Key.Key_Escape)
    assert viewer.isVisible()


def test_f2_and_delete_act_on_the_current_session(viewer: ViewerWindow, qtbot: Any) -> None:
    table = viewer.sessions.table
    table.setFocus()
    with qtbot.waitSignal(viewer.sessions.rename_requested) as rename:
        QTest.keyClick(table, Qt.Key.Key_F2)
    assert rename.args == ["english-notes"]
    with qtbot.waitSignal(viewer.sessions.remove_requested) as remove:
        QTest.keyClick(table, Qt.Key.Key_Delete)
    assert remove.args == ["english-notes"]
    box = viewer.editor.dialog
    assert isinstance(box, QMessageBox) and box.isVisible()  # Delete asks first, as Remove… does
    box.reject()


def test_the_sort_arrow_points_down_for_newest_first(viewer: ViewerWindow) -> None:
    header = viewer.sessions.table.horizontalHeader()
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder  # newest first
    base = QApplication.style()

    def arrow(style: QStyle, indicator: QStyleOptionHeader.SortIndicator) -> Any:
        picture = QPixmap(16, 16)
        picture.fill(QColor("white"))
        painter = QPainter(picture)
        option = QStyleOptionHeader()
        option.rect, option.sortIndicator, option.palette = QRect(0, 0, 16, 16), indicator, header.palette()
        style.drawPrimitive(QStyle.PrimitiveElement.PE_IndicatorHeaderArrow, option, painter, None)
        painter.end()
        return picture.toImage()

    up, down = QStyleOptionHeader.SortIndicator.SortUp, QStyleOptionHeader.SortIndicator.SortDown
    assert arrow(header.style(), up) == arrow(base, down)  # Qt asks for "up" when descending: drawn down
    assert arrow(base, up) != arrow(base, down)


@pytest.mark.parametrize("which", ["chat", "quick search", "about", "import"])
def test_tab_walks_the_other_windows_and_names_what_it_reaches(
    which: str, state: AppState, viewer: ViewerWindow, qtbot: Any
) -> None:
    from desktop.about import AboutDialog
    from desktop.chat.window import ChatWindow
    from desktop.quicksearch import QuickSearchWindow
    from engine.paths import Paths

    window: QWidget
    if which == "chat":
        window = ChatWindow(state, "english-notes")
    elif which == "quick search":
        window = QuickSearchWindow(state)
    elif which == "about":
        assert state.memory is not None
        window = AboutDialog(state.runner, Paths.resolve(state.memory.paths.home))
    else:
        window = viewer.show_import()
    qtbot.addWidget(window)
    activate(window, qtbot)
    window.focusNextChild()
    first = QApplication.focusWidget()
    assert isinstance(first, QWidget) and first.window() is window
    walked = tab_walk(window, first)
    assert walked
    nameless = [names([w]) for w in walked if not spoken(w)[0].strip()]
    assert not nameless, (which, nameless, names(walked))

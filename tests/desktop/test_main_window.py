"""Without a system tray the viewer is the whole app: its menu bar holds every tray command, and each
does what the tray's does; closing it quits. Also the first-run welcome page and the About dialog."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication

from desktop.actions import AppActions, all_actions
from desktop.app import Memtray
from desktop.tray import Tray
from desktop.viewer.welcome import WelcomePanel
from engine.paths import Paths

SIGNALS = [name for name in dir(AppActions) if name.endswith("_requested")]


def boot(qapp: QApplication, home: Path, qtbot: Any, *, tray: bool, sessions: bool = True) -> Memtray:
    memtray = Memtray(qapp, Paths.resolve(home), tray_available=tray)
    with qtbot.waitSignal(memtray.memory_did_open, timeout=10_000):
        memtray.start()
    qtbot.waitUntil(lambda: memtray.state.has_snapshot, timeout=5000)
    if sessions:
        qtbot.waitUntil(lambda: bool(memtray.state.snapshot.sessions), timeout=5000)
    return memtray


@pytest.fixture
def app(qapp: QApplication, seeded_home: Path, qtbot: Any) -> Iterator[Memtray]:
    memtray = boot(qapp, seeded_home, qtbot, tray=False)
    yield memtray
    memtray.stop()


class Opened(QObject):
    """Receives the file URLs QDesktopServices would open (instead of a file manager)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url.toLocalFile())


@pytest.fixture
def opened() -> Iterator[Opened]:
    receiver = Opened()
    QDesktopServices.setUrlHandler("file", receiver, "open")
    yield receiver
    QDesktopServices.unsetUrlHandler("file")


def names(actions: list[Any]) -> list[str]:
    return [a.objectName() for a in actions if not a.isSeparator() and a.objectName()]


@pytest.mark.allow_warnings  # "no system tray" is a warning
def test_the_menu_bar_holds_every_command_of_the_tray_menu(app: Memtray) -> None:
    viewer = app.viewer
    assert viewer is not None and viewer.isVisible() and viewer.is_main_window
    tray = Tray(app.state, actions=app.actions)
    all_tray_names = names(all_actions(tray.menu))
    assert all_tray_names[0] == "status" and not tray.action("status").isEnabled()
    tray_names = [n for n in all_tray_names if not n.startswith("status")]  # the window: its status bar
    bar_names = [n for n in names(all_actions(viewer.menuBar())) if not n.startswith("menu-")]
    assert sorted(tray_names) == sorted(bar_names)
    assert viewer.status_line.plain_text() == tray.action("status").text() == "Up to date"
    for required in (
        "settings",
        "new-chat",
        "summarize",
        "pause",
        "pause-embedding",
        "compact",
        "reset",
        "quit",
        "about",
    ):
        assert required in bar_names, required
    for name in tray_names:  # same text, same state
        a, b = tray.action(name), viewer.action(name)
        assert (a.text(), a.isEnabled(), a.toolTip()) == (b.text(), b.isEnabled(), b.toolTip()), name
    assert viewer.action("quit").shortcut().toString()  # keyboard shortcuts in the window only
    assert not tray.action("quit").shortcut().toString()


@pytest.mark.allow_warnings
def test_each_command_of_the_menu_bar_asks_what_the_tray_s_asks(app: Memtray) -> None:
    """Both layouts emit the same request with the same arguments (the app connects each once)."""
    viewer = app.viewer
    assert viewer is not None
    probe = AppActions(app.state)  # the same list, connected to a recorder instead of the app
    heard: list[tuple[str, tuple[Any, ...]]] = []
    for signal in SIGNALS:
        getattr(probe, signal).connect(lambda *args, signal=signal: heard.append((signal, args)))
    tray = Tray(app.state, actions=probe)
    menus = probe.fill_menu_bar(viewer.menuBar())
    for name in names(all_actions(tray.menu)):
        if tray.action(name).menu() is not None:
            continue
        heard.clear()
        tray.action(name).trigger()
        from_tray = list(heard)
        heard.clear()
        next(a for menu in menus.values() for a in all_actions(menu) if a.objectName() == name).trigger()
        assert heard == from_tray and len(heard) == 1, (name, heard, from_tray)


@pytest.mark.allow_warnings
def test_the_menu_bar_opens_the_windows_and_runs_the_operations(app: Memtray, qtbot: Any) -> None:
    viewer = app.viewer
    assert viewer is not None
    viewer.action("settings").trigger()
    assert app.settings_window is not None and app.settings_window.isVisible()
    viewer.action("about").trigger()
    assert app.about_dialog is not None and app.about_dialog.isVisible()
    viewer.action("new-chat").trigger()
    assert len(app.chat_windows) == 1
    viewer.action("continue:proj-zh").trigger()
    assert "proj-zh" in app.chat_windows and app.chat_windows["proj-zh"].isVisible()
    viewer.action("search").trigger()
    assert viewer.tabs.currentWidget() is viewer.search
    viewer.action("open-sessions").trigger()
    assert viewer.tabs.currentWidget() is viewer.conversation
    viewer.action("import").trigger()
    assert viewer.import_dialog is not None and viewer.import_dialog.isVisible()
    outcomes: list[Any] = []
    app.operations.operation_did_finish.connect(outcomes.append)
    viewer.action("compact").trigger()
    chooser = app.chooser
    assert chooser is not None and chooser.isVisible() and chooser.mode == "compact"
    assert not chooser.all_button.isEnabled()  # every session is under the limit: nothing to compact
    with qtbot.waitSignal(app.operations.operation_did_finish, timeout=10_000):
        app.operations.compact(None)
    assert outcomes[0].title == "Nothing to compact"
    assert viewer.statusBar().currentMessage().startswith("Nothing to compact: ")  # told in the window
    viewer.action("reset").trigger()
    assert chooser.isVisible() and chooser.mode == "reset" and chooser.all_button.isHidden()
    assert chooser.sessions.select("english-notes")
    chooser.choose_button.click()
    box = app.operations.confirmation
    assert box is not None and "What did we decide about the database migration?" in box.text()
    box.reject()
    viewer.action("compact").trigger()  # after a Reset visit: the chooser opens fresh, Enter runs nothing
    assert chooser.isVisible() and chooser.mode == "compact" and chooser.sessions.current_session() is None
    qtbot.keyClick(chooser, Qt.Key.Key_Return)
    qtbot.wait(100)
    assert len(outcomes) == 1 and not app.runner.active and chooser.isVisible()
    chooser.reject()
    with qtbot.waitSignal(app.state.state_did_change, timeout=5000):
        viewer.action("pause").trigger()
    qtbot.waitUntil(lambda: app.state.summaries_paused, timeout=5000)
    qtbot.waitUntil(lambda: viewer.action("pause").text() == "Res&ume summaries", timeout=5000)


@pytest.mark.allow_warnings
def test_quit_in_the_menu_bar_and_closing_the_main_window_quit(
    qapp: QApplication, seeded_home: Path, qtbot: Any
) -> None:
    for how in ("menu", "close"):
        memtray = boot(qapp, seeded_home, qtbot, tray=False)
        viewer = memtray.viewer
        assert viewer is not None
        try:
            if how == "menu":
                viewer.action("quit").trigger()
            else:
                viewer.close()
            assert memtray.runner.run_query(lambda: 1) is None, how  # the shutdown hooks ran
        finally:
            memtray.stop()


def test_with_a_tray_the_window_hides_and_the_app_stays(
    qapp: QApplication, seeded_home: Path, qtbot: Any
) -> None:
    memtray = boot(qapp, seeded_home, qtbot, tray=True)
    try:
        viewer = memtray.show_viewer()
        assert not viewer.is_main_window and viewer.action("quit").isEnabled()
        viewer.close()
        assert not viewer.isVisible()
        assert memtray.runner.run_query(lambda: 1) is not None  # still running
    finally:
        memtray.stop()


# -- first run -----------------------------------------------------------------------------------


@pytest.mark.allow_warnings
def test_an_empty_home_shows_how_to_begin(
    qapp: QApplication, tmp_path: Path, qtbot: Any, opened: Opened, screenshot: Any
) -> None:
    home = tmp_path / "fresh"
    memtray = boot(qapp, home, qtbot, tray=False, sessions=False)
    try:
        viewer = memtray.viewer
        assert viewer is not None
        qtbot.waitUntil(lambda: viewer.welcoming, timeout=5000)
        welcome = viewer.welcome
        assert str(home) in welcome.folder_text.text()
        screenshot(viewer, "welcome")
        welcome.import_button.click()
        assert viewer.import_dialog is not None and viewer.import_dialog.isVisible()
        welcome.chat_button.click()
        assert len(memtray.chat_windows) == 1
        welcome.settings_button.click()
        assert memtray.settings_window is not None and memtray.settings_window.isVisible()
        welcome.folder_button.click()
        assert opened.urls == [str(home)]
        mem = memtray.state.memory
        assert mem is not None
        from engine import Message

        memtray.runner.run_query(lambda: mem.append("first", [Message("user", "hello", 1)]))
        memtray.state.refresh()
        qtbot.waitUntil(lambda: not viewer.welcoming, timeout=5000)
        assert viewer.sessions.visible_sessions() == ["first"]
    finally:
        memtray.stop()


@pytest.mark.allow_warnings
def test_a_home_with_sessions_shows_them_not_the_welcome(app: Memtray) -> None:
    assert app.viewer is not None and not app.viewer.welcoming


def test_before_the_first_snapshot_the_welcome_waits(qtbot: Any) -> None:
    panel = WelcomePanel()
    qtbot.addWidget(panel)
    assert not panel.folder_button.isEnabled()  # the home is not known yet
    panel.set_home(Path("/data/memtray"))
    assert panel.folder_button.isEnabled() and "/data/memtray" in panel.folder_text.text()


# -- About ---------------------------------------------------------------------------------------


@pytest.mark.allow_warnings
def test_about_says_the_version_and_opens_the_folders(app: Memtray, qtbot: Any, opened: Opened) -> None:
    from importlib import metadata

    assert app.viewer is not None
    app.viewer.action("about").trigger()
    about = app.about_dialog
    assert about is not None and about.isVisible()
    qtbot.waitUntil(lambda: about.version.text() != "…", timeout=5000)
    assert about.version.text() == f"Version {metadata.version('memtray')}"
    assert about.data_folder.text() == str(app.paths.home)
    assert about.log_folder.text() == str(app.paths.logs_dir)
    about.open_data.click()
    about.open_logs.click()
    assert opened.urls == [str(app.paths.home), str(app.paths.logs_dir)]

"""The composition root: boot with and without a tray, one shutdown signal, failures shown in words."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop import crash
from desktop.app import Memtray, no_tray_text
from engine.errors import CorruptStore
from engine.paths import Paths


def boot(qapp: QApplication, home: Path, qtbot: Any, **kwargs: Any) -> Memtray:
    memtray = Memtray(qapp, Paths.resolve(home), **kwargs)
    with qtbot.waitSignal(memtray.memory_did_open, timeout=10_000):
        memtray.start()
    qtbot.waitUntil(lambda: bool(memtray.state.snapshot.sessions))
    return memtray


@pytest.mark.allow_warnings
def test_without_a_tray_the_viewer_is_the_main_window(
    qapp: QApplication, seeded_home: Path, qtbot: Any
) -> None:
    memtray = boot(qapp, seeded_home, qtbot, tray_available=False)
    try:
        assert memtray.tray is None and memtray.viewer is not None
        assert memtray.viewer.isVisible() and memtray.viewer.is_main_window
        assert memtray.viewer.banner.text() == no_tray_text()
        assert "proj-zh" in memtray.viewer.sessions.visible_sessions()
    finally:
        memtray.stop()
    assert memtray.runner.run_query(lambda: 1) is None  # the shutdown hooks ran


def test_with_a_tray_closing_the_window_does_not_quit(
    qapp: QApplication, seeded_home: Path, qtbot: Any
) -> None:
    memtray = boot(qapp, seeded_home, qtbot, tray_available=True)
    quits: list[bool] = []
    try:
        assert memtray.tray is not None
        memtray.tray.rebuild()
        viewer = memtray.show_viewer()
        viewer.close_did_request_quit.connect(lambda: quits.append(True))
        viewer.close()
        assert not viewer.isVisible() and quits == []
        memtray.tray.action("settings").trigger()
        assert memtray.settings_window is not None and memtray.settings_window.isVisible()
        memtray.tray.action("search").trigger()
        assert viewer.isVisible() and viewer.tabs.currentWidget() is viewer.search
    finally:
        memtray.stop()


@pytest.mark.allow_warnings
def test_a_store_that_cannot_open_is_told_in_words(qapp: QApplication, tmp_path: Path, qtbot: Any) -> None:
    def broken(_home: Path) -> Any:
        raise CorruptStore("history.db: file is not a database")

    memtray = Memtray(qapp, Paths.resolve(tmp_path / "h"), tray_available=True, open_memory=broken)
    with qtbot.waitSignal(memtray.memory_did_fail, timeout=5000):
        memtray.start()
    try:
        assert memtray.tray is not None
        assert "damaged" in memtray.tray.icon.toolTip()
        memtray.tray.rebuild()
        assert not memtray.tray.action("open-sessions").isEnabled()
    finally:
        memtray.stop()


@pytest.mark.allow_warnings
def test_excepthook_logs_and_shows_a_dialog(qapp: QApplication, qtbot: Any, caplog: Any) -> None:
    try:
        raise KeyError("boom")
    except KeyError:
        kind, exc, tb = sys.exc_info()
    assert kind is not None and exc is not None
    crash.excepthook(kind, exc, tb)
    assert "unhandled exception" in caplog.text
    qtbot.waitUntil(lambda: crash._open is not None)
    box = crash._open
    assert isinstance(box, QMessageBox)
    assert "bug in memtray" in box.text() and "KeyError" in box.detailedText()
    box.close()
    qtbot.waitUntil(lambda: crash._open is None)


def test_the_first_start_with_a_tray_says_where_memtray_is(
    qapp: Any, seeded_home: Path, qtbot: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="memtray.desktop.app")
    for start in ("first", "second"):
        memtray = Memtray(qapp, Paths.resolve(seeded_home), tray_available=True)
        try:
            memtray.start()
            told = "first start, told where memtray is" in caplog.text
            assert told == (start == "first"), start
        finally:
            memtray.quit()  # the window places are written, and with them that the user was told
        caplog.clear()

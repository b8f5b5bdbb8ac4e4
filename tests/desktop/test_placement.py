"""Windows sized to the screen (down to 1600×1000 at 200 %), and their place remembered in ui-state.json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QByteArray, QRect, QSize
from PySide6.QtWidgets import QApplication, QWidget

from desktop.app import Memtray
from desktop.placement import SMALL_SCREEN, UI_STATE_FILE, Placement, UiState, fit_to_screen, write_state
from desktop.tasks import TaskRunner
from engine.paths import Paths

ROOT = Path(__file__).resolve().parents[2]


def test_ui_state_round_trips_and_shrugs_off_a_broken_file(tmp_path: Path) -> None:
    path = tmp_path / UI_STATE_FILE
    state = UiState.load(path)
    assert state.geometry("viewer") is None
    state.set_geometry("viewer", QByteArray(b"\x01\xd9\xd0\xcb geometry"))
    write_state(path, state.copy())
    again = UiState.load(path)
    assert again.geometry("viewer") == QByteArray(b"\x01\xd9\xd0\xcb geometry")
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind
    for broken in ("{not json", "[1, 2]", '{"geometry": {"viewer": "%%% not base64"}}'):
        path.write_text(broken, encoding="utf-8")
        assert UiState.load(path).geometry("viewer") is None


def test_a_window_gets_its_place_back(tmp_path: Path, runner: TaskRunner, qtbot: Any) -> None:
    path = tmp_path / UI_STATE_FILE
    placement = Placement(UiState.load(path), runner)
    window = QWidget()
    qtbot.addWidget(window)
    placement.manage(window, "chat")
    window.setGeometry(QRect(40, 50, 420, 380))
    window.show()
    window.hide()
    qtbot.waitUntil(path.exists, timeout=5000)  # written on the store worker
    assert "chat" in json.loads(path.read_text(encoding="utf-8"))["geometry"]
    second = QWidget()
    qtbot.addWidget(second)
    Placement(UiState.load(path)).manage(second, "chat")
    second.show()
    assert second.geometry() == QRect(40, 50, 420, 380)


def test_new_windows_fit_the_screen(qapp: QApplication, qtbot: Any) -> None:
    area = qapp.primaryScreen().availableGeometry()
    window = QWidget()
    qtbot.addWidget(window)
    fit_to_screen(window, 0.5, 0.5, QSize(3000, 200))
    assert window.minimumSize() == QSize(SMALL_SCREEN.width(), 200)  # never more than the small screen
    assert window.width() <= area.width() and window.height() == area.height() // 2
    assert area.contains(window.frameGeometry().center())
    fit_to_screen(window, 2.0, 2.0)
    assert window.width() <= area.width() and window.height() <= area.height()


@pytest.mark.allow_warnings  # "no system tray" is a warning
def test_the_app_remembers_the_main_window(qapp: QApplication, seeded_home: Path, qtbot: Any) -> None:
    def boot() -> Memtray:
        memtray = Memtray(qapp, Paths.resolve(seeded_home), tray_available=False)
        with qtbot.waitSignal(memtray.memory_did_open, timeout=10_000):
            memtray.start()
        return memtray

    first = boot()
    assert first.viewer is not None
    first.viewer.setGeometry(QRect(30, 40, 700, 520))
    first.stop()  # quitting writes the file
    saved = json.loads((seeded_home / UI_STATE_FILE).read_text(encoding="utf-8"))
    assert set(saved["geometry"]) == {"viewer"}
    second = boot()
    try:
        assert second.viewer is not None and second.viewer.geometry() == QRect(30, 40, 700, 520)
    finally:
        second.stop()


SMALL = {
    "screens": [{"name": "small", "x": 0, "y": 0, "width": 1600, "height": 1000, "logicalDpi": 96, "dpr": 1}]
}


@pytest.mark.parametrize("language", ["en", "zh_TW"])
def test_on_1600x1000_at_200_percent_every_control_stays_on_screen(
    language: str, seeded_home: Path, tmp_path: Path, translations_dir: Path
) -> None:
    config = tmp_path / "screens.json"
    config.write_text(json.dumps(SMALL), encoding="utf-8")
    env = dict(
        os.environ,
        QT_QPA_PLATFORM=f"offscreen:configfile={config}",
        QT_SCALE_FACTOR="2",
        PYTHONPATH=str(ROOT),
    )
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "faulthandler",
            "-m",
            "tests.desktop.smallscreen",
            str(seeded_home),
            language,
            str(translations_dir),
        ],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["available"] == [0, 0, 800, 500] and report["ratio"] == 2.0
    screen = QRect(*report["available"])
    for name in ("viewer", "chat", "settings", "about", "import"):
        window = report[name]
        assert screen.contains(QRect(*window["frame"])), (name, window["frame"])
        assert window["minimum"][0] <= 800 and window["minimum"][1] <= 500, (name, window["minimum"])
        assert window["controls"], name
        for control, where in window["controls"].items():
            assert screen.contains(QRect(*where)), (name, control, where)
    assert set(report["chat"]["controls"]) == {"send", "stop", "input"}
    assert report["about"]["paths_fit"] == [True, True]  # the folders' paths are not cut off

"""Run the real app under an X display with a tray, right-click its icon with xdotool, report as JSON.

Used by ``test_tray_xvfb.py`` in a subprocess (``DISPLAY`` and ``QT_QPA_PLATFORM=xcb`` set), so the
offscreen tests in the same pytest run are not affected. Also used by ``bench/desktop.py`` to time the
launch. Usage: ``python -m tests.desktop.traycheck HOME OUT_DIR [--no-click]``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

STARTED = time.perf_counter()


def main(argv: list[str]) -> int:
    home, out_dir = Path(argv[0]), Path(argv[1])
    click = "--no-click" not in argv
    from desktop import refguard
    from desktop.app import Memtray

    refguard.install()
    from engine.paths import Paths

    app = QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    memtray = Memtray(app, Paths.resolve(home))
    memtray.start()
    result: dict[str, object] = {"tray_available": memtray.tray_available, "platform": app.platformName()}
    deadline = time.monotonic() + 20

    def finish(ok: bool, why: str = "") -> None:
        result["ok"], result["why"] = ok, why
        print(json.dumps(result), flush=True)
        memtray.quit()

    def wait_for_icon() -> None:
        tray = memtray.tray
        if tray is None:
            finish(False, "no tray")
            return
        geometry = tray.icon.geometry()
        if geometry.isEmpty() or memtray.state.memory is None or not memtray.state.snapshot.sessions:
            if time.monotonic() > deadline:
                finish(False, f"icon never docked (geometry {geometry})")
            else:
                QTimer.singleShot(20, wait_for_icon)
            return
        result["icon_shown_s"] = round(time.perf_counter() - STARTED, 3)
        result["geometry"] = [geometry.x(), geometry.y(), geometry.width(), geometry.height()]
        if not click:
            finish(True)
            return
        QTimer.singleShot(500, right_click)  # let the panel paint the icon before the click and the grab

    def right_click() -> None:
        assert memtray.tray is not None
        g = memtray.tray.icon.geometry()
        subprocess.Popen(["xdotool", "mousemove", str(g.center().x()), str(g.center().y()), "click", "3"])
        wait_for_menu()

    def wait_for_menu() -> None:
        assert memtray.tray is not None
        menu = memtray.tray.menu
        if not menu.isVisible():
            if time.monotonic() > deadline:
                finish(False, "the menu did not open")
            else:
                QTimer.singleShot(20, wait_for_menu)
            return
        result["menu_items"] = [a.text() for a in menu.actions() if a.text()]
        result["status"] = memtray.tray.action("status").text()
        result["level"] = memtray.tray.level
        result["icon_sizes"] = [s.width() for s in memtray.tray.icon.icon().availableSizes()]
        QTimer.singleShot(300, grab)

    def grab() -> None:
        out_dir.mkdir(parents=True, exist_ok=True)
        screen = QGuiApplication.primaryScreen()
        shot = screen.grabWindow(0)
        assert memtray.tray is not None
        g = memtray.tray.menu.geometry().united(memtray.tray.icon.geometry()).adjusted(-40, -10, 40, 10)
        shot.copy(g).save(str(out_dir / "tray-menu.png"))
        shot.save(str(out_dir / "tray-desktop.png"))
        menu = memtray.tray.menu
        menu.hide()
        finish(True)

    QTimer.singleShot(0, wait_for_icon)
    app.exec()
    return 0 if result.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

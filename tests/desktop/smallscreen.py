"""Open every window on the screen the environment gives (see ``test_placement.py``) and report as JSON.

Run in a subprocess, since the screen is fixed when the QApplication starts: ``QT_QPA_PLATFORM=
offscreen:configfile=screens.json QT_SCALE_FACTOR=2 python -m tests.desktop.smallscreen HOME LANG``.
For each window it prints the available screen area, the window's frame and the frames of the controls
that must stay reachable, all in logical pixels and global coordinates.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from PySide6.QtCore import QEvent, QEventLoop, QRect, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QWidget


def rect(r: QRect) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def global_rect(widget: QWidget) -> list[int]:
    top_left = widget.mapToGlobal(widget.rect().topLeft())
    return [top_left.x(), top_left.y(), widget.width(), widget.height()]


def settle(ms: int = 300) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def main(argv: list[str]) -> int:
    home, language = Path(argv[0]), argv[1]
    from desktop import i18n, refguard

    refguard.install()
    app = QApplication(sys.argv[:1])
    i18n.install(app, language, Path(argv[2]) if len(argv) > 2 else None)
    from desktop.about import AboutDialog
    from desktop.chat.window import ChatWindow
    from desktop.settings_window import SettingsWindow
    from desktop.state import AppState
    from desktop.tasks import TaskRunner
    from desktop.viewer.window import ViewerWindow
    from engine import Memory
    from engine.embedders.hashing import HashEmbedder
    from engine.paths import Paths

    runner = TaskRunner()
    mem = Memory.open(home, embedder=HashEmbedder())
    state = AppState(runner)
    state.set_memory(mem, summaries=None, errors=None, keys=None, semantic=False)
    state.refresh()
    settle()
    viewer = ViewerWindow(state, home=home)
    chat = ChatWindow(state, "proj-zh")
    settings = SettingsWindow(state)
    about = AboutDialog(runner, Paths.resolve(home))
    dialog = viewer.show_import()
    windows = {"viewer": viewer, "chat": chat, "settings": settings, "about": about, "import": dialog}
    controls = {
        "viewer": {"status": viewer.statusBar(), "search-button": viewer.search.button},
        "chat": {"send": chat.send_button, "stop": chat.stop_button, "input": chat.input},
        "settings": {"save": settings.save_button, "close": settings.close_button},
        "about": {"open-logs": about.open_logs},
        "import": {"import": dialog.import_button},
    }
    for window in windows.values():
        window.show()
    settle()
    screen = QGuiApplication.primaryScreen()
    report: dict[str, object] = {
        "screen": rect(screen.geometry()),
        "available": rect(screen.availableGeometry()),
        "ratio": screen.devicePixelRatio(),
    }
    for name, window in windows.items():
        report[name] = {
            "frame": rect(window.frameGeometry()),
            "minimum": [window.minimumWidth(), window.minimumHeight()],
            "controls": {key: global_rect(w) for key, w in controls[name].items() if w.isVisible()},
        }
    report["about"]["paths_fit"] = [  # type: ignore[index]
        label.width() >= label.fontMetrics().horizontalAdvance(label.text())
        for label in (about.data_folder, about.log_folder)
    ]
    print(json.dumps(report), flush=True)
    for window in windows.values():  # delete every window while the app lives (no crash at exit)
        window.close()
        window.deleteLater()
    windows.clear()
    controls.clear()
    del viewer, chat, settings, about, dialog, window
    app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    runner.shutdown()
    mem.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Run the real app under an X display, press its global shortcut with xdotool, report as JSON.

Used by ``test_hotkey_xvfb.py`` in a subprocess (``DISPLAY`` and ``QT_QPA_PLATFORM=xcb`` set). Reports
whether the grab became active, whether ``xdotool key ctrl+alt+m`` opened the quick search window (and
with Num Lock on), and that a second grab of the same keys is reported as taken. With ``--taken``, another
grab holds Ctrl+Alt+M before the app starts: it reports the keys as taken, other keys are set in
Settings…, and ``xdotool key ctrl+alt+k`` must then open the quick search.
Usage: ``python -m tests.desktop.hotkeycheck HOME [--taken]``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication


def main(argv: list[str]) -> int:
    home = Path(argv[0])
    from desktop import refguard
    from desktop.app import Memtray
    from desktop.hotkeys import GlobalShortcut
    from engine.paths import Paths

    refguard.install()
    app = QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    blocker = GlobalShortcut()
    if "--taken" in argv:
        assert blocker.register().state == "active"  # another holder of Ctrl+Alt+M, first
    memtray = Memtray(app, Paths.resolve(home))
    memtray.start()
    result: dict[str, object] = {"platform": app.platformName(), "status": memtray.shortcut.status.state}
    second = GlobalShortcut()
    result["second"] = second.register().state  # the keys are ours now: another grab is refused
    deadline = time.monotonic() + 20

    def finish(ok: bool, why: str = "") -> None:
        result["ok"], result["why"] = ok, why
        print(json.dumps(result), flush=True)
        memtray.quit()

    def press(*keys: str) -> None:
        subprocess.run(["xdotool", "key", *keys], check=True)

    def wait(condition: object, then: object, why: str) -> None:
        assert callable(condition) and callable(then)
        if condition():
            then()
        elif time.monotonic() > deadline:
            finish(False, why)
        else:
            QTimer.singleShot(20, lambda: wait(condition, then, why))

    def opened() -> bool:
        return memtray.quick_search is not None and memtray.quick_search.isVisible()

    def first_press() -> None:
        press("ctrl+alt+m")
        wait(opened, with_num_lock, "ctrl+alt+m did not open the quick search")

    def with_num_lock() -> None:
        result["opened"] = True
        assert memtray.quick_search is not None
        memtray.quick_search.hide()
        press("Num_Lock")
        press("ctrl+alt+m")
        wait(opened, done, "ctrl+alt+m with Num Lock on did not open the quick search")

    def done() -> None:
        result["opened_with_num_lock"] = True
        press("Num_Lock")
        finish(True)

    def rebind() -> None:
        settings = memtray.show_settings()
        result["settings_said"] = settings.shortcut_status.text()
        settings.search_keys.setKeySequence(QKeySequence("Ctrl+Alt+K"))
        settings.save()
        wait(lambda: memtray.shortcut.status.active, press_new, "Ctrl+Alt+K did not become active")

    def press_new() -> None:
        result["rebound"] = memtray.shortcut.status.state
        press("ctrl+alt+k")
        wait(opened, lambda: (result.update(opened=True), finish(True)), "ctrl+alt+k did not open the search")

    if "--taken" in argv:
        wait(lambda: memtray.state.has_snapshot, rebind, "the memory did not open")
    else:
        wait(lambda: memtray.state.memory is not None, first_press, "the memory did not open")
    app.exec()
    return 0 if result.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

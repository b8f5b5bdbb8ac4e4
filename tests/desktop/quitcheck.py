"""Run the real app (``desktop.app.run``), open windows in a given order, then quit: for ``test_quit.py``.

Usage: ``python -m tests.desktop.quitcheck HOME WINDOWS [tray]``, ``WINDOWS`` a comma-separated list of
``viewer``, ``quick``, ``settings``, ``about``, ``chooser``, ``chat`` (a reply left streaming: the home's
``gemini_base_url`` points at a fake Gemini server whose stream never ends) and ``import`` (an import
whose first batch is being stored; ``IMPORT_FILE`` names the ChatGPT export). Once every window is shown
(and the chat streams, the import stores) it prints ``READY`` and a JSON line. With ``tray`` it then
triggers Quit in the tray menu (or the main window's menu without a tray) itself; otherwise the test quits
it from outside (``memtray --quit`` or SIGTERM). The exit status is the app's.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any, ClassVar

from PySide6.QtCore import QTimer

import desktop.app
from desktop.app import Memtray

WAIT_S = 60
IMPORT_READ_S = float(os.environ.get("IMPORT_READ_S", "2"))


class ScriptedMemtray(Memtray):
    """The app, with a script that opens windows once the memory is open."""

    windows: ClassVar[list[str]] = []
    quit_from_tray = False

    def start(self) -> None:
        super().start()
        self.memory_did_open.connect(lambda: QTimer.singleShot(200, self._next_window))
        self._pending = list(self.windows)
        self._shown: list[str] = []

    def _next_window(self) -> None:
        if not self._pending:
            self._ready()
            return
        name = self._pending.pop(0)
        getattr(self, f"_open_{name}")()

    def _done(self, name: str) -> None:
        self._shown.append(name)
        QTimer.singleShot(50, self._next_window)

    def _open_viewer(self) -> None:
        self.show_viewer("conversation")
        self._done("viewer")

    def _open_quick(self) -> None:
        window = self.show_quick_search()
        window.box.setText("budget")
        self._done("quick")

    def _open_settings(self) -> None:
        self.show_settings()
        self._done("settings")

    def _open_about(self) -> None:
        self.show_about()
        self._done("about")

    def _open_chooser(self) -> None:
        self.show_chooser("compact")
        self._done("chooser")

    def _open_chat(self) -> None:
        window = self.show_chat(None)
        assert window is not None
        grown: list[str] = []
        window.reply_did_grow.connect(grown.append)
        window.input.setPlainText("Tell me a long story")
        window.send()
        self._wait(lambda: bool(grown), lambda: self._done("chat"), "the chat never streamed")

    def _open_import(self) -> None:
        viewer = self.show_viewer("conversation")
        viewer.run_import("chatgpt", Path(os.environ["IMPORT_FILE"]), None)
        began = time.monotonic()
        # the file is read in well under IMPORT_READ_S; its one big conversation is then being stored
        self._wait(
            lambda: time.monotonic() - began > IMPORT_READ_S,
            lambda: self._done("import"),
            "never",
        )

    def _wait(self, ready: Any, then: Any, why: str, deadline: float | None = None) -> None:
        deadline = time.monotonic() + WAIT_S if deadline is None else deadline
        if ready():
            then()
        elif time.monotonic() > deadline:
            print(f"FAILED {why}", flush=True)
            self.quit()
        else:
            QTimer.singleShot(20, lambda: self._wait(ready, then, why, deadline))

    def _ready(self) -> None:
        busy = [t.label for t in self.runner.active]
        menu = self.tray if self.tray is not None else self.viewer
        quit_text = menu.action("quit").text() if menu is not None else ""
        ready = {"shown": self._shown, "busy": busy, "quit_text": quit_text, "code": desktop.app.__file__}
        print("READY " + json.dumps(ready), flush=True)
        if self.quit_from_tray:
            QTimer.singleShot(100, self._quit_from_menu)

    def _quit_from_menu(self) -> None:
        print("QUIT tray", flush=True)
        if self.tray is not None:
            self.tray.action("quit").trigger()
        else:
            assert self.viewer is not None
            self.viewer.action("quit").trigger()


def main(argv: list[str]) -> int:
    home, windows = argv[0], [w for w in argv[1].split(",") if w]
    ScriptedMemtray.windows = windows
    ScriptedMemtray.quit_from_tray = "tray" in argv[2:]
    desktop.app.Memtray = ScriptedMemtray  # type: ignore[misc]
    return desktop.app.run(["--home", home])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

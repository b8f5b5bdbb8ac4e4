"""The desktop app's composition root (minimal until the tray app lands): a window over the memory."""

from __future__ import annotations

import logging
import sys

from engine.logs import configure
from engine.paths import Paths

log = logging.getLogger("memtray.app")


def run(argv: list[str]) -> int:
    """Start the app; return its exit status."""
    from PySide6.QtWidgets import QApplication, QLabel

    home = None
    if "--home" in argv and argv.index("--home") + 1 < len(argv):
        home = argv[argv.index("--home") + 1]
    paths = Paths.resolve(home)
    configure(paths.logs_dir)
    app = QApplication(sys.argv[:1])
    label = QLabel(f"memtray\n{paths.home}")
    label.setWindowTitle("memtray")
    label.show()
    log.info("memtray window shown")
    return int(app.exec())

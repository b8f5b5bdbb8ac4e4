"""The excepthook: an unhandled exception is logged with its traceback and shown, never silent.

The dialog is deferred to the event loop (an exception can arrive in the middle of painting or inside a
menu), and at most one is open at a time (non-modal); later exceptions are still logged.
"""

from __future__ import annotations

import logging
import sys
import traceback
from types import TracebackType

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop.errors import describe

log = logging.getLogger("memtray.desktop.crash")

_open: QMessageBox | None = None

translate = QCoreApplication.translate


def excepthook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    """Log ``exc`` with its traceback and show it in a dialog."""
    if issubclass(kind, KeyboardInterrupt):
        log.info("interrupted; quitting")
        app = QApplication.instance()
        if app is not None:
            app.quit()
        return
    log.error("unhandled exception", exc_info=(kind, exc, tb))
    if QApplication.instance() is None:
        return
    details = "".join(traceback.format_exception(kind, exc, tb))
    QTimer.singleShot(0, lambda: _show(exc, details))


def _show(exc: BaseException, details: str) -> QMessageBox | None:
    """Show the crash dialog (non-modal: the tray keeps working); None if one is already open."""
    global _open
    if _open is not None:
        return None
    message = describe(exc)
    title = translate("Crash", "memtray: {title}").format(title=message.title)
    box = QMessageBox(QMessageBox.Icon.Critical, title, message.text)
    box.setDetailedText(details)
    box.finished.connect(_on_finished)
    _open = box
    box.show()
    return box


def _on_finished(_result: int) -> None:
    global _open
    if _open is not None:
        _open.deleteLater()
    _open = None


def install() -> None:
    """Make :func:`excepthook` the process's excepthook."""
    sys.excepthook = excepthook

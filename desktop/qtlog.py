"""Qt's own messages (qDebug, qWarning, ...) routed into Python logging as ``memtray.desktop.qt``.

Qt otherwise prints them to stderr, where they are lost for a tray app. A few known-harmless messages
of platforms without a tray are lowered to DEBUG so that they neither alarm the log nor fail tests.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QMessageLogContext, QtMsgType, qInstallMessageHandler

log = logging.getLogger("memtray.desktop.qt")

_LEVELS = {
    QtMsgType.QtDebugMsg: logging.DEBUG,
    QtMsgType.QtInfoMsg: logging.INFO,
    QtMsgType.QtWarningMsg: logging.WARNING,
    QtMsgType.QtCriticalMsg: logging.ERROR,
    QtMsgType.QtFatalMsg: logging.CRITICAL,
}

# Messages Qt prints on platforms without a system tray or a window manager; they are expected.
HARMLESS = (
    "No such signal QPlatformNativeInterface::systemTrayWindowChanged",
    "This plugin does not support propagateSizeHints()",
    "This plugin does not support raise()",
    "This plugin does not support grabbing the keyboard",
    "QSystemTrayIcon::setVisible: No Icon set",
)


def _handler(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
    level = _LEVELS.get(kind, logging.WARNING)
    if any(message.startswith(h) for h in HARMLESS):
        level = logging.DEBUG
    where = f" ({context.file}:{context.line})" if context.file else ""
    log.log(level, "%s%s", message, where)


def install() -> None:
    """Route Qt messages into logging (idempotent)."""
    qInstallMessageHandler(_handler)
    log.debug("Qt messages routed to logging")

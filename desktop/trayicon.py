"""The tray icon's pictures: the speech bubble, with a dot for working, paused or needs-attention.

The bubble is drawn with QPainter on the 64-unit grid of ``resources/icons/memtray.svg``, at the sizes
panels ask for. Its outline, and the ring that sets the state dot apart, take the colour that shows on
the panel: dark on a light panel, light on a dark one. Which panels are dark (:func:`panel_is_dark`):

- GNOME's top bar is always dark;
- Windows: the taskbar follows ``SystemUsesLightTheme`` (not the apps' theme; missing means dark);
- elsewhere the colour scheme Qt reports, and without one the palette (text lighter than the window's
  background means a dark theme).

Icons are cached by ``(level, dark)``: the tray sets a new one only when either changes.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from functools import cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QGuiApplication,
    QIcon,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
    QPixmap,
)

from desktop.status import ATTENTION, IDLE, PAUSED, WORKING

log = logging.getLogger("memtray.desktop.trayicon")

SIZES = (16, 22, 24, 32, 48, 64)
FILL = QColor("#2b78c5")
LINES = (QColor("#ffffff"), QColor("#ffffff"), QColor("#ffd54a"))
DARK_INK = QColor("#0f2a47")
"""The outline on a light panel."""
LIGHT_INK = QColor("#eef4fb")
"""The outline on a dark panel."""
DOTS = {WORKING: QColor("#2e9d4f"), PAUSED: QColor("#8a8f98"), ATTENTION: QColor("#d93025")}


def _windows_taskbar_is_dark() -> bool:
    try:
        winreg = importlib.import_module("winreg")
        with winreg.OpenKey(
            winreg.HKEY_CURRENT_USER, r"Software\Microsoft\Windows\CurrentVersion\Themes\Personalize"
        ) as key:
            value, _kind = winreg.QueryValueEx(key, "SystemUsesLightTheme")
    except OSError:
        return True
    return not value


def palette_is_dark(palette: QPalette) -> bool:
    """A dark theme: its text is lighter than its window background."""
    role = QPalette.ColorRole
    return palette.color(role.WindowText).lightness() > palette.color(role.Window).lightness()


def panel_is_dark(app: QGuiApplication | None = None) -> bool:
    """Whether the panel (task bar, top bar) holding the tray is dark; see the module docstring."""
    if "GNOME" in os.environ.get("XDG_CURRENT_DESKTOP", "").upper():
        return True
    if sys.platform == "win32":
        return _windows_taskbar_is_dark()
    app = app or QGuiApplication.instance()  # type: ignore[assignment]
    if app is None:
        return False
    scheme = app.styleHints().colorScheme()
    if scheme == Qt.ColorScheme.Dark:
        return True
    if scheme == Qt.ColorScheme.Light:
        return False
    return palette_is_dark(app.palette())


def _bubble() -> QPainterPath:
    """The bubble's outline (the SVG's path) on the 64-unit grid."""
    path = QPainterPath()
    path.moveTo(10, 6)
    path.lineTo(54, 6)
    path.arcTo(QRectF(48, 6, 12, 12), 90, -90)
    path.lineTo(60, 42)
    path.arcTo(QRectF(48, 36, 12, 12), 0, -90)
    path.lineTo(28, 48)
    path.lineTo(14, 60)
    path.lineTo(14, 48)
    path.lineTo(10, 48)
    path.arcTo(QRectF(4, 36, 12, 12), 270, -90)
    path.lineTo(4, 12)
    path.arcTo(QRectF(4, 6, 12, 12), 180, -90)
    path.closeSubpath()
    return path


def pixmap(size: int, level: str, dark: bool) -> QPixmap:
    """The icon at ``size`` px for ``level`` on a dark (or light) panel."""
    image = QPixmap(size, size)
    image.fill(Qt.GlobalColor.transparent)
    ink = LIGHT_INK if dark else DARK_INK
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.scale(size / 64, size / 64)
    painter.setPen(QPen(ink, 4, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin))
    painter.setBrush(QBrush(FILL))
    painter.drawPath(_bubble())
    painter.setPen(Qt.PenStyle.NoPen)
    for (y, width), colour in zip(((14, 40), (24, 32), (34, 20)), LINES, strict=True):
        painter.setBrush(QBrush(colour))
        painter.drawRoundedRect(QRectF(12, y, width, 6), 2, 2)
    dot = DOTS.get(level)
    if dot is not None:
        centre, radius = QPointF(48, 48), 14.0
        painter.setPen(QPen(ink, 4))
        painter.setBrush(QBrush(dot))
        painter.drawEllipse(centre, radius, radius)
        _glyph(painter, level, centre)
    painter.end()
    return image


def _glyph(painter: QPainter, level: str, centre: QPointF) -> None:
    """The white mark inside the dot: ``!`` for attention, two bars for paused, nothing while working."""
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QBrush(QColor("#ffffff")))
    x, y = centre.x(), centre.y()
    if level == ATTENTION:
        painter.drawRoundedRect(QRectF(x - 2.5, y - 9, 5, 11), 2, 2)
        painter.drawEllipse(QPointF(x, y + 6.5), 2.8, 2.8)
    elif level == PAUSED:
        painter.drawRect(QRectF(x - 6, y - 7, 4, 14))
        painter.drawRect(QRectF(x + 2, y - 7, 4, 14))


@cache
def state_icon(level: str = IDLE, dark: bool = False) -> QIcon:
    """The tray icon for ``level`` on a dark (or light) panel, at every tray size."""
    icon = QIcon()
    for size in SIZES:
        icon.addPixmap(pixmap(size, level, dark))
    return icon

"""The app icon: PNGs rendered from ``resources/icons/memtray.svg`` at the sizes trays and docks ask for.

The PNGs are committed (a tray should not depend on the SVG plugin at run time); ``python -m
desktop.icons`` renders them again after the SVG changes. In a frozen build (PyInstaller) the spec copies
``resources/icons`` into the bundle, and they are found under ``sys._MEIPASS``.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QIcon, QImage, QPainter

log = logging.getLogger("memtray.desktop.icons")


def resource_root() -> Path:
    """The folder holding ``resources/``: the bundle's data folder when frozen, else the source tree."""
    bundle = getattr(sys, "_MEIPASS", None)
    return Path(bundle) if bundle else Path(__file__).resolve().parent.parent


ICON_DIR = resource_root() / "resources" / "icons"
SVG = ICON_DIR / "memtray.svg"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256)


def png_path(size: int) -> Path:
    return ICON_DIR / f"memtray-{size}.png"


def app_icon() -> QIcon:
    """The icon with every rendered size (an empty icon, logged, if the files are missing)."""
    icon = QIcon()
    for size in SIZES:
        if png_path(size).exists():
            icon.addFile(str(png_path(size)))
    if icon.isNull():
        log.warning("the icon files are missing from %s", ICON_DIR)
    return icon


def render_pngs(svg: Path = SVG, out_dir: Path = ICON_DIR, sizes: tuple[int, ...] = SIZES) -> list[Path]:
    """Render ``svg`` to ``memtray-<size>.png`` in ``out_dir`` (needs a QGuiApplication)."""
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"not a valid SVG: {svg}")
    written = []
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        target = out_dir / f"memtray-{size}.png"
        image.save(str(target))
        written.append(target)
    return written


if __name__ == "__main__":
    app = QGuiApplication(sys.argv[:1])
    logging.basicConfig(level=logging.INFO)
    for path in render_pngs():
        log.info("wrote %s", path)

"""Window sizes that fit the screen, and each window's place remembered between runs.

:func:`fit_to_screen` gives a new window a size that is a fraction of its screen's available area
(never more than the screen, never less than its minimum), centred there. Minimum sizes fit a
1600×1000 screen at 200 % scaling (800×500 logical pixels, :data:`SMALL_SCREEN`).

:class:`UiState` is a small JSON file in the memtray home (:data:`UI_STATE_FILE`), desktop-only state that
is not the engine's settings: each window's ``saveGeometry()`` as base64. :class:`Placement` restores a
window's geometry before it is first shown (Qt moves it back onto a screen if that screen is gone) and
records it whenever the window hides or closes. Reading the file happens once at boot, before the event
loop runs; each later write goes to the store worker (written whole to a temporary file, then renamed
over the old one), and the last one runs at shutdown, after the workers stopped.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QEvent, QObject, QSize
from PySide6.QtGui import QCursor, QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget

from desktop.tasks import TaskRunner

log = logging.getLogger("memtray.desktop.placement")

UI_STATE_FILE = "ui-state.json"
SMALL_SCREEN = QSize(800, 500)
"""The smallest screen every window must fit: 1600×1000 at 200 % scaling, in logical pixels."""


def screen_of(window: QWidget) -> QScreen:
    """The screen ``window`` is on, else the one under the mouse, else the primary screen."""
    screen = window.screen() if window.isVisible() else None
    return screen or QGuiApplication.screenAt(QCursor.pos()) or QGuiApplication.primaryScreen()


def fit_to_screen(
    window: QWidget,
    width: float,
    height: float,
    minimum: QSize | None = None,
    preferred: QSize | None = None,
) -> None:
    """Size ``window`` to ``width`` × ``height`` of its screen's available area and centre it there.

    ``minimum`` (capped at :data:`SMALL_SCREEN`) becomes the window's minimum size. With ``preferred``
    (what the content asks for), the window takes that size when it is smaller than the fraction. The
    size never goes past the available area.
    """
    area = screen_of(window).availableGeometry()
    if minimum is not None:
        window.setMinimumSize(minimum.boundedTo(SMALL_SCREEN))
    least = window.minimumSize()
    w, h = int(area.width() * width), int(area.height() * height)
    if preferred is not None:
        w, h = min(w, preferred.width()), min(h, preferred.height())
    w = min(area.width(), max(least.width(), w))
    h = min(area.height(), max(least.height(), h))
    window.resize(w, h)
    frame = window.frameGeometry()
    frame.moveCenter(area.center())
    window.move(frame.topLeft())


class UiState:
    """The desktop's own state in ``<home>/ui-state.json``: window geometry, by window name."""

    def __init__(self, path: Path, data: dict[str, Any] | None = None) -> None:
        self.path = path
        self.data: dict[str, Any] = data if data is not None else {}

    @classmethod
    def load(cls, path: Path) -> UiState:
        """Read ``path``; a missing or unreadable file gives an empty state (logged, never raised)."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls(path)
        except (OSError, ValueError) as exc:
            log.info("ignoring %s: %s", path, exc)
            return cls(path)
        return cls(path, data if isinstance(data, dict) else {})

    def geometry(self, name: str) -> QByteArray | None:
        """The saved geometry of window ``name``, or None."""
        value = self.data.get("geometry", {}).get(name)
        if not isinstance(value, str):
            return None
        try:
            return QByteArray(base64.b64decode(value, validate=True))
        except (binascii.Error, ValueError):
            return None

    def set_geometry(self, name: str, blob: QByteArray) -> None:
        geometry = self.data.setdefault("geometry", {})
        geometry[name] = base64.b64encode(bytes(blob.data())).decode("ascii")

    def copy(self) -> dict[str, Any]:
        """The state as plain data, for a write on another thread."""
        return json.loads(json.dumps(self.data))


def write_state(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` as JSON: to a temporary file beside it, then renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".ui-state-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Placement(QObject):
    """Restores and remembers the geometry of the windows it manages (see the module docstring)."""

    def __init__(
        self, state: UiState, runner: TaskRunner | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.runner = runner
        self._names: dict[QWidget, str] = {}

    def manage(self, window: QWidget, name: str) -> None:
        """Give ``window`` its saved geometry now (before it is shown) and remember it when it hides."""
        blob = self.state.geometry(name)
        if blob is not None and not window.restoreGeometry(blob):
            log.info("the saved geometry of the %s window is unreadable; using the default", name)
        self._names[window] = name
        window.installEventFilter(self)
        window.destroyed.connect(lambda _obj=None, w=window: self._names.pop(w, None))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Hide, QEvent.Type.Close) and watched in self._names:
            assert isinstance(watched, QWidget)
            self._record(watched)
            self._save_later()
        return False

    def save_now(self) -> None:
        """Record the visible windows and write the file on this thread (at shutdown, workers stopped)."""
        for window in list(self._names):
            if window.isVisible():
                self._record(window)
        try:
            write_state(self.state.path, self.state.copy())
        except OSError as exc:
            log.warning("could not save the window positions to %s: %s", self.state.path, exc)

    def _record(self, window: QWidget) -> None:
        name = self._names.get(window)
        if name is not None and not window.isMinimized():
            self.state.set_geometry(name, window.saveGeometry())

    def _save_later(self) -> None:
        if self.runner is None:
            return
        path, data = self.state.path, self.state.copy()
        self.runner.run_query(
            lambda: write_state(path, data),
            None,
            lambda exc: log.warning("could not save the window positions to %s: %s", path, exc),
        )

"""A global shortcut: keys that open memtray's quick search from any app, where the platform allows one.

:class:`GlobalShortcut` picks the platform's mechanism from ``QGuiApplication.platformName()``: an X11
key grab (:mod:`desktop.hotkeys.x11`), Windows' ``RegisterHotKey`` (:mod:`desktop.hotkeys.windows`) or
Carbon's ``RegisterEventHotKey`` on macOS (:mod:`desktop.hotkeys.macos`), all through ctypes. Wayland
gives apps no global shortcut (its desktops bind keys themselves), so there :attr:`ShortcutStatus.text`
says to make one in the desktop's settings that runs ``memtray --search``. Keys another app holds are
reported as taken, in words, never silently ignored.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtGui import QGuiApplication

from desktop.hotkeys.keys import Keys, ShortcutTaken, ShortcutUnavailable

log = logging.getLogger("memtray.desktop.hotkeys")

translate = QCoreApplication.translate

DEFAULT = "Ctrl+Alt+M"
"""The quick search's keys (Qt's notation)."""
COMMAND = "memtray --search"
"""The command that opens the quick search of the running memtray (for a desktop's own shortcut)."""

__all__ = ["COMMAND", "DEFAULT", "GlobalShortcut", "Keys", "ShortcutStatus"]


@dataclass(frozen=True)
class ShortcutStatus:
    """What became of the global shortcut.

    Attributes:
        state: ``active``, ``taken`` (another app holds the keys), ``wayland`` (no global shortcuts for
            apps), ``unavailable`` (this platform has none for us) or ``failed`` (it could not be set up).
        keys: the keys as the user reads them (``Ctrl+Alt+M``).
        detail: the reason, for the log (English).
    """

    state: str
    keys: str
    detail: str = ""

    @property
    def active(self) -> bool:
        return self.state == "active"

    @property
    def text(self) -> str:
        """One or two sentences for the user, in the UI language."""
        if self.state == "active":
            return translate("Shortcut", "{keys} opens this search from any app.").format(keys=self.keys)
        if self.state == "taken":
            return translate(
                "Shortcut",
                "{keys} is already used by another app, so it cannot open memtray's search. Free it "
                "there, or use Search memory… in the tray menu.",
            ).format(keys=self.keys)
        if self.state == "wayland":
            return translate(
                "Shortcut",
                "On Wayland, apps cannot have a global shortcut. In your desktop's keyboard settings, "
                "make one that runs: {command}",
            ).format(command=COMMAND)
        if self.state == "unavailable":
            return translate("Shortcut", "This desktop offers memtray no global shortcut.")
        return translate("Shortcut", "The global shortcut {keys} could not be set up: {reason}").format(
            keys=self.keys, reason=self.detail
        )


class GlobalShortcut(QObject):
    """One global shortcut of the app.

    Signals:
        activated(): the keys were pressed (GUI thread).
    """

    activated = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._backend: QObject | None = None
        self.status = ShortcutStatus("unavailable", "")

    def register(self, notation: str = DEFAULT) -> ShortcutStatus:
        """Hold ``notation``'s keys (releasing any held before); return what became of them."""
        self.unregister()
        keys = Keys.parse(notation)
        platform = QGuiApplication.platformName()
        try:
            self._backend = self._make(platform, keys)
        except ShortcutTaken as exc:
            log.warning("global shortcut %s: taken by another app (%s)", keys.text, exc)
            self.status = ShortcutStatus("taken", keys.text, str(exc))
        except ShortcutUnavailable as exc:
            state = "wayland" if platform.startswith("wayland") else "unavailable"
            log.info("global shortcut %s: not available on %s (%s)", keys.text, platform, exc)
            self.status = ShortcutStatus(state, keys.text, str(exc))
        except (OSError, ValueError, AttributeError) as exc:  # a library that is not what ctypes expects
            log.warning("global shortcut %s could not be set up: %s", keys.text, exc)
            self.status = ShortcutStatus("failed", keys.text, str(exc))
        else:
            self.status = ShortcutStatus("active", keys.text)
        return self.status

    def unregister(self) -> None:
        backend, self._backend = self._backend, None
        if backend is not None:
            backend.close()  # type: ignore[attr-defined]
            backend.deleteLater()

    def _make(self, platform: str, keys: Keys) -> QObject:
        if platform == "xcb":
            from desktop.hotkeys.x11 import X11Grab

            return X11Grab(keys, self.activated.emit, self)
        if platform == "windows":
            from desktop.hotkeys.windows import WindowsHotKey

            return WindowsHotKey(keys, self.activated.emit, self)
        if platform == "cocoa":
            from desktop.hotkeys.macos import CarbonHotKey

            return CarbonHotKey(keys, self.activated.emit, self)
        if platform.startswith("wayland"):
            raise ShortcutUnavailable("Wayland lets only the desktop bind global keys")
        raise ShortcutUnavailable(f"no global shortcut on the {platform!r} platform")

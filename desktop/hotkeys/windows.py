"""The global shortcut on Windows: ``RegisterHotKey`` through user32 with ctypes, and a native event filter.

``RegisterHotKey(NULL, id, modifiers | MOD_NOREPEAT, vk)`` is called on the GUI thread, so Windows posts
``WM_HOTKEY`` to that thread's message queue; Qt's event dispatcher hands every message it takes from the
queue to the application's native event filters (``windows_generic_MSG``) first, where
:class:`HotKeyFilter` recognises ours. Keys another app registered fail with
``ERROR_HOTKEY_ALREADY_REGISTERED`` (1409).

Tested for real under Wine (tests/windows/test_native.py: registration, a key taken, ``WM_HOTKEY``
through Qt's dispatcher) and with a fake ``MSG`` on every platform (tests/desktop/test_hotkeys.py).
"""

from __future__ import annotations

import ctypes
import logging
import sys
from collections.abc import Callable
from ctypes import wintypes
from typing import Any

from PySide6.QtCore import QAbstractNativeEventFilter, QCoreApplication, QObject

from desktop.hotkeys.keys import Keys, ShortcutTaken, ShortcutUnavailable

log = logging.getLogger("memtray.desktop.hotkeys")

WM_HOTKEY = 0x0312
MOD_ALT, MOD_CONTROL, MOD_SHIFT, MOD_WIN, MOD_NOREPEAT = 0x1, 0x2, 0x4, 0x8, 0x4000
ERROR_HOTKEY_ALREADY_REGISTERED = 1409
HOTKEY_ID = 0x6D74  # any id from 0 to 0xBFFF; one per shortcut of this thread


def virtual_key(keys: Keys) -> int:
    """The virtual-key code: letters and digits are their upper-case ASCII, F1 is 0x70, Space 0x20."""
    if keys.key == "space":
        return 0x20
    if keys.key.startswith("f") and len(keys.key) > 1:
        return 0x6F + int(keys.key[1:])
    return ord(keys.key.upper())


def modifiers(keys: Keys) -> int:
    return (
        MOD_NOREPEAT
        | (MOD_CONTROL if keys.ctrl else 0)
        | (MOD_ALT if keys.alt else 0)
        | (MOD_SHIFT if keys.shift else 0)
        | (MOD_WIN if keys.meta else 0)
    )


class HotKeyFilter(QAbstractNativeEventFilter):
    """Calls ``on_activated()`` for our ``WM_HOTKEY`` and swallows it; passes every other message on."""

    def __init__(self, hotkey_id: int, on_activated: Callable[[], None]) -> None:
        super().__init__()
        self.hotkey_id = hotkey_id
        self.on_activated = on_activated

    def nativeEventFilter(self, eventType: Any, message: Any) -> tuple[bool, int]:
        # ``message`` is a shiboken VoidPtr from Qt (an int in tests): its truth is its size, unknown
        # and so False, so only its address says whether there is a message
        if bytes(eventType) != b"windows_generic_MSG" or not int(message):
            return False, 0
        msg = wintypes.MSG.from_address(int(message))
        if msg.message == WM_HOTKEY and msg.wParam == self.hotkey_id:
            self.on_activated()
            return True, 0
        return False, 0


def _last_error() -> int:
    get = getattr(ctypes, "get_last_error", None)  # Windows only
    return int(get()) if get is not None else 0


def _user32() -> Any:
    if sys.platform != "win32":
        raise ShortcutUnavailable("user32 exists on Windows only")
    user32 = getattr(ctypes, "WinDLL")("user32", use_last_error=True)  # noqa: B009 (Windows only)
    user32.RegisterHotKey.argtypes = [wintypes.HWND, ctypes.c_int, wintypes.UINT, wintypes.UINT]
    user32.RegisterHotKey.restype = wintypes.BOOL
    user32.UnregisterHotKey.argtypes = [wintypes.HWND, ctypes.c_int]
    user32.UnregisterHotKey.restype = wintypes.BOOL
    return user32


class WindowsHotKey(QObject):
    """Holds the registration of ``keys``; ``on_activated()`` runs on the GUI thread when they are pressed.

    ``user32`` is for tests (an object with ``RegisterHotKey`` and ``UnregisterHotKey``).
    """

    def __init__(
        self,
        keys: Keys,
        on_activated: Callable[[], None],
        parent: QObject | None = None,
        *,
        user32: Any = None,
        last_error: Callable[[], int] | None = None,
    ) -> None:
        super().__init__(parent)
        self._registered = False
        self._user32 = user32 if user32 is not None else _user32()
        self.filter = HotKeyFilter(HOTKEY_ID, on_activated)  # referenced here: Qt does not own it
        if not self._user32.RegisterHotKey(None, HOTKEY_ID, modifiers(keys), virtual_key(keys)):
            error = last_error() if last_error is not None else _last_error()
            if error == ERROR_HOTKEY_ALREADY_REGISTERED:
                raise ShortcutTaken(f"{keys.text} is registered by another app")
            raise ShortcutUnavailable(f"RegisterHotKey failed (error {error})")
        app = QCoreApplication.instance()
        if app is not None:
            app.installNativeEventFilter(self.filter)
        self._registered = True
        log.info("global shortcut %s: registered", keys.text)

    def close(self) -> None:
        if not self._registered:
            return
        self._registered = False
        app = QCoreApplication.instance()
        if app is not None:
            app.removeNativeEventFilter(self.filter)
        self._user32.UnregisterHotKey(None, HOTKEY_ID)

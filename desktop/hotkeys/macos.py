"""The global shortcut on macOS: Carbon's ``RegisterEventHotKey`` through ctypes.

Carbon hot keys need no Accessibility or Input Monitoring permission (only event taps and global event
monitors do) and are delivered as ``kEventHotKeyPressed`` events to the application event target, which
Qt's Cocoa event loop dispatches on the main thread; the handler installed with ``InstallEventHandler``
then calls back into Python. ``RegisterEventHotKey`` reports ``eventHotKeyExistsErr`` (-9878) for keys
already registered.

Key codes are the ANSI keyboard's positions (``kVK_ANSI_M`` is 0x2E); modifiers follow Qt: Ctrl is the
Command key (``cmdKey``), Alt the Option key, Meta the Control key.

Written against Apple's HIToolbox headers but never run: this project's machines are Linux only. Every
call is guarded, and a failure leaves the app without the shortcut (it says so), never crashes it.
"""

from __future__ import annotations

import ctypes
import logging
import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from desktop.hotkeys.keys import Keys, ShortcutTaken, ShortcutUnavailable

log = logging.getLogger("memtray.desktop.hotkeys")

CARBON = "/System/Library/Frameworks/Carbon.framework/Carbon"
CMD_KEY, SHIFT_KEY, OPTION_KEY, CONTROL_KEY = 0x100, 0x200, 0x800, 0x1000
EVENT_CLASS_KEYBOARD = int.from_bytes(b"keyb", "big")
EVENT_HOT_KEY_PRESSED = 5
SIGNATURE = int.from_bytes(b"mtry", "big")
HOT_KEY_EXISTS = -9878
KEY_CODES = {
    **dict(zip("asdfhgzxcv", (0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09), strict=True)),
    **dict(zip("bqwerty", (0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11), strict=True)),
    **dict(zip("1234659708", (0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x19, 0x1A, 0x1C, 0x1D), strict=True)),
    **dict(zip("ouipljkn", (0x1F, 0x20, 0x22, 0x23, 0x25, 0x26, 0x28, 0x2D), strict=True)),
    "m": 0x2E,
    "space": 0x31,
    **dict(
        zip(
            ("f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12"),
            (0x7A, 0x78, 0x63, 0x76, 0x60, 0x61, 0x62, 0x64, 0x65, 0x6D, 0x67, 0x6F),
            strict=True,
        )
    ),
}
"""``kVK_*`` virtual key codes (Events.h): positions on the ANSI keyboard."""


class EventHotKeyID(ctypes.Structure):
    _fields_ = [("signature", ctypes.c_uint32), ("id", ctypes.c_uint32)]


class EventTypeSpec(ctypes.Structure):
    _fields_ = [("eventClass", ctypes.c_uint32), ("eventKind", ctypes.c_uint32)]


EventHandler = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


def carbon_modifiers(keys: Keys) -> int:
    return (
        (CMD_KEY if keys.ctrl else 0)
        | (OPTION_KEY if keys.alt else 0)
        | (SHIFT_KEY if keys.shift else 0)
        | (CONTROL_KEY if keys.meta else 0)
    )


def _carbon() -> Any:
    if sys.platform != "darwin":
        raise ShortcutUnavailable("Carbon exists on macOS only")
    try:
        carbon = ctypes.CDLL(CARBON)
    except OSError as exc:
        raise ShortcutUnavailable(f"cannot load Carbon ({exc})") from exc
    carbon.GetApplicationEventTarget.restype = ctypes.c_void_p
    carbon.GetApplicationEventTarget.argtypes = []
    carbon.InstallEventHandler.restype = ctypes.c_int32
    carbon.InstallEventHandler.argtypes = [
        ctypes.c_void_p,
        EventHandler,
        ctypes.c_ulong,
        ctypes.POINTER(EventTypeSpec),
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_void_p),
    ]
    carbon.RemoveEventHandler.restype = ctypes.c_int32
    carbon.RemoveEventHandler.argtypes = [ctypes.c_void_p]
    carbon.RegisterEventHotKey.restype = ctypes.c_int32
    carbon.RegisterEventHotKey.argtypes = [
        ctypes.c_uint32,
        ctypes.c_uint32,
        EventHotKeyID,
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.POINTER(ctypes.c_void_p),
    ]
    carbon.UnregisterEventHotKey.restype = ctypes.c_int32
    carbon.UnregisterEventHotKey.argtypes = [ctypes.c_void_p]
    return carbon


class CarbonHotKey(QObject):
    """Holds the registration of ``keys``; ``on_activated()`` runs on the main thread when pressed."""

    def __init__(self, keys: Keys, on_activated: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        code = KEY_CODES.get(keys.key)
        if code is None:
            raise ShortcutUnavailable(f"no macOS key code for {keys.key!r}")
        self._carbon = _carbon()
        self._hotkey = ctypes.c_void_p()
        self._handler_ref = ctypes.c_void_p()

        def handle(_call: int | None, _event: int | None, _data: int | None) -> int:
            try:
                on_activated()
            except Exception:  # an exception must not cross into Carbon
                log.exception("the global shortcut's action failed")
            return 0

        self._handler = EventHandler(handle)  # referenced here, or the callback is freed under Carbon
        target = self._carbon.GetApplicationEventTarget()
        spec = EventTypeSpec(EVENT_CLASS_KEYBOARD, EVENT_HOT_KEY_PRESSED)
        status = self._carbon.InstallEventHandler(
            target, self._handler, 1, ctypes.byref(spec), None, ctypes.byref(self._handler_ref)
        )
        if status != 0:
            raise ShortcutUnavailable(f"InstallEventHandler failed ({status})")
        status = self._carbon.RegisterEventHotKey(
            code, carbon_modifiers(keys), EventHotKeyID(SIGNATURE, 1), target, 0, ctypes.byref(self._hotkey)
        )
        if status != 0:
            self._carbon.RemoveEventHandler(self._handler_ref)
            self._handler_ref = ctypes.c_void_p()
            if status == HOT_KEY_EXISTS:
                raise ShortcutTaken(f"{keys.text} is registered already")
            raise ShortcutUnavailable(f"RegisterEventHotKey failed ({status})")
        log.info("global shortcut %s: registered with Carbon", keys.text)

    def close(self) -> None:
        if self._hotkey:
            self._carbon.UnregisterEventHotKey(self._hotkey)
            self._hotkey = ctypes.c_void_p()
        if self._handler_ref:
            self._carbon.RemoveEventHandler(self._handler_ref)
            self._handler_ref = ctypes.c_void_p()

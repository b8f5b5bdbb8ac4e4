"""The global shortcut on X11: a passive key grab on the root window, through libX11 with ctypes.

It opens its own connection to the display Qt uses (so Qt's event queue is untouched) and grabs the keys
four times: as given, with Caps Lock, with Num Lock, and with both, since X matches the exact modifier
state and the shortcut would otherwise die while a lock is on. A grab another client holds fails with
``BadAccess``; the error handler that notices it is installed only around the grab (Qt's own stays in
place otherwise). The connection's socket is watched by a ``QSocketNotifier``, so key presses arrive in
the GUI thread's event loop with no thread of our own.

Under XWayland the grab works only while an X11 window has the keyboard focus.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
from collections.abc import Callable

from PySide6.QtCore import QObject, QSocketNotifier
from PySide6.QtGui import QGuiApplication

from desktop.hotkeys.keys import Keys, ShortcutTaken, ShortcutUnavailable

log = logging.getLogger("memtray.desktop.hotkeys")

ShiftMask, LockMask, ControlMask, Mod1Mask, Mod2Mask, Mod4Mask = 1, 2, 4, 8, 16, 64
KEY_PRESS = 2
GRAB_MODE_ASYNC = 1
BAD_ACCESS = 10
LOCKS = (0, LockMask, Mod2Mask, LockMask | Mod2Mask)
"""Caps Lock (Lock) and Num Lock (Mod2 on every common keymap) states to grab the keys in."""

Display = ctypes.c_void_p
Window = ctypes.c_ulong


class XKeyEvent(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("serial", ctypes.c_ulong),
        ("send_event", ctypes.c_int),
        ("display", Display),
        ("window", Window),
        ("root", Window),
        ("subwindow", Window),
        ("time", ctypes.c_ulong),
        ("x", ctypes.c_int),
        ("y", ctypes.c_int),
        ("x_root", ctypes.c_int),
        ("y_root", ctypes.c_int),
        ("state", ctypes.c_uint),
        ("keycode", ctypes.c_uint),
        ("same_screen", ctypes.c_int),
    ]


class XEvent(ctypes.Union):
    _fields_ = [("type", ctypes.c_int), ("xkey", XKeyEvent), ("pad", ctypes.c_long * 24)]


class XErrorEvent(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("display", Display),
        ("resourceid", ctypes.c_ulong),
        ("serial", ctypes.c_ulong),
        ("error_code", ctypes.c_ubyte),
        ("request_code", ctypes.c_ubyte),
        ("minor_code", ctypes.c_ubyte),
    ]


ErrorHandler = ctypes.CFUNCTYPE(ctypes.c_int, Display, ctypes.POINTER(XErrorEvent))
_errors: list[int] = []


@ErrorHandler
def _on_error(_display: int, event: ctypes._Pointer[XErrorEvent]) -> int:
    _errors.append(int(event.contents.error_code))
    return 0


def _library() -> ctypes.CDLL:
    try:
        x = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
    except OSError as exc:
        raise ShortcutUnavailable(f"libX11 is missing ({exc})") from exc
    x.XOpenDisplay.restype = Display
    x.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x.XDisplayString.restype = ctypes.c_char_p
    x.XDisplayString.argtypes = [Display]
    x.XDefaultRootWindow.restype = Window
    x.XDefaultRootWindow.argtypes = [Display]
    x.XStringToKeysym.restype = ctypes.c_ulong
    x.XStringToKeysym.argtypes = [ctypes.c_char_p]
    x.XKeysymToKeycode.restype = ctypes.c_ubyte
    x.XKeysymToKeycode.argtypes = [Display, ctypes.c_ulong]
    x.XGrabKey.argtypes = [
        Display,
        ctypes.c_int,
        ctypes.c_uint,
        Window,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
    ]
    x.XUngrabKey.argtypes = [Display, ctypes.c_int, ctypes.c_uint, Window]
    x.XSync.argtypes = [Display, ctypes.c_int]
    x.XPending.argtypes = [Display]
    x.XNextEvent.argtypes = [Display, ctypes.POINTER(XEvent)]
    x.XConnectionNumber.argtypes = [Display]
    x.XCloseDisplay.argtypes = [Display]
    x.XSetErrorHandler.restype = ctypes.c_void_p
    x.XSetErrorHandler.argtypes = [ctypes.c_void_p]
    return x


def qt_display_name() -> bytes | None:
    """The name of the X display Qt is connected to (None: let Xlib read ``DISPLAY``)."""
    app = QGuiApplication.instance()
    native = getattr(app, "nativeInterface", None)
    x11 = native() if callable(native) else None
    display = getattr(x11, "display", None)
    pointer = display() if callable(display) else None
    if not pointer:
        return None
    name: bytes | None = _library().XDisplayString(int(pointer))
    return name


def mask_of(keys: Keys) -> int:
    return (
        (ControlMask if keys.ctrl else 0)
        | (Mod1Mask if keys.alt else 0)
        | (ShiftMask if keys.shift else 0)
        | (Mod4Mask if keys.meta else 0)
    )


def keysym_name(keys: Keys) -> bytes:
    return (keys.key.upper() if keys.key.startswith("f") and len(keys.key) > 1 else keys.key).encode()


class X11Grab(QObject):
    """Holds the grab of ``keys`` and calls ``on_activated()`` on the GUI thread when they are pressed."""

    def __init__(self, keys: Keys, on_activated: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._x = _library()
        self._on_activated = on_activated
        self._display = self._x.XOpenDisplay(qt_display_name())
        if not self._display:
            raise ShortcutUnavailable("cannot connect to the X display")
        self._root = self._x.XDefaultRootWindow(self._display)
        self._mask = mask_of(keys)
        self._code = self._x.XKeysymToKeycode(self._display, self._x.XStringToKeysym(keysym_name(keys)))
        if not self._code:
            self._x.XCloseDisplay(self._display)
            self._display = None
            raise ShortcutUnavailable(f"the keyboard has no key {keys.key!r}")
        self._grab(keys)
        self._notifier = QSocketNotifier(
            self._x.XConnectionNumber(self._display), QSocketNotifier.Type.Read, self
        )
        self._notifier.activated.connect(self._drain)
        self._drain()
        log.info("global shortcut %s: grabbed on X display %s", keys.text, qt_display_name() or "$DISPLAY")

    def _grab(self, keys: Keys) -> None:
        del _errors[:]
        previous = self._x.XSetErrorHandler(ctypes.cast(_on_error, ctypes.c_void_p))
        try:
            for lock in LOCKS:
                self._x.XGrabKey(
                    self._display,
                    self._code,
                    self._mask | lock,
                    self._root,
                    0,
                    GRAB_MODE_ASYNC,
                    GRAB_MODE_ASYNC,
                )
            self._x.XSync(self._display, 0)
        finally:
            self._x.XSetErrorHandler(previous)
        if _errors:
            code = _errors[0]
            self.close()
            if code == BAD_ACCESS:
                raise ShortcutTaken(f"{keys.text} is grabbed by another X client")
            raise ShortcutUnavailable(f"XGrabKey failed with X error {code}")

    def _drain(self, *_args: object) -> None:
        if not self._display:
            return
        event = XEvent()
        pressed = False
        while self._x.XPending(self._display):
            self._x.XNextEvent(self._display, ctypes.byref(event))
            if event.type == KEY_PRESS and event.xkey.keycode == self._code:
                pressed = True
        if pressed:
            self._on_activated()

    def close(self) -> None:
        """Release the grab and the connection."""
        if not self._display:
            return
        notifier = getattr(self, "_notifier", None)
        if notifier is not None:
            notifier.setEnabled(False)
        for lock in LOCKS:
            self._x.XUngrabKey(self._display, self._code, self._mask | lock, self._root)
        self._x.XCloseDisplay(self._display)
        self._display = None

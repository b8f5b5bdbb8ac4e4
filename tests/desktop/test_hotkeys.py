"""The global shortcut's keys per platform, Windows' message dispatch with a fake ``MSG``, and what the
user is told on each platform (the real X11 grab is tested under Xvfb in ``test_hotkey_xvfb.py``)."""

from __future__ import annotations

import ctypes
from ctypes import wintypes
from typing import Any

import pytest
from PySide6.QtCore import QByteArray

from desktop.hotkeys import COMMAND, GlobalShortcut, ShortcutStatus, macos, windows, x11
from desktop.hotkeys.keys import Keys, ShortcutTaken


def test_keys_are_read_in_qts_notation() -> None:
    keys = Keys.parse("Ctrl+Alt+M")
    assert (keys.key, keys.ctrl, keys.alt, keys.shift, keys.meta) == ("m", True, True, False, False)
    assert keys.text == "Ctrl+Alt+M"
    assert Keys.parse("Meta+Shift+F5").key == "f5"
    assert Keys.parse("Ctrl+Space").key == "space"
    for bad in ("M", "Ctrl+Alt+M, Ctrl+X", "Ctrl+Alt+Left", ""):
        with pytest.raises(ValueError):
            Keys.parse(bad)


def test_each_platform_gets_its_codes() -> None:
    keys = Keys.parse("Ctrl+Alt+M")
    assert x11.mask_of(keys) == x11.ControlMask | x11.Mod1Mask and x11.keysym_name(keys) == b"m"
    assert x11.keysym_name(Keys.parse("Ctrl+F11")) == b"F11"
    assert windows.virtual_key(keys) == ord("M") and windows.virtual_key(Keys.parse("Alt+F1")) == 0x70
    assert windows.modifiers(keys) == windows.MOD_NOREPEAT | windows.MOD_CONTROL | windows.MOD_ALT
    assert macos.KEY_CODES["m"] == 0x2E and len([k for k in macos.KEY_CODES if len(k) == 1]) == 36
    assert macos.carbon_modifiers(keys) == macos.CMD_KEY | macos.OPTION_KEY  # Qt's Ctrl is Command


class FakeUser32:
    def __init__(self, ok: bool = True) -> None:
        self.ok, self.calls = ok, []  # type: ignore[var-annotated]

    def RegisterHotKey(self, hwnd: Any, hid: int, mods: int, vk: int) -> int:
        self.calls.append(("register", hid, mods, vk))
        return 1 if self.ok else 0

    def UnregisterHotKey(self, hwnd: Any, hid: int) -> int:
        self.calls.append(("unregister", hid))
        return 1


def test_windows_hot_key_message_is_ours_and_swallowed(qapp: Any) -> None:
    hits: list[int] = []
    user32 = FakeUser32()
    hotkey = windows.WindowsHotKey(Keys.parse("Ctrl+Alt+M"), lambda: hits.append(1), user32=user32)
    try:
        assert user32.calls[0][1:] == (
            windows.HOTKEY_ID,
            windows.modifiers(Keys.parse("Ctrl+Alt+M")),
            ord("M"),
        )
        msg = wintypes.MSG()
        msg.message, msg.wParam = windows.WM_HOTKEY, windows.HOTKEY_ID
        event = QByteArray(b"windows_generic_MSG")
        assert hotkey.filter.nativeEventFilter(event, ctypes.addressof(msg)) == (True, 0)
        msg.wParam = windows.HOTKEY_ID + 1  # another app's id on this thread: not ours
        assert hotkey.filter.nativeEventFilter(event, ctypes.addressof(msg)) == (False, 0)
        assert hotkey.filter.nativeEventFilter(QByteArray(b"xcb_generic_event_t"), 1) == (False, 0)
        assert hits == [1]
    finally:
        hotkey.close()
    assert user32.calls[-1] == ("unregister", windows.HOTKEY_ID)


def test_windows_keys_another_app_registered_are_taken(qapp: Any) -> None:
    with pytest.raises(ShortcutTaken):
        windows.WindowsHotKey(
            Keys.parse("Ctrl+Alt+M"),
            lambda: None,
            user32=FakeUser32(ok=False),
            last_error=lambda: windows.ERROR_HOTKEY_ALREADY_REGISTERED,
        )


def test_offscreen_and_wayland_say_what_to_do(qapp: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    shortcut = GlobalShortcut()
    assert shortcut.register().state == "unavailable"  # the test suite runs offscreen
    monkeypatch.setattr("desktop.hotkeys.QGuiApplication.platformName", staticmethod(lambda: "wayland"))
    status = shortcut.register()
    assert status.state == "wayland" and COMMAND in status.text
    assert status.text.startswith("On Wayland, apps cannot have a global shortcut.")
    assert ShortcutStatus("active", "Ctrl+Alt+M").text == "Ctrl+Alt+M opens this search from any app."
    failed = ShortcutStatus("failed", "Ctrl+Alt+M", "libX11 is missing").text
    assert failed == "The global shortcut Ctrl+Alt+M could not be set up: libX11 is missing"

"""memtray's Windows-only code paths against the real Windows APIs (under Wine in ``make windows-test``):
the Run value of "Start at login" (winreg), the Gemini key in Credential Manager (keyring's Windows
backend), the global shortcut (user32 ``RegisterHotKey`` and Qt's native event filter), and the single
instance's local server (a named pipe) answering a second launch from another process.

Nothing here touches the user's own settings when run on a real Windows: the Run value is written under
a test key, and a stored Gemini key is put back.
"""

from __future__ import annotations

import ctypes
import subprocess
import sys
import time
import uuid
import winreg
from collections.abc import Iterator
from ctypes import wintypes
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QEventLoop

from desktop import autostart
from desktop.hotkeys import windows
from desktop.hotkeys.keys import Keys, ShortcutTaken
from desktop.single import SingleInstance
from engine.llm.keys import SERVICE, USERNAME
from engine.llm.keys import Keys as GeminiKeys

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def app() -> QCoreApplication:
    return QCoreApplication.instance() or QCoreApplication([])


def pump(app: QCoreApplication, until: object, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not until() and time.monotonic() < deadline:  # type: ignore[operator]
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)


@pytest.fixture
def run_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """RunKeyAutostart's key moved under a throw-away HKCU key (the real Run value stays untouched)."""
    base = rf"Software\memtray-tests\{uuid.uuid4().hex}"
    key = base + r"\Run"
    winreg.CreateKey(winreg.HKEY_CURRENT_USER, key).Close()
    monkeypatch.setattr(autostart.RunKeyAutostart, "KEY", key)
    yield key
    winreg.DeleteKey(winreg.HKEY_CURRENT_USER, key)
    winreg.DeleteKey(winreg.HKEY_CURRENT_USER, base)


def test_start_at_login_writes_reads_and_removes_the_run_value(run_key: str, tmp_path: Path) -> None:
    program = tmp_path / "Program Files" / "memtray" / "memtray.exe"  # a space: the value must be quoted
    entry = autostart.RunKeyAutostart([str(program), "--home", str(tmp_path / "my data")])
    assert not entry.is_enabled()
    entry.enable()
    with winreg.OpenKey(winreg.HKEY_CURRENT_USER, run_key) as key:
        value, kind = winreg.QueryValueEx(key, "memtray")
    assert kind == winreg.REG_SZ and value.startswith(f'"{program}"')
    assert entry.read_command() == [str(program), "--home", str(tmp_path / "my data")]
    assert entry.is_enabled()
    entry.disable()
    assert entry.read_command() is None and not entry.is_enabled()
    entry.disable()  # twice: nothing to do, no error


def test_the_gemini_key_goes_to_credential_manager_by_default() -> None:
    from keyring.backends.Windows import WinVaultKeyring

    keys = GeminiKeys(environ={})
    backend = keys.backend()
    assert isinstance(backend, WinVaultKeyring)  # the OS store, chosen without configuration
    kept = backend.get_password(SERVICE, USERNAME)
    try:
        keys.set("AIza-windows-test")
        assert keys.get() == "AIza-windows-test" and keys.status().source == "keyring"
        assert WinVaultKeyring().get_password(SERVICE, USERNAME) == "AIza-windows-test"  # a new reader
        assert keys.delete() is True
        assert keys.get() is None
    finally:
        if kept is not None:
            backend.set_password(SERVICE, USERNAME, kept)


def test_the_global_shortcut_is_registered_and_its_message_reaches_the_app(app: QCoreApplication) -> None:
    keys = Keys.parse("Ctrl+Alt+Shift+F9")
    user32 = ctypes.WinDLL("user32", use_last_error=True)
    user32.RegisterHotKey.argtypes = [wintypes.HWND, ctypes.c_int, wintypes.UINT, wintypes.UINT]
    user32.PostThreadMessageW.argtypes = [wintypes.DWORD, wintypes.UINT, wintypes.WPARAM, wintypes.LPARAM]
    kernel32 = ctypes.WinDLL("kernel32")
    hits: list[int] = []
    hotkey = windows.WindowsHotKey(keys, lambda: hits.append(1))
    try:
        # registered for real: the same keys cannot be registered again, by anyone
        assert not user32.RegisterHotKey(
            None, windows.HOTKEY_ID + 1, windows.modifiers(keys), windows.virtual_key(keys)
        )
        assert ctypes.get_last_error() == windows.ERROR_HOTKEY_ALREADY_REGISTERED
        with pytest.raises(ShortcutTaken):
            windows.WindowsHotKey(keys, lambda: None)
        # the WM_HOTKEY that Windows posts to this thread goes through Qt's dispatcher to our filter
        assert user32.PostThreadMessageW(
            kernel32.GetCurrentThreadId(), windows.WM_HOTKEY, windows.HOTKEY_ID, 0
        )
        pump(app, lambda: hits)
        assert hits == [1]
    finally:
        hotkey.close()
    again = windows.WindowsHotKey(keys, lambda: None)  # released: free to register again
    again.close()


def test_a_second_launch_reaches_the_running_instance_over_its_local_server(
    app: QCoreApplication, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    (home / ".store").mkdir(parents=True)
    first = SingleInstance(home, home / ".store" / "app.lock")
    assert first.acquire()
    heard: list[str] = []
    first.quit_requested.connect(lambda: heard.append("quit"))
    try:
        code = (
            "import sys; from pathlib import Path; from PySide6.QtCore import QCoreApplication; "
            "from desktop.single import SingleInstance; app = QCoreApplication([]); home = Path(sys.argv[1]); "
            "second = SingleInstance(home, home / '.store' / 'app.lock'); "
            "held = not second.acquire(); sys.exit(0 if held and second.notify_running(10000, b'quit\\n') else 1)"
        )
        knock = subprocess.Popen([sys.executable, "-c", code, str(home)], cwd=ROOT)
        pump(app, lambda: heard or knock.poll() not in (None, 0), seconds=60)
        assert knock.wait(timeout=60) == 0
        pump(app, lambda: heard)
        assert heard == ["quit"]
    finally:
        first.release()

"""Start memtray at login: an XDG autostart entry on Linux, a LaunchAgent on macOS, the Run key on Windows.

Each platform has one small class with ``enable()``, ``disable()`` and ``is_enabled()``; the file contents
are built by pure functions so they can be tested on any platform. These functions do file or registry
I/O: call them on a worker.
"""

from __future__ import annotations

import os
import plistlib
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Protocol

APP_ID = "io.github.memtray"
NAME = "memtray"


def launch_command() -> list[str]:
    """The command that starts the tray app.

    A frozen build (PyInstaller) is its own launcher: ``sys.executable`` is the installed ``memtray``
    program (Linux tarball, Windows installer, the binary inside the macOS ``.app``). Otherwise the
    ``memtray`` script if one is on PATH, else this Python running the module.
    """
    if getattr(sys, "frozen", False):
        return [str(Path(sys.executable).resolve())]
    script = shutil.which("memtray")
    if script:
        return [str(Path(script).resolve())]
    return [sys.executable, "-m", "desktop.launcher"]


def desktop_entry(command: list[str]) -> str:
    """The XDG ``.desktop`` autostart entry."""
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        f"Name={NAME}\n"
        "Comment=A local memory for your LLM conversations\n"
        f"Exec={shlex.join(command)}\n"
        "Icon=memtray\n"
        "Terminal=false\n"
        "Categories=Utility;\n"
        "X-GNOME-Autostart-enabled=true\n"
    )


def launch_agent(command: list[str]) -> bytes:
    """The macOS LaunchAgent property list."""
    return plistlib.dumps(
        {
            "Label": APP_ID,
            "ProgramArguments": command,
            "RunAtLoad": True,
            "KeepAlive": False,
            "ProcessType": "Interactive",
        }
    )


def run_value(command: list[str]) -> str:
    """The Windows ``Run`` key value (a command line)."""
    return subprocess.list2cmdline(command)


class Autostart(Protocol):
    def enable(self) -> None: ...
    def disable(self) -> None: ...
    def is_enabled(self) -> bool: ...


class XdgAutostart:
    """``$XDG_CONFIG_HOME/autostart/memtray.desktop``."""

    def __init__(self, command: list[str] | None = None) -> None:
        self.command = command or launch_command()

    @property
    def path(self) -> Path:
        config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        return Path(config) / "autostart" / f"{NAME}.desktop"

    def enable(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(desktop_entry(self.command), encoding="utf-8")
        os.replace(tmp, self.path)

    def disable(self) -> None:
        self.path.unlink(missing_ok=True)

    def is_enabled(self) -> bool:
        return self.path.exists()


class LaunchAgentAutostart:
    """``~/Library/LaunchAgents/io.github.memtray.plist``."""

    def __init__(self, command: list[str] | None = None) -> None:
        self.command = command or launch_command()
        self.path = Path.home() / "Library" / "LaunchAgents" / f"{APP_ID}.plist"

    def enable(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_bytes(launch_agent(self.command))

    def disable(self) -> None:
        self.path.unlink(missing_ok=True)

    def is_enabled(self) -> bool:
        return self.path.exists()


def _winreg() -> Any:
    import importlib

    return importlib.import_module("winreg")


class RunKeyAutostart:
    r"""``HKCU\Software\Microsoft\Windows\CurrentVersion\Run``, value ``memtray``."""

    KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"

    def __init__(self, command: list[str] | None = None) -> None:
        self.command = command or launch_command()

    def enable(self) -> None:
        winreg = _winreg()

        with winreg.OpenKey(winreg.HKEY_CURRENT_USER, self.KEY, 0, winreg.KEY_SET_VALUE) as key:
            winreg.SetValueEx(key, NAME, 0, winreg.REG_SZ, run_value(self.command))

    def disable(self) -> None:
        winreg = _winreg()

        with winreg.OpenKey(winreg.HKEY_CURRENT_USER, self.KEY, 0, winreg.KEY_SET_VALUE) as key:
            try:
                winreg.DeleteValue(key, NAME)
            except FileNotFoundError:
                pass

    def is_enabled(self) -> bool:
        winreg = _winreg()

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, self.KEY) as key:
                winreg.QueryValueEx(key, NAME)
        except FileNotFoundError:
            return False
        return True


def for_platform(platform: str = sys.platform) -> Autostart:
    """The autostart mechanism of ``platform`` (``linux``, ``darwin``, ``win32``; other Unixes use XDG)."""
    if platform == "darwin":
        return LaunchAgentAutostart()
    if platform == "win32":
        return RunKeyAutostart()
    return XdgAutostart()


def apply(enabled: bool, autostart: Autostart | None = None) -> bool:
    """Make the login item match ``enabled``; return the state now in effect."""
    target = autostart or for_platform()
    if enabled:
        target.enable()
    else:
        target.disable()
    return target.is_enabled()

"""Start memtray at login: an XDG autostart entry on Linux, a LaunchAgent on macOS, the Run key on Windows.

Each platform has one small class with ``enable()``, ``disable()``, ``is_enabled()`` and
``read_command()``. The entry starts memtray for one data folder: the command carries ``--home DIR`` when
the home is not the platform's default, quoted as the entry's format wants it (the Desktop Entry
specification's Exec quoting, a ``CommandLineToArgvW`` command line, a plist's argument list). The entry
is the state: "Start memtray when I log in" is checked when an entry exists and starts this data folder;
nothing about it is kept in the data folder (autostart belongs to the user's login, not to a home).
Disabling removes only an entry that starts this data folder.

The file contents are built and read by pure functions, so they are tested on any platform. The classes
do file or registry I/O: call them on a worker.
"""

from __future__ import annotations

import os
import plistlib
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Protocol

from engine import platform_home

APP_ID = "io.github.memtray"
NAME = "memtray"
HOME_OPTION = "--home"


def launch_command(home: Path | None = None) -> list[str]:
    """The command that starts the tray app (for ``home``; ``--home`` only when it is not the default).

    A frozen build (PyInstaller) is its own launcher: ``sys.executable`` is the installed ``memtray``
    program (Linux tarball, Windows installer, the binary inside the macOS ``.app``). Otherwise the
    ``memtray`` script if one is on PATH, else this Python running the module.
    """
    if getattr(sys, "frozen", False):
        command = [str(Path(sys.executable).resolve())]
    elif script := shutil.which("memtray"):
        command = [str(Path(script).resolve())]
    else:
        command = [sys.executable, "-m", "desktop.launcher"]
    if home is not None and not same_folder(home, platform_home()):
        command += [HOME_OPTION, str(Path(home).expanduser().resolve())]
    return command


def same_folder(a: Path, b: Path) -> bool:
    return Path(a).expanduser().resolve() == Path(b).expanduser().resolve()


def home_of(command: list[str]) -> Path:
    """The data folder ``command`` starts memtray for (``--home DIR`` or ``--home=DIR``, else the default)."""
    for i, arg in enumerate(command):
        if arg == HOME_OPTION and i + 1 < len(command):
            return Path(command[i + 1])
        if arg.startswith(HOME_OPTION + "="):
            return Path(arg.split("=", 1)[1])
    return platform_home()


def starts_same_home(stored: list[str] | None, wanted: list[str]) -> bool:
    """Whether the ``stored`` entry's command starts the data folder ``wanted`` does."""
    return stored is not None and same_folder(home_of(stored), home_of(wanted))


# -- XDG Desktop Entry -------------------------------------------------------------------------------

_EXEC_RESERVED = frozenset(" \t\n\"'\\><~|&;$*?#()`")
_EXEC_ESCAPED = re.compile(r'(["`$\\])')
_VALUE_ESCAPES = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}


def exec_argument(arg: str) -> str:
    """One Exec argument: double-quoted (``"``, `````, ``$`` and ``\\`` backslashed) when it holds a
    reserved character; ``%`` doubled (a literal percent sign, not a field code)."""
    if arg and not _EXEC_RESERVED.intersection(arg):
        quoted = arg
    else:
        quoted = '"' + _EXEC_ESCAPED.sub(r"\\\1", arg) + '"'
    return quoted.replace("%", "%%")


def exec_value(command: list[str]) -> str:
    """The ``Exec`` key's value as written in the file (the string escapes ``\\\\`` and ``\\n`` applied)."""
    line = " ".join(exec_argument(arg) for arg in command)
    return line.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def parse_exec_value(value: str) -> list[str]:
    """The arguments of an ``Exec`` value as read from the file (the reverse of :func:`exec_value`).

    Field codes (``%f``, ``%U``…) are dropped; ``%%`` is a percent sign.
    """
    unescaped, i = [], 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value) and value[i + 1] in _VALUE_ESCAPES:
            unescaped.append(_VALUE_ESCAPES[value[i + 1]])
            i += 2
            continue
        unescaped.append(ch)
        i += 1
    line = "".join(unescaped)
    args: list[str] = []
    current: list[str] = []
    started = quoted = False
    i = 0
    while i < len(line):
        ch = line[i]
        if quoted and ch == "\\" and i + 1 < len(line):
            current.append(line[i + 1])
            i += 2
            continue
        if ch == '"':
            quoted, started = not quoted, True
        elif ch in " \t" and not quoted:
            if started:
                args.append("".join(current))
                current, started = [], False
        elif ch == "%" and i + 1 < len(line):
            if line[i + 1] == "%":
                current.append("%")
                started = True
            i += 2
            continue
        else:
            current.append(ch)
            started = True
        i += 1
    if started:
        args.append("".join(current))
    return args


def desktop_entry(command: list[str]) -> str:
    """The XDG ``.desktop`` autostart entry."""
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        f"Name={NAME}\n"
        "Comment=A local memory for your LLM conversations\n"
        f"Exec={exec_value(command)}\n"
        "Icon=memtray\n"
        "Terminal=false\n"
        "Categories=Utility;\n"
        "X-GNOME-Autostart-enabled=true\n"
    )


def entry_command(text: str) -> list[str] | None:
    """The command of a ``.desktop`` entry's ``[Desktop Entry]`` group (None: it has no Exec)."""
    group = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("[") and line.endswith("]"):
            group = line[1:-1]
        elif group == "Desktop Entry" and line.startswith("Exec") and "=" in line:
            key, value = line.split("=", 1)
            if key.strip() == "Exec":
                return parse_exec_value(value.strip())
    return None


# -- macOS LaunchAgent -------------------------------------------------------------------------------


def launch_agent(command: list[str]) -> bytes:
    """The macOS LaunchAgent property list (the arguments as a list: nothing to quote)."""
    return plistlib.dumps(
        {
            "Label": APP_ID,
            "ProgramArguments": command,
            "RunAtLoad": True,
            "KeepAlive": False,
            "ProcessType": "Interactive",
        }
    )


def agent_command(data: bytes) -> list[str] | None:
    try:
        arguments = plistlib.loads(data).get("ProgramArguments")
    except (plistlib.InvalidFileException, ValueError, AttributeError):
        return None
    return [str(a) for a in arguments] if isinstance(arguments, list) else None


# -- Windows Run key ---------------------------------------------------------------------------------


def run_value(command: list[str]) -> str:
    """The Windows ``Run`` key value: a command line as ``CommandLineToArgvW`` splits it."""
    return subprocess.list2cmdline(command)


def split_run_value(line: str) -> list[str]:
    """The arguments of a Windows command line (``CommandLineToArgvW``'s rules for backslashes and quotes)."""
    args: list[str] = []
    current: list[str] = []
    started = quoted = False
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            slashes = 0
            while i < len(line) and line[i] == "\\":
                slashes += 1
                i += 1
            if i < len(line) and line[i] == '"':
                current.append("\\" * (slashes // 2))
                if slashes % 2:
                    current.append('"')
                    i += 1
            else:
                current.append("\\" * slashes)
            started = True
            continue
        if ch == '"':
            quoted, started = not quoted, True
        elif ch in " \t" and not quoted:
            if started:
                args.append("".join(current))
                current, started = [], False
        else:
            current.append(ch)
            started = True
        i += 1
    if started:
        args.append("".join(current))
    return args


# -- the mechanisms ----------------------------------------------------------------------------------


class Autostart(Protocol):
    command: list[str]

    def enable(self) -> None: ...
    def disable(self) -> None: ...
    def is_enabled(self) -> bool: ...
    def read_command(self) -> list[str] | None: ...


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
        if self.is_enabled():
            self.path.unlink(missing_ok=True)

    def is_enabled(self) -> bool:
        return starts_same_home(self.read_command(), self.command)

    def read_command(self) -> list[str] | None:
        try:
            return entry_command(self.path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            return None


class LaunchAgentAutostart:
    """``~/Library/LaunchAgents/io.github.memtray.plist``."""

    def __init__(self, command: list[str] | None = None) -> None:
        self.command = command or launch_command()
        self.path = Path.home() / "Library" / "LaunchAgents" / f"{APP_ID}.plist"

    def enable(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_bytes(launch_agent(self.command))

    def disable(self) -> None:
        if self.is_enabled():
            self.path.unlink(missing_ok=True)

    def is_enabled(self) -> bool:
        return starts_same_home(self.read_command(), self.command)

    def read_command(self) -> list[str] | None:
        try:
            return agent_command(self.path.read_bytes())
        except OSError:
            return None


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
        if not self.is_enabled():
            return
        winreg = _winreg()

        with winreg.OpenKey(winreg.HKEY_CURRENT_USER, self.KEY, 0, winreg.KEY_SET_VALUE) as key:
            try:
                winreg.DeleteValue(key, NAME)
            except FileNotFoundError:
                pass

    def is_enabled(self) -> bool:
        return starts_same_home(self.read_command(), self.command)

    def read_command(self) -> list[str] | None:
        winreg = _winreg()

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, self.KEY) as key:
                value, _kind = winreg.QueryValueEx(key, NAME)
        except FileNotFoundError:
            return None
        return split_run_value(str(value))


def for_platform(platform: str = sys.platform, home: Path | None = None) -> Autostart:
    """The autostart mechanism of ``platform`` (``linux``, ``darwin``, ``win32``; other Unixes use XDG),
    starting memtray for ``home``."""
    command = launch_command(home)
    if platform == "darwin":
        return LaunchAgentAutostart(command)
    if platform == "win32":
        return RunKeyAutostart(command)
    return XdgAutostart(command)


def apply(enabled: bool, autostart: Autostart | None = None) -> bool:
    """Make the login item match ``enabled``; return the state now in effect."""
    target = autostart or for_platform()
    if enabled:
        target.enable()
    else:
        target.disable()
    return target.is_enabled()

"""Autostart: the Linux entry for real in a temporary XDG_CONFIG_HOME; macOS and Windows by content."""

from __future__ import annotations

import configparser
import plistlib
from pathlib import Path

import pytest

from desktop import autostart


def test_xdg_entry_is_written_and_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    impl = autostart.XdgAutostart(["/usr/bin/memtray", "--home", "/data/my memory"])
    assert not impl.is_enabled()
    assert autostart.apply(True, impl) is True
    path = tmp_path / "cfg" / "autostart" / "memtray.desktop"
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(path, encoding="utf-8")
    entry = parser["Desktop Entry"]
    assert entry["Type"] == "Application" and entry["Name"] == "memtray"
    assert entry["Exec"] == "/usr/bin/memtray --home '/data/my memory'"
    assert autostart.apply(False, impl) is False
    assert not path.exists()


def test_launch_agent_plist() -> None:
    data = plistlib.loads(autostart.launch_agent(["/Applications/memtray.app/Contents/MacOS/memtray"]))
    assert data["Label"] == "io.github.memtray"
    assert data["ProgramArguments"] == ["/Applications/memtray.app/Contents/MacOS/memtray"]
    assert data["RunAtLoad"] is True


def test_windows_run_value_quotes_spaces() -> None:
    assert (
        autostart.run_value([r"C:\Program Files\memtray\memtray.exe"])
        == r'"C:\Program Files\memtray\memtray.exe"'
    )


def test_platform_choice() -> None:
    assert isinstance(autostart.for_platform("linux"), autostart.XdgAutostart)
    assert isinstance(autostart.for_platform("darwin"), autostart.LaunchAgentAutostart)
    assert isinstance(autostart.for_platform("win32"), autostart.RunKeyAutostart)


def test_launch_command_runs_the_tray_app() -> None:
    command = autostart.launch_command()
    assert command[-1].endswith("memtray") or command[-2:] == ["-m", "desktop.launcher"]


def test_a_frozen_build_starts_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exe = tmp_path / "opt" / "memtray" / "memtray"
    exe.parent.mkdir(parents=True)
    exe.write_bytes(b"")
    monkeypatch.setattr("sys.frozen", True, raising=False)
    monkeypatch.setattr("sys.executable", str(exe))
    assert autostart.launch_command() == [str(exe.resolve())]

"""Autostart: the Linux entry for real in a temporary XDG_CONFIG_HOME; macOS and Windows by content; the
entry carries the data folder, quoted for its format, and says by itself whether it starts this one."""

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
    assert entry["Exec"] == '/usr/bin/memtray --home "/data/my memory"'  # the Desktop Entry spec's quotes
    assert autostart.apply(False, impl) is False
    assert not path.exists()


ODD = ["/opt/mem tray/memtray", "--home", 'C:\\data "quoted" $HOME `x` 100% né\tend']


def test_every_format_gives_back_the_arguments_it_was_given() -> None:
    assert autostart.parse_exec_value(autostart.exec_value(ODD)) == ODD
    assert autostart.entry_command(autostart.desktop_entry(ODD)) == ODD
    assert autostart.split_run_value(autostart.run_value(ODD)) == ODD
    assert autostart.agent_command(autostart.launch_agent(ODD)) == ODD
    # A literal backslash in a quoted Exec argument is four in the file; % is doubled; " and $ escaped.
    assert autostart.exec_value(["/x", r'a\b "c" $d 5%']) == r'/x "a\\\\b \\"c\\" \\$d 5%%"'
    # Other programs' entries: field codes are dropped, single words need no quotes.
    assert autostart.parse_exec_value("memtray %U --home /data") == ["memtray", "--home", "/data"]


def test_the_command_carries_the_home_unless_it_is_the_default(tmp_path: Path) -> None:
    from engine.paths import platform_home

    assert "--home" not in autostart.launch_command(platform_home())
    assert "--home" not in autostart.launch_command(None)
    command = autostart.launch_command(tmp_path / "my memory")
    assert command[-2:] == ["--home", str((tmp_path / "my memory").resolve())]
    assert autostart.home_of(command) == (tmp_path / "my memory").resolve()
    assert autostart.home_of(["memtray", "--home=/data"]) == Path("/data")
    assert autostart.home_of(["memtray"]) == platform_home()


def test_the_entry_is_the_state_and_names_its_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    mine = autostart.for_platform("linux", home=tmp_path / "mine")
    other = autostart.for_platform("linux", home=tmp_path / "other")
    assert not mine.is_enabled() and mine.read_command() is None
    mine.enable()
    assert mine.is_enabled() and not other.is_enabled()  # one entry per user: it starts "mine"
    assert autostart.home_of(mine.read_command() or []) == (tmp_path / "mine").resolve()
    other.disable()  # unchecked in the other folder's window: the entry of "mine" stays
    assert mine.is_enabled()
    other.enable()  # checked there: the entry now starts "other"
    assert other.is_enabled() and not mine.is_enabled()
    other.disable()
    assert other.read_command() is None


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

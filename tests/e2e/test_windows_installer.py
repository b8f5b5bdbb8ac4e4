"""memtray's Windows installer, end to end under Wine: installed silently into a fresh Wine prefix, the
command line used as a user would (append, import, search, export, MCP over stdio), the tray app started
under Xvfb and quit, then uninstalled: the program, Start menu entry and login entry go, the data stays.
(The tray app's window is not shown: a Wine gap, see the test.)

The installer is ``make windows-dist``'s (installer/windows/build.py: PyInstaller run by a Windows
CPython under Wine, packed by NSIS); CI builds it first. Outside CI the test skips, with the reason, where
wine or the installer is missing. Prints the install time and the time from the installer's start to
the first search's answer.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path, PureWindowsPath

import pytest

from scripts.wine.prefix import WinePython, windows_path, wine_binary
from scripts.wine.provision import install_standins, make_prefix

ROOT = Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
INSTALLER = ROOT / "dist" / f"memtray-{VERSION}-windows-x64-setup.exe"
RUN_KEY = r"Software\\Microsoft\\Windows\\CurrentVersion\\Run"
UNINSTALL_KEY = r"Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\memtray"

pytestmark = [pytest.mark.frozen, pytest.mark.timeout(1200)]


class Prefix:
    """A fresh Wine prefix (with the stand-ins for the DLLs Wine 8.0 lacks) and the X display for it."""

    def __init__(self, root: Path, display: str) -> None:
        self.wine = WinePython(root)
        self.display = display
        make_prefix(self.wine)
        install_standins(self.wine)
        users = [p for p in (self.wine.prefix / "drive_c" / "users").iterdir() if p.name != "Public"]
        (self.user,) = users
        self.local_appdata = self.user / "AppData" / "Local"
        self.install_dir = self.local_appdata / "Programs" / "memtray"
        self.data_dir = self.local_appdata / "memtray"
        self.start_menu = (
            self.user / "AppData" / "Roaming" / "Microsoft" / "Windows" / "Start Menu" / "Programs"
        )

    def env(self) -> dict[str, str]:
        env = self.wine.env({"DISPLAY": self.display, "MEMTRAY_EMBEDDER": "hash"})
        env.pop("MEMTRAY_HOME", None)  # the suite's own (a Linux path): memtray must find its default home
        return env

    def windows(self, path: Path) -> str:
        """``path`` inside the prefix's C: drive as Windows names it."""
        return str(PureWindowsPath("C:\\", *path.relative_to(self.wine.prefix / "drive_c").parts))

    def run(
        self, program: str, *args: str, stdin: str | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        """A Windows program under Wine, its output through pipes (Wine 8.0 mishandles a file)."""
        loader = wine_binary()
        assert loader is not None
        return subprocess.run(
            [loader, program, *args],
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=self.env(),
            timeout=timeout,
        )

    def cli(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return self.run(self.windows(self.install_dir / "memtray-cli.exe"), *args, stdin=stdin)

    def wait(self) -> None:
        """Until every Windows process of the prefix has ended (NSIS's uninstaller runs from a copy)."""
        loader = wine_binary()
        assert loader is not None
        server = Path(loader).with_name("wineserver")
        subprocess.run(
            [str(server) if server.exists() else "wineserver", "--wait"],
            env=self.env(),
            timeout=300,
            check=False,
        )

    def registry(self) -> str:
        return (self.wine.prefix / "user.reg").read_text(encoding="utf-8", errors="replace")


@pytest.fixture(scope="module")
def xvfb() -> Iterator[str]:
    if shutil.which("Xvfb") is None:
        pytest.skip("needs Xvfb (apt-get install xvfb)")
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    with os.fdopen(read) as pipe:
        display = ":" + pipe.readline().strip()
    try:
        yield display
    finally:
        server.kill()
        server.wait()


@pytest.fixture(scope="module")
def prefix(tmp_path_factory: pytest.TempPathFactory, xvfb: str) -> Prefix:
    if wine_binary() is None:
        pytest.skip("needs wine (apt-get install wine64)")
    if not INSTALLER.is_file():
        pytest.skip(f"no {INSTALLER.name}: build it with `make windows-dist`")
    return Prefix(tmp_path_factory.mktemp("wine"), xvfb)


def mcp_exchange(prefix: Prefix, query: str) -> list[dict[str, object]]:
    """``memtray-cli.exe mcp`` over stdio: initialize, list the tools, search; the three answers."""
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "search", "arguments": {"query": query}}},
    ]  # fmt: skip
    loader = wine_binary()
    assert loader is not None
    server = subprocess.Popen(
        [loader, prefix.windows(prefix.install_dir / "memtray-cli.exe"), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=prefix.env(),
    )
    assert server.stdin is not None and server.stdout is not None
    answers: list[dict[str, object]] = []

    def read() -> None:
        assert server.stdout is not None
        for raw in server.stdout:
            answers.append(json.loads(raw))
            if len(answers) == 3:
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    for line in lines:
        server.stdin.write(json.dumps(line).encode() + b"\n")
        server.stdin.flush()
    reader.join(timeout=300)
    server.stdin.close()
    server.wait(timeout=120)
    return answers


def test_install_use_and_uninstall_under_wine(prefix: Prefix, tmp_path: Path) -> None:
    started = time.monotonic()
    installed = prefix.run(windows_path(INSTALLER), "/S", "/AUTOSTART", timeout=600)
    prefix.wait()
    install_seconds = time.monotonic() - started
    assert installed.returncode == 0, installed.stderr[-2000:]
    for program in ("memtray.exe", "memtray-cli.exe", "uninstall.exe"):
        assert (prefix.install_dir / program).is_file(), program
    assert (prefix.start_menu / "memtray.lnk").is_file()
    registry = prefix.registry()
    assert f"[{UNINSTALL_KEY}]" in registry
    assert '"memtray"=' in registry.split(f"[{RUN_KEY}]", 1)[1].split("\n[", 1)[0]

    # the command line, with the default home: %LOCALAPPDATA%\memtray
    appended = prefix.cli(
        "append", "--session", "win-1", "--role", "user", "--content", "Wine runs Windows programs"
    )
    assert appended.returncode == 0, appended.stderr[-2000:]
    found = prefix.cli("search", "--json", "--match", "keyword", "Wine")
    first_search_seconds = time.monotonic() - started
    assert found.returncode == 0, found.stderr[-2000:]
    assert [(hit["session"], hit["content"]) for hit in json.loads(found.stdout)] == [
        ("win-1", "Wine runs Windows programs")
    ]
    assert (prefix.data_dir / "sessions" / "win-1" / "history.json").is_file()
    sys.stdout.write(
        f"\nWindows installer {INSTALLER.stat().st_size / 2**20:.1f} MiB: installed in {install_seconds:.0f} s, "
        f"first search answered {first_search_seconds:.0f} s after the installer started\n"
    )

    source = prefix.local_appdata / "chat 中文.jsonl"
    source.write_text(
        json.dumps({"role": "user", "content": "喜歡的茶是烏龍"}, ensure_ascii=False)
        + "\n"
        + json.dumps({"role": "assistant", "content": "Oolong, noted"})
        + "\n",
        encoding="utf-8",
    )
    imported = prefix.cli("import", "jsonl", prefix.windows(source), "--session", "tea")
    assert imported.returncode == 0, imported.stderr[-2000:]
    found = prefix.cli("search", "--json", "--match", "keyword", "烏龍")
    assert found.returncode == 0, found.stderr[-2000:]
    assert [(hit["session"], hit["content"]) for hit in json.loads(found.stdout)] == [
        ("tea", "喜歡的茶是烏龍")
    ]

    exported_file = prefix.local_appdata / "tea.jsonl"
    exported = prefix.cli(
        "export", "--session", "tea", "--format", "jsonl", "-o", prefix.windows(exported_file)
    )
    assert exported.returncode == 0, exported.stderr[-2000:]
    rows = [json.loads(line) for line in exported_file.read_text(encoding="utf-8").splitlines()]
    assert [row["content"] for row in rows] == ["喜歡的茶是烏龍", "Oolong, noted"]

    answers = mcp_exchange(prefix, "Oolong")
    assert [a.get("id") for a in answers] == [1, 2, 3], answers
    tools = {tool["name"] for tool in answers[1]["result"]["tools"]}  # type: ignore[index]
    assert {"search", "read", "save"} <= tools
    hits = answers[2]["result"]["structuredContent"]["hits"]  # type: ignore[index]
    assert {hit["session"] for hit in hits} == {"tea"} and "Oolong" in json.dumps(hits[0])  # by word first

    # the tray app under Xvfb: it boots (memory open, tray icon, shortcut, single-instance pipe) and
    # `memtray.exe --quit` ends it cleanly. Its window is not opened here: under Wine 8.0 Qt 6.12's
    # Windows platform finds no screen on Xvfb ("Cannot create window: no screens available") and a
    # window's colour profile aborts the process (mscms.dll.WcsCreateIccProfile unimplemented).
    app = subprocess.Popen(
        [wine_binary() or "wine", prefix.windows(prefix.install_dir / "memtray.exe")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=prefix.env(),
    )
    try:
        log = prefix.data_dir / "logs" / "memtray.log"
        deadline = time.monotonic() + 300
        while not (log.exists() and "memory: open at" in log.read_text(errors="replace")):
            assert app.poll() is None and time.monotonic() < deadline, app.communicate(timeout=30)
            time.sleep(1)
        quit_ = prefix.run(prefix.windows(prefix.install_dir / "memtray.exe"), "--quit", timeout=120)
        assert quit_.returncode == 0, quit_.stderr[-2000:]
        assert app.wait(timeout=120) == 0
        text = log.read_text(errors="replace")
        assert "memtray --quit asked the app to quit" in text and "shutting down" in text
        assert "platform windows" in text  # the real Windows platform plugin, not offscreen
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()

    uninstalled = prefix.run(prefix.windows(prefix.install_dir / "uninstall.exe"), "/S")
    prefix.wait()
    assert uninstalled.returncode == 0, uninstalled.stderr[-2000:]
    assert not prefix.install_dir.exists()
    assert not (prefix.start_menu / "memtray.lnk").exists()
    registry = prefix.registry()
    assert f"[{UNINSTALL_KEY}]" not in registry
    assert '"memtray"=' not in registry.split(f"[{RUN_KEY}]", 1)[-1].split("\n[", 1)[0]
    assert (prefix.data_dir / "sessions" / "tea" / "history.json").is_file()  # the data is kept

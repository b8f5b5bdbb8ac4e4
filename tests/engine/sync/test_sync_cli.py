"""``memtray sync enable|now|status|disable`` in fresh processes, two homes through one folder, the key in
a keyring chosen explicitly (keyrings.alt's file, under this test's own XDG folders)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.clirun import CLI, ROOT, run_cli

KEYRING = {"PYTHON_KEYRING_BACKEND": "keyrings.alt.file.PlaintextKeyring"}
PASS = "a long sync passphrase\n"


def enable(home: Path, folder: Path, device: str) -> subprocess.CompletedProcess[str]:
    """``memtray sync enable FOLDER --device DEVICE``, the passphrase on stdin."""
    return run_cli(
        home, "sync", "enable", str(folder), "--device", device, "--passphrase-stdin", stdin=PASS, env=KEYRING
    )


def test_enable_now_status_disable(tmp_path: Path) -> None:
    folder = tmp_path / "Sync"
    folder.mkdir()
    a, b = tmp_path / "a", tmp_path / "b"
    for home, name in ((a, "desk"), (b, "laptop")):
        done = enable(home, folder, name)
        assert done.returncode == 0, done.stderr
        assert f"this device: {name}" in done.stdout
    wrong = run_cli(
        tmp_path / "c", "sync", "enable", str(folder), "--passphrase-stdin", stdin="nope\n", env=KEYRING
    )
    assert wrong.returncode != 0 and "passphrase" in wrong.stderr and "Traceback" not in wrong.stderr
    assert (
        run_cli(a, "append", "--session", "s1", "--role", "user", "--content", "okapi sighting").returncode
        == 0
    )
    sent = run_cli(a, "sync", "now", env=KEYRING)
    assert sent.returncode == 0, sent.stderr
    assert "sent 1 messages" in sent.stdout
    got = run_cli(b, "sync", "now", env=KEYRING)
    assert "1 new messages" in got.stdout, got.stdout + got.stderr
    found = run_cli(b, "search", "okapi", "--match", "keyword", "--json")
    assert "okapi sighting" in found.stdout
    status = json.loads(run_cli(b, "sync", "status", "--json", env=KEYRING).stdout)
    assert status["enabled"] and status["name"] == "laptop"
    assert [(d["name"], d["applied"], d["pending"]) for d in status["devices"]] == [("desk", 1, 0)]
    assert status["devices"][0]["applied_at"] > 0 and status["watching"] is False
    assert run_cli(b, "sync", "disable", env=KEYRING).stdout.startswith("sync disabled")
    off = run_cli(b, "sync", "now", env=KEYRING)
    assert off.returncode != 0 and "not enabled" in off.stderr and "Traceback" not in off.stderr


def test_the_daemon_watches_the_folder_and_applies_within_seconds(tmp_path: Path) -> None:
    """``memtray daemon`` on A: B's segment is applied on A long before the daemon's one-minute timer,
    and ``sync status`` (another process) says the folder is watched and when B was last applied."""
    folder = tmp_path / "Sync"
    folder.mkdir()
    a, b = tmp_path / "a", tmp_path / "b"
    for home, name in ((a, "desk"), (b, "laptop")):
        enabled = enable(home, folder, name)
        assert enabled.returncode == 0, enabled.stderr
    off = run_cli(a, "sync", "status", env=KEYRING).stdout
    assert "folder watch: off (no tray app" in off and "nothing applied yet" in off
    started = time.monotonic()
    daemon = subprocess.Popen(
        [sys.executable, "-c", CLI, "--home", str(a), "daemon"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **KEYRING},
    )
    try:

        def status() -> dict[str, Any]:
            return dict(json.loads(run_cli(a, "sync", "status", "--json", env=KEYRING).stdout))

        assert wait_for(lambda: status()["watching"], 60), daemon.stderr
        assert run_cli(b, "append", "--session", "s1", "--role", "user", "--content", "okapi").returncode == 0
        assert run_cli(b, "sync", "now", env=KEYRING).returncode == 0
        arrived = time.monotonic()
        assert wait_for(lambda: status()["devices"][0]["applied"] == 1, 30)
        took, since_start = time.monotonic() - arrived, time.monotonic() - started
        assert since_start < 55, f"the daemon's timer (every minute) may have done it: {since_start:.0f} s"
        assert took < 20, f"applied {took:.1f} s after B wrote"
        text = run_cli(a, "sync", "status", env=KEYRING).stdout
        assert "folder watch: on" in text and "laptop" in text and "last applied 20" in text
        found = run_cli(a, "search", "okapi", "--match", "keyword", "--json")
        assert "okapi" in found.stdout
        daemon.send_signal(signal.SIGTERM)  # on Windows TerminateProcess: no clean exit to check there
        _out, err = daemon.communicate(timeout=30)
        assert os.name != "posix" or (daemon.returncode == 0 and "Traceback" not in err), err
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait(timeout=10)
    assert not status()["watching"]  # the daemon let go of its watch


def wait_for(check: Callable[[], object], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return bool(check())

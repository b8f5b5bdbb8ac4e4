"""``memtray sync enable|now|status|disable`` in fresh processes, two homes through one folder, the key in
a keyring chosen explicitly (keyrings.alt's file, under this test's own XDG folders)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.clirun import run_cli

KEYRING = {"PYTHON_KEYRING_BACKEND": "keyrings.alt.file.PlaintextKeyring"}
PASS = "a long sync passphrase\n"


def test_enable_now_status_disable(tmp_path: Path) -> None:
    folder = tmp_path / "Sync"
    folder.mkdir()
    a, b = tmp_path / "a", tmp_path / "b"
    for home, name in ((a, "desk"), (b, "laptop")):
        done = run_cli(
            home,
            "sync",
            "enable",
            str(folder),
            "--device",
            name,
            "--passphrase-stdin",
            stdin=PASS,
            env=KEYRING,
        )
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
    assert run_cli(b, "sync", "disable", env=KEYRING).stdout.startswith("sync disabled")
    off = run_cli(b, "sync", "now", env=KEYRING)
    assert off.returncode != 0 and "not enabled" in off.stderr and "Traceback" not in off.stderr

"""A ``memtray sync now`` killed (SIGKILL) while it writes segments or while it applies them: the next run
finishes the work, nothing is applied twice or half, and no file under a segment's name is incomplete."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Memory
from engine.imported import ImportedSession
from engine.messages import Message
from engine.sync import folder as layout
from tests.clirun import CLI, ROOT
from tests.engine.sync.conftest import Homes

PASS = "kill me softly"
KEYRING = "keyrings.alt.file.PlaintextKeyring"
COUNT = 45_000  # three segments of up to 20,000 messages


def big_export(count: int) -> list[ImportedSession]:
    per = 500
    return [
        ImportedSession(
            f"conv-{s:04d}",
            [
                Message(
                    "user" if i % 2 == 0 else "assistant",
                    f"message {s}-{i} walrus{s}x{i}",
                    10**18 + s * per + i,
                )
                for i in range(per)
            ],
        )
        for s in range(count // per)
    ]


def sync_now(home: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CLI, "--home", str(home), "sync", "now"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHON_KEYRING_BACKEND": KEYRING},
    )


def kill_while_applying(home: Path, runs: int) -> int:
    """Start ``sync now`` and SIGKILL it as soon as it has stored a batch of this run (a session folder
    more than when it started), ``runs`` times; how many runs were killed before finishing. Waiting for
    the work itself, not for a fixed delay, keeps the kills inside it however fast applying is."""
    sessions = home / "sessions"

    def count() -> int:
        return sum(1 for _ in sessions.iterdir()) if sessions.is_dir() else 0

    killed = 0
    for _ in range(runs):
        before = count()
        proc = sync_now(home)
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            if count() > before:
                proc.kill()  # SIGKILL; TerminateProcess on Windows
                killed += 1
                break
            time.sleep(0.002)
        proc.communicate(timeout=120)
    return killed


def kill_while_writing(home: Path, folder: Path, runs: int) -> int:
    """Start ``sync now`` and SIGKILL it the moment a segment is being written (a temporary file is in
    the folder), ``runs`` times; how many runs were killed in the middle of a write."""
    killed = 0
    for _ in range(runs):
        proc = sync_now(home)
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            if any(folder.rglob(f"{layout.TMP_PREFIX}*")):
                proc.kill()  # SIGKILL; TerminateProcess on Windows
                killed += 1
                break
            time.sleep(0.002)
        proc.communicate(timeout=120)
    return killed


def finish(home: Path) -> str:
    proc = sync_now(home)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return out


def whole_segments(folder: Path) -> None:
    """Every file under a segment's name decrypts whole (no half-written segment was ever renamed)."""
    for device in layout.devices(folder):
        for path in layout.segments(folder, device).values():
            assert path.read_bytes().startswith(b"MTSYNC1\n"), path
        leftovers = [
            p.name
            for p in layout.device_dir(folder, device).iterdir()
            if p.name.startswith(layout.TMP_PREFIX)
        ]
        assert len(leftovers) <= 1, leftovers  # at most the killed write's, removed by the next run


@pytest.fixture(autouse=True)
def keyring_file(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The file keyring for this test's processes and for this one: the backend the keyring module chose
    at its first use in this process (another test's) must not keep the key from the child processes."""
    import keyring
    from keyrings.alt.file import PlaintextKeyring

    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", KEYRING)
    before = keyring.get_keyring()
    keyring.set_keyring(PlaintextKeyring())
    yield
    keyring.set_keyring(before)


def test_killed_while_writing_then_while_applying(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    homes = Homes(tmp_path / "homes")
    try:
        a, b = homes.open("a", keys=None), homes.open("b", keys=None)
        a.import_sessions(big_export(COUNT))
        a.sync.enable(folder, PASS, "a")
        b.sync.enable(folder, PASS, "b")
    finally:
        homes.close_all()
    home_a, home_b = tmp_path / "homes" / "a", tmp_path / "homes" / "b"
    killed = kill_while_writing(home_a, folder, 3)
    whole_segments(folder)
    finish(home_a)
    whole_segments(folder)
    killed_applying = kill_while_applying(home_b, 3)
    finish(home_b)
    assert killed + killed_applying >= 2, "the kills came too late to interrupt anything"
    assert killed_applying >= 1, "no kill came while applying"
    with Memory.open(home_b, background=False) as mem:
        with mem._store.read() as conn:
            total, distinct = conn.execute("SELECT COUNT(*), COUNT(DISTINCT content) FROM messages").one()
        assert total == distinct == COUNT  # everything once, nothing twice
        assert [h.message.content for h in mem.search("walrus77x123", match="keyword")] == [
            "message 77-123 walrus77x123"
        ]
    with Memory.open(home_a, background=False) as mem:
        assert mem.sync.now().messages_sent == 0  # re-sent content, if any, was de-duplicated on B


def kill_while_filing(home: Path, runs: int) -> int:
    """Start ``sync now`` and SIGKILL it the moment a batch's history.json files are being written (one of
    their temporary files is in the home's ``.store/tmp``), ``runs`` times; how many runs were killed so."""
    killed = 0
    tmp = home / ".store" / "tmp"
    for _ in range(runs):
        proc = sync_now(home)
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            if any(tmp.glob("*.history.json.*.tmp")):
                proc.kill()  # SIGKILL on POSIX, TerminateProcess on Windows
                killed += 1
                break
            time.sleep(0.002)
        proc.communicate(timeout=120)
    return killed


def test_killed_while_the_history_files_of_a_batch_are_written(tmp_path: Path) -> None:
    """A join killed while a batch's history.json files are written together (temporary files, then all
    synced, then renamed): the next run settles them; every session's file is its archived rows, every
    message is stored once, and the full-text index agrees with the messages."""
    count, per = 20_000, 100
    folder = tmp_path / "shared"
    folder.mkdir()
    homes = Homes(tmp_path / "homes")
    try:
        a, b = homes.open("a", keys=None), homes.open("b", keys=None)
        a.import_sessions(
            [
                ImportedSession(
                    f"conv-{s:04d}",
                    [Message("user", f"note {s}-{i} otter{s}x{i}", 10**18 + s * per + i) for i in range(per)],
                )
                for s in range(count // per)
            ]
        )
        a.sync.enable(folder, PASS, "a")
        a.sync.now()
        b.sync.enable(folder, PASS, "b")
    finally:
        homes.close_all()
    home_b = tmp_path / "homes" / "b"
    killed = kill_while_filing(home_b, 3)
    assert killed >= 1, "no run was killed while it wrote history files"
    finish(home_b)
    with Memory.open(home_b, background=False) as mem:
        with mem._store.read() as conn:
            total, distinct = conn.execute("SELECT COUNT(*), COUNT(DISTINCT content) FROM messages").one()
            unsettled = conn.execute("SELECT COUNT(*) FROM unsettled_sessions").scalar_one()
            conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')")
            conn.execute("INSERT INTO context_fts(context_fts) VALUES ('integrity-check')")
        assert total == distinct == count and unsettled == 0
        mem._store.check()
        for s in range(count // per):
            session = f"conv-{s:04d}"
            on_disk = [r["content"] for r in json.loads(mem.paths.history_file(session).read_bytes())]
            assert on_disk == [m.content for m in mem.iter_archive(session)], session
        assert [h.message.content for h in mem.search("otter199x99", match="keyword")] == [
            "note 199-99 otter199x99"
        ]

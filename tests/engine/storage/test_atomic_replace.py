"""An atomic write replaces a file that another handle has open: at once on POSIX, and on Windows as soon
as that handle closes (Windows refuses the rename while it is open)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from engine.storage.atomic import atomic_write, replace


def test_a_file_open_elsewhere_is_replaced_once_it_is_closed(tmp_path: Path) -> None:
    target = tmp_path / "history.json"
    target.write_bytes(b"old")
    reader = target.open("rb")  # like a reader in another program: no FILE_SHARE_DELETE on Windows
    closed_at: list[float] = []

    def close_later() -> None:
        time.sleep(0.3)
        closed_at.append(time.monotonic())
        reader.close()

    closer = threading.Thread(target=close_later)
    closer.start()
    try:
        atomic_write(target, b"new")
        done = time.monotonic()
    finally:
        closer.join()
    assert target.read_bytes() == b"new"
    if os.name == "nt":  # it had to wait for the reader
        assert done >= closed_at[0]
    assert [p.name for p in tmp_path.iterdir()] == ["history.json"]  # no temporary file left


def test_a_replace_still_refused_after_the_patience_raises(tmp_path: Path) -> None:
    target = tmp_path / "history.json"
    target.write_bytes(b"old")
    source = tmp_path / "new.tmp"
    source.write_bytes(b"new")
    with target.open("rb"):
        if os.name == "nt":
            with pytest.raises(PermissionError):
                replace(source, target, patience=0.2)
            assert target.read_bytes() == b"old" and source.read_bytes() == b"new"
        else:  # POSIX renames over an open file: the reader keeps the old one
            replace(source, target, patience=0.2)
            assert target.read_bytes() == b"new"


def test_every_byte_comes_back_exactly(tmp_path: Path) -> None:
    # Windows' C library writes LF as CRLF to a file not opened in binary mode: an export, a sync
    # segment or a key would change on the way to the disk.
    target = tmp_path / "export.jsonl"
    data = bytes(range(256)) + b"line\nline\r\nend\n"
    atomic_write(target, data)
    assert target.read_bytes() == data

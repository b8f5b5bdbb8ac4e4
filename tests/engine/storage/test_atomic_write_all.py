"""Many files replaced at once, their syncs together (``engine.storage.atomic.write_all``): each file is
replaced whole or left as it was, one failure stops only its own file, and no temporary file stays."""

from __future__ import annotations

import os
from pathlib import Path

from engine.storage.atomic import write_all


def test_every_file_is_replaced_whole_and_no_temporary_file_stays(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    targets = [tmp_path / f"s{i}" / "history.json" for i in range(12)]
    for target in targets:
        target.parent.mkdir()
    targets[0].write_bytes(b"old")
    results = write_all([(t, f"[{i}]".encode()) for i, t in enumerate(targets)], tmp_dir=tmp)
    assert results == [None] * len(targets)
    assert [t.read_bytes() for t in targets] == [f"[{i}]".encode() for i in range(len(targets))]
    if os.name == "posix":  # Windows has no owner-only mode bits (its files read 0o666)
        assert [oct(t.stat().st_mode & 0o777) for t in targets] == [oct(0o600)] * len(targets)
    assert list(tmp.iterdir()) == []


def test_a_file_that_cannot_be_replaced_stops_only_itself(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    kept = tmp_path / "a" / "history.json"
    kept.mkdir(parents=True)  # a folder where the file should be: the rename fails
    missing = tmp_path / "gone" / "history.json"  # its folder does not exist
    fine = tmp_path / "b" / "history.json"
    fine.parent.mkdir()
    fine.write_bytes(b"old")
    results = write_all([(kept, b"new"), (missing, b"new"), (fine, b"new")], tmp_dir=tmp)
    assert isinstance(results[0], OSError) and isinstance(results[1], OSError) and results[2] is None
    assert kept.is_dir() and not missing.parent.exists() and fine.read_bytes() == b"new"
    assert list(tmp.iterdir()) == []  # the failed files' temporary files are removed too

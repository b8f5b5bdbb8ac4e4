"""``sync status`` keeps the outcome of the last ``sync now`` (when it finished, why it failed), and
``Sync.is_set_up`` tells a folder to create from one to join."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.errors import SyncError
from engine.messages import Message
from tests.engine.sync.conftest import Homes

PASS = "correct horse battery staple"


def test_the_last_sync_time_and_error_are_kept_until_the_next_sync(homes: Homes, tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    a = homes.open("a")
    assert a.sync.status().last_sync == 0 and a.sync.status().last_error == ""
    a.sync.enable(folder, PASS, "desk")
    a.append("s1", [Message("user", "hello", 1)])
    a.sync.now()
    first = a.sync.status()
    assert first.last_sync > 0 and first.last_error == ""
    moved = tmp_path / "unplugged"
    shutil.move(folder, moved)
    with pytest.raises(SyncError, match="is not there"):
        a.sync.now()
    failed = a.sync.status()
    assert "is not there" in failed.last_error and failed.last_sync == first.last_sync
    assert "is not there" in failed.to_json()["last_error"]
    shutil.move(moved, folder)
    a.sync.now()
    again = a.sync.status()
    assert again.last_error == "" and again.last_sync >= first.last_sync
    a.sync.disable()
    off = a.sync.status()
    assert not off.enabled and (off.last_sync, off.last_error) == (0, "")


def test_a_failure_while_sync_is_off_leaves_no_outcome(homes: Homes) -> None:
    a = homes.open("a")
    with pytest.raises(SyncError, match="not enabled"):
        a.sync.now()
    assert a.sync.status().last_error == ""  # nothing to report: sync is off


def test_is_set_up_tells_a_new_folder_from_one_to_join(homes: Homes, tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    a, b = homes.open("a"), homes.open("b")
    assert b.sync.is_set_up(folder) is False
    a.sync.enable(folder, PASS, "desk")
    assert b.sync.is_set_up(folder) is True
    assert not (folder / "memtray" / b.sync.device).exists()  # asking wrote nothing
    with pytest.raises(SyncError, match="does not exist"):
        b.sync.is_set_up(tmp_path / "nowhere")

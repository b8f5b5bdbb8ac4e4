"""What a sync engine and time do to the folder: a device offline for 10,000 messages, files that are
conflict copies, partial downloads, empty, altered, or written by a newer memtray."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.messages import Message
from engine.sync import folder as layout
from engine.sync import pack, segment
from tests.engine.sync.conftest import Homes, pair

PASS = "resilient"


def test_a_device_offline_for_ten_thousand_messages_catches_up(homes: Homes, tmp_path: Path) -> None:
    a, b = pair(homes, tmp_path / "shared", PASS)
    b.append("b-side", [Message("user", "written while apart", 5)])
    for batch in range(100):
        a.append(
            f"s{batch % 7}",
            [
                Message("user", f"offline {batch}-{i} narwhal{batch}n{i}", 10 + batch * 100 + i)
                for i in range(100)
            ],
        )
        a.sync.now()
    assert len(layout.segments(tmp_path / "shared", a.sync.device)) == 100
    assert list(layout.segments(tmp_path / "shared", a.sync.device, layout.SNAPSHOT)) == [pack.PACK_AFTER]
    report = b.sync.now()  # the snapshot of A's first 64 segments, then the 36 after it
    assert report.segments_applied == 1 + 100 - pack.PACK_AFTER
    assert report.applied.messages == 10_000 and not report.waiting
    assert [h.message.content for h in b.search("narwhal57n42", match="keyword")] == [
        "offline 57-42 narwhal57n42"
    ]
    a.sync.now()
    assert [m.content for m in a.archived("b-side")] == ["written while apart"]
    for session in (f"s{i}" for i in range(7)):
        assert [m.content for m in a.window(session)] == [m.content for m in b.window(session)]


def test_conflict_copies_and_partial_downloads_are_never_applied(homes: Homes, tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    a, b = pair(homes, folder, PASS)
    a.append("s", [Message("user", "first", 1)])
    a.sync.now()
    directory = layout.device_dir(folder, a.sync.device)
    whole = (directory / layout.segment_name(1)).read_bytes()
    a.append("s", [Message("user", "second", 2)])
    a.sync.now()
    second = directory / layout.segment_name(2)
    data = second.read_bytes()
    litter = [
        "seg-000000000003.sync-conflict-20261204-101010-ABCDEFG.mts",
        "seg-000000000003 (conflicted copy).mts",
        "seg-000000000003-1.mts",
        ".syncthing.seg-000000000003.mts.tmp",
        "~$seg-000000000003.mts",
        "seg-000000000003.mts.partial",
    ]
    for name in litter:
        (directory / name).write_bytes(whole)  # a whole, valid segment, under a name that is not one
    second.write_bytes(data[: len(data) // 2])  # the second is still arriving
    (directory / layout.segment_name(4)).write_bytes(b"")  # an empty file
    report = b.sync.now()
    assert report.segments_applied == 1 and [m.content for m in b.archived("s")] == ["first"]
    assert any("segment 2" in w for w in report.waiting)
    second.write_bytes(data)  # it arrived whole
    report = b.sync.now()
    assert report.segments_applied == 1 and [m.content for m in b.archived("s")] == ["first", "second"]
    assert sorted(layout.segments(folder, a.sync.device)) == [1, 2]


def test_an_altered_segment_is_refused(homes: Homes, tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    a, b = pair(homes, folder, PASS)
    a.append("s", [Message("user", "authentic", 1)])
    a.sync.now()
    path = layout.device_dir(folder, a.sync.device) / layout.segment_name(1)
    data = bytearray(path.read_bytes())
    data[-5] ^= 0x01
    path.write_bytes(bytes(data))
    report = b.sync.now()
    assert report.segments_applied == 0 and not b.exists("s") and report.waiting
    # nor is a whole segment copied under another number
    a.append("s", [Message("user", "two", 2)])
    a.sync.now()
    path.write_bytes((path.parent / layout.segment_name(2)).read_bytes())
    assert b.sync.now().segments_applied == 0


def test_a_segment_of_a_newer_memtray_waits_for_an_update(
    homes: Homes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "shared"
    a, b = pair(homes, folder, PASS)
    a.append("s", [Message("user", "old format", 1)])
    a.sync.now()
    monkeypatch.setattr(segment, "VERSION", segment.VERSION + 1)  # A was updated: it writes version 2
    a.append("s", [Message("user", "new format", 2)])
    a.sync.now()
    monkeypatch.setattr(segment, "VERSION", segment.VERSION - 1)  # B was not
    report = b.sync.now()
    assert [m.content for m in b.archived("s")] == ["old format"]
    assert any("newer memtray" in w for w in report.waiting)
    assert b.sync.status().devices[0].pending == 1

"""Growth: a device packs its segments into a snapshot; old segments go once every device applied them; a
new device joins from the snapshot alone, and a forgotten message leaves the folder with the packing."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Memory
from engine.messages import Message
from engine.sync import folder as layout
from engine.sync import pack
from tests.engine.sync.conftest import Homes, pair

PASS = "pack it"


def messages(mem: Memory) -> list[tuple[str, str, int]]:
    with mem._store.read() as conn:
        return sorted(
            (str(s), str(c), int(t))
            for s, c, t in conn.execute("SELECT session_id, content, send_at FROM messages")
        )


def test_packing_removing_and_joining_from_a_snapshot(
    homes: Homes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pack, "PACK_AFTER", 3)
    folder = tmp_path / "shared"
    a, b = pair(homes, folder, PASS)
    secret = a.append("s1", [Message("user", "the vault code is 0451", 1)])[0]
    a.set_title("s1", "Vault")
    b.append("s1", [Message("assistant", "noted from b", 2)])
    for i in range(4):
        a.append("s2", [Message("user", f"round {i} from a", 10 + i)])
        a.sync.now()
        b.sync.now()
    assert secret.id is not None
    a.forget_message(secret.id)
    report = a.sync.now()
    me = a.sync.device
    snapshots = layout.segments(folder, me, layout.SNAPSHOT)
    assert report.packed == 0 and list(snapshots) == [3]  # packed at the 3rd segment (the 6th packs again)
    b.sync.now()
    for i in range(3):
        a.append("s2", [Message("user", f"more {i} from a", 100 + i)])
        a.sync.now()
        b.sync.now()
    a.sync.now()  # B's manifest says it applied everything: A's old segments go
    own = layout.segments(folder, me)
    newest = max(layout.segments(folder, me, layout.SNAPSHOT))
    assert own and min(own) > newest, (sorted(own), newest)
    blobs = b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())
    assert b"0451" not in blobs
    c = homes.open("c")
    c.sync.enable(folder, PASS, "c")
    got = c.sync.now()
    assert not got.waiting
    assert messages(a) == messages(b)
    assert messages(c) == messages(a)
    assert all("0451" not in text for _, text, _ in messages(c))
    assert [s.title for s in c.sessions() if s.id == "s1"] == ["Vault"]


def test_a_silent_device_does_not_hold_segments_past_the_horizon(
    homes: Homes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pack, "PACK_AFTER", 2)
    monkeypatch.setattr(pack, "HORIZON_NS", 0)  # every manifest is older than the horizon
    folder = tmp_path / "shared"
    a, b = pair(homes, folder, PASS)  # b never syncs
    for i in range(3):
        a.append("s", [Message("user", f"m{i}", i + 1)])
        a.sync.now()
    assert max(layout.segments(folder, a.sync.device)) == 3 and 1 not in layout.segments(
        folder, a.sync.device
    )
    assert b.sync.now().applied.messages == 3  # it catches up from the snapshot


def test_after_disable_and_enable_no_segment_number_is_used_twice(
    homes: Homes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pack, "PACK_AFTER", 2)
    monkeypatch.setattr(pack, "HORIZON_NS", 0)
    folder = tmp_path / "shared"
    a, b = pair(homes, folder, PASS)
    for i in range(3):
        a.append("s", [Message("user", f"m{i}", i + 1)])
        a.sync.now()
    b.sync.now()
    a.sync.disable()
    a.sync.enable(folder, PASS, "a")
    a.append("s", [Message("user", "after enabling again", 10)])
    assert a.sync.now().segments_written == 1
    written = layout.segments(folder, a.sync.device) | layout.segments(folder, a.sync.device, layout.SNAPSHOT)
    assert min(written) > 3  # B applied up to 3: a number it has seen would be skipped
    b.sync.now()
    assert "after enabling again" in [m.content for m in b.archived("s")]

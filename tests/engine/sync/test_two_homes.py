"""Two homes through one shared folder: what one writes, the other finds; forgets, resets, removals and
titles follow; the folder holds no plaintext."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Memory
from engine.errors import SyncError, WrongPassphrase
from engine.messages import Message
from tests.engine.conftest import FakeClock
from tests.engine.sync.conftest import Homes, pair

PASS = "correct horse battery staple"


def texts(mem: Memory, session: str) -> list[str]:
    return [m.content for m in mem.archived(session)] if mem.exists(session) else []


LAPTOPS = ("laptop-a", "laptop-b")


def test_a_message_written_on_a_is_searchable_on_b(homes: Homes, tmp_path: Path) -> None:
    a, b = pair(homes, tmp_path / "shared", PASS, LAPTOPS)
    a.append("s1", [Message("user", "the zebra crossing", 1), Message("assistant", "noted", 2)])
    report = a.sync.now()
    assert report.messages_sent == 2 and report.segments_written == 1
    got = b.sync.now()
    assert got.applied.messages == 2
    hits = b.search("zebra", match="keyword")
    assert [h.message.content for h in hits] == ["the zebra crossing"]
    assert texts(b, "s1") == ["the zebra crossing", "noted"]
    # nothing echoes back: B sends nothing, A applies nothing
    assert b.sync.now().messages_sent == 0
    assert a.sync.now().applied.messages == 0
    status = b.sync.status()
    assert status.enabled and [(d.name, d.written, d.applied) for d in status.devices] == [("laptop-a", 1, 1)]


def test_forget_reset_remove_and_titles_follow(homes: Homes, tmp_path: Path) -> None:
    a, b = pair(homes, tmp_path / "shared", PASS, LAPTOPS)
    stored = a.append("s1", [Message("user", "my password is hunter2", 1), Message("assistant", "ok", 2)])
    a.append("s2", [Message("user", "second session", 3)])
    a.append("s3", [Message("user", "third session", 4)])
    a.sync.now()
    b.sync.now()
    assert texts(b, "s1") == ["my password is hunter2", "ok"]
    first = stored[0].id
    assert first is not None
    a.forget_message(first)
    a.reset("s2")
    a.remove("s3")
    a.set_title("s1", "Passwords")
    a.sync.now()
    b.sync.now()
    assert texts(b, "s1") == ["ok"] and texts(b, "s2") == [] and not b.exists("s3")
    assert [s.title for s in b.sessions() if s.id == "s1"] == ["Passwords"]
    assert not b.search("hunter2", match="keyword")
    # B's title change goes back to A
    b.set_title("s1", "Renamed on B")
    b.sync.now()
    a.sync.now()
    assert [s.title for s in a.sessions() if s.id == "s1"] == ["Renamed on B"]


def test_the_same_import_on_both_is_one_message(homes: Homes, tmp_path: Path) -> None:
    from engine.imported import ImportedSession

    a, b = pair(homes, tmp_path / "shared", PASS, LAPTOPS)
    export = [ImportedSession("chatgpt-1", [Message("user", "hello", 10), Message("assistant", "hi", 11)])]
    a.import_sessions(export)
    b.import_sessions(export)
    a.append("chatgpt-1", [Message("user", "later on A", 20)])
    for mem in (a, b, a):
        mem.sync.now()
    assert texts(a, "chatgpt-1") == texts(b, "chatgpt-1") == ["hello", "hi", "later on A"]


def test_the_folder_holds_no_plaintext(homes: Homes, tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    a, b = pair(homes, folder, PASS, LAPTOPS)
    a.append("project-zanzibar", [Message("user", "quetzalcoatl feathers", 1)])
    a.set_title("project-zanzibar", "Operation Marmalade")
    a.sync.now()
    b.sync.now()
    assert b.search("quetzalcoatl", match="keyword")
    blobs = [p.read_bytes() for p in folder.rglob("*") if p.is_file()]
    names = " ".join(str(p) for p in folder.rglob("*"))
    assert len(blobs) >= 4
    for secret in ("quetzalcoatl", "zanzibar", "Marmalade", "laptop-a"):
        assert not any(secret.encode() in blob for blob in blobs), secret
        assert secret not in names


def test_a_wrong_passphrase_is_refused_and_nothing_is_enabled(homes: Homes, tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    a, b = homes.open("a"), homes.open("b")
    a.sync.enable(folder, PASS)
    with pytest.raises(WrongPassphrase):
        b.sync.enable(folder, "not it")
    assert not b.sync.enabled
    with pytest.raises(SyncError, match="not enabled"):
        b.sync.now()
    with pytest.raises(SyncError, match="does not exist"):
        b.sync.enable(tmp_path / "missing", PASS)


def test_the_window_is_the_newest_by_time_on_both(homes: Homes, tmp_path: Path) -> None:
    """A session written on both devices: each history.json holds the merged messages in time order
    (ties by global id), the same on both, whichever arrived first."""
    a, b = pair(homes, tmp_path / "shared", PASS, LAPTOPS)
    a.append("s", [Message("user", "a1", 100), Message("assistant", "a2", 300)])
    b.append("s", [Message("user", "b1", 200), Message("assistant", "b2", 400)])
    b.append("s", [Message("user", "tie-b", 500)])
    a.append("s", [Message("user", "tie-a", 500)])
    for mem in (a, b, a):
        mem.sync.now()
    got_a = [m.content for m in a.history("s")]
    got_b = [m.content for m in b.history("s")]
    assert got_a == got_b
    assert got_a[:4] == ["a1", "b1", "a2", "b2"] and sorted(got_a[4:]) == ["tie-a", "tie-b"]
    assert [m.content for m in a.window("s")] == [m.content for m in b.window("s")]
    # moved rows are not sent again, and searching still finds each once
    assert a.sync.now().messages_sent == 0 and b.sync.now().messages_sent == 0
    assert [h.message.content for h in b.search("a1", match="keyword")] == ["a1"]


def test_error_records_follow_newest_write_wins_and_forget(homes: Homes, tmp_path: Path) -> None:
    clock = FakeClock()
    a, b = pair(homes, tmp_path / "shared", PASS, LAPTOPS, clock=clock)
    first = a.errors.remember("fetch_page", "timeout after 30s", "retry with 60s", "failed").record
    a.sync.now()
    assert b.sync.now().applied.errors_changed == 1
    (copy,) = b.errors.records()
    assert (copy.id, copy.outcome, copy.expires_at) == (first.id, "failed", first.expires_at)
    # a later write on B (the same tool, symptom and action) wins on A, its expiry with it
    clock.advance(60)
    newer = b.errors.remember("fetch_page", "timeout after 30s", "retry with 60s", "resolved").record
    b.sync.now()
    a.sync.now()
    (on_a,) = a.errors.records()
    assert (on_a.outcome, on_a.expires_at) == ("resolved", newer.expires_at)
    assert a.errors.search("timeout")
    # forgotten on A: gone on B, and no later sync brings it back
    a.errors.forget(on_a.id)
    a.sync.now()
    b.sync.now()
    assert b.errors.records() == [] and a.errors.records() == []
    b.sync.now()
    a.sync.now()
    assert a.errors.records() == []


def test_clocks_hours_apart(homes: Homes, tmp_path: Path) -> None:
    """B's clock is five hours behind A's: a title B sets after seeing A's still wins on both (a later
    change is newer whatever the clocks say), and both windows are the same time order."""
    clock_a, clock_b = FakeClock(), FakeClock()
    clock_b.now -= 5 * 3600 * 10**9
    folder = tmp_path / "shared"
    folder.mkdir()
    a, b = homes.open("a", clock=clock_a), homes.open("b", clock=clock_b)
    a.sync.enable(folder, PASS, "a")
    b.sync.enable(folder, PASS, "b")
    a.append("s", [Message("user", "from a", clock_a.advance(1))])
    a.set_title("s", "title from A")
    a.sync.now()
    b.sync.now()
    b.append("s", [Message("assistant", "from b", clock_b.advance(1))])
    b.set_title("s", "title from B")
    b.sync.now()
    a.sync.now()
    for mem in (a, b):
        assert [s.title for s in mem.sessions() if s.id == "s"] == ["title from B"]
    assert [m.content for m in a.history("s")] == [m.content for m in b.history("s")] == ["from b", "from a"]


def test_one_message_captured_two_ways_is_one_with_one_global_id(homes: Homes, tmp_path: Path) -> None:
    """Appended on A (a device id) and imported from a transcript on B (an import key): one message on
    both, and both keep the smaller of the two global ids."""
    from engine.imported import ImportedSession

    a, b = pair(homes, tmp_path / "shared", PASS, LAPTOPS)
    a.append("agent-run", [Message("user", "deploy the thing", 1_700_000_000_000_000_000)])
    b.import_sessions(
        [ImportedSession("agent-run", [Message("user", "deploy the thing", 1_700_000_000_000_000_000)])]
    )
    for mem in (a, b, a, b):
        mem.sync.now()
    gids = []
    for mem in (a, b):
        assert [m.content for m in mem.archived("agent-run")] == ["deploy the thing"]
        with mem._store.read() as conn:
            gids.append([str(g) for (g,) in conn.execute("SELECT gid FROM message_gids")])
    assert gids[0] == gids[1] and len(gids[0]) == 1

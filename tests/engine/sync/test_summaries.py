"""Summaries across devices, through the sync-engine test double and the fake Gemini server: the newest
summary and its cursor win on every device (a device whose own is newer keeps it), a device that received
one does not pay for it again, a cursor whose anchor has not arrived waits, and a forgotten text survives
in no synced summary (nor in any file of any home)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Memory
from engine.messages import Message
from engine.summary import files
from engine.sync import state, summaries
from tests.engine.summary.conftest import fast_client, summary_json
from tests.engine.sync.conftest import Homes
from tests.engine.sync.fakeengine import FakeEngine
from tests.fakegemini import FakeGemini

PASS = "correct horse battery staple"
T0 = 1_700_000_000 * 1_000_000_000


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGemini]:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    with FakeGemini() as server:
        yield server


def devices(homes: Homes, engine: FakeEngine, fake: FakeGemini, *names: str) -> list[Memory]:
    mems = []
    for name in names:
        mem = homes.open(name, client_factory=fast_client)
        mem.update_settings(gemini_base_url=fake.url, decision_model="")
        engine.settle()
        mem.sync.enable(engine.folder(name), PASS, name)
        engine.owns(name, mem.sync.device)
        mems.append(mem)
    return mems


def everywhere(engine: FakeEngine, *mems: Memory) -> None:
    for _ in range(2):
        for mem in mems:
            mem.sync.now()
            engine.settle()


def summarize(mem: Memory, fake: FakeGemini, session: str, topic: str) -> None:
    fake.reply_json(summary_json(topic))
    assert mem.summaries.generate(session).chunks == 1


def topic(mem: Memory, session: str) -> str:
    return mem.summaries.load(session).current_discussion.topic


def up_to_date(mem: Memory, session: str) -> bool:
    """The summary reaches the end of this device's history.json (nothing left to pay for)."""
    cursor, _ = files.load_cursor(mem.paths, session, T0)
    return cursor is not None and files.unsummarized(mem.history(session), cursor, T0) == []


def files_holding(base: Path, needle: str) -> list[Path]:
    raw = needle.encode()
    return [p for p in base.rglob("*") if p.is_file() and raw in p.read_bytes()]


def test_a_summary_made_on_one_device_is_used_on_the_other(
    homes: Homes, tmp_path: Path, fake: FakeGemini
) -> None:
    engine = FakeEngine(tmp_path / "folders", ["a", "b"])
    a, b = devices(homes, engine, fake, "a", "b")
    a.append("s", [Message("user", "plan the move", T0), Message("assistant", "start with boxes", T0 + 1)])
    everywhere(engine, a, b)
    summarize(a, fake, "s", "moving house")
    everywhere(engine, a, b)
    assert topic(b, "s") == "moving house" and up_to_date(b, "s")
    calls = len(fake.calls())
    assert "s" not in b.summaries.pending()
    b.summaries.run_pending()
    assert len(fake.calls()) == calls  # B did not pay for it again
    # nothing echoes: the summary in force is not sent back
    assert a.sync.now().summaries_sent == 0 and b.sync.now().summaries_sent == 0


def test_the_newest_summary_wins_on_both_and_a_newer_own_one_is_kept(
    homes: Homes, tmp_path: Path, fake: FakeGemini
) -> None:
    engine = FakeEngine(tmp_path / "folders", ["a", "b"])
    a, b = devices(homes, engine, fake, "a", "b")
    a.append("s", [Message("user", "first", T0), Message("assistant", "reply", T0 + 1)])
    everywhere(engine, a, b)
    summarize(a, fake, "s", "older, from A")
    summarize(b, fake, "s", "newer, from B")  # written later, before B saw A's
    a.sync.now()
    engine.settle()
    assert b.sync.now().applied.summaries == 0  # B's own is newer: kept
    assert topic(b, "s") == "newer, from B"
    engine.settle()
    assert a.sync.now().applied.summaries == 1
    everywhere(engine, a, b)
    assert topic(a, "s") == topic(b, "s") == "newer, from B"
    with a._store.read() as conn, b._store.read() as other:
        assert (
            summaries._json(conn, summaries.IN_FORCE)["s"] == summaries._json(other, summaries.IN_FORCE)["s"]
        )
    # A writes again later: its summary (newest now) goes to B
    a.append("s", [Message("user", "one more", T0 + 2)])
    summarize(a, fake, "s", "newest, from A")
    everywhere(engine, a, b)
    assert topic(a, "s") == topic(b, "s") == "newest, from A" and up_to_date(b, "s")


def test_a_cursor_past_messages_not_here_yet_waits_for_them(
    homes: Homes, tmp_path: Path, fake: FakeGemini
) -> None:
    """A summarizes messages C wrote; B gets A's summary before C's messages: B keeps it waiting (its own
    files untouched), and installs it when C's messages arrive, cursor on the same message."""
    engine = FakeEngine(tmp_path / "folders", ["a", "b", "c"])
    a, b, c = devices(homes, engine, fake, "a", "b", "c")
    a.append("s", [Message("user", "opening", T0)])
    everywhere(engine, a, b, c)
    c.append("s", [Message("user", "from C", T0 + 1), Message("assistant", "answer to C", T0 + 2)])
    c.sync.now()
    engine.deliver_only(c.sync.device, to="a")
    a.sync.now()
    assert [m.content for m in a.history("s")][-1] == "answer to C"
    summarize(a, fake, "s", "C's question")
    a.sync.now()
    engine.deliver_only(a.sync.device, to="b")
    b.sync.now()
    assert not b.paths.summary_file("s").exists()  # waiting: its anchor has not arrived
    with b._store.read() as conn:
        assert "s" in summaries._json(conn, summaries.PENDING)
    engine.settle()
    b.sync.now()
    assert topic(b, "s") == "C's question" and up_to_date(b, "s")
    with b._store.read() as conn:
        assert summaries._json(conn, summaries.PENDING) == {}
        assert state.get(conn, summaries.IN_FORCE)


def test_a_forgotten_text_survives_in_no_synced_summary(
    homes: Homes, tmp_path: Path, fake: FakeGemini
) -> None:
    """A forget deletes the summaries holding the text on every device, and an older summary from a third
    device that arrives after the forget (written before it) is not installed."""
    engine = FakeEngine(tmp_path / "folders", ["a", "b", "c"])
    a, b, c = devices(homes, engine, fake, "a", "b", "c")
    stored = a.append("s", [Message("user", "zqxj the secret plan", T0), Message("assistant", "ok", T0 + 1)])
    everywhere(engine, a, b, c)
    summarize(a, fake, "s", "zqxj plan from A")
    everywhere(engine, a, b)
    assert topic(b, "s") == "zqxj plan from A"
    summarize(c, fake, "s", "zqxj plan from C")  # newer than A's; not delivered yet
    c.sync.now()
    assert stored[0].id is not None
    a.forget_message(stored[0].id)
    assert not a.paths.summary_file("s").exists()
    a.sync.now()
    engine.deliver_only(a.sync.device, to="b")
    b.sync.now()
    assert not b.paths.summary_file("s").exists()  # B's (from A) went with the message
    engine.deliver_only(c.sync.device, to="b")
    b.sync.now()
    assert not b.paths.summary_file("s").exists()  # C's was written before the forget: not installed
    everywhere(engine, a, b, c)
    for mem in (a, b, c):
        assert "zqxj" not in topic(mem, "s")
        assert [m.content for m in mem.archived("s")] == ["ok"]
    assert not files_holding(tmp_path / "homes", "zqxj")


def test_a_reset_drops_the_synced_summary_only_when_it_drops_its_own(
    homes: Homes, tmp_path: Path, fake: FakeGemini
) -> None:
    engine = FakeEngine(tmp_path / "folders", ["a", "b"])
    a, b = devices(homes, engine, fake, "a", "b")
    for session in ("kept", "dropped"):
        a.append(session, [Message("user", f"about {session}", T0), Message("assistant", "ok", T0 + 1)])
        everywhere(engine, a, b)
        summarize(a, fake, session, f"topic {session}")
    everywhere(engine, a, b)
    assert topic(b, "kept") == "topic kept" and topic(b, "dropped") == "topic dropped"
    a.reset("kept")  # keeps its summary, as on B
    a.reset("dropped", include_summary=True)  # deletes it, as on B
    everywhere(engine, a, b)
    assert b.archived("kept") == [] and b.archived("dropped") == []
    assert topic(a, "kept") == topic(b, "kept") == "topic kept"
    assert not a.paths.summary_file("dropped").exists() and not b.paths.summary_file("dropped").exists()


def test_a_summary_refused_for_a_forget_its_writer_had_not_seen_is_sent_again_once_it_has(
    homes: Homes, tmp_path: Path, fake: FakeGemini
) -> None:
    """C writes and forgets a message of a shared session before syncing (only the tombstone travels); B
    learns it first, so B refuses the summary A wrote meanwhile (A may not have seen the forget). Once A
    learns it (A never held the text), A sends its summary again and B takes it."""
    engine = FakeEngine(tmp_path / "folders", ["a", "b", "c"])
    a, b, c = devices(homes, engine, fake, "a", "b", "c")
    a.append("s", [Message("user", "shared start", T0), Message("assistant", "ok", T0 + 1)])
    everywhere(engine, a, b, c)
    stored = c.append("s", [Message("user", "wxyq from C", T0 + 2)])
    assert stored[0].id is not None
    c.forget_message(stored[0].id)
    c.sync.now()
    engine.deliver_only(c.sync.device, to="b")
    b.sync.now()  # B knows the forget
    summarize(a, fake, "s", "summary by A")  # A has not seen it
    a.sync.now()
    engine.deliver_only(a.sync.device, to="b")
    b.sync.now()
    assert not b.paths.summary_file("s").exists()  # refused: written before a forget B knows
    engine.deliver_only(c.sync.device, to="a")
    assert a.sync.now().applied.forgotten == 0  # A learns the forget (it never held the message) …
    assert a.sync.now().summaries_sent == 1  # … and its summary goes again
    engine.deliver_only(a.sync.device, to="b")
    b.sync.now()
    assert topic(b, "s") == "summary by A"
    everywhere(engine, a, b, c)
    assert topic(a, "s") == topic(b, "s") == topic(c, "s") == "summary by A"
    assert not files_holding(tmp_path / "homes", "wxyq")

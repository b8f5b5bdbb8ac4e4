"""Convergence: two or three homes, each with its own copy of the shared folder kept by a misbehaving sync
engine (tests/engine/sync/fakeengine.py: late, reordered, duplicated, partial delivery, conflict litter),
random interleavings of appends, imports of one export, forgets, resets, removals, title changes,
compactions, summaries (by the real SDK against the fake Gemini server) and syncs, with the devices'
clocks hours apart. After everything is delivered, every device holds the same messages, titles,
tombstones, summaries and shared settings, the same windows, and no forgotten text is in any file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine import Memory
from engine.imported import ImportedSession
from engine.messages import Message
from engine.sessions import tombstones
from engine.settings import SHARED
from engine.sync import pack, state
from tests.engine.conftest import FakeClock
from tests.engine.summary.conftest import fast_client, summary_json
from tests.engine.sync.conftest import Homes
from tests.engine.sync.fakeengine import FakeEngine
from tests.fakegemini import FakeGemini

PASS = "shared passphrase"
SESSIONS = ("alpha", "beta", "gamma", "chatgpt-1")
EXPORT = [
    ImportedSession(
        "chatgpt-1",
        [
            Message("user", "tok90001q exported question", 1_600_000_000 * 10**9),
            Message("assistant", "tok90002q answer", 0),
        ],
        title="An exported chat",
    )
]
HOUR = 3600 * 10**9


def ops_of(*kinds: str) -> st.SearchStrategy[tuple[str, int, int, int]]:
    """Random operations: (kind, device, session, a number for the operation to use)."""
    return st.tuples(
        st.sampled_from(kinds), st.integers(0, 2), st.integers(0, len(SESSIONS) - 1), st.integers(0, 10**6)
    )


OPS = ops_of(
    *("append", "append", "append", "import", "forget", "reset", "remove", "title"),
    *("compact", "setting", "sync", "sync", "deliver"),
)
SUMMARY_OPS = ops_of(
    *("append", "append", "import", "forget", "reset", "reset-all", "remove"),
    *("summarize", "summarize", "compact", "setting", "sync", "sync", "deliver"),
)


class World:
    """The homes, their clocks (hours apart), the engine, and what was forgotten."""

    def __init__(self, base: Path, count: int, seed: int, gemini: FakeGemini | None = None) -> None:
        self.gemini, self.base = gemini, base
        self.homes = Homes(base / "homes")
        self.engine = FakeEngine(base / "folders", [f"d{i}" for i in range(count)], seed)
        self.clocks = [FakeClock(1_700_000_000 * 10**9 + (i - 1) * 3 * HOUR) for i in range(count)]
        self.mems: list[Memory] = []
        self.counter = 0
        self.forgotten: set[str] = set()
        for i in range(count):
            if gemini is None:
                mem = self.homes.open(f"h{i}", clock=self.clocks[i])
                mem.update_settings(max_history_bytes=4096)
            else:  # summaries by the real SDK against the fake Gemini server
                mem = self.homes.open(f"h{i}", clock=self.clocks[i], client_factory=fast_client)
                mem.update_settings(max_history_bytes=4096, gemini_base_url=gemini.url, decision_model="")
            if i:
                self.engine.settle()  # sync.json reaches the new device
            mem.sync.enable(self.engine.folder(f"d{i}"), PASS, f"device-{i}")
            self.engine.owns(f"d{i}", mem.sync.device)
            self.mems.append(mem)

    def close(self) -> None:
        self.homes.close_all()

    def token(self) -> str:
        self.counter += 1
        return f"tok{self.counter:05d}q"

    def run(self, op: str, who: int, which: int, extra: int) -> None:
        d = who % len(self.mems)
        mem, clock, session = self.mems[d], self.clocks[d], SESSIONS[which]
        clock.advance(1 + extra % 5)
        if op == "append":
            padding = "x" * (extra % 700)
            mem.append(session, [Message("user", f"{self.token()} {padding}", clock.now)])
        elif op == "import":
            mem.import_sessions(EXPORT)
        elif op == "forget":
            rows = mem.archived(session) if mem.exists(session) else []
            if rows:
                target = rows[extra % len(rows)]
                self._forgotten(target.content)
                assert target.id is not None
                mem.forget_message(target.id)
        elif op in ("reset", "reset-all", "remove") and mem.exists(session):
            for message in mem.archived(session):
                self._forgotten(message.content)
            if op == "remove":
                mem.remove(session)
            else:
                mem.reset(session, include_summary=op == "reset-all")
        elif op == "summarize" and self.gemini is not None and mem.exists(session) and mem.history(session):
            self.gemini.reply_json(summary_json(f"topic {self.token()}"))
            mem.summaries.generate(session)
        elif op == "title" and mem.exists(session):
            mem.set_title(session, f"title {extra % 7}")
        elif op == "compact" and mem.exists(session):
            mem.compact(session)
        elif op == "setting":  # a shared one and a device's own
            mem.update_settings(reply_lang=f"l{extra % 4}", search_shortcut=f"Ctrl+Alt+{extra % 9}")
        elif op == "sync":
            mem.sync.now()
        elif op == "deliver":
            self.engine.deliver(share=(extra % 10 + 1) / 10, partial=0.3, litter=0.2)

    def _forgotten(self, text: str) -> None:
        self.forgotten.add(text.split(" ")[0])

    def converge(self) -> None:
        for _ in range(3):
            for mem in self.mems:
                mem.sync.now()
            self.engine.settle()
        for mem in self.mems:
            report = mem.sync.now()
            assert not report.waiting, report.waiting


def state_of(mem: Memory) -> dict[str, Any]:
    with mem._store.read() as conn:
        messages = sorted(
            (str(s), str(r), str(c), int(t))
            for s, r, c, t in conn.execute("SELECT session_id, role, content, send_at FROM messages")
        )
        with_messages = sorted({m[0] for m in messages})
        titles = {
            str(s): (str(t), str(src))
            for s, t, src in conn.execute("SELECT id, title, title_source FROM sessions")
            if s in with_messages
        }
        dead = tombstones.shared(conn, state.get(conn, state.FOLDER_ID))  # under the folder's shared key
    windows = {s: [m.content for m in mem.window(s)] for s in with_messages}
    summaries = {s: _topic(mem, s) for s in with_messages}
    shared = {name: value for name, value in mem.settings.as_dict().items() if name in SHARED}
    return {
        "messages": messages,
        "titles": titles,
        "tombstones": dead,
        "windows": windows,
        "summaries": summaries,
        "settings": shared,
    }


def _topic(mem: Memory, session: str) -> str | None:
    summary = mem.summaries.load(session)
    return None if summary is None else summary.current_discussion.topic


def files_holding(base: Path, needle: str) -> list[Path]:
    raw = needle.encode()
    return [p for p in base.rglob("*") if p.is_file() and raw in p.read_bytes()]


def check(world: World) -> None:
    world.converge()
    states = [state_of(mem) for mem in world.mems]
    first = states[0]
    for other in states[1:]:
        assert other["messages"] == first["messages"]
        assert other["titles"] == first["titles"]
        assert other["tombstones"] == first["tombstones"]
        assert other["summaries"] == first["summaries"]
        assert other["settings"] == first["settings"]
        for session, window in first["windows"].items():
            shorter, longer = sorted((window, other["windows"][session]), key=len)
            assert longer[len(longer) - len(shorter) :] == shorter, session  # compaction may keep fewer
    present = {m[2].split(" ")[0] for m in first["messages"]}
    for token in world.forgotten - present:  # forgotten (an import of the export may not bring it back)
        assert not files_holding(world.base, token), token


def play(world: World, ops: list[tuple[str, int, int, int]], pack_after: int = pack.PACK_AFTER) -> set[str]:
    """Run ``ops`` in ``world``, packing after ``pack_after`` segments, then :func:`check` it; close it.
    Returns what was forgotten."""
    default, pack.PACK_AFTER = pack.PACK_AFTER, pack_after
    try:
        for op in ops:
            world.run(*op)
        check(world)
        return world.forgotten
    finally:
        pack.PACK_AFTER = default
        world.close()


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@example(  # an export removed on one device after the other had it, beside a message of its own
    count=2,
    ops=[
        ("append", 1, 3, 0),
        ("import", 0, 0, 0),
        ("sync", 0, 0, 0),
        ("deliver", 0, 0, 9),
        ("sync", 1, 0, 0),
        ("remove", 0, 3, 0),
    ],
    seed=0,
    pack_after=2,
)
@example(  # an imported title, then the user's, in one segment: the older is not sent back as newer
    count=2,
    ops=[("append", 1, 3, 0), ("import", 0, 0, 0), ("title", 0, 3, 2), ("reset", 0, 3, 0)],
    seed=0,
    pack_after=pack.PACK_AFTER,
)
@example(  # an export imported and reset on one device, while the other appends to its session
    count=2,
    ops=[("append", 1, 3, 0), ("import", 0, 0, 0), ("reset", 0, 3, 0)],
    seed=0,
    pack_after=2,
)
@example(  # a removal packed into a snapshot (told as forgets), then a message in the same session
    count=2,
    ops=[
        ("import", 0, 0, 0),
        ("sync", 0, 0, 0),
        ("deliver", 0, 0, 0),
        ("remove", 0, 3, 0),
        ("append", 0, 3, 0),
    ],
    seed=9,
    pack_after=2,
)
@example(  # a title set after a removal, a re-append and a forget on the other device
    count=2,
    ops=[
        ("append", 0, 0, 0),
        ("append", 1, 0, 0),
        ("remove", 0, 0, 0),
        ("append", 0, 0, 0),
        ("forget", 1, 0, 0),
        ("title", 1, 0, 0),
    ],
    seed=0,
    pack_after=2,
)
@given(
    count=st.sampled_from([2, 3]),
    ops=st.lists(OPS, max_size=30),
    seed=st.integers(0, 10**6),
    pack_after=st.sampled_from([2, 3, pack.PACK_AFTER]),
)
def test_every_device_converges(
    tmp_path_factory: Any, count: int, ops: list[tuple[str, int, int, int]], seed: int, pack_after: int
) -> None:
    """With packing every few segments too: snapshots and removed segments under the same delivery."""
    play(World(tmp_path_factory.mktemp("world"), count, seed), ops, pack_after)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    count=st.sampled_from([2, 3]),
    ops=st.lists(SUMMARY_OPS, max_size=30),
    seed=st.integers(0, 10**6),
    pack_after=st.sampled_from([2, pack.PACK_AFTER]),
)
def test_summaries_converge_too(
    tmp_path_factory: Any,
    monkeypatch: pytest.MonkeyPatch,
    count: int,
    ops: list[tuple[str, int, int, int]],
    seed: int,
    pack_after: int,
) -> None:
    """The same property with summaries written by Gemini on any device and resets that drop them: every
    device ends with the same summary of each session, or none (and no forgotten text in any file)."""
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    with FakeGemini() as gemini:
        play(World(tmp_path_factory.mktemp("world"), count, seed, gemini), ops, pack_after)


def test_a_fixed_busy_story_converges(tmp_path: Path) -> None:
    """The same property on one long, hand-picked interleaving (always run, whatever hypothesis picks)."""
    world = World(tmp_path, 3, 7)
    story = [
        ("append", 0, 0, 5),
        ("import", 1, 0, 0),
        ("import", 2, 0, 0),
        ("sync", 0, 0, 0),
        ("deliver", 0, 0, 4),
        ("append", 1, 0, 600),
        ("title", 0, 0, 1),
        ("sync", 1, 0, 0),
        ("sync", 2, 0, 0),
        ("deliver", 0, 0, 9),
        ("forget", 2, 3, 0),
        ("append", 2, 1, 650),
        ("sync", 0, 0, 0),
        ("reset", 1, 0, 0),
        ("title", 2, 0, 3),
        ("deliver", 0, 0, 2),
        ("sync", 2, 0, 0),
        ("remove", 0, 1, 0),
        ("append", 1, 1, 10),
        ("compact", 0, 0, 0),
        ("import", 0, 0, 0),
        ("sync", 1, 0, 0),
        ("append", 0, 2, 699),
        ("append", 1, 2, 698),
        ("append", 2, 2, 697),
    ]
    assert play(world, story)  # something was forgotten, and is in no file

"""One tombstone table, one rule on every device: a message forgotten (or reset, removed) on one device,
before or after sync was enabled, never comes back there or on any other device, by an import or a sync,
and its text is in no file of any device (homes and folder copies, byte by byte). The table holds keyed
hashes only: the folder's shared key while sync is on, the home's own before."""

from __future__ import annotations

from pathlib import Path

from engine import Memory
from engine.imported import ImportedSession
from engine.messages import Message
from engine.sessions import identity, tombstones
from engine.sync import state
from tests.engine.sync.conftest import Homes
from tests.engine.sync.fakeengine import FakeEngine

PASS = "correct horse battery staple"
SECRET = "zyxwvut-my-bank-pin-is-4321"


def export() -> list[ImportedSession]:
    """One ChatGPT export, imported on both laptops before they ever synced."""
    return [
        ImportedSession(
            "chatgpt-7",
            [
                Message("user", "plan the trip", 10),
                Message("assistant", SECRET, 11),
                Message("user", "thanks", 12),
            ],
        )
    ]


def texts(mem: Memory, session: str) -> list[str]:
    return [m.content for m in mem.archived(session)] if mem.exists(session) else []


def files_holding(base: Path, needle: str) -> list[Path]:
    raw = needle.encode()
    return [p for p in base.rglob("*") if p.is_file() and raw in p.read_bytes()]


def shared_graves(mem: Memory) -> dict[str, set[tombstones.Grave]]:
    """The tombstones under the sync folder's key ({} while sync is off)."""
    with mem._store.read() as conn:
        folder = state.get(conn, state.FOLDER_ID)
        return tombstones.shared(conn, folder) if folder else {}


def rounds(engine: FakeEngine, *mems: Memory, times: int = 3) -> None:
    for _ in range(times):
        for mem in mems:
            mem.sync.now()
            engine.settle()


def join(engine: FakeEngine, mem: Memory, name: str) -> None:
    engine.settle()  # sync.json reaches the device
    mem.sync.enable(engine.folder(name), PASS, name)
    engine.owns(name, mem.sync.device)


def test_a_message_forgotten_before_sync_does_not_come_back_and_the_other_device_scrubs_it(
    homes: Homes, tmp_path: Path
) -> None:
    """The hard case: A forgot a message of an export before sync was on (its tombstone is under A's own
    key, which B cannot compare); B still holds the same message. After both join, A does not take it
    back, makes a tombstone under the folder's key for it, and B scrubs it on the next sync."""
    engine = FakeEngine(tmp_path / "folders", ["a", "b"])
    a, b = homes.open("a"), homes.open("b")
    a.import_sessions(export())
    b.import_sessions(export())
    secret = next(m for m in a.archived("chatgpt-7") if m.content == SECRET)
    assert secret.id is not None
    a.forget_message(secret.id)
    assert shared_graves(a) == {}  # sync is off: only A's own key hashed it
    a.sync.enable(engine.folder("a"), PASS, "a")
    engine.owns("a", a.sync.device)
    join(engine, b, "b")
    rounds(engine, a, b)
    assert texts(a, "chatgpt-7") == texts(b, "chatgpt-7") == ["plan the trip", "thanks"]
    assert not b.search("zyxwvut", match="keyword")
    # one rule on both: the same tombstone under the folder's key, and an import brings it back nowhere
    assert shared_graves(a) == shared_graves(b) and shared_graves(a)["chatgpt-7"]
    for mem in (a, b):
        mem.import_sessions(export())
        assert texts(mem, "chatgpt-7") == ["plan the trip", "thanks"]
    rounds(engine, a, b)
    assert texts(a, "chatgpt-7") == texts(b, "chatgpt-7") == ["plan the trip", "thanks"]
    # it settles: nothing more to tell
    assert a.sync.now().changes_sent == 0 and b.sync.now().changes_sent == 0
    # the text is in no file of either home, nor in the plaintext of any folder copy
    assert not files_holding(tmp_path, SECRET)
    assert not files_holding(tmp_path, "zyxwvut")


def test_a_reset_before_sync_is_kept_the_same_way(homes: Homes, tmp_path: Path) -> None:
    engine = FakeEngine(tmp_path / "folders", ["a", "b"])
    a, b = homes.open("a"), homes.open("b")
    a.import_sessions(export())
    b.import_sessions(export())
    a.reset("chatgpt-7")
    join(engine, a, "a")
    join(engine, b, "b")
    rounds(engine, a, b)
    assert texts(a, "chatgpt-7") == [] and texts(b, "chatgpt-7") == []
    assert not files_holding(tmp_path, SECRET)


def test_a_forget_while_syncing_is_one_tombstone_on_every_device(homes: Homes, tmp_path: Path) -> None:
    """Three devices: a forget on one reaches the others as the same keyed tombstone; a device that never
    had the message refuses it from a later import, and the database holds no unkeyed hash of it."""
    engine = FakeEngine(tmp_path / "folders", ["a", "b", "c"])
    a, b, c = homes.open("a"), homes.open("b"), homes.open("c")
    for mem, name in ((a, "a"), (b, "b"), (c, "c")):
        join(engine, mem, name)
    a.import_sessions(export())
    rounds(engine, a, b)  # C is offline
    secret = next(m for m in b.archived("chatgpt-7") if m.content == SECRET)
    assert secret.id is not None
    b.forget_message(secret.id)
    rounds(engine, a, b, c)
    assert (
        texts(a, "chatgpt-7") == texts(b, "chatgpt-7") == texts(c, "chatgpt-7") == ["plan the trip", "thanks"]
    )
    assert shared_graves(a) == shared_graves(b) == shared_graves(c)
    c.import_sessions(export())  # C never held it: the tombstone from the folder keeps it out
    assert texts(c, "chatgpt-7") == ["plan the trip", "thanks"]
    unkeyed = identity.message_key("chatgpt-7", "assistant", SECRET, 11)
    assert not files_holding(tmp_path, SECRET) and not files_holding(tmp_path, unkeyed)


def test_tombstones_are_keyed_per_folder_and_per_home(homes: Homes, tmp_path: Path) -> None:
    """Without sync a tombstone is under the home's own key (two homes hash the same text apart); with
    sync on, each forget also makes one under the folder's shared key (the same on both)."""
    a, b = homes.open("a"), homes.open("b")
    for mem in (a, b):
        stored = mem.append("s", [Message("user", "the same words", 5)])
        assert stored[0].id is not None
        mem.forget_message(stored[0].id)
    with a._store.read() as conn:
        mine = {str(d) for (d,) in conn.execute("SELECT digest FROM forgotten")}
    with b._store.read() as conn:
        theirs = {str(d) for (d,) in conn.execute("SELECT digest FROM forgotten")}
    assert mine and theirs and not mine & theirs
    folder = tmp_path / "shared"
    folder.mkdir()
    a.sync.enable(folder, PASS)
    b.sync.enable(folder, PASS)
    for mem in (a, b):
        stored = mem.append("t", [Message("user", "said on both", 6)])
        assert stored[0].id is not None
        mem.forget_message(stored[0].id)
    assert shared_graves(a) == shared_graves(b) and len(shared_graves(a)["t"]) == 1


def test_tombstones_that_arrived_still_hold_after_sync_is_disabled(homes: Homes, tmp_path: Path) -> None:
    """B never had the message A forgot; after ``sync disable`` (the folder's key leaves B's keyring) an
    import of the export on B still passes it over: the folder's tombstone key was kept."""
    engine = FakeEngine(tmp_path / "folders", ["a", "b"])
    a, b = homes.open("a"), homes.open("b")
    join(engine, a, "a")
    join(engine, b, "b")
    a.import_sessions(export())
    secret = next(m for m in a.archived("chatgpt-7") if m.content == SECRET)
    assert secret.id is not None
    a.forget_message(secret.id)
    rounds(engine, a, b)
    assert texts(b, "chatgpt-7") == ["plan the trip", "thanks"]
    assert b.sync.disable()
    assert b.sync.keys.get(a.sync.folder_id) is None
    b.import_sessions(export())
    assert texts(b, "chatgpt-7") == ["plan the trip", "thanks"]
    assert not files_holding(tmp_path, SECRET)


def test_a_forget_while_sync_is_off_is_told_when_the_same_folder_is_enabled_again(
    homes: Homes, tmp_path: Path
) -> None:
    """B got the message from A (it never sends it back); A disables sync, forgets it, enables the same
    folder again: the forget reaches B, which scrubs it."""
    engine = FakeEngine(tmp_path / "folders", ["a", "b"])
    a, b = homes.open("a"), homes.open("b")
    join(engine, a, "a")
    join(engine, b, "b")
    a.import_sessions(export())
    rounds(engine, a, b)
    assert SECRET in texts(b, "chatgpt-7")
    assert a.sync.disable()
    secret = next(m for m in a.archived("chatgpt-7") if m.content == SECRET)
    assert secret.id is not None
    a.forget_message(secret.id)
    a.sync.enable(engine.folder("a"), PASS, "a")
    rounds(engine, a, b)
    assert texts(a, "chatgpt-7") == texts(b, "chatgpt-7") == ["plan the trip", "thanks"]
    assert shared_graves(a) == shared_graves(b)
    assert not files_holding(tmp_path / "homes", SECRET)

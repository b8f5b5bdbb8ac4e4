"""A repair keeps every salvaged row: history.json's messages are matched to them by identity (role, text,
time, sender, in order), never by text, so "ok" archived 120 times comes back 120 times."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Memory, Message
from engine.database import open_store
from engine.embedders.hashing import HashEmbedder
from engine.repair import hotrestore
from engine.sessions import archive
from tests import rawdb

T0 = 1_700_000_000 * 1_000_000_000


def chatter(n: int) -> list[Message]:
    """Short repeated answers, as people write them: most texts occur many times."""
    out = []
    for i in range(n):
        out.append(Message("user", f"question {i} " + "x" * 200, T0 + 2 * i))
        out.append(Message("assistant", "ok" if i % 3 else "yes", T0 + 2 * i + 1))
    return out


def contents(db: Path) -> Counter[str]:
    conn = rawdb.connect(db)
    try:
        return Counter(str(c) for (c,) in conn.execute("SELECT content FROM messages"))
    finally:
        conn.close()


def test_repair_keeps_every_salvaged_row_whose_text_history_json_also_holds(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Memory.open(home, background=False, embedder=HashEmbedder()) as mem:
        mem.update_settings(max_history_bytes=8192)
        for start in range(0, 240, 8):
            mem.append("s", chatter(120)[start : start + 8])
        assert mem.compaction_cut("s") > 0
        hot = [m for m in mem.history("s")]
        cut = mem.compaction_cut("s")
    db = home / ".store" / "history.db"
    before = contents(db)
    assert before["ok"] == 80 and before["yes"] == 40
    conn = rawdb.connect(db)
    try:
        # an interrupted append: rows committed, history.json never written
        key = conn.execute("SELECT skey FROM messages LIMIT 1").fetchone()[0]
        conn.execute(
            "INSERT INTO messages(session_id, skey, send_at, role, content, sender) VALUES ('s', ?, ?, 'user', 'ok', '')",
            (key, T0 + 10_000),
        )
        # damage on a hot row: its text no longer decodes
        damaged = hot[len(hot) // 2]
        assert damaged.id is not None and damaged.id >= cut
        conn.execute("UPDATE messages SET content = CAST(X'C3FF28' AS TEXT) WHERE id = ?", (damaged.id,))
        conn.commit()
    finally:
        conn.close()

    report = Memory.repair(home)
    assert report.damaged and report.salvaged == sum(before.values())  # every row that reads
    assert report.restored == 1  # only the damaged hot message came from history.json
    after = contents(db)
    expected = before + Counter({"ok": 1})
    assert after == expected, (after - expected, expected - after)
    with Memory.open(home, background=False, embedder=HashEmbedder()) as mem:
        history = mem.history("s")  # the interrupted append is replayed at the end, once
        assert [m.content for m in history] == [m.content for m in hot] + ["ok"]
        assert [m.id for m in history[:-1]] == [m.id for m in hot]  # the damaged row got its own id back
        assert mem.archive_count("s") == sum(expected.values())


def test_pairing_goes_by_time_and_order_not_text() -> None:
    rows = [Message("assistant", "ok", T0 + t, "", 10 + t, "s") for t in range(5)]
    hot = [Message("assistant", "ok", T0 + 3), Message("assistant", "ok", T0 + 4)]
    assert hotrestore.pair(hot, rows) == [3, 4]
    untimed = [Message("assistant", "ok", 0), Message("assistant", "ok", T0 + 4)]
    assert hotrestore.pair(untimed, rows) == [0, 4]
    assert hotrestore.pair([Message("assistant", "ok", T0 + 9)], rows) == [None]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    texts=st.lists(st.sampled_from(["ok", "yes", "a longer note", "好"]), min_size=1, max_size=30),
    data=st.data(),
)
def test_a_restored_session_keeps_every_salvaged_row_and_every_file_message_once(
    tmp_path_factory: pytest.TempPathFactory, texts: list[str], data: st.DataObject
) -> None:
    """Rows of a session (another session's rows between them), history.json the rows from a cut on
    minus a trailing unconfirmed append, some rows lost to damage: after the restore, each salvaged row
    is there once, each lost row that history.json holds is back once, and history.json's messages are
    the session's rows from the new cut on, in order."""
    db = tmp_path_factory.mktemp("restore") / "history.db"
    store = open_store(db)
    try:
        with store.write() as conn:
            ids = []
            for n, content in enumerate(texts):
                send_at = 0 if data.draw(st.booleans()) and n == 0 else T0 + n
                ids += archive.insert(
                    conn, "s", [Message("assistant" if n % 2 else "user", content, send_at)], 1
                )
                if data.draw(st.booleans()):
                    archive.insert(conn, "other", [Message("user", "elsewhere", T0)], 1)
            rows = archive.rows_from(conn, "s", 0)
            cut = data.draw(st.integers(0, len(rows) - 1))
            unconfirmed = data.draw(st.integers(0, len(rows) - cut - 1))
            hot = [
                Message(r.role, r.content, 0 if r.send_at == 0 else r.send_at)
                for r in rows[cut : len(rows) - unconfirmed]
            ]
            lost = set(data.draw(st.sets(st.sampled_from(ids), max_size=len(ids))))
            for ident in lost:
                conn.execute("DELETE FROM messages WHERE id = ?", (ident,))
            used = {int(r[0]) for r in conn.execute("SELECT id FROM messages")}
            placed = hotrestore.restore_session(conn, "s", hot, rows[cut].id or 0, used, 1)
            after = archive.rows_from(conn, "s", 0)
    finally:
        store.close()
    in_file = {r.id for r in rows[cut : len(rows) - unconfirmed]}
    expected = Counter(r.content for r in rows if r.id not in lost or r.id in in_file)
    assert Counter(r.content for r in after) == expected
    from_cut = [r for r in after if (r.id or 0) >= placed.meta.start_id]
    assert [r.content for r in from_cut[: len(hot)]] == [m.content for m in hot]
    assert placed.meta.hot_last_id == from_cut[len(hot) - 1].id

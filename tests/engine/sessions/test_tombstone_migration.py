"""``m015_one_tombstone_table``: a home made before it held three tombstone tables (``forgotten``, keyed;
``tombstones`` and ``sync_tombstones``, unkeyed import keys). Opened by today's code, every tombstone of
the three is in the one table, the unkeyed ones hashed under the home's key at that first open, no
unkeyed key is left in any file of the home, and each still keeps its message (or error record) out."""

from __future__ import annotations

import json
from pathlib import Path

from engine import Memory
from engine.embedders.hashing import HashEmbedder
from engine.imported import ImportedSession
from engine.messages import Message
from engine.sessions import identity, tombkeys, tombstones
from engine.storage import frozen_ddl
from engine.sync import errorrecords
from tests import rawdb


def open_home(home: Path) -> Memory:
    return Memory.open(home, embedder=HashEmbedder(), background=False)


def files_holding(base: Path, needle: str) -> list[Path]:
    raw = needle.encode()
    return [p for p in base.rglob("*") if p.is_file() and raw in p.read_bytes()]


def as_before_m015(
    db: Path, rows: dict[str, list[tuple[object, ...]]], journal: list[tuple[str, str, str]]
) -> None:
    """Put the home back to the schema before ``m015`` (its two unkeyed tables, filled) and unrecord it."""
    conn = rawdb.connect(db)
    for constant in (frozen_ddl.M012_GLOBAL_IDS, frozen_ddl.M013_SYNC):
        for table, statements in constant:
            if table in ("tombstones", "sync_tombstones"):
                for statement in statements:
                    conn.execute(statement)
    conn.executemany("INSERT INTO tombstones(key, at) VALUES (?, ?)", rows["tombstones"])
    conn.executemany("INSERT INTO sync_tombstones(key, session_id, at) VALUES (?, ?, ?)", rows["sync"])
    conn.executemany("INSERT INTO session_changes(kind, session_id, detail, at) VALUES (?, ?, ?, 1)", journal)
    conn.execute("DELETE FROM migrations WHERE name = 'm015_one_tombstone_table'")
    conn.commit()
    conn.close()


def test_every_tombstone_moves_into_the_one_table_keyed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with open_home(home) as mem:
        kept = mem.append("s1", [Message("user", "forgotten the keyed way", 1), Message("user", "stays", 2)])
        assert kept[0].id is not None
        mem.forget_message(kept[0].id)  # a keyed tombstone made before (it stays as it is)
    legacy = identity.message_key("s2", "user", "reset long ago", 5)
    synced = identity.message_key("s3", "assistant", "forgotten on another laptop", 7)
    dedupe = "d" * 64
    as_before_m015(
        home / ".store" / "history.db",
        {
            "tombstones": [(legacy, 3), (synced, 4), (f"e:{dedupe}", 5)],
            "sync": [(synced, "s3", 4), (f"e:{dedupe}", "", 5)],
        },
        [("reset", "s2", json.dumps({"gids": [f"k:{legacy}", "abcd.9"], "keys": [legacy]}))],
    )
    with open_home(home) as mem:
        with mem._store.read() as conn:
            rows = conn.execute("SELECT session_id, role, scope, cause FROM forgotten ORDER BY id").all()
            tables = {str(n) for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            details = [json.loads(d) for (d,) in conn.execute("SELECT detail FROM session_changes")]
        assert [tuple(r) for r in rows] == [
            ("s1", "user", tombkeys.LOCAL, "forget"),
            ("s2", "", tombkeys.IMPORTED, "forget"),  # its session from the journal
            ("s3", "", tombkeys.IMPORTED, "forget"),  # from the sync's table
            ("", tombstones.ERROR, tombkeys.IMPORTED, "forget"),
        ]
        assert not {"tombstones", "sync_tombstones"} & tables
        assert details[-1] == {"gids": ["abcd.9"], "graves": {}}  # no unkeyed hash kept
        # each still keeps its message out of an import, as before
        mem.import_sessions(
            [
                ImportedSession("s1", [Message("user", "forgotten the keyed way", 1)]),
                ImportedSession("s2", [Message("user", "reset long ago", 5)]),
                ImportedSession("s3", [Message("assistant", "forgotten on another laptop", 7)]),
            ]
        )
        assert [m.content for m in mem.archived("s1")] == ["stays"]
        assert not mem.exists("s2") or not mem.archived("s2")
        assert not mem.exists("s3") or not mem.archived("s3")
        with mem._store.read() as conn:
            buried = tombstones.error_buried(mem.tomb_keys, conn)
            assert buried(dedupe) == tombkeys.IMPORTED and buried("e" * 64) is None
        with mem._store.write() as conn:
            record = {
                "id": "r1",
                "tool_name": "docker",
                "keywords": [],
                "symptom": "s",
                "cause": "",
                "action": "a",
                "outcome": "resolved",
                "created_at": 1,
                "expires_at": 2**62,
                "dedupe": dedupe,
            }
            assert errorrecords.apply(conn, [record], 10, tombstones.error_buried(mem.tomb_keys, conn)) == 0
    for key in (legacy, synced, dedupe):  # no unkeyed hash in any file of the home
        assert not files_holding(home, key), key

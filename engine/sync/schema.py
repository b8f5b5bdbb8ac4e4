"""``m012_sync``: the sync's tables (:mod:`engine.sync.tables`), frozen as SQLAlchemy compiles them."""

from __future__ import annotations

from engine.storage import ddl
from engine.storage.sql import Connection

SYNC_TABLES: list[ddl.Table] = [
    (
        "sync_state",
        [
            '\nCREATE TABLE sync_state (\n\t"key" VARCHAR NOT NULL, \n\tvalue VARCHAR NOT NULL, \n'
            '\tPRIMARY KEY ("key")\n)\n\n'
        ],
    ),
    (
        "sync_applied",
        [
            "\nCREATE TABLE sync_applied (\n\tdevice VARCHAR NOT NULL, \n\tseq INTEGER NOT NULL, \n"
            "\tapplied_at INTEGER NOT NULL, \n\tPRIMARY KEY (device)\n)\n\n"
        ],
    ),
    (
        "sync_tombstones",
        [
            '\nCREATE TABLE sync_tombstones (\n\t"key" VARCHAR NOT NULL, \n\tsession_id VARCHAR NOT NULL, \n'
            '\tat INTEGER NOT NULL, \n\tPRIMARY KEY ("key")\n)\n\n'
        ],
    ),
    (
        "sync_received",
        [
            "\nCREATE TABLE sync_received (\n\tid INTEGER NOT NULL, \n\tkind VARCHAR NOT NULL, \n\tPRIMARY KEY (id), \n"
            "\tFOREIGN KEY(id) REFERENCES messages (id) ON DELETE CASCADE\n)\n\n"
        ],
    ),
    (
        "sync_titles",
        [
            "\nCREATE TABLE sync_titles (\n\tsession_id VARCHAR NOT NULL, \n\tat INTEGER NOT NULL, \n"
            "\tdevice VARCHAR NOT NULL, \n\ttitle_key VARCHAR NOT NULL, \n\tPRIMARY KEY (session_id)\n)\n\n"
        ],
    ),
]


def m012_sync(conn: Connection) -> None:
    """The sync's state, applied cursors, tombstones, received messages and title clocks."""
    ddl.create_missing(conn, SYNC_TABLES)

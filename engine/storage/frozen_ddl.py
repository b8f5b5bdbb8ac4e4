"""Every migration's ``CREATE`` and ``ALTER`` statements, frozen as text. GENERATED: do not edit.

Written by ``.venv/bin/python -m scripts.freeze_ddl`` from the SQLModel classes (each part's ``tables`` module)
and the history in that script: a table's ``CREATE`` leaves out the columns a later migration adds.
The migrations run these through :mod:`engine.storage.ddl`, so no command loads SQLModel.
"""

from __future__ import annotations

from engine.storage.ddl import Column, Table

MIGRATIONS_TABLE: list[Table] = [
    (
        "migrations",
        [
            (
                "\n"
                "CREATE TABLE migrations (\n"
                "\tname VARCHAR NOT NULL, \n"
                "\tapplied_at INTEGER NOT NULL, \n"
                "\tPRIMARY KEY (name)\n"
                ")\n"
                "\n"
            ),
        ],
    ),
]
"""The tables of the migration runner, before any step."""

M001_INITIAL: list[Table] = [
    (
        "messages",
        [
            (
                "\n"
                "CREATE TABLE messages (\n"
                "\tid INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, \n"
                "\tsession_id VARCHAR NOT NULL, \n"
                "\tskey VARCHAR NOT NULL, \n"
                "\tsend_at INTEGER NOT NULL, \n"
                "\trole VARCHAR NOT NULL, \n"
                "\tcontent VARCHAR NOT NULL, \n"
                "\tsender VARCHAR NOT NULL\n"
                ")\n"
                "\n"
            ),
            "CREATE INDEX IF NOT EXISTS ix_messages_session_id ON messages (session_id, id)",
            "CREATE INDEX IF NOT EXISTS ix_messages_session_time ON messages (session_id, send_at)",
        ],
    ),
    (
        "message_meta",
        [
            (
                "\n"
                "CREATE TABLE message_meta (\n"
                "\tsession_id VARCHAR NOT NULL, \n"
                "\tstart_at INTEGER NOT NULL, \n"
                "\tstart_id INTEGER NOT NULL, \n"
                "\thot_last_id INTEGER NOT NULL, \n"
                "\tPRIMARY KEY (session_id)\n"
                ")\n"
                "\n"
            ),
        ],
    ),
    (
        "sessions",
        [
            (
                "\n"
                "CREATE TABLE sessions (\n"
                "\tnum INTEGER NOT NULL, \n"
                "\tid VARCHAR NOT NULL, \n"
                "\tcreated_at INTEGER NOT NULL, \n"
                "\tupdated_at INTEGER NOT NULL, \n"
                "\tPRIMARY KEY (num), \n"
                "\tUNIQUE (id)\n"
                ")\n"
                "\n"
            ),
        ],
    ),
    (
        "settings",
        [
            (
                "\n"
                "CREATE TABLE settings (\n"
                '\t"key" VARCHAR NOT NULL, \n'
                "\tvalue VARCHAR NOT NULL, \n"
                '\tPRIMARY KEY ("key")\n'
                ")\n"
                "\n"
            ),
        ],
    ),
]
"""The tables of m001_initial."""

M002_VECTORS: list[Table] = [
    (
        "vectors",
        [
            (
                "\n"
                "CREATE TABLE vectors (\n"
                "\tid INTEGER, \n"
                "\tembedder TEXT NOT NULL, \n"
                "\tmessage_id INTEGER NOT NULL, \n"
                "\tsession_id TEXT NOT NULL, \n"
                "\tdim INTEGER NOT NULL, \n"
                "\ttext_hash TEXT NOT NULL, \n"
                "\tvector BLOB NOT NULL, \n"
                "\tPRIMARY KEY (id), \n"
                "\tUNIQUE (embedder, message_id)\n"
                ")\n"
                "\n"
            ),
            "CREATE INDEX IF NOT EXISTS ix_vectors_hash ON vectors (embedder, text_hash)",
            "CREATE INDEX IF NOT EXISTS ix_vectors_session ON vectors (embedder, session_id, message_id)",
        ],
    ),
    (
        "embed_queue",
        [
            (
                "\n"
                "CREATE TABLE embed_queue (\n"
                "\tmessage_id INTEGER, \n"
                "\tsession_id TEXT NOT NULL, \n"
                "\tqueued_at INTEGER NOT NULL, \n"
                "\tPRIMARY KEY (message_id)\n"
                ")\n"
                "\n"
            ),
            "CREATE INDEX IF NOT EXISTS ix_embed_queue_session ON embed_queue (session_id)",
        ],
    ),
]
"""The tables of m002_vectors."""

M003_ERROR_MEMORY: list[Table] = [
    (
        "error_memory",
        [
            (
                "\n"
                "CREATE TABLE error_memory (\n"
                "\tnum INTEGER PRIMARY KEY AUTOINCREMENT, \n"
                "\tid TEXT NOT NULL, \n"
                "\ttool_name TEXT NOT NULL, \n"
                "\tkeywords TEXT NOT NULL, \n"
                "\tsymptom TEXT NOT NULL, \n"
                "\tcause TEXT DEFAULT '' NOT NULL, \n"
                "\taction TEXT NOT NULL, \n"
                "\toutcome TEXT NOT NULL, \n"
                "\tdedupe TEXT NOT NULL, \n"
                "\tcreated_at INTEGER NOT NULL, \n"
                "\texpires_at INTEGER NOT NULL, \n"
                "\tUNIQUE (id), \n"
                "\tUNIQUE (dedupe)\n"
                ")\n"
                "\n"
            ),
            "CREATE INDEX IF NOT EXISTS ix_error_memory_expires ON error_memory (expires_at)",
            "CREATE INDEX IF NOT EXISTS ix_error_memory_tool ON error_memory (tool_name, created_at)",
        ],
    ),
    (
        "error_memory_vectors",
        [
            (
                "\n"
                "CREATE TABLE error_memory_vectors (\n"
                "\tnum INTEGER, \n"
                "\tembedder TEXT NOT NULL, \n"
                "\tdim INTEGER NOT NULL, \n"
                "\ttext_hash TEXT NOT NULL, \n"
                "\tvector BLOB NOT NULL, \n"
                "\tPRIMARY KEY (num), \n"
                "\tFOREIGN KEY(num) REFERENCES error_memory (num) ON DELETE CASCADE\n"
                ")\n"
                "\n"
            ),
        ],
    ),
    (
        "error_memory_state",
        [
            "\nCREATE TABLE error_memory_state (\n\tgen INTEGER NOT NULL\n)\n\n",
        ],
    ),
]
"""The tables of m003_error_memory."""

M004_USAGE: list[Table] = [
    (
        "usage",
        [
            (
                "\n"
                "CREATE TABLE usage (\n"
                "\tid INTEGER PRIMARY KEY AUTOINCREMENT, \n"
                "\tsession_id TEXT NOT NULL, \n"
                "\tmodel TEXT NOT NULL, \n"
                "\tpurpose TEXT NOT NULL, \n"
                "\tprompt_tokens INTEGER DEFAULT 0 NOT NULL, \n"
                "\toutput_tokens INTEGER DEFAULT 0 NOT NULL, \n"
                "\ttotal_tokens INTEGER DEFAULT 0 NOT NULL, \n"
                "\tat INTEGER DEFAULT 0 NOT NULL\n"
                ")\n"
                "\n"
            ),
            "CREATE INDEX IF NOT EXISTS ix_usage_session ON usage (session_id, at)",
        ],
    ),
]
"""The tables of m004_usage."""

M005_CJK_BIGRAMS: list[Table] = [
    (
        "messages_cjk",
        [
            (
                "\n"
                "CREATE TABLE messages_cjk (\n"
                "\tid INTEGER, \n"
                "\tskey TEXT NOT NULL, \n"
                "\tgrams TEXT NOT NULL, \n"
                "\tPRIMARY KEY (id), \n"
                "\tFOREIGN KEY(id) REFERENCES messages (id) ON DELETE CASCADE\n"
                ")\n"
                "\n"
            ),
        ],
    ),
]
"""The tables of m005_cjk_bigrams."""

M009_SESSION_TITLES: list[Column] = [
    (
        "sessions",
        "title",
        "ALTER TABLE sessions ADD COLUMN title TEXT DEFAULT '' NOT NULL",
    ),
    (
        "sessions",
        "title_source",
        "ALTER TABLE sessions ADD COLUMN title_source TEXT DEFAULT '' NOT NULL",
    ),
]
"""The columns of m009_session_titles."""

M010_REPLAYED_ROWS: list[Column] = [
    (
        "message_meta",
        "replayed_from",
        "ALTER TABLE message_meta ADD COLUMN replayed_from INTEGER DEFAULT 0 NOT NULL",
    ),
    (
        "message_meta",
        "replayed_to",
        "ALTER TABLE message_meta ADD COLUMN replayed_to INTEGER DEFAULT 0 NOT NULL",
    ),
]
"""The columns of m010_replayed_rows."""

M012_GLOBAL_IDS: list[Table] = [
    (
        "device",
        [
            (
                "\n"
                "CREATE TABLE device (\n"
                "\tid VARCHAR NOT NULL, \n"
                "\tcreated_at INTEGER NOT NULL, \n"
                "\tPRIMARY KEY (id)\n"
                ")\n"
                "\n"
            ),
        ],
    ),
    (
        "message_gids",
        [
            (
                "\n"
                "CREATE TABLE message_gids (\n"
                "\tid INTEGER NOT NULL, \n"
                "\tgid VARCHAR NOT NULL, \n"
                "\tPRIMARY KEY (id), \n"
                "\tFOREIGN KEY(id) REFERENCES messages (id) ON DELETE CASCADE, \n"
                "\tUNIQUE (gid)\n"
                ")\n"
                "\n"
            ),
        ],
    ),
    (
        "session_changes",
        [
            (
                "\n"
                "CREATE TABLE session_changes (\n"
                "\tseq INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, \n"
                "\tkind VARCHAR NOT NULL, \n"
                "\tsession_id VARCHAR NOT NULL, \n"
                "\tdetail VARCHAR NOT NULL, \n"
                "\tat INTEGER NOT NULL\n"
                ")\n"
                "\n"
            ),
        ],
    ),
    (
        "tombstones",
        [
            (
                "\n"
                "CREATE TABLE tombstones (\n"
                '\t"key" VARCHAR NOT NULL, \n'
                "\tat INTEGER NOT NULL, \n"
                '\tPRIMARY KEY ("key")\n'
                ")\n"
                "\n"
            ),
        ],
    ),
]
"""The tables of m012_global_ids."""

M013_SYNC: list[Table] = [
    (
        "sync_state",
        [
            (
                "\n"
                "CREATE TABLE sync_state (\n"
                '\t"key" VARCHAR NOT NULL, \n'
                "\tvalue VARCHAR NOT NULL, \n"
                '\tPRIMARY KEY ("key")\n'
                ")\n"
                "\n"
            ),
        ],
    ),
    (
        "sync_applied",
        [
            (
                "\n"
                "CREATE TABLE sync_applied (\n"
                "\tdevice VARCHAR NOT NULL, \n"
                "\tseq INTEGER NOT NULL, \n"
                "\tapplied_at INTEGER NOT NULL, \n"
                "\tPRIMARY KEY (device)\n"
                ")\n"
                "\n"
            ),
        ],
    ),
    (
        "sync_tombstones",
        [
            (
                "\n"
                "CREATE TABLE sync_tombstones (\n"
                '\t"key" VARCHAR NOT NULL, \n'
                "\tsession_id VARCHAR NOT NULL, \n"
                "\tat INTEGER NOT NULL, \n"
                '\tPRIMARY KEY ("key")\n'
                ")\n"
                "\n"
            ),
        ],
    ),
    (
        "sync_received",
        [
            (
                "\n"
                "CREATE TABLE sync_received (\n"
                "\tid INTEGER NOT NULL, \n"
                "\tkind VARCHAR NOT NULL, \n"
                "\tPRIMARY KEY (id), \n"
                "\tFOREIGN KEY(id) REFERENCES messages (id) ON DELETE CASCADE\n"
                ")\n"
                "\n"
            ),
        ],
    ),
    (
        "sync_titles",
        [
            (
                "\n"
                "CREATE TABLE sync_titles (\n"
                "\tsession_id VARCHAR NOT NULL, \n"
                "\tat INTEGER NOT NULL, \n"
                "\tdevice VARCHAR NOT NULL, \n"
                "\ttitle_key VARCHAR NOT NULL, \n"
                "\tPRIMARY KEY (session_id)\n"
                ")\n"
                "\n"
            ),
        ],
    ),
]
"""The tables of m013_sync."""

M014_FORGET_RECORDS: list[Table] = [
    (
        "forgotten",
        [
            (
                "\n"
                "CREATE TABLE forgotten (\n"
                "\tid INTEGER NOT NULL, \n"
                "\tsession_id VARCHAR NOT NULL, \n"
                "\trole VARCHAR NOT NULL, \n"
                "\tsend_at INTEGER NOT NULL, \n"
                "\tdigest VARCHAR NOT NULL, \n"
                "\tmessage_id INTEGER NOT NULL, \n"
                "\tforgotten_at INTEGER NOT NULL, \n"
                "\tPRIMARY KEY (id)\n"
                ")\n"
                "\n"
            ),
            "CREATE INDEX IF NOT EXISTS ix_forgotten_message_id ON forgotten (message_id)",
            "CREATE INDEX IF NOT EXISTS ix_forgotten_session ON forgotten (session_id, digest)",
        ],
    ),
    (
        "forget_intents",
        [
            (
                "\n"
                "CREATE TABLE forget_intents (\n"
                "\tid INTEGER NOT NULL, \n"
                "\tkind VARCHAR NOT NULL, \n"
                "\tsession_id VARCHAR NOT NULL, \n"
                "\tmessage_id INTEGER NOT NULL, \n"
                "\tcreated_at INTEGER NOT NULL, \n"
                "\tPRIMARY KEY (id)\n"
                ")\n"
                "\n"
            ),
        ],
    ),
    (
        "unsettled_sessions",
        [
            (
                "\n"
                "CREATE TABLE unsettled_sessions (\n"
                "\tsession_id VARCHAR NOT NULL, \n"
                "\tPRIMARY KEY (session_id)\n"
                ")\n"
                "\n"
            ),
        ],
    ),
]
"""The tables of m014_forget_records."""

M015_ONE_TOMBSTONE_TABLE: list[Column] = [
    (
        "forgotten",
        "scope",
        "ALTER TABLE forgotten ADD COLUMN scope TEXT DEFAULT '' NOT NULL",
    ),
    (
        "forgotten",
        "cause",
        "ALTER TABLE forgotten ADD COLUMN cause TEXT DEFAULT 'forget' NOT NULL",
    ),
    (
        "forgotten",
        "synced",
        "ALTER TABLE forgotten ADD COLUMN synced INTEGER DEFAULT 0 NOT NULL",
    ),
]
"""The columns of m015_one_tombstone_table."""

M016_PASSAGES: list[Table] = [
    (
        "passages",
        [
            (
                "\n"
                "CREATE TABLE passages (\n"
                "\tid INTEGER NOT NULL, \n"
                "\tembedder TEXT NOT NULL, \n"
                "\tmessage_id INTEGER NOT NULL, \n"
                "\tsession_id TEXT NOT NULL, \n"
                "\tpassage INTEGER NOT NULL, \n"
                "\tstart_char INTEGER NOT NULL, \n"
                "\tend_char INTEGER NOT NULL, \n"
                "\tdim INTEGER NOT NULL, \n"
                "\tvector BLOB NOT NULL, \n"
                "\tPRIMARY KEY (id), \n"
                "\tUNIQUE (embedder, message_id, passage)\n"
                ")\n"
                "\n"
            ),
            "CREATE INDEX IF NOT EXISTS ix_passages_message ON passages (message_id)",
            "CREATE INDEX IF NOT EXISTS ix_passages_session ON passages (embedder, session_id, message_id)",
        ],
    ),
]
"""The tables of m016_passages."""

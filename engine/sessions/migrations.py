"""The archive's migrations (``m001_initial``, ``m005_cjk_bigrams``, ``m006_trigram_session_key``,
``m009_session_titles``) and its
full-text indexes, (re)made after every open by :func:`ensure_fts`.

``engine.database`` lists these with the other parts' migrations, in the order they are recorded.
"""

from __future__ import annotations

from engine.cjk import cjk_bigrams
from engine.sessions.schema import CJK_GLOB, FTS_TABLES
from engine.storage import ddl, fts
from engine.storage.sql import Connection

INITIAL_TABLES: list[ddl.Table] = [
    (
        "messages",
        [
            "\nCREATE TABLE messages (\n\tid INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, \n"
            "\tsession_id VARCHAR NOT NULL, \n\tskey VARCHAR NOT NULL, \n\tsend_at INTEGER NOT NULL, \n"
            "\trole VARCHAR NOT NULL, \n\tcontent VARCHAR NOT NULL, \n\tsender VARCHAR NOT NULL\n)\n\n"
        ],
    ),
    (
        "message_meta",
        [
            "\nCREATE TABLE message_meta (\n\tsession_id VARCHAR NOT NULL, \n\tstart_at INTEGER NOT NULL, \n"
            "\tstart_id INTEGER NOT NULL, \n\thot_last_id INTEGER NOT NULL, \n\tPRIMARY KEY (session_id)\n)\n\n"
        ],
    ),
    (
        "sessions",
        [
            "\nCREATE TABLE sessions (\n\tnum INTEGER NOT NULL, \n\tid VARCHAR NOT NULL, \n"
            "\tcreated_at INTEGER NOT NULL, \n\tupdated_at INTEGER NOT NULL, \n\tPRIMARY KEY (num), \n"
            "\tUNIQUE (id)\n)\n\n"
        ],
    ),
    (
        "settings",
        [
            '\nCREATE TABLE settings (\n\t"key" VARCHAR NOT NULL, \n\tvalue VARCHAR NOT NULL, \n'
            '\tPRIMARY KEY ("key")\n)\n\n'
        ],
    ),
]
"""``m001_initial``'s tables, frozen as SQLAlchemy compiles :mod:`engine.sessions.tables`' classes."""


def m001_initial(conn: Connection) -> None:
    """Messages, meta, sessions, settings, and their indexes."""
    ddl.create_missing(conn, INITIAL_TABLES)
    conn.execute("CREATE INDEX IF NOT EXISTS ix_messages_session_id ON messages(session_id, id)")
    conn.execute("CREATE INDEX IF NOT EXISTS ix_messages_session_time ON messages(session_id, send_at)")


def m005_cjk_bigrams(conn: Connection) -> None:
    """``messages_cjk``: the CJK bigrams of each message with CJK text, for two-character searches."""

    conn.execute(
        "CREATE TABLE IF NOT EXISTS messages_cjk (id INTEGER PRIMARY KEY REFERENCES messages(id) "
        "ON DELETE CASCADE, skey TEXT NOT NULL, grams TEXT NOT NULL)"
    )
    rows = conn.execute(f"SELECT id, skey, content FROM messages WHERE content GLOB '{CJK_GLOB}'")
    batch = [(i, k, grams) for i, k, c in rows if (grams := cjk_bigrams(c))]
    if batch:
        conn.execute("INSERT INTO messages_cjk(id, skey, grams) VALUES (?, ?, ?)", batch)


def m006_trigram_session_key(conn: Connection) -> None:
    """Drop the trigram table made with the six-trigram session key; ``ensure_fts`` rebuilds it."""
    for suffix in ("ai", "ad", "aud", "aui"):
        conn.execute(f"DROP TRIGGER IF EXISTS messages_tri_{suffix}")
    conn.execute("DROP TABLE IF EXISTS messages_tri")


def m009_session_titles(conn: Connection) -> None:
    """``sessions.title`` and ``sessions.title_source``: a title imported or set by the user.

    ``title_source`` is ``imported`` or ``user`` (a user's title is never replaced by an import); an empty
    title means the session shows its first user message, shortened (:mod:`engine.sessions.titles`).
    """
    have = {row[1] for row in conn.execute("PRAGMA table_info(sessions)")}
    if "title" not in have:
        conn.execute("ALTER TABLE sessions ADD COLUMN title TEXT NOT NULL DEFAULT ''")
    if "title_source" not in have:
        conn.execute("ALTER TABLE sessions ADD COLUMN title_source TEXT NOT NULL DEFAULT ''")


def m010_replayed_rows(conn: Connection) -> None:
    """``message_meta.replayed_from`` and ``replayed_to``: the ids of the rows the last replay wrote to
    history.json, so a client's retry of that failed append takes them (:func:`engine.sessions.recovery.retried`)."""
    have = {row[1] for row in conn.execute("PRAGMA table_info(message_meta)")}
    for column in ("replayed_from", "replayed_to"):
        if column not in have:
            conn.execute(f"ALTER TABLE message_meta ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0")


def ensure_fts(conn: Connection, supported: set[str]) -> list[str]:
    """Create the archive's FTS tables (and their triggers) that are supported but missing; fill new ones.

    Args:
        supported: tokenizers the local SQLite accepts (see ``store.probe_features``).

    Returns:
        The FTS tables that exist after the call.
    """
    return fts.ensure(conn, FTS_TABLES, supported)

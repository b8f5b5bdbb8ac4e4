"""The archive's migrations (``m001_initial``, ``m005_cjk_bigrams``, ``m006_trigram_session_key``,
``m009_session_titles``, ``m010_replayed_rows``) and its full-text indexes, (re)made after every open by
:func:`ensure_fts`. The tables are the classes of :mod:`engine.sessions.tables`; the steps run the
statements frozen from them in :mod:`engine.storage.frozen_ddl`.

``engine.database`` lists these with the other parts' migrations, in the order they are recorded.
"""

from __future__ import annotations

from engine.cjk import cjk_bigrams
from engine.sessions.schema import CJK_GLOB, FTS_TABLES
from engine.storage import ddl, frozen_ddl, fts
from engine.storage.sql import Connection


def m001_initial(conn: Connection) -> None:
    """Messages, meta, sessions, settings, and their indexes."""
    ddl.create_missing(conn, frozen_ddl.M001_INITIAL)


def m005_cjk_bigrams(conn: Connection) -> None:
    """``messages_cjk``: the CJK bigrams of each message with CJK text, for two-character searches."""
    ddl.create_missing(conn, frozen_ddl.M005_CJK_BIGRAMS)
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
    ddl.add_missing(conn, frozen_ddl.M009_SESSION_TITLES)


def m010_replayed_rows(conn: Connection) -> None:
    """``message_meta.replayed_from`` and ``replayed_to``: the ids of the rows the last replay wrote to
    history.json, so a client's retry of that failed append takes them (:func:`engine.sessions.recovery.retried`)."""
    ddl.add_missing(conn, frozen_ddl.M010_REPLAYED_ROWS)


def ensure_fts(conn: Connection, supported: set[str]) -> list[str]:
    """Create the archive's FTS tables (and their triggers) that are supported but missing; fill new ones.

    Args:
        supported: tokenizers the local SQLite accepts (see ``store.probe_features``).

    Returns:
        The FTS tables that exist after the call.
    """
    return fts.ensure(conn, FTS_TABLES, supported)

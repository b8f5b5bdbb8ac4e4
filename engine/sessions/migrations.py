"""The archive's migrations (``m001_initial``, ``m005_cjk_bigrams``, ``m006_trigram_session_key``,
``m009_session_titles``, ``m010_replayed_rows``, ``m012_global_ids``, ``m014_forget_records``,
``m015_one_tombstone_table``) and its
full-text indexes, (re)made after every open by :func:`ensure_fts`. The tables are the classes of
:mod:`engine.sessions.tables`; the steps run the
statements frozen from them in :mod:`engine.storage.frozen_ddl`.

``engine.database`` lists these with the other parts' migrations, in the order they are recorded.
"""

from __future__ import annotations

import json
import time

from engine.cjk import cjk_bigrams
from engine.sessions import identity
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


def m012_global_ids(conn: Connection) -> None:
    """A device id for this home, a global id for every message (existing ones get ``<device>.<row id>``),
    the journal of forgets, resets, removals and titles, and the tombstones (:mod:`engine.sessions.identity`)."""
    ddl.create_missing(conn, frozen_ddl.M012_GLOBAL_IDS)
    if conn.execute("SELECT 1 FROM device LIMIT 1").first() is None:
        conn.execute(
            "INSERT INTO device(id, created_at) VALUES (?, ?)", (identity.new_device_id(), time.time_ns())
        )
    conn.execute(
        "INSERT OR IGNORE INTO message_gids(id, gid) "
        "SELECT id, (SELECT id FROM device ORDER BY created_at LIMIT 1) || '.' || id FROM messages"
    )


def m014_forget_records(conn: Connection) -> None:
    """``forgotten`` (tombstones), ``forget_intents`` (forgets under way) and ``unsettled_sessions`` (an
    import batch's sessions whose history.json may lag its committed rows)."""
    ddl.create_missing(conn, frozen_ddl.M014_FORGET_RECORDS)


def m015_one_tombstone_table(conn: Connection) -> None:
    """One tombstone table: ``forgotten`` gets ``scope``, ``cause`` and ``synced``, and the unkeyed
    tombstones of ``tombstones`` and ``sync_tombstones`` (import keys of messages forgotten, reset or
    removed here or elsewhere; ``e:`` + the duplicate key of a forgotten error record) move into it, every
    one, with the session where it is known (the sync's table, or the journal), as ``~plain``: the first
    open hashes them under the home's key (:func:`engine.sessions.tombstones.rekey_plain`). The journal's
    entries keep their device-written global ids and lose the unkeyed keys (a sync of this version tells
    tombstones keyed), then both tables are dropped.
    """
    ddl.add_missing(conn, frozen_ddl.M015_ONE_TOMBSTONE_TABLE)
    tables = {str(n) for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    sessions: dict[str, str] = {}
    changes = conn.execute(
        "SELECT seq, kind, session_id, detail FROM session_changes WHERE kind != ?", (identity.TITLE,)
    ).all()
    for _, _, session, detail in changes:
        for key in json.loads(detail).get("keys", []):
            sessions.setdefault(str(key), str(session))
    found: dict[str, int] = {}
    if "sync_tombstones" in tables:
        for key, session, at in conn.execute("SELECT key, session_id, at FROM sync_tombstones"):
            sessions[str(key)] = str(session)
            found[str(key)] = int(at)
    if "tombstones" in tables:
        found.update((str(k), int(a)) for k, a in conn.execute("SELECT key, at FROM tombstones"))
    rows = []
    for key, at in sorted(found.items()):
        if key.startswith("e:"):
            rows.append(("", "error", key[2:], at))
        else:
            rows.append((sessions.get(key, ""), "", key, at))
    if rows:
        conn.execute(
            "INSERT INTO forgotten(session_id, role, send_at, digest, message_id, forgotten_at, scope, cause) "
            "VALUES (?, ?, 0, ?, 0, ?, '~plain', 'forget')",
            rows,
        )
    for seq, _, _, detail in changes:
        data = json.loads(detail)
        gids = [str(g) for g in data.get("gids", []) if not str(g).startswith(identity.IMPORT_PREFIX)]
        kept = {"gids": gids, "graves": {}}
        conn.execute(
            "UPDATE session_changes SET detail = ? WHERE seq = ?",
            (json.dumps(kept, separators=(",", ":")), seq),
        )
    conn.execute("DROP TABLE IF EXISTS tombstones")
    conn.execute("DROP TABLE IF EXISTS sync_tombstones")


def ensure_fts(conn: Connection, supported: set[str]) -> list[str]:
    """Create the archive's FTS tables (and their triggers) that are supported but missing; fill new ones.

    Args:
        supported: tokenizers the local SQLite accepts (see ``store.probe_features``).

    Returns:
        The FTS tables that exist after the call.
    """
    return fts.ensure(conn, FTS_TABLES, supported)

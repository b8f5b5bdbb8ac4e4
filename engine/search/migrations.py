"""Migration ``m008_cjk_bopomofo``: the CJK indexes take in the rows an older, narrower CJK class left out.

The trigram table ``messages_tri`` holds only rows with a CJK character (its triggers test each row with
the class as a GLOB), and ``messages_cjk`` (the bigrams behind ``messages_bi``) was filled by
``m005_cjk_bigrams`` from the rows that had one. The class used to lack bopomofo (ㄅㄆㄇ), the CJK radicals
and the ideographic marks 々 and 〇, so a message whose only CJK text was of those was in neither index
and keyword search never found it. Now the class is :mod:`engine.cjk`'s, and this migration brings the
old rows in.
"""

from __future__ import annotations

from engine import cjk
from engine.cjk import cjk_bigrams
from engine.storage.sql import Connection

OLD_GLOB = "*[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002ffff]*"
"""The trigram table's class before this migration, as its triggers hold it."""


def m008_cjk_bopomofo(conn: Connection) -> None:
    """Give the trigram table's triggers the current class and index the rows only it holds; add the
    bigrams of the CJK rows ``messages_cjk`` lacks."""
    _trigrams(conn)
    rows = conn.execute(
        f"SELECT id, skey, content FROM messages WHERE content GLOB '{cjk.GLOB}' "
        "AND id NOT IN (SELECT id FROM messages_cjk)"
    )
    batch = [(i, k, grams) for i, k, c in rows if (grams := cjk_bigrams(c))]
    if batch:
        conn.execute("INSERT INTO messages_cjk(id, skey, grams) VALUES (?, ?, ?)", batch)


def _trigrams(conn: Connection) -> None:
    """Rewrite the triggers' class in place and add the rows the old one kept out. Triggers in another
    form than expected: drop the table, which ``ensure_fts`` (after the migrations) builds again in full."""
    from engine.sessions.schema import TRIGRAM_SKEY_SQL

    triggers = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'messages\\_tri\\_%' ESCAPE '\\'"
    ).all()
    for name, _ in triggers:
        conn.execute(f"DROP TRIGGER {name}")
    if not triggers or not all(OLD_GLOB in sql for _, sql in triggers):
        conn.execute("DROP TABLE IF EXISTS messages_tri")
        return
    for _, sql in triggers:
        conn.execute(sql.replace(OLD_GLOB, cjk.GLOB))
    skey = TRIGRAM_SKEY_SQL.format(row="messages")
    conn.execute(
        f"INSERT INTO messages_tri(rowid, content, skey) SELECT id, content, {skey} FROM messages "
        f"WHERE content GLOB '{cjk.GLOB}' AND NOT content GLOB '{OLD_GLOB}'"
    )

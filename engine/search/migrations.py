"""Migration ``m008_cjk_bopomofo``: the CJK indexes take in the rows an older, narrower CJK class left out.

The trigram table ``messages_tri`` holds only rows with a CJK character (its triggers test each row with
the class as a GLOB), and ``messages_cjk`` (the bigrams behind ``messages_bi``) was filled by
``m005_cjk_bigrams`` from the rows that had one. The class used to lack bopomofo (ㄅㄆㄇ), the CJK radicals
and the ideographic marks 々 and 〇, so a message whose only CJK text was of those was in neither index
and keyword search never found it. Now the class is :mod:`engine.cjk`'s, and this migration brings the
old rows in.
"""

from __future__ import annotations

import unicodedata

from engine import cjk
from engine.cjk import cjk_bigrams
from engine.sessions.schema import NON_ASCII_GLOB
from engine.storage import fts
from engine.storage.fts import ExternalFts
from engine.storage.sql import Connection
from engine.textfold import fold

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


def m011_unicode_fold(conn: Connection) -> None:
    """Index every message folded for search (:mod:`engine.textfold`), as the FTS tables now do.

    The word and trigram tables get the triggers that index ``memtray_fold(content)``; then only the rows
    whose index entries folding changes are indexed again, each removed with the values it was indexed
    with (the stored text) and added folded. A text of ASCII only tokenizes alike either way (the
    tokenizers fold ASCII case themselves), and so does one whose other characters fold to themselves (for
    the word table, and the bigrams, also one whose symbols fold to other symbols: full-width
    punctuation). ``messages_cjk`` takes the bigrams of the folded text, ``context_fts`` (which
    holds its texts) folded texts, for the rows the word table takes again.
    """
    from engine.search import context
    from engine.sessions.schema import FTS_TABLES

    present = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    words, symbols = _Changes(tokens_only=True), _Changes(tokens_only=False)
    rows: list[tuple[int, int]] = []  # (id, 1 when the word table takes it again, else 0)
    cursor = conn.cursor()
    try:
        for row_id, content in cursor.execute(f"SELECT id, content FROM messages WHERE {_NON_ASCII}"):
            if words.changes(content):
                rows.append((row_id, 1))
            elif symbols.changes(content):
                rows.append((row_id, 0))
    finally:
        cursor.close()
    conn.execute("CREATE TEMP TABLE refold(id INTEGER PRIMARY KEY, word INTEGER NOT NULL)")
    try:
        if rows:
            conn.execute("INSERT INTO temp.refold(id, word) VALUES (?, ?)", rows)
        total = int(conn.execute("SELECT COUNT(*) FROM messages").scalar_one())
        for table in FTS_TABLES:
            if table.source == "messages" and table.name in present:
                _reindex(conn, table)
                again = len(rows) if table.tokenizer == "trigram" else sum(word for _, word in rows)
                if again > total * OPTIMIZE_SHARE:
                    fts.optimize(conn, table.name)
        if "messages_cjk" in present:
            _refold_bigrams(conn)
        if context.exists(conn):
            _refold_context(conn, context.TABLE, words)
    finally:
        conn.execute("DROP TABLE temp.refold")


OPTIMIZE_SHARE = 0.1
"""A table that took more than this share of the messages again is merged into one segment afterwards: its
old entries' deletions would otherwise stay in the index (measured: +13 % of the database's size with a
quarter of the archive taken again, see ``bench/README.md``)."""

_NON_ASCII = f"content GLOB {NON_ASCII_GLOB}"
"""SQL: the row's text holds a character outside ASCII (the stored texts hold no NUL)."""


class _Changes:
    """Whether folding changes what an index makes of a text, one character at a time (cached): a
    non-ASCII character that folds to another (``tokens_only``: unless a symbol folds to symbols; a
    tokenizer's own case folding may differ from Python's, so a non-ASCII capital counts), or any combining mark or conjoining Hangul jamo (they fold with their neighbours)."""

    def __init__(self, *, tokens_only: bool) -> None:
        self.tokens_only = tokens_only
        self.same = {chr(c) for c in range(128)}
        """The characters known to fold to what the index already made of them."""
        self.changed: set[str] = set()

    def changes(self, text: str) -> bool:
        new = set(text) - self.same
        if not new:
            return False
        if not new.isdisjoint(self.changed):
            return True
        for char in new:
            if self._char(char):
                self.changed.add(char)
                return True
            self.same.add(char)
        return False

    def _char(self, char: str) -> bool:
        if unicodedata.category(char)[0] == "M" or any(a <= char <= b for a, b in _JAMO):
            return True
        folded = fold(char)
        if folded == char:  # the tokenizer sees what it saw (its own case folding may differ from Python's)
            return False
        symbols = folded and not char.isalnum() and not any(c.isalnum() for c in folded)
        return not (self.tokens_only and symbols)


_JAMO = (("\u1100", "\u11ff"), ("\ua960", "\ua97f"), ("\ud7b0", "\ud7ff"))
"""The conjoining Hangul jamo (NFKC composes them into syllables)."""


def _reindex(conn: Connection, table: ExternalFts) -> None:
    """Give ``table`` its folding triggers and index its refold rows again, folded (the word table: the
    rows marked ``word``; the trigram table: all)."""
    from engine.sessions.schema import TRIGRAM_SKEY_SQL

    fts.drop_triggers(conn, table)
    fts.create_triggers(conn, table)
    name, cols = table.name, ", ".join(table.columns)
    rows = "temp.refold r CROSS JOIN messages m ON m.id = r.id"  # from the few refold rows, not the archive
    if table.tokenizer == "trigram":  # as m008 left it: the stored text of the rows it holds as CJK
        old, had = f"m.content, {TRIGRAM_SKEY_SQL.format(row='m')}", f"m.content GLOB '{cjk.GLOB}'"
    else:
        old, had = "m.content, m.skey", "r.word = 1"
    conn.execute(
        f"INSERT INTO {name}({name}, rowid, {cols}) SELECT 'delete', m.id, {old} FROM {rows} WHERE {had}"
    )
    now = table.only_where.replace("{row}", "m") if table.only_where else "r.word = 1"
    conn.execute(
        f"INSERT INTO {name}(rowid, {cols}) SELECT m.id, {table.row_values('m')} FROM {rows} WHERE {now}"
    )


def _refold_bigrams(conn: Connection) -> None:
    """``messages_cjk``'s rows of the messages the word table took again, made from their folded text."""
    rows = conn.execute(
        "SELECT m.id, m.skey, m.content FROM temp.refold r CROSS JOIN messages m ON m.id = r.id WHERE r.word = 1"
    ).all()
    conn.execute("DELETE FROM messages_cjk WHERE id IN (SELECT id FROM temp.refold WHERE word = 1)")
    batch = [(i, k, grams) for i, k, c in rows if (grams := cjk_bigrams(c))]
    if batch:
        conn.execute("INSERT INTO messages_cjk(id, skey, grams) VALUES (?, ?, ?)", batch)


def _refold_context(conn: Connection, table: str, changes: _Changes) -> None:
    """The rows of ``context_fts`` that hold a text folding changes (their own or a neighbour's), folded."""
    batch: list[tuple[int, str, str, str, str]] = []
    cursor = conn.cursor()
    try:
        for i, p, o, n, k in cursor.execute(f"SELECT rowid, prev, own, next, skey FROM {table}"):
            if changes.changes(p or "") or changes.changes(o or "") or changes.changes(n or ""):
                batch.append((i, fold(p or ""), fold(o or ""), fold(n or ""), k))
    finally:
        cursor.close()
    if batch:
        conn.execute(
            f"INSERT OR REPLACE INTO {table}(rowid, prev, own, next, skey) VALUES (?, ?, ?, ?, ?)", batch
        )

"""The archive's full-text indexes over the messages, and the session keys they filter by.

The archive's tables themselves are SQLModel classes in :mod:`engine.sessions.tables`. The FTS5 tables depend on what the local SQLite supports, so they are made after every open (see
:func:`engine.sessions.migrations.ensure_fts`), not by a migration.
"""

from __future__ import annotations

from engine import cjk
from engine.storage.fts import ExternalFts
from engine.textfold import SQL_FUNCTION

# The trigram table indexes only rows with a CJK character (engine.cjk says which characters are CJK).
CJK_GLOB = cjk.GLOB

NON_ASCII_GLOB = "'*[^' || char(1) || '-' || char(127) || ']*'"
"""SQL: a GLOB pattern matching a text that holds a character outside ASCII."""
FOLDED_CONTENT = (
    f"CASE WHEN {{row}}.content GLOB {NON_ASCII_GLOB} THEN {SQL_FUNCTION}(CAST({{row}}.content AS BLOB)) "
    "ELSE {row}.content END"
)
"""What the word and trigram tables index of a message (since ``m011_unicode_fold``): its text folded for
search (:mod:`engine.textfold`), never the stored text itself. A text of ASCII only is indexed as it is,
without calling Python: both tokenizers fold ASCII case themselves, so it gives the same entries. The
function is given the text's bytes, so a row whose text a damaged page garbled (not UTF-8) is still
indexed, updated or deleted instead of failing the statement (:func:`engine.textfold.sql_fold`)."""

SKEY_BASE = 0xE001
SKEY_SPAN = 6000
TRIGRAM_SKEY_SQL = (
    "char(57344, 57345 + CAST(substr({row}.skey, 2) AS INTEGER) / 6000, "
    "57345 + CAST(substr({row}.skey, 2) AS INTEGER) % 6000)"
)
"""In the trigram table the session key is three private-use characters: exactly one trigram, unique per
session. ``s0000042`` would be six trigrams, ``000`` among them in every row: a phrase that slow to match."""


def trigram_skey(skey: str) -> str:
    """The trigram table's form of a session key (see :data:`TRIGRAM_SKEY_SQL`)."""
    number = int(skey[1:])
    return chr(0xE000) + chr(SKEY_BASE + number // SKEY_SPAN) + chr(SKEY_BASE + number % SKEY_SPAN)


AUTOMERGE = 8
"""FTS5 merges segments once this many share a level (default 4): measured ~45 % faster bulk inserts with
both tables (6.7k -> 9.6k rows/s), at the cost of a few more segments per query."""

FTS_TABLES = (
    # Words: every message's content, with its session key (to filter by session).
    ExternalFts(
        "messages_fts",
        "messages",
        "id",
        ("content", "skey"),
        "porter unicode61 remove_diacritics 2",
        values=(FOLDED_CONTENT, "{row}.skey"),
        automerge=AUTOMERGE,
    ),
    # CJK bigrams (two-character words: 電腦, 記憶), kept in messages_cjk by archive.insert; see m005.
    ExternalFts("messages_bi", "messages_cjk", "id", ("grams", "skey"), "unicode61", automerge=AUTOMERGE),
    # Trigrams serve CJK text (which unicode61 cannot split into words); only rows with CJK characters are
    # indexed, which halves the cost of a mixed archive's inserts and makes it ~0 for English-only ones.
    ExternalFts(
        "messages_tri",
        "messages",
        "id",
        ("content", "skey"),
        "trigram",
        values=(FOLDED_CONTENT, TRIGRAM_SKEY_SQL),
        only_where=(
            f"{{row}}.content GLOB {NON_ASCII_GLOB} "
            f"AND {SQL_FUNCTION}(CAST({{row}}.content AS BLOB)) GLOB '{CJK_GLOB}'"
        ),
        automerge=AUTOMERGE,
    ),
)

"""The archive's tables: SQLModel classes, and the full-text indexes over the messages.

The FTS5 tables depend on what the local SQLite supports, so they are made after every open (see
:func:`engine.sessions.migrations.ensure_fts`), not by a migration.
"""

from __future__ import annotations

from sqlmodel import Field, SQLModel

from engine import cjk
from engine.storage.fts import ExternalFts


class MessageRow(SQLModel, table=True):
    """One archived message. Never deleted by compaction; cleared by reset and remove-session."""

    __tablename__ = "messages"
    __table_args__ = {"sqlite_autoincrement": True}  # ids are never reused, even after a reset

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(index=False)
    skey: str = Field(description="the session's short key, indexed by the FTS tables to filter by session")
    send_at: int = 0
    role: str
    content: str
    sender: str = ""


class MessageMeta(SQLModel, table=True):
    """Per-session archive state.

    ``start_at`` is the original's compaction cutoff (the first kept ``sendAt``); ``start_id`` is the row id
    of the first message still in history.json; ``hot_last_id`` is the last row id known to be written to
    history.json (rows above it belong to an append that was interrupted and are replayed).
    """

    __tablename__ = "message_meta"

    session_id: str = Field(primary_key=True)
    start_at: int = 0
    start_id: int = 0
    hot_last_id: int = 0


class SessionRow(SQLModel, table=True):
    """A session known to the store. ``num`` gives the short key used to filter FTS matches.

    The table as ``m001_initial`` made it; ``m009_session_titles`` adds ``title`` and ``title_source``.
    """

    __tablename__ = "sessions"

    num: int | None = Field(default=None, primary_key=True)
    id: str = Field(unique=True)
    created_at: int = 0
    updated_at: int = 0


class SettingRow(SQLModel, table=True):
    """One user setting, its value as JSON."""

    __tablename__ = "settings"

    key: str = Field(primary_key=True)
    value: str


# The trigram table indexes only rows with a CJK character (engine.cjk says which characters are CJK).
CJK_GLOB = cjk.GLOB

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
        values=("{row}.content", TRIGRAM_SKEY_SQL),
        only_where=f"{{row}}.content GLOB '{CJK_GLOB}'",
        automerge=AUTOMERGE,
    ),
)

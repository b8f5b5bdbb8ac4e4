"""The archive's tables as SQLModel classes: messages, their CJK bigrams, per-session state, sessions and
settings.

The classes describe today's schema; the migrations create it from the statements SQLAlchemy compiles for
them, frozen as text in :mod:`engine.storage.frozen_ddl` (``m001_initial`` made the first four tables,
later migrations added what the comments say), so no command loads SQLModel. The engine reads and
writes the tables in SQL (:mod:`engine.sessions.archive`).
"""

from __future__ import annotations

from sqlalchemy import Index, Text, text
from sqlmodel import Field, SQLModel


class MessageRow(SQLModel, table=True):
    """One archived message. Never deleted by compaction; cleared by reset and remove-session."""

    __tablename__ = "messages"
    __table_args__ = (
        Index("ix_messages_session_id", "session_id", "id"),  # a session's messages in order
        Index("ix_messages_session_time", "session_id", "send_at"),  # a session's messages by time
        {"sqlite_autoincrement": True},  # ids are never reused, even after a reset
    )

    id: int | None = Field(default=None, primary_key=True)
    session_id: str
    skey: str  # the session's short key (sessions.num), indexed by the FTS tables to filter by session
    send_at: int = 0  # the original's sendAt, Unix nanoseconds
    role: str
    content: str
    sender: str = ""


class MessageBigramsRow(SQLModel, table=True):
    """The CJK bigrams of a message with CJK text (``m005_cjk_bigrams``): the content of ``messages_bi``,
    so a two-character CJK word is found (the word tokenizer cannot split CJK text)."""

    __tablename__ = "messages_cjk"

    # SQLite's INTEGER PRIMARY KEY (the rowid), written by hand without NOT NULL: nullable keeps it so
    id: int | None = Field(
        default=None, primary_key=True, nullable=True, foreign_key="messages.id", ondelete="CASCADE"
    )
    skey: str = Field(sa_type=Text)  # the session key, so a bigram match filters by session
    grams: str = Field(sa_type=Text)  # the bigrams, space-separated


class MessageMeta(SQLModel, table=True):
    """Per-session archive state: where history.json starts and what an interrupted append left."""

    __tablename__ = "message_meta"

    session_id: str = Field(primary_key=True)
    start_at: int = 0  # the original's compaction cutoff: the first kept sendAt
    start_id: int = 0  # the row id of the first message still in history.json
    hot_last_id: int = 0  # the last row id known to be in history.json; rows above it are replayed
    # m010_replayed_rows: the rows the last replay wrote to history.json, never acknowledged by their
    # append, so a client's retry of that append takes them instead of writing them twice
    replayed_from: int = Field(default=0, sa_column_kwargs={"server_default": text("0")})
    replayed_to: int = Field(default=0, sa_column_kwargs={"server_default": text("0")})


class SessionRow(SQLModel, table=True):
    """A session known to the store."""

    __tablename__ = "sessions"

    num: int | None = Field(default=None, primary_key=True)  # gives the short key (skey) FTS rows filter by
    id: str = Field(unique=True)  # the session's name, its folder under sessions/
    created_at: int = 0
    updated_at: int = 0
    # m009_session_titles: a title imported or set by the user; empty shows the first user message
    title: str = Field(default="", sa_type=Text, sa_column_kwargs={"server_default": ""})
    # ``imported`` or ``user``: a user's title is never replaced by an import
    title_source: str = Field(default="", sa_type=Text, sa_column_kwargs={"server_default": ""})


class SettingRow(SQLModel, table=True):
    """One user setting, its value as JSON (:class:`engine.database.SettingsTable`)."""

    __tablename__ = "settings"

    key: str = Field(primary_key=True)
    value: str


class DeviceRow(SQLModel, table=True):
    """This home's device id (one row, made by ``m012_global_ids``): the prefix of the global id of every
    message written here (:mod:`engine.sessions.identity`)."""

    __tablename__ = "device"

    id: str = Field(primary_key=True)  # 16 random hex digits, made once per home
    created_at: int = 0  # Unix ns: the oldest row is the device's id


class MessageGidRow(SQLModel, table=True):
    """A message's global id beside its local row id; the row goes with its message (cascade)."""

    __tablename__ = "message_gids"

    id: int | None = Field(default=None, primary_key=True, foreign_key="messages.id", ondelete="CASCADE")
    gid: str = Field(unique=True)  # <device>.<row id>, or k:<import key> for an imported message


class ChangeRow(SQLModel, table=True):
    """A change to the archive other than a new message, in the order it was made: a forget, a reset, a
    removal or a user's title (what a sync tells other devices, :mod:`engine.sync`).

    ``detail`` is JSON: ``{"gids": [...], "graves": {folder id: [...]}}`` for the messages a forget, reset
    or removal deleted (the global ids written on a device, and their tombstones under each sync folder's
    key, :mod:`engine.sessions.tombstones`; never their text); ``{"title": ...}`` for a title.
    """

    __tablename__ = "session_changes"
    __table_args__ = {"sqlite_autoincrement": True}

    seq: int | None = Field(default=None, primary_key=True)  # the order changes were made in
    kind: str  # forget, reset, remove, title, error-forget
    session_id: str  # "" for an error-memory record's forget
    detail: str  # JSON, see the class
    at: int = 0  # Unix ns when it was made (a title's clock)


class ForgottenRow(SQLModel, table=True):
    """A tombstone: a message forgotten, reset or removed, here or on another device, remembered without its
    text (:mod:`engine.sessions.tombstones`); no import or sync stores it again. The one tombstone table
    (``m015_one_tombstone_table`` moved the sync's unkeyed ones in).

    ``digest`` is a keyed hash of the text; ``scope`` names the key: ``""`` the home's own (outside the
    database), a sync folder's id the key every device of that folder shares (derived from the folder's
    key, in the keyring), ``~import`` the home's key over a former unkeyed import key. ``message_id`` is the
    row the message had here (0 when it never was), so a forget retried says it is done.
    """

    __tablename__ = "forgotten"
    __table_args__ = (Index("ix_forgotten_session", "session_id", "digest"),)

    id: int | None = Field(default=None, primary_key=True)
    session_id: str  # "" for an error-memory record's tombstone
    role: str  # "error" for an error-memory record's (its digest is of the record's duplicate key)
    send_at: int = 0
    digest: str
    message_id: int = Field(default=0, index=True)
    forgotten_at: int = 0
    # m015_one_tombstone_table: whose key made the digest ("" this home's), what made the tombstone, and
    # whether the sync folder knows it (sent from here, or received): a forget is not sent back
    scope: str = Field(default="", sa_type=Text, sa_column_kwargs={"server_default": ""})
    cause: str = Field(default="forget", sa_type=Text, sa_column_kwargs={"server_default": "forget"})
    synced: int = Field(default=0, sa_column_kwargs={"server_default": text("0")})


class ForgetIntentRow(SQLModel, table=True):
    """A forget under way: written (synced) before the scrub starts, deleted when it is complete, finished
    at the next open when a kill interrupted it (:mod:`engine.sessions.forgetting`).

    ``kind`` is ``message`` (``message_id`` set) or ``session`` (every message of ``session_id``).
    """

    __tablename__ = "forget_intents"

    id: int | None = Field(default=None, primary_key=True)
    kind: str
    session_id: str
    message_id: int = 0
    created_at: int = 0


class UnsettledRow(SQLModel, table=True):
    """A session of an import batch whose history.json may lack the rows just committed: recorded in the
    batch's own transaction, deleted once its history.json is written; the next open replays what a kill
    left unwritten."""

    __tablename__ = "unsettled_sessions"

    session_id: str = Field(primary_key=True)

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

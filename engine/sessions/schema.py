"""The database's tables, as SQLModel classes (the FTS tables and triggers are made in migrations)."""

from __future__ import annotations

from sqlmodel import Field, SQLModel


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

    ``start_at`` is the seed's compaction cutoff (the first kept ``sendAt``); ``start_id`` is the row id of
    the first message still in history.json; ``hot_last_id`` is the last row id known to be written to
    history.json (rows above it belong to an append that was interrupted and are replayed).
    """

    __tablename__ = "message_meta"

    session_id: str = Field(primary_key=True)
    start_at: int = 0
    start_id: int = 0
    hot_last_id: int = 0


class SessionRow(SQLModel, table=True):
    """A session known to the store. ``num`` gives the short key used to filter FTS matches."""

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


class MigrationRow(SQLModel, table=True):
    """A migration that has been applied."""

    __tablename__ = "migrations"

    name: str = Field(primary_key=True)
    applied_at: int = 0

"""The archive's tables as SQLModel classes: messages, their per-session state, sessions and settings.

Migration ``m001_initial`` (:mod:`engine.sessions.migrations`) creates them from the statements
SQLAlchemy compiles for these classes, frozen there as text (a test compares the two); the engine reads
and writes them in SQL (:mod:`engine.sessions.archive`), so no command loads SQLModel.
"""

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

    ``start_at`` is the original's compaction cutoff (the first kept ``sendAt``); ``start_id`` is the row id
    of the first message still in history.json; ``hot_last_id`` is the last row id known to be written to
    history.json (rows above it belong to an append that was interrupted and are replayed).

    The table as ``m001_initial`` made it; ``m010_replayed_rows`` adds ``replayed_from`` and
    ``replayed_to``, the rows the last replay wrote to history.json (never acknowledged by their append).
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


class DeviceRow(SQLModel, table=True):
    """This home's device id (one row, made by ``m011_global_ids``): the prefix of the global id of every
    message written here (:mod:`engine.sessions.identity`)."""

    __tablename__ = "device"

    id: str = Field(primary_key=True)
    created_at: int = 0


class MessageGidRow(SQLModel, table=True):
    """A message's global id beside its local row id; the row goes with its message (cascade)."""

    __tablename__ = "message_gids"

    id: int | None = Field(default=None, primary_key=True, foreign_key="messages.id", ondelete="CASCADE")
    gid: str = Field(unique=True)


class ChangeRow(SQLModel, table=True):
    """A change to the archive other than a new message, in the order it was made: a forget, a reset, a
    removal or a user's title (what a sync tells other devices, :mod:`engine.sync`).

    ``detail`` is JSON: ``{"gids": [...], "keys": [...]}`` for the messages a forget, reset or removal
    deleted (their global ids and import-key digests, never their text); ``{"title": ...}`` for a title.
    """

    __tablename__ = "session_changes"
    __table_args__ = {"sqlite_autoincrement": True}

    seq: int | None = Field(default=None, primary_key=True)
    kind: str
    session_id: str
    detail: str
    at: int = 0


class TombstoneRow(SQLModel, table=True):
    """The import key (:func:`engine.sessions.identity.message_key`) of a message forgotten, reset or
    removed, here or on another device: an import never stores it again."""

    __tablename__ = "tombstones"

    key: str = Field(primary_key=True)
    at: int = 0

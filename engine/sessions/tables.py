"""The archive's tables as SQLModel classes: messages, their per-session state, sessions and settings.

Migration ``m001_initial`` (:mod:`engine.sessions.migrations`) creates them from the statements
SQLAlchemy compiles for these classes, frozen there as text (a test compares the two); the engine reads
and writes them in SQL (:mod:`engine.sessions.archive`), so no command loads SQLModel.
"""

from __future__ import annotations

from sqlalchemy import Index
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


class ForgottenRow(SQLModel, table=True):
    """A tombstone: a message the user forgot, remembered without its text (:mod:`engine.sessions.tombstones`).

    ``digest`` is a keyed hash of the text (the key is the home's, outside the database); ``message_id`` is
    the row the message had, so a forget retried says it is done.
    """

    __tablename__ = "forgotten"
    __table_args__ = (Index("ix_forgotten_session", "session_id", "digest"),)

    id: int | None = Field(default=None, primary_key=True)
    session_id: str
    role: str
    send_at: int = 0
    digest: str
    message_id: int = Field(default=0, index=True)
    forgotten_at: int = 0


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

"""The vectors' tables as SQLModel classes: message vectors and the durable embedding queue.

Made by ``m002_vectors`` (:mod:`engine.semantic.schema`) from the statements frozen in
:mod:`engine.storage.frozen_ddl`; never imported at run time. The columns are ``TEXT`` where the
migration wrote them by hand before a class described them (SQLite treats ``TEXT`` and ``VARCHAR`` alike).
"""

from __future__ import annotations

from sqlalchemy import Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


class VectorRow(SQLModel, table=True):
    """One message's float32 vector by one embedder."""

    __tablename__ = "vectors"
    __table_args__ = (
        UniqueConstraint("embedder", "message_id"),  # one vector per embedder and message
        Index("ix_vectors_session", "embedder", "session_id", "message_id"),  # a session's vectors
        Index("ix_vectors_hash", "embedder", "text_hash"),  # reuse the vector of an identical text
    )

    # SQLite's INTEGER PRIMARY KEY (the rowid), written by hand without NOT NULL: nullable keeps it so
    id: int | None = Field(default=None, primary_key=True, nullable=True)
    embedder: str = Field(sa_type=Text)  # the embedder's id: vectors of different embedders never mix
    message_id: int
    session_id: str = Field(sa_type=Text)  # lets a session-filtered search skip other sessions' vectors
    dim: int
    text_hash: str = Field(sa_type=Text)  # hash of the embedded text: unchanged text is never embedded again
    vector: bytes


class EmbedQueueRow(SQLModel, table=True):
    """A message waiting to be embedded, written in the append's own transaction so a crash loses no work."""

    __tablename__ = "embed_queue"
    __table_args__ = (Index("ix_embed_queue_session", "session_id"),)  # drop a removed session's work

    message_id: int | None = Field(default=None, primary_key=True, nullable=True)  # the rowid, as written
    session_id: str = Field(sa_type=Text)
    queued_at: int


class PassageRow(SQLModel, table=True):
    """One passage's float32 vector of a message longer than its embedder's window (every passage of it,
    the first too: its span is what a hit names). The message's row in ``vectors`` holds the first
    passage's vector (what reuses it, samples it or counts it reads that table alone)."""

    __tablename__ = "passages"
    __table_args__ = (
        UniqueConstraint("embedder", "message_id", "passage"),  # one vector per embedder, message, passage
        Index("ix_passages_session", "embedder", "session_id", "message_id"),  # a session's passages
        Index("ix_passages_message", "message_id"),  # a forgotten message's passages
    )

    id: int | None = Field(default=None, primary_key=True)  # the rowid: the cross-session index follows it
    embedder: str = Field(sa_type=Text)
    message_id: int
    session_id: str = Field(sa_type=Text)
    passage: int  # its place in the message, from 0
    start_char: int  # the first character of the message's content it covers
    end_char: int  # one past the last
    dim: int
    vector: bytes

"""The error memory's tables as SQLModel classes: records, their vectors and the vector generation.

Made by ``m003_error_memory`` (:mod:`engine.errormemory.schema`) from the statements frozen in
:mod:`engine.storage.frozen_ddl`; never imported at run time. The columns are ``TEXT`` and the integer
keys nullable as the migration wrote them by hand before a class described them.
"""

from __future__ import annotations

from sqlalchemy import Index, Text
from sqlmodel import Field, SQLModel


class ErrorRecordRow(SQLModel, table=True):
    """One remembered tool error: what failed, why, and what was done about it."""

    __tablename__ = "error_memory"
    __table_args__ = (
        Index("ix_error_memory_expires", "expires_at"),  # purge expired records
        Index("ix_error_memory_tool", "tool_name", "created_at"),  # a tool's records, newest first
        {"sqlite_autoincrement": True},  # a deleted record's num is never reused by the FTS tables or vectors
    )

    num: int | None = Field(default=None, primary_key=True, nullable=True)  # the rowid FTS rows point at
    id: str = Field(sa_type=Text, unique=True)  # the public id, sha256 hex
    tool_name: str = Field(sa_type=Text)
    keywords: str = Field(sa_type=Text)
    symptom: str = Field(sa_type=Text)
    cause: str = Field(default="", sa_type=Text, sa_column_kwargs={"server_default": ""})
    action: str = Field(sa_type=Text)
    outcome: str = Field(sa_type=Text)  # resolved, failed or abandoned
    dedupe: str = Field(sa_type=Text, unique=True)  # makes a repeated write find its record
    created_at: int
    expires_at: int  # Unix nanoseconds; refreshed on every write and hit


class ErrorVectorRow(SQLModel, table=True):
    """One record's float32 vector, with the embedder and a hash of the embedded text."""

    __tablename__ = "error_memory_vectors"

    num: int | None = Field(
        default=None, primary_key=True, nullable=True, foreign_key="error_memory.num", ondelete="CASCADE"
    )
    embedder: str = Field(sa_type=Text)
    dim: int
    text_hash: str = Field(sa_type=Text)  # unchanged text is never embedded again
    vector: bytes


class ErrorVectorGeneration(SQLModel, table=True):
    """One row counting vector changes (triggers on ``error_memory_vectors``), so a process keeps the
    matrix in memory and notices when another process changed it."""

    __tablename__ = "error_memory_state"
    # The table has no primary key (one row, SQLite's rowid); SQLAlchemy's mapper needs one to name.
    __mapper_args__ = {"primary_key": ["gen"]}

    gen: int = 0

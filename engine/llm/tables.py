"""The Gemini usage table as a SQLModel class.

Made by ``m004_usage`` (:mod:`engine.llm.usage`) from the statement frozen in
:mod:`engine.storage.frozen_ddl`; never imported at run time. The columns are ``TEXT`` and the key
nullable as the migration wrote them by hand before a class described them.
"""

from __future__ import annotations

from sqlalchemy import Index, Text, text
from sqlmodel import Field, SQLModel

_ZERO = {"server_default": text("0")}


class UsageRow(SQLModel, table=True):
    """One answered Gemini call and the tokens Gemini reported for it."""

    __tablename__ = "usage"
    __table_args__ = (
        Index("ix_usage_session", "session_id", "at"),  # a session's usage over time
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True, nullable=True)
    session_id: str = Field(sa_type=Text)  # the session the call was made for
    model: str = Field(sa_type=Text)
    purpose: str = Field(sa_type=Text)  # summary, prune, relevance or chat
    prompt_tokens: int = Field(default=0, sa_column_kwargs=_ZERO)
    output_tokens: int = Field(default=0, sa_column_kwargs=_ZERO)  # thinking included
    total_tokens: int = Field(default=0, sa_column_kwargs=_ZERO)
    at: int = Field(default=0, sa_column_kwargs=_ZERO)  # Unix nanoseconds

"""The migration runner's own table as a SQLModel class.

Like every ``tables`` module, this one only declares tables and is never imported at run time: the
migrations create the tables from statements frozen as text (:mod:`engine.storage.frozen_ddl`, written
by ``scripts/freeze_ddl.py``), so no command loads SQLModel.
"""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class MigrationRow(SQLModel, table=True):
    """A migration that has been applied (:mod:`engine.storage.migrations`)."""

    __tablename__ = "migrations"

    name: str = Field(primary_key=True)  # the step's recorded name, m<NNN>_<what>: never changes
    applied_at: int = 0  # Unix nanoseconds

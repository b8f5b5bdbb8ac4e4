"""Tables a later migration dropped, as they were: :mod:`scripts.freeze_ddl` still compiles the statements
of the migrations that made them (an entry recorded in users' databases never changes). Not today's
schema, and never imported by the engine."""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class TombstoneRow(SQLModel, table=True):
    """``m012_global_ids``' unkeyed tombstones (the import key of a forgotten, reset or removed message);
    ``m015_one_tombstone_table`` moved them into ``forgotten``, keyed, and dropped the table."""

    __tablename__ = "tombstones"

    key: str = Field(primary_key=True)  # the import key's digest (e:<duplicate key> for an error record)
    at: int = 0  # Unix ns when it was recorded


class SyncTombstoneRow(SQLModel, table=True):
    """``m013_sync``'s tombstones sent or received; ``m015_one_tombstone_table`` moved them into
    ``forgotten`` and dropped the table."""

    __tablename__ = "sync_tombstones"

    key: str = Field(primary_key=True)  # the import key's digest
    session_id: str = ""  # its session, so a snapshot can carry it ("" for an error record's)
    at: int = 0  # Unix ns when it was sent or received

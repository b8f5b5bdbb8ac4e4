"""The sync's own tables as SQLModel classes; ``m013_sync`` (:mod:`engine.sync.schema`) creates them from
the statements SQLAlchemy compiles for these classes, frozen there as text."""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class SyncStateRow(SQLModel, table=True):
    """One fact of this device's sync (``folder``, ``name``, ``next_seq``, the export cursors …)."""

    __tablename__ = "sync_state"

    key: str = Field(primary_key=True)
    value: str  # text (a path, a name, a number as text, or JSON)


class SyncAppliedRow(SQLModel, table=True):
    """The last segment of another device applied here: apply resumes after it."""

    __tablename__ = "sync_applied"

    device: str = Field(primary_key=True)  # the other device's id (its folder's name)
    seq: int = 0  # its last segment (or snapshot) applied here: apply resumes after it
    applied_at: int = 0  # Unix ns


class SyncReceivedRow(SQLModel, table=True):
    """A message this device does not send (again); goes with it. ``kind``: ``received`` (it arrived from
    another device) or ``moved`` (sent already, under the row id it had before its session was put in
    time order)."""

    __tablename__ = "sync_received"

    id: int | None = Field(default=None, primary_key=True, foreign_key="messages.id", ondelete="CASCADE")
    kind: str = "received"  # received, or moved (sent under its former row id)


class SyncTitleRow(SQLModel, table=True):
    """The title change in force for a session: the newest by (time, device) wins on every device.
    ``title_key`` is a digest of the title (the title itself lives with the session only)."""

    __tablename__ = "sync_titles"

    session_id: str = Field(primary_key=True)
    at: int = 0  # the change's clock (Unix ns, past every change it saw)
    device: str  # the device that made it: breaks ties of ``at``
    title_key: str  # a digest of the title in force

"""What a part that follows the archive (the vectors) must offer, and the result of a reset."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from engine.messages import Message
from engine.storage.sql import Connection


class ArchiveListener(Protocol):
    """A part of the memory that follows the archive (the vectors), told of every change by the session log.

    The hooks that take a connection run inside the archive's write transaction, so what the listener
    writes there commits or rolls back with the change itself.
    """

    def messages_added(self, conn: Connection, messages: Sequence[Message]) -> None:
        """Called inside the append's write transaction with the archived messages (ids and sessions set):
        an import's batch tells those of all its sessions at once, each session's in order."""

    def session_compacted(self, session: str, start_id: int) -> None:
        """Called after a compaction moved the session's cut to ``start_id``."""

    def session_cleared(self, conn: Connection, session: str) -> None:
        """Called inside the transaction that deletes a session's archive (reset, remove)."""

    def message_forgotten(self, conn: Connection, session: str, message_id: int) -> None:
        """Called inside the transaction that deletes one archived message (forget, or an append undone).

        The tier drops everything it derived from the message (its vector, index entries); a tier with
        nothing to drop does nothing. Indexes rebuilt later must not bring the message back.
        """

    def wait_idle(self, timeout: float | None) -> bool:
        """Block until background work is done; False if the timeout passed first."""

    def close(self) -> None:
        """Stop background work."""


@dataclass(frozen=True)
class ResetResult:
    """What a reset or a removal deleted.

    Attributes:
        session: the session id.
        messages_deleted: archived messages deleted.
        summary_kept: whether summary.json and the cursor were kept.
    """

    session: str
    messages_deleted: int
    summary_kept: bool

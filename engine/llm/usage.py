"""Gemini token usage, recorded per session in the ``usage`` table (migration ``m004_usage``).

Every answered Gemini call adds one row: the session it was made for, the model, the purpose
(``summary``, ``prune``, ``relevance`` or ``chat``) and the tokens Gemini reported. :func:`totals` sums
them up. :class:`Usage` is the table of one memory (``mem.usage``), dated by its clock. The table is
:class:`engine.llm.tables.UsageRow`, created from the statement frozen in :mod:`engine.storage.frozen_ddl`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.llm.gemini import UsageEvent
from engine.storage import ddl, frozen_ddl
from engine.storage.sql import Connection

if TYPE_CHECKING:
    from engine.clock import Clock
    from engine.storage.store import Store


def m004_usage(conn: Connection) -> None:
    """The ``usage`` table: one row per answered Gemini call."""
    ddl.create_missing(conn, frozen_ddl.M004_USAGE)


@dataclass(frozen=True)
class UsageTotals:
    """Summed usage.

    Attributes:
        calls: answered calls.
        prompt_tokens: input tokens.
        output_tokens: output tokens (thinking included).
        total_tokens: as Gemini counted them.
    """

    calls: int = 0
    prompt_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0


def record(store: Store, event: UsageEvent, at: int) -> None:
    """Add one usage row."""
    with store.write() as conn:
        conn.execute(
            "INSERT INTO usage(session_id, model, purpose, prompt_tokens, output_tokens, total_tokens, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                event.session,
                event.model,
                event.purpose,
                event.usage.prompt_tokens,
                event.usage.output_tokens,
                event.usage.total_tokens,
                at,
            ),
        )


def totals(store: Store, session: str | None = None, purpose: str | None = None) -> UsageTotals:
    """The usage of one session (or all), optionally of one purpose."""
    sql = "SELECT COUNT(*), SUM(prompt_tokens), SUM(output_tokens), SUM(total_tokens) FROM usage WHERE 1=1"
    params: list[str] = []
    if session is not None:
        sql += " AND session_id = ?"
        params.append(session)
    if purpose is not None:
        sql += " AND purpose = ?"
        params.append(purpose)
    with store.read() as conn:
        row = conn.execute(sql, tuple(params)).one()
    return UsageTotals(int(row[0] or 0), int(row[1] or 0), int(row[2] or 0), int(row[3] or 0))


class Usage:
    """The Gemini usage of one memory: :meth:`record` an answered call, :meth:`totals` to sum them."""

    def __init__(self, store: Store, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def record(self, event: UsageEvent) -> None:
        """Add one usage row, dated now.

        Raises:
            StorageError: the database failed.
        """
        record(self._store, event, self._clock())

    def totals(self, session: str | None = None, purpose: str | None = None) -> UsageTotals:
        """The usage of one session (or all), optionally of one purpose."""
        return totals(self._store, session, purpose)

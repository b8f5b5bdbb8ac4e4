"""An append between its two writes (:class:`Staged`): its archive rows written, its history.json not yet.

The session log stages appends (:meth:`engine.sessions.log.SessionLog.stage_all`) and the batch import
(:mod:`engine.sessions.batchimport`) hands them back to be written and settled.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.messages import Message


@dataclass(frozen=True)
class Staged:
    """An append whose archive rows are written (committed or about to be), before its history.json write.

    Attributes:
        batch: the messages as given; stored: the same with their archive ids.
        replay: unconfirmed rows history.json lacks (an interrupted append's), written to it first.
        adopted: the rows are an earlier failed try's (:func:`~engine.sessions.recovery.retried`).
        held: the adopted rows are in history.json already: nothing to write.
    """

    session: str
    batch: list[Message]
    stored: list[Message]
    ids: list[int]
    replay: list[Message]
    adopted: bool
    held: bool

"""Importers: turn other tools' files into sessions of messages.

Each format module has ``read(path, session=None) -> list[ImportedSession]`` and validates everything
before anything is stored: a file with a bad record names it and imports nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.messages import Message


@dataclass(frozen=True)
class ImportedSession:
    """One conversation read from a file, ready to append.

    Attributes:
        session: the session id it goes into.
        messages: its messages, oldest first.
        summary: a summary.json object to install when the session has none (Agenvoy folders), or None.
        skipped: (reason, count) of records that were left out on purpose.
    """

    session: str
    messages: list[Message]
    summary: dict[str, object] | None = None
    skipped: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ImportReport:
    """What an import did, over all its sessions."""

    sessions: int
    messages_added: int
    messages_already_present: int
    skipped: dict[str, int]


Reader = Callable[[Path, "str | None"], list[ImportedSession]]


def readers() -> dict[str, Reader]:
    """The formats ``memtray import`` knows, by name."""
    from engine.importers import jsonl

    return {"jsonl": jsonl.read}

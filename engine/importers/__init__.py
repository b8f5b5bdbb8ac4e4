"""Importers: turn other tools' files into sessions of messages.

Each format module has ``read(path, session=None) -> ReadResult`` and reads and checks everything before
anything is stored (the caller stores the result with ``Memory.import_sessions``). What is fatal and what
is skipped:

- a file that cannot be read, is not valid JSON, or whose top-level shape is wrong raises
  :class:`~engine.errors.ImportFormatError` (or ``InvalidInput``) naming the file and the line or record,
  and nothing is imported;
- in a file that holds many conversations (ChatGPT, Claude) or a folder of many sessions (Agenvoy), one
  broken conversation or message is skipped, counted with the reason, and named in a log warning;
- JSONL holds one conversation, so any bad line stops it (the line is named).

Things left out on purpose (system and tool messages, attachments, images, hidden nodes) are counted per
reason in ``skipped``; the report at the end adds them up.
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
class ReadResult:
    """What a reader found in a file or folder.

    Attributes:
        sessions: the conversations to import, one session each.
        skipped: (reason, count) of what belongs to no session: broken or empty conversations, temporary
            sessions, folders that are not sessions.
    """

    sessions: list[ImportedSession]
    skipped: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ImportReport:
    """What an import did, over all its sessions."""

    sessions: int
    messages_added: int
    messages_already_present: int
    skipped: dict[str, int]

    def with_skipped(self, more: dict[str, int]) -> ImportReport:
        """This report with ``more`` skipped records added (a reader's file-level skips)."""
        merged = dict(self.skipped)
        for reason, count in more.items():
            merged[reason] = merged.get(reason, 0) + count
        return ImportReport(self.sessions, self.messages_added, self.messages_already_present, merged)


Reader = Callable[[Path, "str | None"], ReadResult]

DESCRIPTIONS = {
    "agenvoy": "an Agenvoy sessions/ folder, or one session folder (history.json, summary.json)",
    "chatgpt": "conversations.json of a ChatGPT data export (the file, its folder, or the .zip)",
    "claude": "conversations.json of a Claude data export (the file, its folder, or the .zip)",
    "jsonl": "one history.json record per line, into one session",
}


def readers() -> dict[str, Reader]:
    """The formats ``memtray import`` knows, by name."""
    from engine.importers import agenvoy, chatgpt, claude, jsonl

    return {"agenvoy": agenvoy.read, "chatgpt": chatgpt.read, "claude": claude.read, "jsonl": jsonl.read}

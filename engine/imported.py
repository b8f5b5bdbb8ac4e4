"""What an import carries: the conversations a reader found (:class:`ImportedSession`, :class:`ReadResult`)
and what storing them did (:class:`ImportReport`).

The readers (:mod:`engine.importers`) make them; the session log stores them
(:meth:`engine.sessions.log.SessionLog.import_sessions`); the front-ends report them. They live in the
kernel so that the session log does not depend on the readers.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from engine.messages import Message

__all__ = ["ImportReport", "ImportedSession", "ReadResult"]


@dataclass(frozen=True)
class ImportedSession:
    """One conversation read from a file, ready to append.

    Attributes:
        session: the session id it goes into.
        messages: its messages, oldest first.
        summary: a summary.json object to install when the session has none (Agenvoy folders), or None.
        skipped: (reason, count) of records that were left out on purpose.
        title: the conversation's title in the source (ChatGPT ``title``, Claude ``name``, an agent's
            project and first prompt), or None when the source has none.
    """

    session: str
    messages: list[Message]
    summary: dict[str, object] | None = None
    skipped: dict[str, int] = field(default_factory=dict)
    title: str | None = None

    @property
    def first_at(self) -> int:
        """Unix ns of the oldest message with a known time, or 0."""
        return min((m.send_at for m in self.messages if m.send_at), default=0)

    @property
    def last_at(self) -> int:
        """Unix ns of the newest message with a known time, or 0."""
        return max((m.send_at for m in self.messages if m.send_at), default=0)


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
    unchanged: int = 0
    """Transcripts with nothing new since the last import (incremental readers only)."""


@dataclass(frozen=True)
class ImportReport:
    """What an import did, over all its sessions.

    Attributes:
        sessions: conversations read (each one a session).
        messages_added: messages stored now.
        messages_already_present: messages the session already held (same role, text and time).
        skipped: (reason, count) of what was left out.
        unchanged: transcripts with nothing new since the last import.
    """

    sessions: int
    messages_added: int
    messages_already_present: int
    skipped: dict[str, int]
    unchanged: int = 0

    def with_skipped(self, more: dict[str, int]) -> ImportReport:
        """This report with ``more`` skipped records added (a reader's file-level skips)."""
        merged = dict(self.skipped)
        for reason, count in more.items():
            merged[reason] = merged.get(reason, 0) + count
        return replace(self, skipped=merged)

    def with_read(self, result: ReadResult) -> ImportReport:
        """This report with what the reader found besides the sessions (its skips, unchanged files)."""
        return replace(self.with_skipped(result.skipped), unchanged=self.unchanged + result.unchanged)

    def plus(self, other: ImportReport) -> ImportReport:
        """This report and ``other`` added up (two imports told as one)."""
        return replace(
            self.with_skipped(other.skipped),
            sessions=self.sessions + other.sessions,
            messages_added=self.messages_added + other.messages_added,
            messages_already_present=self.messages_already_present + other.messages_already_present,
            unchanged=self.unchanged + other.unchanged,
        )

    def describe(self) -> str:
        """The report in words: what went into how many sessions, and what was left out and why."""
        added = _count(self.messages_added, "message")
        text = f"imported {added} into {_count(self.sessions, 'session')}"
        if self.messages_already_present:
            text += f"; {self.messages_already_present:,} already there"
        if self.unchanged:
            text += f"; {_count(self.unchanged, 'transcript')} unchanged since the last import"
        ordered = sorted(self.skipped.items(), key=lambda item: (-item[1], item[0]))
        left_out = ", ".join(f"{n:,} {why}" for why, n in ordered)
        return f"{text}; left out: {left_out or 'nothing'}"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"

"""What memtray is doing now, in a few words: the tray icon's state, the status line and the tooltip.

:func:`status_of` reads :class:`desktop.state.AppState` only (no I/O) and gives a :class:`Status`: a
level (``idle``, ``working``, ``paused`` or ``attention``; the tray icon draws it) and lines, the most
important first ("Embedding 3,200 of 50,000 · about 20 min", "Summaries paused", "Database damaged —
Repair…"). The tray menu shows them as disabled lines at its top, the main window in its status bar.

The time left in "Embedding 3,200 of 50,000 · about 20 min" is :class:`desktop.backlog.Backlog`'s
estimate, kept by the state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

if TYPE_CHECKING:
    from desktop.backlog import Backlog
    from desktop.state import AppState

translate = QCoreApplication.translate

IDLE, WORKING, PAUSED, ATTENTION = "idle", "working", "paused", "attention"
LEVELS = (IDLE, PAUSED, WORKING, ATTENTION)
"""From the least to the most pressing: the icon shows the most pressing level of the lines."""

TASK, EMBEDDING, OTHER = "task", "embedding", "other"
"""What a line is about: a labelled task (the status bar's task progress shows it), the embedding (its
progress bar shows it), anything else."""


@dataclass(frozen=True)
class Item:
    """One line of the status: its level, what it is about, its text."""

    level: str
    kind: str
    text: str


@dataclass(frozen=True)
class Status:
    """The app's state for a person: a level and its lines, the most pressing first."""

    level: str
    items: tuple[Item, ...]

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(item.text for item in self.items)

    @property
    def headline(self) -> str:
        return self.items[0].text

    def text(self, kinds: tuple[str, ...] = (TASK, EMBEDDING, OTHER)) -> str:
        """The lines about ``kinds`` in one (a status bar), or ""."""
        return translate("Status", "; ").join(item.text for item in self.items if item.kind in kinds)

    def of(self, kind: str) -> Item | None:
        """The first line about ``kind``."""
        return next((item for item in self.items if item.kind == kind), None)


def duration_text(seconds: float) -> str:
    """``about 20 min``, ``about 2 h``, ``less than a minute``."""
    if seconds < 60:
        return translate("Status", "less than a minute")
    minutes = round(seconds / 60)
    if minutes < 90:
        return translate("Status", "about %n min", "", minutes)
    return translate("Status", "about %n h", "", round(seconds / 3600))


def progress_text(kind: str, backlog: Backlog) -> str:
    """``Embedding 3,200 of 50,000 · about 20 min`` (``kind``: ``embedding`` or ``reembedding``)."""
    if kind == "reembedding":
        text = translate("Status", "Re-embedding {done} of {total}")
    else:
        text = translate("Status", "Embedding {done} of {total}")
    text = text.format(done=f"{backlog.done:,}", total=f"{backlog.total:,}")
    eta = backlog.eta_seconds()
    if eta is not None:
        text = translate("Status", "{progress} · {eta}").format(progress=text, eta=duration_text(eta))
    return text


def status_of(state: AppState) -> Status:
    """The level and lines for what ``state`` holds (no I/O)."""
    if state.damaged:  # found at open, or by the daily check while the memory is open
        return Status(ATTENTION, (Item(ATTENTION, OTHER, translate("Status", "Database damaged — Repair…")),))
    if state.memory is None:
        if state.open_error:
            return Status(
                ATTENTION, (Item(ATTENTION, OTHER, translate("Status", "The memory could not be opened")),)
            )
        return Status(WORKING, (Item(WORKING, OTHER, translate("Status", "Starting…")),))
    found = [Item(WORKING, TASK, translate("Status", "{task}…").format(task=t.label)) for t in state.work]
    found += _embedding_items(state)
    if state.summaries is not None and state.summaries_paused:
        found.append(Item(PAUSED, OTHER, translate("Status", "Summaries paused")))
    if not found:
        return Status(IDLE, (Item(IDLE, OTHER, translate("Status", "Up to date")),))
    ordered = sorted(found, key=lambda item: -LEVELS.index(item.level))  # stable: same level, same order
    return Status(ordered[0].level, tuple(ordered))


def _embedding_items(state: AppState) -> list[Item]:
    embedding = state.snapshot.embedding
    paused = state.embedding_paused
    found = []
    if state.reembedding is not None:
        found.append(Item(WORKING, EMBEDDING, progress_text("reembedding", state.backlog)))
    elif embedding is not None and embedding.queued > 0:
        if paused:
            text = translate("Status", "Embedding paused: %Ln message(s) waiting", "", embedding.queued)
            found.append(Item(PAUSED, EMBEDDING, text))
        else:
            found.append(Item(WORKING, EMBEDDING, progress_text("embedding", state.backlog)))
    elif paused:
        found.append(Item(PAUSED, EMBEDDING, translate("Status", "Embedding paused")))
    if embedding is not None and embedding.rebuilding > 0 and not paused:
        text = translate("Status", "Rebuilding the search index of %Ln session(s)…", "", embedding.rebuilding)
        found.append(Item(WORKING, EMBEDDING, text))
    return found

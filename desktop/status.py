"""What memtray is doing now, in a few words: the tray icon's state, the status line and the tooltip.

:func:`status_of` reads :class:`desktop.state.AppState` only (no I/O) and gives a :class:`Status`: a
level (``idle``, ``working``, ``paused`` or ``attention``; the tray icon draws it) and lines, the most
important first ("Embedding 3,200 of 50,000 · about 20 min", "Summaries paused", "Database damaged —
Repair…"). The tray menu shows them as disabled lines at its top, the main window in its status bar.

The engine reports how many messages wait to be embedded, not how fast they go: :class:`Backlog` follows
that count from one state refresh to the next, and estimates the rest of the run from the rate it saw.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

if TYPE_CHECKING:
    from desktop.state import AppState

translate = QCoreApplication.translate

IDLE, WORKING, PAUSED, ATTENTION = "idle", "working", "paused", "attention"
LEVELS = (IDLE, PAUSED, WORKING, ATTENTION)
"""From the least to the most pressing: the icon shows the most pressing level of the lines."""

SMOOTHING = 0.3
"""The weight of the newest rate in the running estimate (the rest is the estimate so far)."""


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


class Backlog:
    """One run of work counted down by the engine (the embedding queue): its size and its rate.

    :meth:`observe` is given the count left at each refresh. A run starts when the count leaves 0; it
    grows when more arrives, and ends at 0. The rate is smoothed over the refreshes that saw progress.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.total = 0
        self.left = 0
        self.rate: float | None = None  # items per second
        self._seen_at: float | None = None

    @property
    def done(self) -> int:
        return max(0, self.total - self.left)

    def observe(self, left: int, *, moving: bool = True, now: float | None = None) -> None:
        """The count left now; ``moving``: the work is running (not paused), so the rate is learned."""
        at = now if now is not None else self._clock()
        if left <= 0:
            self.total = self.left = 0
            self.rate, self._seen_at = None, None
            return
        if self.left == 0:
            self.total, self.left, self._seen_at = left, left, at
            return
        gone = self.left - left
        if gone < 0:
            self.total += -gone  # more work arrived
        elif moving and self._seen_at is not None and at > self._seen_at and gone > 0:
            rate = gone / (at - self._seen_at)
            self.rate = rate if self.rate is None else SMOOTHING * rate + (1 - SMOOTHING) * self.rate
        self.left = left
        self._seen_at = at

    def follow(self, done: int, total: int, *, now: float | None = None) -> None:
        """The engine's own ``done/total`` (a re-embedding): the same estimate from its count left."""
        if total != self.total:
            self.observe(0, now=now)  # another run
        self.observe(total - done, now=now)
        if self.left:
            self.total = total

    def eta_seconds(self) -> float | None:
        """The time the rest should take at the rate seen, or None before a rate is known."""
        if not self.rate or self.left <= 0:
            return None
        return self.left / self.rate


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

"""How far the background embedding has come: what a search covered, and how fast the backlog goes.

:class:`Coverage` says how many of the messages a semantic ranking looked at had a vector (a search never
waits for the backlog, so it tells instead). :class:`RateMeter` is the embedder's speed, messages per second
over the last minute: the worker records each batch it saves and the semantic tier turns the rate into an
estimate of the time left (:attr:`engine.semantic.tier.SemanticStatus.eta_s`). Only the process that
embeds knows its rate: elsewhere it is ``None``.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

WINDOW_S = 60.0


@dataclass(frozen=True)
class Coverage:
    """How much of what a semantic ranking looked at was embedded.

    Attributes:
        embedded: messages (of the session searched, or of all) with a vector of the embedder in use.
        total: messages (of the session searched, or of all).
    """

    embedded: int
    total: int

    @property
    def complete(self) -> bool:
        return self.embedded >= self.total

    def describe(self) -> str:
        """``meaning search covers 3,200 of 50,000 messages``."""
        return f"meaning search covers {min(self.embedded, self.total):,} of {self.total:,} messages"


class RateMeter:
    """Messages embedded per second over the last :data:`WINDOW_S` seconds (thread-safe)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._started: float | None = None
        self._batches: deque[tuple[float, int]] = deque()  # (when saved, how many messages)

    def record(self, count: int) -> None:
        """``count`` messages were just embedded and saved."""
        now = self._clock()
        with self._lock:
            if self._started is None:
                self._started = now
            self._batches.append((now, count))
            self._drop_old(now)

    def rate(self) -> float | None:
        """Messages per second over the last minute (or since the first batch, if that is more recent);
        ``None`` before the first batch or when nothing was embedded in the last minute."""
        now = self._clock()
        with self._lock:
            self._drop_old(now)
            if self._started is None or not self._batches:
                return None
            span = min(WINDOW_S, now - self._started)
            done = sum(count for _, count in self._batches)
        return done / span if span > 0 else None

    def _drop_old(self, now: float) -> None:
        while self._batches and self._batches[0][0] < now - WINDOW_S:
            self._batches.popleft()

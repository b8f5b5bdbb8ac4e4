"""How far a run of background work has come and how long the rest should take (no Qt, no I/O).

The engine reports how many messages wait to be embedded, not how fast they go: :class:`Backlog` follows
that count from one state refresh to the next (:class:`desktop.state.AppState` feeds it), and estimates
the rest of the run from the rate it saw; :mod:`desktop.status` words it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

SMOOTHING = 0.3
"""The weight of the newest rate in the running estimate (the rest is the estimate so far)."""


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

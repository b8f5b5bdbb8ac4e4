"""The scheduled summarizer: every 15 minutes on the quarter hour, ticked from outside.

It uses its own ``schedule.Scheduler()`` (never the module's default) with one job at minutes 00, 15, 30
and 45 of every hour. Nothing here runs a loop or a thread: the desktop app calls :meth:`tick` from a
QTimer and ``memtray daemon`` from its loop. A job only *submits* the work (``Summaries.run_pending``:
pending sessions one at a time) to the executor it was given; while a run is still going, further ticks
submit nothing. Every job and the submitted work are wrapped: an exception is logged and never stops the
scheduler. Paused (``summaries_enabled = false``), the jobs submit nothing.
"""

from __future__ import annotations

import datetime
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

import schedule

log = logging.getLogger("memtray.summary.scheduler")

EVERY_MINUTES = 15
"""How often the scheduled summarizer runs: every quarter hour, on the quarter hour."""
QUARTERS = tuple(f":{minute:02d}" for minute in range(0, 60, EVERY_MINUTES))


class SummaryScheduler:
    """Runs ``work`` every quarter hour on ``executor``.

    Args:
        work: the work of one run (``mem.summaries.run_pending``).
        executor: where the work runs (a small pool for Gemini calls).
        enabled: asked before each run; False skips it (the pause setting).
    """

    def __init__(
        self,
        work: Callable[[], Any],
        executor: Executor,
        *,
        enabled: Callable[[], bool] = lambda: True,
    ) -> None:
        self.scheduler = schedule.Scheduler()
        self._work = work
        self._executor = executor
        self._enabled = enabled
        self._future: Future[Any] | None = None
        self._guard = threading.Lock()
        for minute in QUARTERS:
            self.scheduler.every().hour.at(minute).do(self._guarded, self.submit).tag("summaries")

    def tick(self) -> None:
        """Run the jobs that are due (call this often, e.g. every 30 s). Never raises."""
        try:
            self.scheduler.run_pending()
        except Exception:
            log.exception("the summary scheduler failed to run its jobs")

    def run_all(self) -> None:
        """Run every job now, due or not (tests and "summarize now" buttons)."""
        self.scheduler.run_all()

    def next_run(self) -> datetime.datetime | None:
        return self.scheduler.get_next_run("summaries")

    def idle_seconds(self) -> float | None:
        """Seconds until the next job is due (None when there is no job)."""
        return self.scheduler.idle_seconds

    def busy(self) -> bool:
        with self._guard:
            return self._future is not None and not self._future.done()

    def submit(self) -> Future[Any] | None:
        """Submit one run now unless paused or one is still going; return its future."""
        if not self._enabled():
            log.info("scheduled summaries are paused")
            return None
        with self._guard:
            if self._future is not None and not self._future.done():
                log.info("the previous summary run is still going; this one is skipped")
                return None
            self._future = self._executor.submit(self._guarded, self._work)
            return self._future

    def _guarded(self, job: Callable[[], Any]) -> Any:
        try:
            return job()
        except Exception:
            log.exception("a scheduled summary job failed")
            return None

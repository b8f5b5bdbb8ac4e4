"""Maintenance jobs beside the summaries: expired error records hourly, idle temp sessions every 30 min.

They join the same ``schedule.Scheduler()`` instance as the summarizer's quarter-hour job, ticked from
outside (a QTimer in the app, the loop of ``memtray daemon``). A job only submits its work through the
``submit`` function it is given (the store's single worker); the work is wrapped so an exception is logged
and never stops the scheduler.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import schedule

if TYPE_CHECKING:
    from engine.memory import Memory

log = logging.getLogger("memtray.jobs")

Submit = Callable[[Callable[[], Any]], Any]


def _guarded(name: str, work: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        try:
            return work()
        except Exception:
            log.exception("the %s job failed", name)
            return None

    return run


def add_maintenance(scheduler: schedule.Scheduler, mem: Memory, submit: Submit) -> None:
    """Schedule the hourly error-memory purge and the 30-minute temp-session cleanup on ``scheduler``."""

    def purge_errors() -> None:
        removed = mem.errors.purge_expired()
        log.info("hourly error-memory maintenance: %d expired records purged", removed)

    def clean_temp() -> None:
        removed = mem.cleanup_temp_sessions()
        if removed:
            log.info("removed %d idle temp sessions", len(removed))

    for name, work in (("error purge", purge_errors), ("temp cleanup", clean_temp)):
        job = _guarded(name, work)

        def submit_job(job: Callable[[], Any] = job, name: str = name) -> None:
            try:
                submit(job)
            except Exception:
                log.exception("could not submit the %s job", name)

        if name == "error purge":
            scheduler.every().hour.at(":07").do(submit_job).tag("maintenance", "errors")
        else:
            scheduler.every(30).minutes.do(submit_job).tag("maintenance", "temp")

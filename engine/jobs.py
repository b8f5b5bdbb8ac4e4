"""Maintenance jobs beside the summaries: expired error records hourly, idle temp sessions every 30 min,
the database's full integrity check at most daily, and sync through the shared folder when it is enabled
(:mod:`engine.sync`): at start, within seconds of another device's new segment (the folder watch,
:mod:`engine.sync.watch`), and every minute as the fallback for folders that tell no events.

They join the same ``schedule.Scheduler()`` instance as the summarizer's quarter-hour job, ticked from
outside (a QTimer in the app, the loop of ``memtray daemon``). A job only submits its work through the
``submit`` function it is given (the store's single worker); the work is wrapped so an exception is logged
and never stops the scheduler. The folder watch hands its sync over through ``hand_over`` (the tray app
passes a function that runs it on the GUI thread, the only thread that submits there), never more than one
waiting at a time; each sync first points the watch at the folder in use (sync turned on, off, moved).

The integrity check is looked at hourly and runs when the last one is a day old
(:meth:`engine.memory.Memory.check_integrity`), so a program that runs a few hours a day still checks
daily and a restart does not check again. A damaged database is handed to ``on_damaged`` (the tray app
raises its attention state, as for a database it could not open).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import schedule

from engine.errors import CorruptStore, EngineError

if TYPE_CHECKING:
    from engine.memory import Memory

log = logging.getLogger("memtray.jobs")

SYNC_MINUTES = 1
"""How often the tray app and ``memtray daemon`` sync (write what is new, apply what arrived)."""

Submit = Callable[[Callable[[], Any]], Any]


def _guarded(name: str, work: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        try:
            return work()
        except Exception:
            log.exception("the %s job failed", name)
            return None

    return run


def add_maintenance(
    scheduler: schedule.Scheduler,
    mem: Memory,
    submit: Submit,
    on_damaged: Callable[[CorruptStore], None] | None = None,
    hand_over: Callable[[Callable[[], None]], None] | None = None,
    sync_minutes: int = SYNC_MINUTES,
) -> None:
    """Schedule the hourly error-memory purge, the 30-minute temp-session cleanup, the daily integrity
    check and the sync (every ``sync_minutes``) on ``scheduler``, and submit a first sync now (which starts
    the folder watch); ``on_damaged(exc)`` is called (on the worker) when the check finds damage.
    ``hand_over(fn)`` runs ``fn`` on the thread that may submit (default: the watch's own thread)."""

    def purge_errors() -> None:
        removed = mem.errors.purge_expired()
        log.info("hourly error-memory maintenance: %d expired records purged", removed)

    def clean_temp() -> None:
        removed = mem.cleanup_temp_sessions()
        if removed:
            log.info("removed %d idle temp sessions", len(removed))

    def check_integrity() -> None:
        try:
            mem.check_integrity(daily=True)
        except CorruptStore as exc:
            log.error("the daily integrity check found the database damaged: %s", exc)
            if on_damaged is not None:
                on_damaged(exc)

    def sync() -> None:
        waiting.clear()  # an event from now on asks for another sync
        if mem.closed:
            return
        mem.sync.watch_folder(on_folder_change)  # once, here on the worker: the GUI thread imports nothing
        mem.sync.follow_folder()
        if not mem.sync.enabled:
            return
        try:
            report = mem.sync.now()
        except EngineError as exc:  # no key here, the folder not mounted: said once a minute, no traceback
            log.warning("sync: %s", exc)
            return
        if report.segments_written or report.segments_applied:
            log.info("sync: %s", report.describe())

    jobs = (
        ("error purge", purge_errors),
        ("temp cleanup", clean_temp),
        ("integrity check", check_integrity),
        ("sync", sync),
    )
    for name, work in jobs:
        job = _guarded(name, work)

        def submit_job(job: Callable[[], Any] = job, name: str = name) -> None:
            try:
                submit(job)
            except Exception:
                log.exception("could not submit the %s job", name)

        if name == "error purge":
            scheduler.every().hour.at(":07").do(submit_job).tag("maintenance", "errors")
        elif name == "integrity check":
            scheduler.every().hour.at(":37").do(submit_job).tag("maintenance", "integrity")
        elif name == "sync":
            sync_job = submit_job
            scheduler.every(sync_minutes).minutes.do(submit_job).tag("maintenance", "sync")
        else:
            scheduler.every(30).minutes.do(submit_job).tag("maintenance", "temp")

    waiting = threading.Event()  # a sync asked for by the watch is waiting for the worker

    def on_folder_change() -> None:  # on the watch's thread
        if waiting.is_set():
            return
        waiting.set()
        (hand_over or _now)(sync_job)

    sync_job()  # at start: what arrived while this program was not running, and the watch starts


def _now(work: Callable[[], None]) -> None:
    work()

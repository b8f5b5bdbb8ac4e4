"""The app's one scheduler: summaries every quarter hour on the network pool, maintenance on the store worker.

It is the engine's :class:`engine.summary.scheduler.SummaryScheduler` (over ``run_pending`` of the
summaries seam) with :func:`engine.jobs.add_maintenance` (hourly error purge, 30-minute temp cleanup,
the daily integrity check, sync at start, every minute and when another device's segments arrive in the
sync folder) on the same ``schedule.Scheduler``, the way ``memtray daemon`` wires them. The app ticks it from a QTimer on
the GUI thread: a tick only *submits* work to the task runner's pools, so it never blocks. "Paused" is read
from the state the GUI already holds (the ``summaries_enabled`` setting, refreshed every minute), so the
tick does no I/O either. A damaged database found by the daily check raises the attention state, told
in the same words as one found at open (Repair… is offered).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop.errors import describe
from engine import add_maintenance
from engine.summary import SummaryScheduler

if TYPE_CHECKING:
    from desktop.seams import SummarySource
    from desktop.state import AppState
    from engine import Memory
    from engine.errors import CorruptStore

log = logging.getLogger("memtray.desktop.scheduling")

SCHEDULED_LABEL = "Summarizing (scheduled)"


def make_scheduler(
    mem: Memory, summaries: SummarySource, state: AppState, on_run_done: Callable[[], None]
) -> SummaryScheduler:
    """The scheduler of the app; ``on_run_done`` is called on the GUI thread after each summary run."""
    runner = state.runner

    def run() -> object:
        try:
            return summaries.run_pending()
        finally:
            runner.run_on_main(on_run_done)

    scheduler = SummaryScheduler(
        run, runner.executor("network", SCHEDULED_LABEL), enabled=lambda: not state.summaries_paused
    )

    def on_damaged(exc: CorruptStore) -> None:  # on the store worker
        runner.run_on_main(lambda: state.set_open_failure(exc, describe(exc).text))

    # the folder watch's sync is submitted from the GUI thread, like every other (run_on_main never waits)
    add_maintenance(
        scheduler.scheduler, mem, runner.executor("store").submit, on_damaged, hand_over=runner.run_on_main
    )
    return scheduler

"""The one task runner: background work off the GUI thread, results back on it.

Modelled on Anki's task manager and ``QueryOp``: two executors and a main-thread delivery signal.

- ``store``: one worker (``max_workers=1``) for everything that touches SQLite, Annoy or files. The memory
  has a single writer, and running its reads on the same thread keeps their order predictable.
- ``network``: a small pool for Gemini calls (and the summary scheduler's tick), so a slow network never
  holds the store worker.

An operation (``op``) runs on a worker and returns a plain value; it must never touch a widget. Its
result or exception is handed to ``on_success`` / ``on_failure`` on the GUI thread through a queued
signal of :class:`TaskRunner`, which lives on the main thread. The GUI thread never waits on a future.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal

log = logging.getLogger("memtray.desktop.tasks")

Pool = Literal["store", "network"]
NETWORK_WORKERS = 3


def _alive(target: object) -> bool:
    """False for a deleted QObject, or a bound method of one (its result has nowhere to go)."""
    obj = getattr(target, "__self__", target)
    return not isinstance(obj, QObject) or shiboken6.isValid(obj)


class Cancelled(Exception):
    """Raised inside an operation that noticed its :class:`CancelToken` was set."""


@dataclass
class CancelToken:
    """Asks a running operation to stop; the operation checks it between steps."""

    _event: threading.Event = field(default_factory=threading.Event)

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        """Raise :class:`Cancelled` if cancellation was asked."""
        if self._event.is_set():
            raise Cancelled()


@dataclass(frozen=True)
class Task:
    """A submitted operation, as the status bar and the tooltip see it."""

    id: int
    label: str
    pool: Pool
    token: CancelToken
    cancellable: bool
    started: float


class TaskRunner(QObject):
    """Runs operations on the store worker or the network pool; delivers results on the GUI thread.

    Signals:
        task_did_start(object): a :class:`Task` with a label was submitted (for progress displays).
        task_did_finish(object): that labelled task ended (success, failure or cancellation).
        busy_did_change(int): the number of labelled tasks in flight changed.
        _result_ready(object): internal; carries a closure from a worker to the GUI thread.
    """

    task_did_start = Signal(object)
    task_did_finish = Signal(object)
    busy_did_change = Signal(int)
    _result_ready = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._store = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memtray-store")
        self._network = ThreadPoolExecutor(max_workers=NETWORK_WORKERS, thread_name_prefix="memtray-net")
        self._ids = itertools.count(1)
        self._active: dict[int, Task] = {}
        self._closed = False
        self._result_ready.connect(self._on_result_ready, Qt.ConnectionType.QueuedConnection)

    # -- public API -------------------------------------------------------------------------------

    def run_query(
        self,
        op: Callable[[], Any],
        on_success: Callable[[Any], None] | None = None,
        on_failure: Callable[[BaseException], None] | None = None,
        *,
        pool: Pool = "store",
        label: str | None = None,
        token: CancelToken | None = None,
        owner: QObject | None = None,
    ) -> Task | None:
        """Run ``op()`` on a worker; call ``on_success(result)`` or ``on_failure(exc)`` on the GUI thread.

        ``op`` must not touch widgets or other Qt GUI objects. A ``label`` makes the task visible to the
        status bar and the tooltip; a ``token`` makes it cancellable (``op`` should call
        ``token.check()``). A failure without ``on_failure`` is logged and re-raised on the GUI thread,
        where the excepthook shows it. If ``owner`` (or the object of a bound-method callback) was
        deleted meanwhile, the result is dropped. Returns the task, or None after shutdown.
        """
        if self._closed:
            log.debug("task %r dropped: the runner is shut down", label)
            return None
        task = Task(
            next(self._ids), label or "", pool, token or CancelToken(), token is not None, time.monotonic()
        )
        executor = self._store if pool == "store" else self._network
        if label:
            self._active[task.id] = task
            self.task_did_start.emit(task)
            self.busy_did_change.emit(len(self._active))
        future = executor.submit(op)
        future.add_done_callback(
            lambda fut: self._deliver(lambda: self._finish(task, fut, on_success, on_failure, owner))
        )
        return task

    def run_on_main(self, closure: Callable[[], None]) -> None:
        """Run ``closure`` on the GUI thread (callable from any thread)."""
        self._deliver(closure)

    @property
    def active(self) -> list[Task]:
        """Labelled tasks in flight, oldest first."""
        return list(self._active.values())

    def shutdown(self) -> None:
        """Cancel queued work, ask running tasks to stop, and wait for the workers to end."""
        self._closed = True
        for task in self._active.values():
            task.token.cancel()
        self._network.shutdown(wait=True, cancel_futures=True)
        self._store.shutdown(wait=True, cancel_futures=True)
        log.info("task runner stopped")

    # -- internals --------------------------------------------------------------------------------

    def _deliver(self, closure: Callable[[], None]) -> None:
        try:
            self._result_ready.emit(closure)
        except RuntimeError:  # the runner was deleted with the app: nobody is left to tell
            log.debug("result dropped: the task runner is gone")

    def _on_result_ready(self, closure: Callable[[], None]) -> None:
        closure()

    def _finish(
        self,
        task: Task,
        future: Future[Any],
        on_success: Callable[[Any], None] | None,
        on_failure: Callable[[BaseException], None] | None,
        owner: QObject | None,
    ) -> None:
        if task.id in self._active:
            del self._active[task.id]
            self.task_did_finish.emit(task)
            self.busy_did_change.emit(len(self._active))
        if not _alive(owner) or not _alive(on_success) or not _alive(on_failure):
            log.debug("task %s (%s) finished after its owner was deleted", task.id, task.label)
            return
        if future.cancelled():
            log.debug("task %s (%s) cancelled before it ran", task.id, task.label)
            return
        exc = future.exception()
        if exc is None:
            if on_success is not None:
                on_success(future.result())
            return
        if isinstance(exc, Cancelled):
            log.info("task %s (%s) cancelled", task.id, task.label or "unnamed")
            return
        if on_failure is not None:
            on_failure(exc)
            return
        raise exc

"""The one task runner: background work off the GUI thread, results back on it.

Modelled on Anki's task manager and ``QueryOp``: two executors and a main-thread delivery signal.

- ``store``: one worker (``max_workers=1``) for everything that touches SQLite, Annoy or files. The memory
  has a single writer, and running its reads on the same thread keeps their order predictable.
- ``network``: a small pool for Gemini calls (the scheduled summary runs, "summarize now", the key
  test), so a slow network never holds the store worker.

:meth:`TaskRunner.executor` gives a ``concurrent.futures.Executor`` view of a pool for code that wants
one (the summary scheduler and the maintenance jobs submit through it); :meth:`TaskRunner.report_progress`
lets a running operation report ``done/total`` from its worker (the status bar shows it).

An operation (``op``) runs on a worker and returns a plain value; it must never touch a widget. Its
result or exception is handed to ``on_success`` / ``on_failure`` on the GUI thread through a queued
signal of :class:`TaskRunner`, which lives on the main thread. The GUI thread never waits on a future.

A worker never drops the last reference to anything an operation or its callbacks captured (often a
widget): the runner keeps them in a table on the GUI thread until the result is handled there, and the
outcome travels in a cell the GUI thread empties. (PySide6 6.12 crashes in
``BindingManager::runDeletionInMainThread`` when a QObject's wrapper dies on another thread.)
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal

log = logging.getLogger("memtray.desktop.tasks")

Pool = Literal["store", "network"]
NETWORK_WORKERS = 3
SHUTDOWN_WAIT_S = 1.5
"""How long quitting waits for the operations running on the workers (the process ends within 5 s)."""


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
        task_did_progress(object, int, int): a labelled task reported ``done`` of ``total`` (GUI thread).
        busy_did_change(int): the number of labelled tasks in flight changed.
        _result_ready(object): internal; carries a closure from a worker to the GUI thread.
    """

    task_did_start = Signal(object)
    task_did_finish = Signal(object)
    task_did_progress = Signal(object, int, int)
    busy_did_change = Signal(int)
    _result_ready = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._store = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memtray-store")
        self._network = ThreadPoolExecutor(max_workers=NETWORK_WORKERS, thread_name_prefix="memtray-net")
        self._ids = itertools.count(1)
        self._active: dict[int, Task] = {}
        self._progress: dict[int, tuple[int, int]] = {}
        self._calls: dict[int, _Call] = {}  # owned by the GUI thread; workers only read their entry
        self._closed = False
        self._running: dict[int, str] = {}  # task id -> label of the operations on a worker now
        self._idle = threading.Condition()
        self.stopped_cleanly = True
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
        self._calls[task.id] = _Call(op, on_success, on_failure, owner)
        executor.submit(self._work, task)
        return task

    def run_on_main(self, closure: Callable[[], None]) -> None:
        """Run ``closure`` on the GUI thread (callable from any thread)."""
        self._deliver(closure)

    def executor(self, pool: Pool, label: str | None = None) -> Executor:
        """An ``Executor`` whose ``submit`` runs on ``pool`` through :meth:`run_query` (labelled tasks
        show in the status bar). Its futures complete on the worker; results are not delivered."""
        return _PoolExecutor(self, pool, label)

    def report_progress(self, token: CancelToken, done: int, total: int) -> None:
        """Report progress of the labelled task holding ``token`` (callable from its worker)."""
        self._deliver(lambda: self._on_progress(token, done, total))

    def progress(self, task: Task) -> tuple[int, int] | None:
        """The last ``(done, total)`` a task reported, or None."""
        return self._progress.get(task.id)

    @property
    def active(self) -> list[Task]:
        """Labelled tasks in flight, oldest first."""
        return list(self._active.values())

    def shutdown(self, timeout: float = SHUTDOWN_WAIT_S) -> bool:
        """Cancel queued work, ask running tasks to stop, and wait up to ``timeout`` seconds for the
        operations on the workers to end. False when some still run then (a Gemini call waiting on the
        network, a batch of an import being stored): :attr:`stopped_cleanly` says so, and the app then
        ends the process without waiting for them (what they wrote is in SQLite's hands: a transaction
        not committed is rolled back when the database is next opened)."""
        with self._idle:
            self._closed = True
        for task in self._active.values():
            task.token.cancel()
        self._network.shutdown(wait=False, cancel_futures=True)
        self._store.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._running and (left := deadline - time.monotonic()) > 0:
                self._idle.wait(left)
            still = list(self._running.values())
        self.stopped_cleanly = not still
        if still:
            log.warning(
                "task runner: %d operation(s) still running after %.1f s: %s", len(still), timeout, still
            )
        else:
            log.info("task runner stopped")
        return self.stopped_cleanly

    # -- internals --------------------------------------------------------------------------------

    def _deliver(self, closure: Callable[[], None]) -> None:
        try:
            self._result_ready.emit(closure)
        except RuntimeError:  # the runner was deleted with the app: nobody is left to tell
            log.debug("result dropped: the task runner is gone")

    def _on_result_ready(self, closure: Callable[[], None]) -> None:
        closure()

    def _on_progress(self, token: CancelToken, done: int, total: int) -> None:
        task = next((t for t in self._active.values() if t.token is token), None)
        if task is not None:
            self._progress[task.id] = (done, total)
            self.task_did_progress.emit(task, done, total)

    def _work(self, task: Task) -> None:
        """On a worker: run the task's operation; hand the outcome to the GUI thread in a cell."""
        op = self._calls[task.id].op
        with self._idle:
            started = not self._closed  # a task taken off the queue as the runner shut down: not run
            if started:
                self._running[task.id] = task.label or "unnamed"
        try:
            if not started:
                raise Cancelled()
            outcome: tuple[bool, Any] = (True, op())
        except BaseException as exc:
            outcome = (False, exc)
        finally:
            with self._idle:
                self._running.pop(task.id, None)
                self._idle.notify_all()
        del op
        cell = [outcome]
        del outcome
        self._deliver(lambda: self._finish(task, cell.pop()))

    def _finish(self, task: Task, outcome: tuple[bool, Any]) -> None:
        call = self._calls.pop(task.id)
        if task.id in self._active:
            del self._active[task.id]
            self._progress.pop(task.id, None)
            self.task_did_finish.emit(task)
            self.busy_did_change.emit(len(self._active))
        if not _alive(call.owner) or not _alive(call.on_success) or not _alive(call.on_failure):
            log.debug("task %s (%s) finished after its owner was deleted", task.id, task.label)
            return
        ok, value = outcome
        if ok:
            if call.on_success is not None:
                call.on_success(value)
            return
        if isinstance(value, Cancelled):
            log.info("task %s (%s) cancelled", task.id, task.label or "unnamed")
            return
        if call.on_failure is not None:
            call.on_failure(value)
            return
        raise value


@dataclass(frozen=True)
class _Call:
    """What a task runs and whom it tells (kept on the GUI thread)."""

    op: Callable[[], Any]
    on_success: Callable[[Any], None] | None
    on_failure: Callable[[BaseException], None] | None
    owner: QObject | None


class _PoolExecutor(Executor):
    """``Executor`` view of one pool of a :class:`TaskRunner` (see :meth:`TaskRunner.executor`)."""

    def __init__(self, runner: TaskRunner, pool: Pool, label: str | None) -> None:
        self._runner, self._pool, self._label = runner, pool, label

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()

        def op() -> Any:
            if not future.set_running_or_notify_cancel():
                return None
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:
                future.set_exception(exc)
                raise
            future.set_result(result)
            return result

        def on_failure(exc: BaseException) -> None:
            log.warning("background job %s failed: %s", self._label or "(unnamed)", exc)

        if self._runner.run_query(op, None, on_failure, pool=self._pool, label=self._label) is None:
            raise RuntimeError("cannot schedule new work after the task runner shut down")
        return future

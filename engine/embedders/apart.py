"""Worker processes that end with the process that started them.

A ``spawn`` worker of :class:`concurrent.futures.ProcessPoolExecutor` outlives its parent when the parent
ends without shutting the pool down (the app's quit ends the process at once while a model builds; a
SIGKILL): it finishes its task and then blocks for ever writing a result nobody reads, a hidden process
holding the parent's inherited pipes open. Each worker here watches its parent (``multiprocessing``'s
parent sentinel: a pipe on POSIX, a process handle on Windows) and ends itself when the parent is gone.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.process import BaseProcess

ORPHAN_STATUS = 3
"""The exit status of a worker that ended because its parent was gone."""


def pool(workers: int = 1) -> ProcessPoolExecutor:
    """A pool of ``workers`` fresh interpreters (``spawn``), each ending when this process does."""
    return ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("spawn"), initializer=end_with_parent
    )


def end_with_parent() -> None:
    """In a worker: end this process (status :data:`ORPHAN_STATUS`) as soon as its parent is gone."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_after, args=(parent,), name="memtray-parent-watch", daemon=True).start()


def _exit_after(parent: BaseProcess) -> None:
    parent.join()
    os._exit(ORPHAN_STATUS)

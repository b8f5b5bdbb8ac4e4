"""Python's cyclic garbage collector, run on the GUI thread only.

With worker threads, the collector can run on any of them, and a reference cycle that holds a Qt object
(a widget, a timer) is then destroyed on that thread: Qt warns "Timers cannot be stopped from another
thread" and later crashes. As qutebrowser does, automatic collection is turned off and a QTimer on the GUI
thread collects the generations whose counts passed their thresholds. Reference counting still frees
everything that is not in a cycle, on whichever thread drops it, as before.

A full collection walks every tracked object: while an import holds a big export's messages (millions of
objects) it stops the GUI thread for over 100 ms. :func:`holding_full_collections` puts full collections
off while such work runs (the young generations are still collected); the one that was due runs once the
work is over and its objects are freed, when it is quick again.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QObject, QTimer

log = logging.getLogger("memtray.desktop.gcguard")

INTERVAL_MS = 250

_holds = 0
_holds_lock = threading.Lock()


@contextmanager
def holding_full_collections() -> Iterator[None]:
    """No full (generation 2) collection from :class:`MainThreadCollector` while this runs (any thread;
    nested holds count)."""
    global _holds
    with _holds_lock:
        _holds += 1
    try:
        yield
    finally:
        with _holds_lock:
            _holds -= 1


def full_collections_held() -> bool:
    """Whether some work holds full collections off (:func:`holding_full_collections`)."""
    return _holds > 0


class MainThreadCollector(QObject):
    """Collects garbage from the GUI thread's event loop (no signals)."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._on_timeout)

    def start(self) -> None:
        gc.disable()
        self._timer.start()
        log.debug("garbage collection moved to the GUI thread")

    def stop(self) -> None:
        self._timer.stop()
        gc.enable()

    def _on_timeout(self) -> None:
        counts, thresholds = gc.get_count(), gc.get_threshold()
        if counts[0] <= thresholds[0]:
            return
        generation = 2 if counts[2] > thresholds[2] else 1 if counts[1] > thresholds[1] else 0
        if generation == 2 and full_collections_held():
            # The full one waits (the generation 2 count keeps it due); generation 1 is collected at each
            # tick meanwhile, so that it never grows to the millions of objects an import makes.
            generation = 1
        gc.collect(generation)

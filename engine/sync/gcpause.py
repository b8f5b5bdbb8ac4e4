"""Python's cyclic garbage collector held off while a large apply runs, so the app's GUI thread keeps
ticking.

Applying a segment of thousands of messages makes hundreds of thousands of objects that live until the
segment is stored. Each time enough of them survive, the collector walks the whole heap (the tray app's
Qt objects included) while holding the interpreter's lock: stalls of 20 to 100 ms on the GUI thread,
several per segment. What an apply makes is freed by reference counting (no cycles), so the collector has
nothing to find there; :func:`paused` turns it off for the apply and back on after, as it was.

It counts its holders, so two threads that apply at once (or nested calls) turn it back on only when the
last one ends, and never turn on a collector the program had turned off itself.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0
_was_enabled = False


@contextmanager
def paused() -> Iterator[None]:
    """Hold off the cyclic garbage collector for the ``with`` block (see the module)."""
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                gc.enable()

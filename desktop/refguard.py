"""Guard against PySide6 6.12.0's reference-count bug on Python 3.11: make None, True and False immortal.

Measured here (PySide6 6.12.0, CPython 3.11.7): every call of a void Qt method from Python
(``setText``, ``processEvents``, ``QPainter.save`` ...) drops one reference to ``None`` that it never
took, and every ``Signal.emit`` drops one to ``True``. On Python 3.12+ these objects are immortal
(PEP 683) and the bug is harmless; on 3.11 the count reaches zero after some 30,000 calls and the
process aborts with ``Fatal Python error: none_dealloc`` — within a minute of scrolling the viewer.

:func:`install` gives the three objects a reference count no process can exhaust, which is what
Python 3.12 does for them. It does nothing on 3.12+ or other interpreters. Remove it when memtray
requires Python 3.12 or pins a PySide6 without the bug (``tests/desktop/test_refguard.py`` tells).
"""

from __future__ import annotations

import ctypes
import logging
import sys

log = logging.getLogger("memtray.desktop.refguard")

BALLAST = 1 << 40
_installed = False


def needed() -> bool:
    return sys.implementation.name == "cpython" and sys.version_info < (3, 12)


def install() -> bool:
    """Make None, True and False immortal in this process (once); True if it was needed."""
    global _installed
    if not needed():
        return False
    if not _installed:
        for obj in (None, True, False):
            ctypes.c_ssize_t.from_address(id(obj)).value += BALLAST  # ob_refcnt is PyObject's first field
        _installed = True
        log.debug("None, True and False made immortal (PySide6 refcount bug on Python 3.11)")
    return True

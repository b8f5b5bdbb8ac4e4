"""Setting this process's time zone in a test, on POSIX and on Windows.

POSIX reads ``TZ`` (an IANA name) again at ``time.tzset()``. Windows has no ``time.tzset``, but its C
library, which Python's local times come from, reads ``TZ`` (in its own ``name±hours[dst]`` form, US rules
for summer time) again at ``_tzset()``, called here through ctypes.
"""

from __future__ import annotations

import os
import time

import pytest

WINDOWS_TZ = {"Asia/Taipei": "CST-8", "UTC": "UTC0", "America/Los_Angeles": "PST8PDT"}
"""The zones the tests use, in the Windows C library's form (Taipei has kept no summer time since 1979)."""


def set_time_zone(monkeypatch: pytest.MonkeyPatch, zone: str) -> None:
    """Make ``zone`` (an IANA name of WINDOWS_TZ) the local time zone until ``monkeypatch`` is undone and
    :func:`reread` is called."""
    monkeypatch.setenv("TZ", zone if os.name == "posix" else WINDOWS_TZ[zone])
    reread()


def reread() -> None:
    """Make the C library read ``TZ`` again (after it changed or went)."""
    if hasattr(time, "tzset"):
        time.tzset()
    else:
        import ctypes

        ctypes.cdll.ucrtbase._tzset()

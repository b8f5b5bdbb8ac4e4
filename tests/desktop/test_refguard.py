"""PySide6 6.12.0 drops references to None/True on Python 3.11; the guard keeps the app alive."""

from __future__ import annotations

import subprocess
import sys

import pytest

from desktop import refguard

SCRIPT = """
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
if sys.argv[1] == "guard":
    from desktop import refguard
    refguard.install()
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QLabel
class Emitter(QObject):
    fired = Signal()
app = QApplication([])
label, emitter = QLabel(), Emitter()
for i in range(200_000):
    label.setText("x")       # a void call
    emitter.fired.emit()     # an emit
print("survived")
"""


@pytest.mark.skipif(not refguard.needed(), reason="None and True are immortal on this Python")
def test_guard_needed_and_effective() -> None:
    bare = subprocess.run([sys.executable, "-c", SCRIPT, "bare"], capture_output=True, text=True, timeout=120)
    guarded = subprocess.run(
        [sys.executable, "-c", SCRIPT, "guard"], capture_output=True, text=True, timeout=120
    )
    assert guarded.returncode == 0 and "survived" in guarded.stdout, guarded.stderr[-2000:]
    # If this starts to pass without the guard, PySide6 was fixed: remove desktop/refguard.py.
    assert bare.returncode != 0 and "dealloc" in bare.stderr

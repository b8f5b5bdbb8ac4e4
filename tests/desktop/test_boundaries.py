"""The import direction is law: the engine never imports Qt or the desktop app."""

from __future__ import annotations

import subprocess
import sys


def test_engine_imports_neither_qt_nor_desktop() -> None:
    code = (
        "import engine, engine.memory, engine.cli, sys; "
        "bad = [m for m in sys.modules if m.startswith(('PySide6', 'desktop'))]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_launcher_does_not_import_qt_for_cli_commands() -> None:
    code = "import desktop.launcher, sys; assert not [m for m in sys.modules if m.startswith('PySide6')]"
    subprocess.run([sys.executable, "-c", code], check=True)

"""The X tests' one set-up: a check program of ``tests/desktop`` run on a fresh Xvfb display with a tray
(:mod:`tests.desktop.xdisplay`), its verdict read from the last line it prints (JSON)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.desktop.xdisplay import missing, xvfb_with_tray

ROOT = Path(__file__).resolve().parents[2]

under_x = [pytest.mark.tray, pytest.mark.skipif(bool(missing()), reason=f"needs {', '.join(missing())}")]
"""The marks of a test that needs the X tools (``pytestmark = under_x``): skipped, saying which are missing."""


def run_check(module: str, *args: str, timeout: float = 60) -> dict[str, Any]:
    """``python -m tests.desktop.<module> ARGS…`` under Xvfb with trayer; it must succeed, and print its
    result as JSON on its last line."""
    with xvfb_with_tray() as env:
        proc = subprocess.run(
            [sys.executable, "-m", f"tests.desktop.{module}", *args],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))

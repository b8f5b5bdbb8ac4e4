"""Under Xvfb: the app's global shortcut is grabbed, and a real key press (xdotool) opens the quick search."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.desktop.conftest import seed
from tests.desktop.xdisplay import missing, xvfb_with_tray

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.tray
@pytest.mark.skipif(bool(missing()), reason=f"needs {', '.join(missing())}")
def test_ctrl_alt_m_opens_the_quick_search(tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed(home, long_messages=10)
    with xvfb_with_tray() as env:
        proc = subprocess.run(
            [sys.executable, "-m", "tests.desktop.hotkeycheck", str(home)],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["platform"] == "xcb" and result["status"] == "active"
    assert result["second"] == "taken"
    assert result["opened"] and result["opened_with_num_lock"]


@pytest.mark.tray
@pytest.mark.skipif(bool(missing()), reason=f"needs {', '.join(missing())}")
def test_keys_another_app_holds_are_replaced_in_settings(tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed(home, long_messages=10)
    with xvfb_with_tray() as env:
        proc = subprocess.run(
            [sys.executable, "-m", "tests.desktop.hotkeycheck", str(home), "--taken"],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["status"] == "taken" and "already used by another app" in result["settings_said"]
    assert result["rebound"] == "active" and result["opened"]

"""Under Xvfb with trayer: the icon docks, and a real right click (xdotool) opens the menu."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.desktop.conftest import ARTIFACTS, seed
from tests.desktop.xdisplay import missing, xvfb_with_tray

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.tray
@pytest.mark.skipif(bool(missing()), reason=f"needs {', '.join(missing())}")
def test_icon_docks_and_right_click_opens_the_menu(tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed(home, long_messages=40)
    with xvfb_with_tray() as env:
        proc = subprocess.run(
            [sys.executable, "-m", "tests.desktop.traycheck", str(home), str(ARTIFACTS)],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["platform"] == "xcb" and result["tray_available"] is True
    _x, _y, w, h = result["geometry"]
    assert w > 0 and h > 0
    assert result["menu_items"][1:3] == ["&Open sessions…", "&Search…"]  # after the status line
    assert result["menu_items"][0] == result["status"]
    assert result["level"] in ("idle", "working") and result["icon_sizes"]
    assert "&Quit" in result["menu_items"] and "Com&pact…" in result["menu_items"]
    assert (ARTIFACTS / "tray-menu.png").stat().st_size > 1000

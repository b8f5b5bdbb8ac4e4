"""Under Xvfb: the app's global shortcut is grabbed, and a real key press (xdotool) opens the quick search."""

from __future__ import annotations

from pathlib import Path

from tests.desktop.conftest import seed
from tests.desktop.xcheck import run_check, under_x

pytestmark = under_x


def test_ctrl_alt_m_opens_the_quick_search(tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed(home, long_messages=10)
    result = run_check("hotkeycheck", str(home))
    assert result["platform"] == "xcb" and result["status"] == "active"
    assert result["second"] == "taken"
    assert result["opened"] and result["opened_with_num_lock"]


def test_keys_another_app_holds_are_replaced_in_settings(tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed(home, long_messages=10)
    result = run_check("hotkeycheck", str(home), "--taken")
    assert result["status"] == "taken" and "already used by another app" in result["settings_said"]
    assert result["rebound"] == "active" and result["opened"]

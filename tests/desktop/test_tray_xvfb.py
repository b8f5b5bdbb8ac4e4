"""Under Xvfb with trayer: the icon docks, and a real right click (xdotool) opens the menu."""

from __future__ import annotations

from pathlib import Path

from tests.desktop.conftest import ARTIFACTS, seed
from tests.desktop.xcheck import run_check, under_x

pytestmark = under_x


def test_icon_docks_and_right_click_opens_the_menu(tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed(home, long_messages=40)
    result = run_check("traycheck", str(home), str(ARTIFACTS))
    assert result["platform"] == "xcb" and result["tray_available"] is True
    _x, _y, w, h = result["geometry"]
    assert w > 0 and h > 0
    assert result["menu_items"][1:3] == ["&Open sessions…", "&Search…"]  # after the status line
    assert result["menu_items"][0] == result["status"]
    assert result["level"] in ("idle", "working") and result["icon_sizes"]
    assert "&Quit" in result["menu_items"] and "Com&pact…" in result["menu_items"]
    assert (ARTIFACTS / "tray-menu.png").stat().st_size > 1000

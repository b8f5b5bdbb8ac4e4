"""Without ``MEMTRAY_HOME`` the home is the platform's per-user data folder (Windows: %LOCALAPPDATA%)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from engine.paths import Paths, default_home, platform_home


def test_the_default_home_is_the_platforms_user_data_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMTRAY_HOME")
    if os.name == "nt":  # the suite points %LOCALAPPDATA% at the test's own folder (tests/conftest.py)
        expected = Path(os.environ["LOCALAPPDATA"]) / "memtray"
    elif sys.platform == "darwin":
        expected = Path.home() / "Library" / "Application Support" / "memtray"
    else:
        expected = Path(os.environ["XDG_DATA_HOME"]) / "memtray"
    assert platform_home() == expected
    assert default_home() == expected
    assert Paths.resolve().home == expected.resolve()
    assert (expected / "sessions").is_dir()  # created there, in the test's own folder

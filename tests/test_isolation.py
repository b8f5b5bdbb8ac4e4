"""The suite's isolation holds: every test's home folders are its own, never the user's."""

from __future__ import annotations

import os
from pathlib import Path

from engine.paths import Paths


def test_each_test_has_its_own_home_and_memtray_home(tmp_path: Path) -> None:
    assert Path.home() == tmp_path / "user-home" and Path.home().is_dir()
    assert Path("~/.claude/projects").expanduser().is_relative_to(tmp_path)
    assert Paths.resolve().root.is_relative_to(tmp_path)
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        assert Path(os.environ[var]).is_relative_to(tmp_path), var

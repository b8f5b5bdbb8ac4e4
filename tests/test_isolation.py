"""The suite's isolation holds: every test's home folders are its own, never the user's."""

from __future__ import annotations

import os
from pathlib import Path

from engine.paths import Paths


def test_each_test_has_its_own_home_and_memtray_home(tmp_path: Path) -> None:
    assert Path.home().is_dir() and not any(Path.home().iterdir())
    assert Path.home().name.startswith("user-home")
    if os.name == "posix":  # on Windows "~root" is a sibling of the current home, whatever it is
        assert Path.home() != Path("~root").expanduser()
    assert Path("~/.claude/projects").expanduser().parent.parent == Path.home()
    assert not any(tmp_path.iterdir())  # nothing of the set-up in the test's own folder
    assert Paths.resolve().home == tmp_path / "memtray-home"
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        assert Path(os.environ[var]).is_relative_to(tmp_path), var

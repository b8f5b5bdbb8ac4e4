"""A fresh clone (no ``.qm`` files) under ``LANG=zh_TW.UTF-8``: the app compiles the translation at its
first start (into the user's cache folder) and its UI is in Traditional Chinese."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clirun import ROOT
from tests.desktop.conftest import seed


def fresh_clone(dest: Path) -> Path:
    """``git clone`` of this checkout's commit (no build products: no ``.qm``)."""
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a git checkout")
    subprocess.run([git, "clone", "-q", "--depth", "1", f"file://{ROOT}", str(dest)], check=True, timeout=120)
    return dest


def test_a_fresh_clone_starts_in_traditional_chinese(tmp_path: Path) -> None:
    clone = fresh_clone(tmp_path / "clone")
    assert not list((clone / "desktop" / "translations").glob("*.qm"))
    home = tmp_path / "home"
    seed(home, long_messages=4)
    cache = tmp_path / "cache"
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "LANG": "zh_TW.UTF-8",
        "LC_ALL": "zh_TW.UTF-8",
        "LANGUAGE": "zh_TW",
        "XDG_CACHE_HOME": str(cache),
    }
    env.pop("MEMTRAY_LANG", None)
    proc = subprocess.run(
        [sys.executable, "-m", "tests.desktop.quitcheck", str(home), "viewer", "tray"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ready = json.loads(next(line for line in proc.stdout.splitlines() if line.startswith("READY"))[6:])
    assert Path(ready["code"]).is_relative_to(clone)  # the clone's code ran, not this checkout's
    assert ready["quit_text"] == "結束(&Q)"
    assert list(cache.glob("memtray/translations/*/memtray_zh_TW.qm"))
    log = (home / "logs" / "memtray.log").read_text(encoding="utf-8")
    assert "UI language: zh_TW" in log and "compiled memtray_zh_TW.ts" in log

"""A symbolic link where memtray keeps its logs (the ``logs`` folder or the log file) never makes memtray
change the mode of the link's target; a linked log file is not written at all."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from engine.logs import configure
from engine.paths import Paths

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes and links are POSIX")


def test_a_linked_logs_folder_keeps_its_targets_mode(tmp_path: Path) -> None:
    target = tmp_path / "shared"
    target.mkdir(mode=0o755)
    target.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    (home / "logs").symlink_to(target)
    paths = Paths.resolve(home)
    configure(paths.logs_dir, console_level=None)
    logging.getLogger("memtray.test").warning("a line")
    assert target.stat().st_mode & 0o777 == 0o755


def test_a_linked_log_file_is_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    victim.chmod(0o644)
    logs = tmp_path / "home" / "logs"
    logs.mkdir(parents=True)
    (logs / "memtray.log").symlink_to(victim)
    configure(logs, console_level=None)
    logging.getLogger("memtray.test").warning("a line")
    assert victim.stat().st_mode & 0o777 == 0o644 and victim.read_text() == "mine\n"


def teardown_module() -> None:
    root = logging.getLogger("memtray")
    for handler in list(root.handlers):
        if getattr(handler, "_memtray", False):
            root.removeHandler(handler)
            handler.close()

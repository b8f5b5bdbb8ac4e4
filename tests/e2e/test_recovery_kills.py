"""Kill loops of real ``memtray repair``, ``memtray forget`` and ``memtray import`` processes (SIGKILL at
random points, some aimed at the window between recording the work and finishing it): after the next
command, nothing lost, nothing twice, nothing half done. ``python -m bench.recovery_kills`` runs longer
loops and prints the same figures."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from bench import recovery_kills

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")


def test_a_repair_killed_anywhere_is_finished_by_the_next_command(tmp_path: Path) -> None:
    tally = recovery_kills.repair_loop(tmp_path, kills=8, messages=1500, rng=random.Random(22))
    print("\n" + tally.line())
    assert (tally.lost, tally.doubled, tally.left) == (0, 0, 0)
    assert tally.kills >= 4 and tally.mid_work >= 1


def test_a_forget_killed_anywhere_is_finished_and_stays_final(tmp_path: Path) -> None:
    tally = recovery_kills.forget_loop(tmp_path, kills=8, messages=1500, rng=random.Random(22))
    print("\n" + tally.line())
    assert (tally.lost, tally.doubled, tally.left) == (0, 0, 0)
    assert tally.kills >= 4 and tally.mid_work >= 1


def test_an_import_killed_anywhere_leaves_every_session_its_history_file(tmp_path: Path) -> None:
    tally = recovery_kills.import_loop(tmp_path, kills=8, conversations=150, rng=random.Random(22))
    print("\n" + tally.line())
    assert (tally.lost, tally.doubled, tally.left) == (0, 0, 0)
    assert tally.kills >= 3 and tally.mid_work >= 1

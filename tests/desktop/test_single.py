"""Single instance: the second launch does not run, and the first is asked to show itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from desktop.single import QUIT, SEARCH, SingleInstance


def test_second_launch_knocks_on_the_first(tmp_path: Path, qtbot: Any) -> None:
    first = SingleInstance(tmp_path, tmp_path / "app.lock")
    second = SingleInstance(tmp_path, tmp_path / "app.lock")
    try:
        assert first.acquire()
        assert not second.acquire()
        with qtbot.waitSignal(first.activation_requested, timeout=5000):
            assert second.notify_running()
    finally:
        first.release()
    third = SingleInstance(tmp_path, tmp_path / "app.lock")
    assert third.acquire()  # released: the next launch runs
    third.release()


def test_other_homes_do_not_collide(tmp_path: Path) -> None:
    a = SingleInstance(tmp_path / "a", tmp_path / "a.lock")
    b = SingleInstance(tmp_path / "b", tmp_path / "b.lock")
    try:
        assert a.acquire() and b.acquire()
        assert a.name != b.name
    finally:
        a.release()
        b.release()


@pytest.mark.parametrize(("message", "signal"), [(QUIT, "quit_requested"), (SEARCH, "search_requested")])
def test_a_request_reaches_the_running_app(tmp_path: Path, qtbot: Any, message: str, signal: str) -> None:
    """``memtray --quit`` and ``memtray --search`` ask the running app, which does that, not "show"."""
    first = SingleInstance(tmp_path, tmp_path / "app.lock")
    knocker = SingleInstance(tmp_path, tmp_path / "app.lock")
    try:
        assert first.acquire()
        with (
            qtbot.assertNotEmitted(first.activation_requested),
            qtbot.waitSignal(getattr(first, signal), timeout=5000),
        ):
            assert knocker.notify_running(message=message)
    finally:
        first.release()


@pytest.mark.allow_warnings
def test_quit_without_a_running_app_says_so(tmp_path: Path, qtbot: Any) -> None:
    knocker = SingleInstance(tmp_path / "nobody", tmp_path / "nobody.lock")
    assert not knocker.notify_running(timeout_ms=500, message=QUIT)

"""Show the work: the status lines (English and zh-TW), the estimate from the rate seen between refreshes,
the tray icon's states on light and dark panels, Pause/Resume of summaries and embedding, and Repair… of
a damaged database through to an open memory: found at open, or by the daily integrity check while the
memory is open (the app lets go of it before the repair and replaces it after)."""

from __future__ import annotations

import contextlib
import dataclasses
import random
import sqlite3
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import SIGNAL
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QApplication

from desktop import i18n
from desktop.app import Memtray
from desktop.backlog import Backlog
from desktop.operations import Operations
from desktop.state import AppState
from desktop.status import ATTENTION, IDLE, PAUSED, WORKING, status_of
from desktop.tasks import TaskRunner
from desktop.tray import Tray, tooltip_text
from desktop.trayicon import panel_is_dark, pixmap, state_icon
from engine import Memory
from engine.embedders.chooser import Choice
from engine.errors import CorruptStore
from engine.paths import Paths
from engine.semantic.tier import SemanticStatus
from tests.desktop.conftest import seed
from tests.desktop.fakes import FakeSummaries

CHOICE = Choice("hash", "hash", "hash-512", "given by the test")


def backlog_of(state: AppState, queued: int, **settings: Any) -> None:
    """Pretend the last refresh read ``queued`` messages waiting (and these settings)."""
    snap = state.snapshot
    state.snapshot = dataclasses.replace(
        snap,
        embedding=SemanticStatus(CHOICE, queued),
        settings=dataclasses.replace(snap.settings, **settings),
    )
    state.state_did_change.emit()


@pytest.fixture
def tray(state: AppState, qtbot: Any) -> Tray:
    return Tray(state)


def test_the_estimate_follows_the_rate_seen_between_refreshes() -> None:
    backlog = Backlog()
    backlog.observe(50_000, now=0.0)
    assert (backlog.done, backlog.total, backlog.eta_seconds()) == (0, 50_000, None)
    backlog.observe(48_400, now=60.0)  # 1,600 in a minute
    backlog.observe(46_800, now=120.0)
    assert (backlog.done, backlog.total) == (3_200, 50_000)
    eta = backlog.eta_seconds()
    assert eta is not None and 29 * 60 < eta < 30 * 60
    backlog.observe(47_800, now=150.0)  # 1,000 more arrived
    assert backlog.total == 51_000
    backlog.observe(0, now=200.0)
    assert (backlog.total, backlog.eta_seconds()) == (0, None)
    paused = Backlog()
    paused.observe(10, now=0.0)
    paused.observe(8, moving=False, now=10.0)  # paused: what moved is not a rate
    assert paused.rate is None


def test_status_lines_say_what_is_going_on(tray: Tray, state: AppState, memory: Memory) -> None:
    assert status_of(state).lines == ("Up to date",) and tray.level == IDLE
    state.backlog.observe(50_000, now=0.0)
    state.backlog.observe(46_800, now=120.0)  # 3,200 in two minutes
    state.backlog.observe(46_800 - 3_200 * 6 // 8, now=210.0)
    backlog_of(state, state.backlog.left)
    line = status_of(state).headline
    assert line.startswith(f"Embedding {state.backlog.done:,} of 50,000 · about ") and line.endswith(" min")
    assert tray.level == WORKING
    tip = tooltip_text(state)
    assert line in tip and "Up to date" not in tip and "Idle" not in tip
    tray.rebuild()
    assert tray.action("status").text() == line and not tray.action("status").isEnabled()
    state.summaries = FakeSummaries()
    backlog_of(state, 0, summaries_enabled=False)
    assert status_of(state).lines == ("Summaries paused",) and tray.level == PAUSED
    assert tray.icon.toolTip().splitlines()[1] == "Summaries paused"


def test_the_status_in_traditional_chinese(
    qapp: QApplication, state: AppState, translations_dir: Path
) -> None:
    i18n.install(qapp, "zh_TW", translations_dir)
    try:
        state.backlog.observe(50_000, now=0.0)
        state.backlog.observe(46_800, now=1_200.0)  # 3,200 in 20 minutes: 46,800 take 4.9 hours
        backlog_of(state, 46_800)
        assert status_of(state).headline == "正在建立語意索引：3,200 / 50,000 · 約 5 小時"
        state.summaries = FakeSummaries()
        backlog_of(state, 0, summaries_enabled=False)
        assert status_of(state).headline == "自動摘要已暫停"
    finally:
        i18n.install(qapp, "en", translations_dir)


def _image(level: str, dark: bool, size: int = 22) -> QImage:
    return pixmap(size, level, dark).toImage()


def test_the_icon_has_a_picture_per_state_and_panel() -> None:
    for dark in (False, True):
        pictures = [_image(level, dark) for level in (IDLE, WORKING, PAUSED, ATTENTION)]
        assert len({bytes(p.constBits()) for p in pictures}) == 4  # one picture per state
    for level in (IDLE, ATTENTION):
        assert _image(level, False) != _image(level, True)  # the outline follows the panel
    # The outline's corner pixel: dark ink on a light panel, light ink on a dark one.
    light, dark = _image(IDLE, False, 64), _image(IDLE, True, 64)
    assert QColor(light.pixel(32, 5)).lightness() < 80 < QColor(dark.pixel(32, 5)).lightness()
    assert state_icon(WORKING, True) is state_icon(WORKING, True)  # cached: set only when it changes
    assert {s.width() for s in state_icon(IDLE).availableSizes()} >= {16, 22, 24, 32}


@pytest.fixture
def dark_palette(qapp: QApplication, monkeypatch: pytest.MonkeyPatch) -> Iterator[QPalette]:
    monkeypatch.delenv("XDG_CURRENT_DESKTOP", raising=False)
    before = QPalette(qapp.palette())
    dark = QPalette(before)
    dark.setColor(QPalette.ColorRole.Window, QColor("#202124"))
    dark.setColor(QPalette.ColorRole.WindowText, QColor("#e8eaed"))
    qapp.setPalette(dark)
    yield dark
    qapp.setPalette(before)


def test_a_dark_palette_gives_the_dark_panel_icon(
    dark_palette: QPalette, state: AppState, qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert panel_is_dark(qapp)
    tray = Tray(state)
    assert tray.dark and tray.level == IDLE
    assert tray.icon.icon().pixmap(22).toImage() == state_icon(IDLE, True).pixmap(22).toImage()
    monkeypatch.setenv("XDG_CURRENT_DESKTOP", "ubuntu:GNOME")  # GNOME's top bar is dark in any theme
    qapp.setPalette(QApplication.style().standardPalette())
    assert panel_is_dark(qapp)


def test_pause_and_resume_reach_the_engine(tray: Tray, state: AppState, memory: Memory, qtbot: Any) -> None:
    ops = Operations(state)
    tray.actions.embedding_pause_requested.connect(ops.set_embedding_paused)
    tray.actions.pause_requested.connect(ops.set_summaries_paused)
    tray.rebuild()
    assert tray.action("pause-embedding").text() == "Pause &embedding"
    with qtbot.waitSignal(state.state_did_change, timeout=5000):
        tray.action("pause-embedding").trigger()
    qtbot.waitUntil(lambda: state.embedding_paused, timeout=5000)
    assert memory.embedding_paused is True
    assert "Embedding paused" in status_of(state).lines and tray.level == PAUSED
    tray.rebuild()
    assert tray.action("pause-embedding").text() == "Resume &embedding"
    tray.action("pause-embedding").trigger()
    qtbot.waitUntil(lambda: not state.embedding_paused, timeout=5000)
    assert memory.embedding_paused is False
    tray.action("pause").trigger()
    qtbot.waitUntil(lambda: state.summaries_paused, timeout=5000)
    assert memory.settings.summaries_enabled is False


def damaged_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    seed(home, long_messages=10)
    database = home / ".store" / "history.db"
    data = bytearray(database.read_bytes())
    data[:16] = b"garbage garbage!"  # not a database any more
    database.write_bytes(bytes(data))
    for side in ("history.db-wal", "history.db-shm"):
        (home / ".store" / side).unlink(missing_ok=True)
    return home


@pytest.mark.allow_warnings  # the failed open and the repair are warnings
def test_a_damaged_database_needs_attention_and_repair_opens_it(
    qapp: QApplication, tmp_path: Path, qtbot: Any
) -> None:
    home = damaged_home(tmp_path)
    memtray = Memtray(qapp, Paths.resolve(home), tray_available=True)
    with qtbot.waitSignal(memtray.memory_did_fail, timeout=10_000):
        memtray.start()
    try:
        tray = memtray.tray
        assert tray is not None and memtray.state.damaged
        assert tray.level == ATTENTION
        tray.rebuild()
        assert tray.action("status").text() == "Database damaged — Repair…"
        assert tray.action("repair").isEnabled() and not tray.action("open-sessions").isEnabled()
        tray.action("repair").trigger()
        box = memtray.repair.confirmation
        assert box is not None and box.defaultButton() is box.button(box.StandardButton.Cancel)
        repair_button = next(b for b in box.buttons() if b.text() == "Repair")
        with qtbot.waitSignal(memtray.memory_did_open, timeout=20_000):
            repair_button.click()
        qtbot.waitUntil(lambda: bool(memtray.state.snapshot.sessions), timeout=5000)
        assert not memtray.state.damaged and tray.level in (IDLE, WORKING)
        assert {s.id for s in memtray.state.snapshot.sessions} >= {"proj-zh", "english-notes"}
        assert list((home / ".store").glob("history.db.corrupt-*"))  # the damaged file was kept
        tray.rebuild()
        assert "repair" not in [a.objectName() for a in tray.menu.actions()]
    finally:
        memtray.stop()


def garbage_pages(database: Path) -> None:
    """Overwrite every third page after the first with random bytes (the header stays readable)."""
    data = bytearray(database.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    rng = random.Random(3)
    for number in range(2, len(data) // page, 3):
        data[number * page : (number + 1) * page] = rng.randbytes(page)
    database.write_bytes(bytes(data))


def recorder(calls: list[str], name: str, work: Callable[..., Any]) -> Callable[..., Any]:
    """``work``, noting each call in ``calls``."""

    def run(*args: Any, **kwargs: Any) -> Any:
        calls.append(name)
        return work(*args, **kwargs)

    return run


def on_the_store_worker(memtray: Memtray, qtbot: Any, op: Callable[[], Any]) -> None:
    """Run ``op`` on the app's store worker and wait for it (after whatever was queued before it)."""
    done: list[bool] = []
    memtray.runner.run_query(op, lambda _result: done.append(True))
    qtbot.waitUntil(lambda: bool(done), timeout=20_000)


@pytest.mark.allow_warnings  # the damage found, the reads it fails and the repair are warnings
def test_repair_while_the_memory_is_open_lets_go_of_it_first_and_replaces_it(
    qapp: QApplication, seeded_home: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    memtray = Memtray(qapp, Paths.resolve(seeded_home), tray_available=True)
    with qtbot.waitSignal(memtray.memory_did_open, timeout=20_000):
        memtray.start()
    closes: list[str] = []
    new: Memory | None = None
    try:
        tray, old, old_scheduler = memtray.tray, memtray.state.memory, memtray.scheduler
        assert tray is not None and old is not None and old_scheduler is not None
        qtbot.waitUntil(lambda: memtray.state.has_snapshot, timeout=5000)
        viewer = memtray.show_viewer("conversation")
        viewer.conversation.open(old, "english-notes")
        qtbot.waitUntil(lambda: not viewer.conversation.model.loading, timeout=5000)
        hooks = memtray.receivers(SIGNAL("shutting_down()"))
        database = seeded_home / ".store" / "history.db"

        def damage() -> None:  # on the store worker, so no statement of the app runs meanwhile
            assert old.wait_idle(30)
            for pool in (old._store._read, old._store._write):
                pool.drain()  # its pooled connections: the next statement reads the file anew
            with contextlib.closing(sqlite3.connect(database)) as conn:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything in the file, none in the WAL
            garbage_pages(database)

        on_the_store_worker(memtray, qtbot, damage)
        integrity = next(iter(old_scheduler.scheduler.get_jobs("integrity")))
        integrity.run()  # the daily check, as a tick runs it when it is due
        qtbot.waitUntil(lambda: memtray.state.damaged, timeout=20_000)
        assert memtray.state.memory is old and tray.level == ATTENTION
        tray.rebuild()
        assert tray.action("status").text() == "Database damaged — Repair…"

        seen: dict[str, object] = {}
        real_repair, real_close = Memory.repair, old.close

        def repair(home: Path | str | None = None) -> Any:
            seen["old closed"] = old.closed
            seen["old embedder running"] = old.semantic._worker._thread.is_alive()
            seen["memory in the state"] = memtray.state.memory
            seen["memory in the viewer"] = (viewer.conversation.model.memory, viewer.search.memory)
            return real_repair(home)

        monkeypatch.setattr(Memory, "repair", staticmethod(repair))
        monkeypatch.setattr(old, "close", recorder(closes, "old", real_close))
        outcomes: list[Any] = []
        memtray.repair.repair_did_finish.connect(outcomes.append)
        tray.action("repair").trigger()
        box = memtray.repair.confirmation
        assert box is not None and box.text() == "The memory's database is damaged. Repair it now?"
        repair_button = next(b for b in box.buttons() if b.text() == "Repair")
        with qtbot.waitSignal(memtray.memory_did_open, timeout=30_000):
            repair_button.click()

        assert seen == {
            "old closed": True,
            "old embedder running": False,
            "memory in the state": None,
            "memory in the viewer": (None, None),
        }
        assert closes == ["old"]
        new = memtray.state.memory
        assert new is not None and new is not old and not new.closed
        assert [(o.ok, o.title) for o in outcomes] == [(True, "Database repaired")]
        assert "The damaged file was kept as history.db.corrupt-" in outcomes[0].text
        assert list((seeded_home / ".store").glob("history.db.corrupt-*"))
        assert not memtray.state.damaged and memtray.state.open_error is None
        qtbot.waitUntil(lambda: bool(memtray.state.snapshot.sessions), timeout=5000)
        assert tray.level != ATTENTION
        assert {s.id for s in memtray.state.snapshot.sessions} >= {"proj-zh", "english-notes"}
        assert viewer.conversation.model.memory is new and viewer.search.memory is new
        assert viewer.summary is not None and viewer.summary.source is memtray.state.summaries
        qtbot.waitUntil(lambda: viewer.conversation.model.rowCount() == 4, timeout=5000)

        # one scheduler, one set of timers and shutdown hooks: the new memory's replace the old one's
        assert memtray.scheduler is not None and memtray.scheduler is not old_scheduler
        assert memtray.receivers(SIGNAL("shutting_down()")) == hooks
        assert memtray.tick_timer.receivers(SIGNAL("timeout()")) == 1
        assert memtray.tick_timer.isActive() and memtray.refresh_timer.isActive()
        assert memtray.changes.timer.isActive()
        calls: list[str] = []
        monkeypatch.setattr(new.errors, "purge_expired", recorder(calls, "purge", new.errors.purge_expired))
        monkeypatch.setattr(new, "cleanup_temp_sessions", recorder(calls, "temp", new.cleanup_temp_sessions))
        monkeypatch.setattr(new, "check_integrity", recorder(calls, "check", new.check_integrity))
        monkeypatch.setattr(
            old.errors, "purge_expired", recorder(calls, "old purge", old.errors.purge_expired)
        )
        due = datetime.now() - timedelta(seconds=1)
        for scheduler in (old_scheduler, memtray.scheduler):
            for job in scheduler.scheduler.get_jobs("maintenance"):
                job.next_run = due
        memtray.tick_timer.timeout.emit()  # one tick: the maintenance jobs are submitted to the store worker
        on_the_store_worker(memtray, qtbot, lambda: None)  # queued after them: they have run
        assert sorted(calls) == ["check", "purge", "temp"]
    finally:
        memtray.stop()
    # quitting closed the new memory, and did not close the old one a second time
    assert closes == ["old"] and new is not None and new.closed


def test_without_a_memory_the_status_says_why(runner: TaskRunner) -> None:
    state = AppState(runner)
    assert status_of(state).lines == ("Starting…",)
    state.set_open_failure(CorruptStore("file is not a database"), "damaged")
    assert status_of(state).level == ATTENTION
    assert status_of(state).headline == "Database damaged — Repair…"


def test_damage_found_while_the_memory_is_open_needs_attention(state: AppState) -> None:
    assert status_of(state).level != ATTENTION
    state.set_open_failure(CorruptStore("the daily check found damage"), "damaged")
    assert state.memory is not None and state.damaged
    assert status_of(state).level == ATTENTION
    assert status_of(state).lines == ("Database damaged — Repair…",)

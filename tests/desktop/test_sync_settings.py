"""Settings ▸ Sync with real homes and a real shared folder: an empty folder is created, a second home
joins, a wrong passphrase is told in words, the status shows the other device after a sync, disable; the
tray's status line and its "Sync now"."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QCheckBox, QLabel

from desktop.actions import AppActions
from desktop.settings_window import SettingsWindow
from desktop.state import AppState
from desktop.status import status_of
from desktop.sync_settings import SyncBox
from engine import Memory
from engine.llm.keys import Keys
from engine.messages import Message
from tests.engine.sync.conftest import Homes, MemoryKeyring, fast_kdf, homes

__all__ = ["fast_kdf", "homes"]  # fixtures: the fast key derivation, the other home

PASS = "correct horse battery staple"


@pytest.fixture
def keys() -> Keys:
    """An in-memory keyring: the sync key is stored as in the OS keyring, nothing leaves the test."""
    return Keys(backend=MemoryKeyring())


@pytest.fixture
def box(state: AppState, qtbot: Any) -> SyncBox:
    window = SettingsWindow(state)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.sync.status.text() != "", timeout=5000)
    return window.sync


def choose(box: SyncBox, qtbot: Any, folder: Path) -> None:
    box.folder.setText(str(folder))
    box.check_folder()
    qtbot.waitUntil(lambda: box.joining is not None, timeout=5000)


def enable(box: SyncBox, qtbot: Any, passphrase: str, confirm: str | None = None) -> None:
    box.passphrase.setText(passphrase)
    box.confirm.setText(passphrase if confirm is None else confirm)
    box.enable.click()
    qtbot.waitUntil(box.enable.isEnabled, timeout=10_000)


def other_home(homes: Homes, folder: Path) -> Memory:
    other = homes.open("other")
    other.sync.enable(folder, PASS, "laptop-b")
    other.append("far", [Message("user", "the zebra crossing on the far laptop", 1)])
    other.sync.now()
    return other


def test_enabling_an_empty_folder_creates_it(
    box: SyncBox, state: AppState, qtbot: Any, tmp_path: Path
) -> None:
    assert box.status.text() == "Sync is off." and not box.sync_now.isEnabled()
    folder = tmp_path / "Sync"
    folder.mkdir()
    choose(box, qtbot, folder)
    assert box.joining is False and "set up sync" in box.mode.text() and not box.confirm.isHidden()
    box.device_name.setText("desk")
    enable(box, qtbot, PASS, confirm="something else")
    assert "differ" in box.message.text() and not (folder / "memtray").exists()
    enable(box, qtbot, PASS)
    assert box.message.text() == "Sync is on."
    assert (folder / "memtray" / "sync.json").is_file()
    assert box.passphrase.text() == "" and box.confirm.text() == ""  # the passphrase is not kept in the form
    assert "This device: desk" in box.status.text() and "No other device" in box.status.text()
    assert box.sync_now.isEnabled() and box.disable.isEnabled()
    qtbot.waitUntil(lambda: state.snapshot.sync is not None and state.snapshot.sync.enabled, timeout=5000)
    assert "Sync on, not synced yet" in status_of(state).lines


def test_a_second_home_joins_and_sees_the_other_device_after_a_sync(
    box: SyncBox, state: AppState, memory: Memory, homes: Homes, qtbot: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "Sync"
    folder.mkdir()
    other_home(homes, folder)
    choose(box, qtbot, folder)
    assert box.joining is True and "join" in box.mode.text() and box.confirm.isHidden()
    enable(box, qtbot, PASS)
    assert box.message.text() == "Sync is on: this device joined the folder."
    box.sync_now.click()
    qtbot.waitUntil(lambda: box.message.text() == "Synced.", timeout=10_000)
    assert "laptop-b: applied 1 of 1 (0 pending), last applied just now" in box.status.text()
    assert "Not watching the folder: syncing every minute." in box.status.text()  # no scheduler here
    assert "Last sync: just now" in box.status.text()
    hits = memory.search("zebra", match="keyword")
    assert [h.message.content for h in hits] == ["the zebra crossing on the far laptop"]
    qtbot.waitUntil(lambda: "Synced just now" in status_of(state).lines, timeout=5000)
    # The tray's "Sync now" is there and enabled while sync is on.
    actions = AppActions(state)
    entry = next(e for e in actions.entries() if e is not None and getattr(e, "name", "") == "sync-now")
    assert entry.enabled
    # Disable: sync is off, the folder's files stay.
    box.disable.click()
    qtbot.waitUntil(lambda: box.status.text() == "Sync is off.", timeout=5000)
    assert "left as they are" in box.message.text() and not box.sync_now.isEnabled()
    assert (folder / "memtray" / "sync.json").is_file()
    qtbot.waitUntil(lambda: state.snapshot.sync is not None and not state.snapshot.sync.enabled, timeout=5000)
    assert not any(line.startswith("Sync") for line in status_of(state).lines)


@pytest.mark.allow_warnings
def test_a_wrong_passphrase_is_told_in_words(box: SyncBox, homes: Homes, qtbot: Any, tmp_path: Path) -> None:
    folder = tmp_path / "Sync"
    folder.mkdir()
    other_home(homes, folder)
    choose(box, qtbot, folder)
    enable(box, qtbot, "not the passphrase")
    assert "passphrase does not open this sync folder" in box.message.text()
    assert "Traceback" not in box.message.text() and box.status.text() == "Sync is off."
    assert box.passphrase.text() == ""


def test_a_missing_folder_is_told_in_words(box: SyncBox, qtbot: Any, tmp_path: Path) -> None:
    box.folder.setText(str(tmp_path / "nowhere"))
    box.check_folder()
    qtbot.waitUntil(lambda: "does not exist" in box.mode.text(), timeout=5000)
    assert box.mode.text().startswith("Sync cannot go on:") and box.joining is None
    box.passphrase.setText(PASS)
    box.enable.click()  # enabling says the same, in the message line
    qtbot.waitUntil(lambda: "does not exist" in box.message.text(), timeout=10_000)


def test_tab_walks_the_sync_group_in_order_and_each_control_has_a_name(
    state: AppState, qtbot: Any, tmp_path: Path
) -> None:
    from tests.desktop.test_keyboard import activate, names, spoken, tab_walk

    window = SettingsWindow(state)
    qtbot.addWidget(window)
    activate(window, qtbot)
    box = window.sync
    qtbot.waitUntil(lambda: box.status.text() != "", timeout=5000)
    folder = tmp_path / "Sync"
    folder.mkdir()
    choose(box, qtbot, folder)  # an empty folder: the confirmation field is shown
    walked = tab_walk(window, box.folder)
    inside = [w for w in walked if box.isAncestorOf(w)]
    expected = [box.folder, box.choose, box.device_name, box.passphrase, box.confirm, box.enable]
    assert inside[: len(expected)] == expected, names(inside)
    assert not box.sync_now.isEnabled() and box.sync_now not in walked  # off: nothing to sync
    assert all(spoken(w)[0].strip() for w in inside), [names([w]) for w in inside if not spoken(w)[0]]
    assert spoken(box.passphrase)[0] == "Sync passphrase" and "same passphrase" in spoken(box.passphrase)[1]


@pytest.mark.allow_warnings
def test_a_folder_gone_after_enabling_is_the_last_error_in_the_status_and_the_tray(
    box: SyncBox, state: AppState, qtbot: Any, tmp_path: Path
) -> None:
    import shutil

    folder = tmp_path / "Sync"
    folder.mkdir()
    choose(box, qtbot, folder)
    enable(box, qtbot, PASS)
    shutil.rmtree(folder)  # the drive was unplugged, the share unmounted
    box.sync_now.click()
    qtbot.waitUntil(lambda: "Last error:" in box.status.text(), timeout=10_000)
    assert (
        box.message.text().startswith("Sync cannot go on: the sync folder")
        and "is not there" in box.message.text()
    )
    qtbot.waitUntil(
        lambda: any(line.startswith("Sync: the sync folder") for line in status_of(state).lines), timeout=5000
    )
    assert status_of(state).level == "paused"


def test_the_tray_s_sync_now_applies_what_the_other_device_wrote_and_says_so(
    state: AppState, memory: Memory, homes: Homes, qtbot: Any, tmp_path: Path
) -> None:
    from desktop.operations import Operations

    folder = tmp_path / "Sync"
    folder.mkdir()
    other_home(homes, folder)
    memory.sync.enable(folder, PASS, "desk")  # as `memtray sync enable` would (the test thread may wait)
    state.refresh()
    qtbot.waitUntil(lambda: "Sync on, not synced yet" in status_of(state).lines, timeout=5000)
    actions, operations = AppActions(state), Operations(state)
    actions.sync_requested.connect(operations.sync_now)
    operations.memory_did_change.connect(state.refresh)  # as the app wires them
    entry = next(e for e in actions.entries() if e is not None and getattr(e, "name", "") == "sync-now")
    assert entry.enabled and entry.run is not None
    with qtbot.waitSignal(operations.operation_did_finish, timeout=10_000) as blocker:
        entry.run()
    outcome = blocker.args[0]
    assert (outcome.title, outcome.ok) == ("Synced", True)
    # the seeded home's own messages go out; the far laptop's one comes in
    assert re.fullmatch(
        r"Sent [1-9][\d,]* new messages\. Received 1 new message from the other devices\.", outcome.text
    )
    qtbot.waitUntil(lambda: "Synced just now" in status_of(state).lines, timeout=5000)


def test_the_app_s_folder_watch_applies_another_device_s_segment_on_the_store_worker(
    box: SyncBox, state: AppState, memory: Memory, homes: Homes, qtbot: Any, tmp_path: Path
) -> None:
    """The scheduler the app makes watches the folder: the laptop's new segment is applied here within
    seconds (the timer is a minute away), on the store worker, handed over through the GUI thread, and the
    status block says the folder is watched."""
    import threading

    from desktop.scheduling import make_scheduler

    folder = tmp_path / "Sync"
    folder.mkdir()
    other = other_home(homes, folder)
    memory.sync.enable(folder, PASS, "desk")
    threads: dict[str, set[str]] = {"sync": set(), "hand over": set()}
    real_now, real_run_on_main = memory.sync.now, state.runner.run_on_main

    def now() -> object:
        threads["sync"].add(threading.current_thread().name)
        return real_now()

    def run_on_main(closure: Any) -> None:
        threads["hand over"].add(threading.current_thread().name)
        real_run_on_main(closure)

    memory.sync.now = now  # type: ignore[method-assign]
    state.runner.run_on_main = run_on_main  # type: ignore[method-assign]
    scheduler = make_scheduler(memory, state.summaries, state, lambda: None)  # type: ignore[arg-type]
    qtbot.waitUntil(lambda: memory.sync.watch is not None and memory.sync.watch.active, timeout=20_000)
    qtbot.waitUntil(lambda: bool(memory.search("zebra", match="keyword")), timeout=20_000)
    other.append("far", [Message("user", "a quokka seen from the laptop", 2)])
    other.sync.now()
    qtbot.waitUntil(lambda: bool(memory.search("quokka", match="keyword")), timeout=20_000)
    assert threads["sync"] == {"memtray-store_0"} and threads["hand over"] == {"memtray-sync-watch"}
    assert scheduler.scheduler.get_next_run("sync") is not None
    box.load()
    qtbot.waitUntil(lambda: "Watching the folder: changes arrive within seconds." in box.status.text())
    assert "laptop-b: applied 2 of 2 (0 pending), last applied just now" in box.status.text()


def test_while_sync_is_on_the_settings_every_device_shares_say_so(
    box: SyncBox, state: AppState, qtbot: Any, tmp_path: Path
) -> None:
    window = box.window()
    assert isinstance(window, SettingsWindow) and set(window.fields()) == set(window.values())

    def marked() -> set[str]:
        texts = [label.text() for label in window.findChildren(QLabel)]
        texts += [check.text() for check in window.findChildren(QCheckBox)]
        return {text.removesuffix(" (all devices)") for text in texts if text.endswith(" (all devices)")}

    assert marked() == set()
    folder = tmp_path / "Sync"
    folder.mkdir()
    choose(box, qtbot, folder)
    enable(box, qtbot, PASS)
    qtbot.waitUntil(lambda: marked() != set(), timeout=5000)
    summaries = window.summaries_enabled.text().removesuffix(" (all devices)")
    assert marked() == {
        "Summary model",
        "Decision model",
        "Chat model",
        "Reply language",
        "Messages sent each turn",
        summaries,
    }
    assert "every device" in window.summaries_enabled.toolTip()
    box.disable.click()
    qtbot.waitUntil(lambda: marked() == set(), timeout=5000)
    assert window.summaries_enabled.toolTip() == ""

"""The desktop app wired to the real engine: summaries against the fake Gemini server, the error memory,
the scheduler, the Gemini key in a real keyring (and the ``fail`` backend), the key test, File ▸ Import….
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from keyring.backends import fail
from PySide6.QtWidgets import QApplication

from desktop import seams
from desktop.app import Memtray
from desktop.operations import Operations, Outcome
from desktop.scheduling import make_scheduler
from desktop.settings_window import SettingsWindow
from desktop.state import AppState
from desktop.viewer.errormemory import ErrorMemoryPanel
from desktop.viewer.window import ViewerWindow
from engine import Memory
from engine.llm.gemini import ClientFactory, make_client
from engine.llm.keys import SERVICE, USERNAME, Keys
from engine.paths import Paths
from engine.sessions import importing
from tests.engine.exportdata import gpt_conversation, gpt_linear, gpt_message
from tests.fakegemini import FakeGemini

SUMMARY = {
    "key_decisions": ["Do: 回覆使用繁體中文", "Don't: deploy on weekends"],
    "past_discussions": [
        {"topic": "記憶體不足", "description": "關閉分頁、檢查程式", "direction": "", "last_discussed": ""}
    ],
    "current_discussion": {
        "topic": "會議紀錄",
        "description": "整理今天的會議",
        "perspectives": "預算與時程",
        "direction": "下週三交付設計稿",
    },
}
KEY = "AIzaSyD-test-0123456789abcdef"


def fast_client(api_key: str, base_url: str) -> Any:
    return make_client(
        api_key, base_url=base_url, attempts=2, initial_delay_s=0.01, max_delay_s=0.02, jitter_s=0
    )


@pytest.fixture
def fake() -> Iterator[FakeGemini]:
    with FakeGemini() as server:
        server.default_text = json.dumps(SUMMARY, ensure_ascii=False)
        yield server


@pytest.fixture
def client_factory() -> ClientFactory:
    """The memory's summarizer retries fast (see :func:`fast_client`)."""
    return fast_client


@pytest.fixture
def smem(memory: Memory, fake: FakeGemini, monkeypatch: pytest.MonkeyPatch) -> Memory:
    """The seeded memory; its summarizer talks to the fake server (key from GEMINI_API_KEY)."""
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    memory.update_settings(gemini_base_url=fake.url, decision_model="")
    return memory


@pytest.fixture
def app(qapp: QApplication, smem: Memory, qtbot: Any) -> Iterator[Memtray]:
    """The whole app (with a tray, offscreen) on the seeded memory."""
    memtray = Memtray(qapp, Paths.resolve(smem.paths.home), tray_available=True, open_memory=lambda _h: smem)
    with qtbot.waitSignal(memtray.memory_did_open, timeout=10_000):
        memtray.start()
    qtbot.waitUntil(lambda: bool(memtray.state.snapshot.sessions), timeout=5000)
    yield memtray
    memtray.stop()


def outcomes(ops: Operations) -> list[Outcome]:
    found: list[Outcome] = []
    ops.operation_did_finish.connect(found.append)
    return found


# -- summaries -----------------------------------------------------------------------------------


def test_summary_panel_summarize_now_with_the_real_summarizer(
    app: Memtray, fake: FakeGemini, qtbot: Any, screenshot: Any
) -> None:
    viewer = app.show_viewer()
    viewer.resize(1100, 640)
    assert viewer.summary is not None
    panel = viewer.summary
    with qtbot.waitSignal(panel.summary_did_load, timeout=5000):
        viewer.open_session("proj-zh")
    assert panel.cursor_label.text() == "Not summarized yet"
    assert "No summary yet" in panel.view.toPlainText()
    found = outcomes(app.operations)
    viewer.tabs.setCurrentWidget(panel)
    with qtbot.waitSignal(panel.summary_did_load, timeout=15_000):  # reloaded after the run
        panel.button.click()
    assert found and found[0].ok, found
    assert found[0].title == "Summarized “我的電腦記憶體不足，該怎麼辦？”"  # the session by its title
    assert found[0].text.startswith("4 new messages merged into the summary (1 part)")
    assert [c.model for c in fake.calls()] == ["gemini-2.5-flash"]
    assert "我的電腦記憶體不足" in fake.calls()[0].text()  # the session's messages were sent
    text = panel.view.toPlainText()
    for expected in (
        "Do: 回覆使用繁體中文",
        "Don't: deploy on weekends",
        "會議紀錄",
        "下週三交付設計稿",
        "記憶體不足",
    ):
        assert expected in text
    assert panel.cursor_label.text().startswith("Summarized up to 2025-10-")
    qtbot.wait(50)
    screenshot(viewer, "summary-panel")


def test_tray_summarize_now_runs_pending_sessions_and_the_tooltip_says_when(
    app: Memtray, fake: FakeGemini, smem: Memory, qtbot: Any
) -> None:
    tray = app.tray
    assert tray is not None
    assert "Last summary run: never" in tray.icon.toolTip()
    found = outcomes(app.operations)
    threads: list[str] = []
    original = smem.summaries.generate

    def generate(session: str) -> Any:
        threads.append(threading.current_thread().name)
        return original(session)

    smem.summaries.generate = generate  # type: ignore[method-assign]
    tray.rebuild()
    with qtbot.waitSignal(app.operations.operation_did_finish, timeout=20_000):
        tray.action("summarize").trigger()
    assert found[0].ok and found[0].text.startswith("3 sessions summarized"), found
    assert all(name.startswith("memtray-net") for name in threads) and len(threads) == 3
    assert smem.summaries.pending() == []
    qtbot.waitUntil(lambda: "Last summary run: just now" in tray.icon.toolTip(), timeout=5000)


@pytest.mark.allow_warnings  # the engine logs the refused call
def test_summarize_now_failure_is_told_in_words(app: Memtray, fake: FakeGemini, qtbot: Any) -> None:
    for _ in range(4):
        fake.reply_error(401, "API key not valid")
    found = outcomes(app.operations)
    with qtbot.waitSignal(app.operations.operation_did_finish, timeout=20_000):
        app.operations.summarize_now("proj-zh")
    assert (
        not found[0].ok and found[0].title == "Could not finish summarizing “我的電腦記憶體不足，該怎麼辦？”"
    )
    assert found[0].text == "Gemini refused the API key. Check the key in Settings."


def test_pause_and_resume_go_through_the_setting(app: Memtray, smem: Memory, qtbot: Any) -> None:
    tray = app.tray
    assert tray is not None and app.scheduler is not None and app.tick_timer.isActive()
    tray.rebuild()
    tray.action("pause").trigger()  # saved on the store worker (the state changes for other reasons too)
    qtbot.waitUntil(lambda: app.state.summaries_paused, timeout=5000)
    assert smem.reload_settings().summaries_enabled is False and smem.summaries.status().enabled is False
    assert app.scheduler.submit() is None  # paused: the scheduler submits nothing
    qtbot.waitUntil(lambda: "(paused)" in tray.icon.toolTip(), timeout=5000)
    tray.rebuild()
    assert tray.action("pause").text() == "Res&ume summaries"
    tray.action("pause").trigger()
    qtbot.waitUntil(lambda: not app.state.summaries_paused, timeout=5000)
    assert smem.reload_settings().summaries_enabled is True


@pytest.mark.parametrize("keys", [Keys(backend=fail.Keyring(), environ={})], ids=["no keyring"])
def test_tooltip_says_when_there_is_no_key(
    state: AppState, memory: Memory, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop.tray import Tray

    state.summaries = seams.summaries_of(memory)
    tray = Tray(state)
    with qtbot.waitSignal(state.state_did_change, timeout=5000):
        state.refresh()
    assert "Last summary run: never (off: no Gemini key; add one in Settings)" in tray.icon.toolTip()


def test_the_scheduler_only_submits_summaries_to_the_network_pool_and_maintenance_to_the_store(
    state: AppState, smem: Memory, fake: FakeGemini, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    summaries = seams.summaries_of(smem)
    assert summaries is not None
    state.summaries = summaries
    seen: dict[str, str] = {}

    def spy(name: str, work: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            seen[name] = threading.current_thread().name
            return work(*args, **kwargs)

        return run

    monkeypatch.setattr(smem.summaries, "run_pending", spy("summaries", smem.summaries.run_pending))
    monkeypatch.setattr(smem.errors, "purge_expired", spy("purge", smem.errors.purge_expired))
    monkeypatch.setattr(smem, "cleanup_temp_sessions", spy("temp", smem.cleanup_temp_sessions))
    old = time.time() - 3 * 86400  # the temp session has been idle for days: the cleanup removes it
    for item in [smem.paths.session_dir("temp-subagent"), *smem.paths.session_dir("temp-subagent").iterdir()]:
        os.utime(item, (old, old))
    fake.reply_json(SUMMARY, delay=0.5)  # the first call is slow: the GUI thread must not wait for it
    done: list[bool] = []
    scheduler = make_scheduler(smem, summaries, state, lambda: done.append(True))
    tags = sorted({tag for job in scheduler.scheduler.get_jobs() for tag in job.tags})
    assert tags == ["errors", "integrity", "maintenance", "summaries", "temp"]
    started = time.perf_counter()
    scheduler.run_all()  # every job now, as a tick would when they are due
    assert time.perf_counter() - started < 0.3
    assert scheduler.busy()
    assert [t.label for t in state.runner.active] == ["Summarizing (scheduled)"]
    qtbot.waitUntil(lambda: bool(done), timeout=20_000)
    qtbot.waitUntil(lambda: len(seen) == 3, timeout=5000)
    assert seen["summaries"].startswith("memtray-net")
    assert seen["purge"].startswith("memtray-store") and seen["temp"].startswith("memtray-store")
    assert smem.summaries.pending() == [] and not smem.paths.history_file("temp-subagent").exists()


# -- error memory --------------------------------------------------------------------------------


def test_error_memory_tab_with_the_real_error_memory(
    state: AppState, memory: Memory, qtbot: Any, screenshot: Any
) -> None:
    errors = memory.errors
    errors.remember(
        "fetch_page",
        "timeout after 30s on example.org",
        "retried with timeout=90",
        "resolved",
        keywords=["timeout"],
    )
    errors.remember(
        "run_sql", "syntax error near 'FROM'", "quoted the column name", "resolved", cause="reserved word"
    )
    errors.remember(
        "send_mail", "permission denied by SMTP relay", "asked the user for a new password", "failed"
    )
    state.errors = seams.errors_of(memory)
    viewer = ViewerWindow(state)
    qtbot.addWidget(viewer)
    assert viewer.errors is not None
    panel = viewer.errors
    qtbot.waitUntil(lambda: panel.model.rowCount() == 3, timeout=5000)
    viewer.resize(1100, 420)
    viewer.tabs.setCurrentWidget(panel)
    viewer.show()
    rows = {
        panel.model.index(r, 0).data(): [panel.model.index(r, c).data() for c in range(5)] for r in range(3)
    }
    assert rows["fetch_page"][1:4] == [
        "timeout after 30s on example.org",
        "retried with timeout=90",
        "resolved",
    ]
    assert rows["send_mail"][3] == "failed"
    assert all(r[4] in ("89 days", "90 days") for r in rows.values())  # expires_at is ns: 90 days from now
    sql_row = next(r for r in range(3) if panel.model.index(r, 0).data() == "run_sql")
    assert "cause: reserved word" in panel.model.index(sql_row, 1).data(256 - 253)  # ToolTipRole == 3
    assert panel.status.text() == "3 records"
    qtbot.wait(50)
    screenshot(viewer, "error-memory-tab")
    panel.box.setText("timeout")
    with qtbot.waitSignal(panel.records_did_load, timeout=5000):
        panel.refresh()
    assert [panel.model.index(r, 0).data() for r in range(panel.model.rowCount())] == ["fetch_page"]
    assert panel.status.text() == "1 record found"
    panel.table.selectRow(0)
    with qtbot.waitSignal(panel.record_did_forget, timeout=5000):
        panel.forget_button.click()
    qtbot.waitUntil(lambda: panel.model.rowCount() == 0, timeout=5000)
    assert errors.count() == 2 and errors.search("timeout") == []


def test_error_memory_lists_the_newest_and_says_how_many_there_are(
    runner: Any, memory: Memory, qtbot: Any
) -> None:
    for i in range(3):
        memory.errors.remember(f"tool_{i}", f"symptom {i}", "did something", "abandoned")
    source = seams.errors_of(memory)
    assert source is not None
    source.list = lambda limit=500: seams.EngineErrors.list(source, limit=2)  # type: ignore[method-assign]
    panel = ErrorMemoryPanel(runner, source)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.records_did_load, timeout=5000):
        panel.refresh()
    assert panel.status.text() == "The newest 2 records of 3"
    assert panel.model.index(0, 0).data() == "tool_2"


# -- the key -------------------------------------------------------------------------------------


def key_window(state: AppState, keys: Keys, qtbot: Any) -> SettingsWindow:
    state.keys = seams.key_store(keys)
    win = SettingsWindow(state)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: not win.key_status.text().startswith("Looking"), timeout=10_000)
    return win


@pytest.mark.keyring
@pytest.mark.timeout(90)
def test_settings_key_round_trip_through_a_real_keyring(
    secret_service: dict[str, str], state: AppState, qtbot: Any, screenshot: Any, caplog: Any
) -> None:
    from keyring.backends import SecretService

    backend = SecretService.Keyring()
    keys = Keys(backend=backend, environ={})
    win = key_window(state, keys, qtbot)
    assert win.key_status.text().startswith("No key is stored.")
    assert win.key_save.isVisible() and not win.key_session.isVisible()
    assert win.key.echoMode() == win.key.EchoMode.Password
    win.key.setText(KEY)
    with qtbot.waitSignal(win.key_did_change, timeout=20_000):
        win.key_save.click()
    assert win.key.text() == ""
    assert win.key_status.text() == "A key (AIza…cdef) is stored in the OS keyring (SecretService)."
    assert win.key.placeholderText() == "paste a key to replace AIza…cdef"
    assert backend.get_password(SERVICE, USERNAME) == KEY  # really in the Secret Service
    qtbot.wait(50)
    screenshot(win, "settings-keyring")
    # A new window (a new app run) finds it again.
    again = key_window(state, Keys(backend=SecretService.Keyring(), environ={}), qtbot)
    assert again.key_status.text().startswith("A key (AIza…cdef) is stored")
    with qtbot.waitSignal(again.key_did_change, timeout=20_000):
        again.key_delete.click()
    assert again.key_status.text().startswith("No key is stored.")
    assert backend.get_password(SERVICE, USERNAME) is None
    assert KEY not in caplog.text  # never logged


@pytest.mark.parametrize("keys", [Keys(backend=fail.Keyring(), environ={})], ids=["no keyring"])
def test_without_a_secure_keyring_the_key_is_offered_for_this_session_only(
    state: AppState, memory: Memory, keys: Keys, qtbot: Any, screenshot: Any
) -> None:
    win = key_window(state, keys, qtbot)
    assert "no secure key store" in win.key_status.text() and "this session only" in win.key_status.text()
    assert win.key_session.isVisible() and not win.key_save.isVisible()
    qtbot.wait(50)
    screenshot(win, "settings-no-keyring")
    win.key.setText(KEY)
    with qtbot.waitSignal(win.key_did_change, timeout=5000):
        win.key_session.click()
    assert win.key_status.text().startswith("A key (AIza…cdef) is used for this session only")
    assert memory.summaries.status().has_key  # the summarizer uses it
    with qtbot.waitSignal(win.key_did_change, timeout=5000):
        win.key_delete.click()
    assert keys.get() is None


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        (None, "This key works: gemini-2.5-flash answered in"),
        ((401, "unauthorized"), "Gemini refused this key"),
        ((400, "API key not valid. Please pass a valid API key."), "Gemini refused this key"),
        (
            (429, "Resource has been exhausted"),
            "Gemini accepted the key, but its rate limit or quota is used up",
        ),
    ],
)
def test_the_test_button_makes_one_real_call(
    state: AppState,
    memory: Memory,
    fake: FakeGemini,
    qtbot: Any,
    script: tuple[int, str] | None,
    expected: str,
) -> None:
    state.set_settings(memory.update_settings(gemini_base_url=fake.url))
    win = key_window(state, Keys(backend=fail.Keyring(), environ={}), qtbot)
    if script is not None:
        fake.reply_error(*script)
    win.key.setText(KEY)  # a key typed and not saved is the one tested
    with qtbot.waitSignal(win.key_did_change, timeout=20_000):
        win.key_test.click()
    assert win.key_status.text().startswith(expected), win.key_status.text()
    assert win.key_test.isEnabled()
    calls = fake.calls()
    assert len(calls) == 1 and calls[0].model == "gemini-2.5-flash"  # one call, no retry
    assert calls[0].headers.get("x-goog-api-key") == KEY


def test_the_test_button_without_any_key_says_so(state: AppState, fake: FakeGemini, qtbot: Any) -> None:
    win = key_window(state, Keys(backend=fail.Keyring(), environ={}), qtbot)
    with qtbot.waitSignal(win.key_did_change, timeout=5000):
        win.key_test.click()
    assert win.key_status.text() == "There is no key to test: paste one first, or save one."
    assert fake.calls() == []


# -- import --------------------------------------------------------------------------------------


@pytest.fixture
def viewer(state: AppState, qtbot: Any) -> ViewerWindow:
    window = ViewerWindow(state)
    qtbot.addWidget(window)
    window.show()
    return window


def run_import(viewer: ViewerWindow, qtbot: Any, fmt: str, path: Path, session: str = "") -> Outcome:
    dialog = viewer.show_import()
    dialog.set_format(fmt)
    dialog.path.setText(str(path))
    dialog.session.setText(session)
    with qtbot.waitSignal(viewer.import_did_finish, timeout=20_000) as blocker:
        dialog.import_button.click()
    assert not dialog.isVisible()
    outcome = blocker.args[0]
    assert isinstance(outcome, Outcome)
    assert viewer.import_report is not None and viewer.import_report.informativeText() == outcome.text
    viewer.import_report.close()
    return outcome


def test_import_jsonl_with_progress_and_a_report(
    viewer: ViewerWindow, state: AppState, memory: Memory, qtbot: Any, tmp_path: Path
) -> None:
    path = tmp_path / "notes.jsonl"
    lines = [
        {"role": "user", "content": "Where did we park the bikes?", "sendAt": 1_700_000_000_000},
        {"role": "assistant", "content": "Behind the library, level 2.", "sendAt": 1_700_000_001_000},
        {"role": "user", "content": "Thanks!", "sendAt": 1_700_000_002_000},
    ]
    path.write_text("\n".join(json.dumps(r) for r in lines) + "\n", encoding="utf-8")
    progress: list[tuple[int, int]] = []
    viewer.runner.task_did_progress.connect(lambda _task, done, total: progress.append((done, total)))
    labels: list[str] = []
    viewer.runner.task_did_start.connect(lambda task: labels.append(task.label))
    assert viewer.import_action.isEnabled()
    outcome = run_import(viewer, qtbot, "jsonl", path, "bike-notes")
    assert outcome.ok and outcome.title == "Imported notes.jsonl"
    assert outcome.text.startswith("Read 1 conversation in ") and outcome.text.endswith(": 3 messages added.")
    assert progress == [(3, 3)] and labels == ["Importing notes.jsonl"]
    assert memory.history("bike-notes")[0].content == "Where did we park the bikes?"
    qtbot.waitUntil(lambda: "bike-notes" in viewer.sessions.visible_sessions(), timeout=5000)
    again = run_import(viewer, qtbot, "jsonl", path, "bike-notes")
    assert again.text.endswith(": 0 messages added, 3 already in the memory.")


def test_import_chatgpt_export(
    viewer: ViewerWindow, memory: Memory, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importing, "BATCH_MESSAGES", 3)  # a batch per conversation: progress after each
    t0 = 1_714_538_096
    with_system = gpt_conversation(
        "conv-b",
        [
            ("root", None, None),
            ("sys", "root", gpt_message("system", ["You are helpful."], t0)),
            ("u1", "sys", gpt_message("user", ["幫我規劃週末行程"], t0 + 1)),
            ("a1", "u1", gpt_message("assistant", ["週六爬山，週日看展覽。"], t0 + 2)),
        ],
        current="a1",
    )
    export = [gpt_linear("conv-a", ["hello", "hi there", "bye"]), with_system]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(export, ensure_ascii=False), encoding="utf-8")
    progress: list[tuple[int, int]] = []
    viewer.runner.task_did_progress.connect(lambda _task, done, total: progress.append((done, total)))
    outcome = run_import(viewer, qtbot, "chatgpt", path)
    assert outcome.ok
    assert ": 5 messages added. Left out: 1 × system message." in outcome.text
    assert outcome.text.startswith("Read 2 conversations in ")
    assert progress == [(3, 5), (5, 5)]
    sessions = {s.id: s.total_messages for s in memory.sessions()}
    assert sessions["gpt-conv-a"] == 3 and sessions["gpt-conv-b"] == 2


def test_a_bad_file_is_refused_in_words(viewer: ViewerWindow, qtbot: Any, tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text('{"role": "user", "content": "ok"}\nnot json\n', encoding="utf-8")
    outcome = run_import(viewer, qtbot, "jsonl", path)
    assert not outcome.ok and outcome.title == "Could not finish importing broken.jsonl"
    assert "line 2" in outcome.text and outcome.text.endswith("Nothing was imported.")

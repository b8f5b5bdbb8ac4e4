"""The summary panel and the error-memory tab against fakes; the adapters against the engine's types."""

from __future__ import annotations

import dataclasses
from typing import Any

from desktop import seams
from desktop.state import AppState
from desktop.viewer.errormemory import ErrorMemoryPanel, days_left
from desktop.viewer.summary import SummaryPanel, summary_html
from desktop.viewer.window import ViewerWindow
from tests.desktop.fakes import FakeErrors, FakeSummaries


def test_summary_panel_shows_decisions_discussions_and_cursor(runner: Any, qtbot: Any) -> None:
    panel = SummaryPanel(runner, FakeSummaries())
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.summary_did_load, timeout=5000):
        panel.show_session("proj-zh")
    text = panel.view.toPlainText()
    assert "Do: 回覆使用繁體中文" in text and "會議紀錄" in text and "記憶體不足" in text
    assert panel.cursor_label.text().startswith("Summarized up to 2025-10-")
    with qtbot.waitSignal(panel.summarize_requested) as blocker:
        panel.button.click()
    assert blocker.args == ["proj-zh"]
    with qtbot.waitSignal(panel.summary_did_load, timeout=5000):
        panel.show_session("english-notes")
    assert "No summary yet" in panel.view.toPlainText()


def test_error_memory_lists_searches_and_forgets(runner: Any, qtbot: Any, screenshot: Any) -> None:
    fake = FakeErrors()
    panel = ErrorMemoryPanel(runner, fake)
    qtbot.addWidget(panel)
    panel.resize(900, 300)
    with qtbot.waitSignal(panel.records_did_load, timeout=5000):
        panel.refresh()
    model = panel.model
    assert [model.index(0, c).data() for c in range(5)] == [
        "fetch_page",
        "timeout after 30s",
        "retried with a longer timeout",
        "resolved",
        "89 days",
    ]
    panel.show()
    screenshot(panel, "error-memory")
    panel.box.setText("sql")
    with qtbot.waitSignal(panel.records_did_load, timeout=5000):
        panel.refresh()
    assert model.rowCount() == 1 and model.index(0, 4).data() == "10 days"
    panel.table.selectRow(0)
    with qtbot.waitSignal(panel.record_did_forget, timeout=5000):
        panel.forget_button.click()
    assert fake.forgotten == ["ffee00112233" * 5 + "ffee"]


def test_viewer_adds_the_tabs_when_the_engine_parts_exist(state: AppState, qtbot: Any) -> None:
    state.summaries, state.errors = FakeSummaries(), FakeErrors()
    viewer = ViewerWindow(state)
    qtbot.addWidget(viewer)
    tabs = [viewer.tabs.tabText(i) for i in range(viewer.tabs.count())]
    assert tabs == ["Conversation", "Search", "Summary", "Error memory"]


def test_adapters_read_the_engine_shapes() -> None:
    from engine.errormemory import ErrorRecord
    from engine.summary.schema import EMPTY, coerce

    summary = coerce(
        {
            "key_decisions": ["Do: x"],
            "past_discussions": [{"topic": "t", "description": "d", "last_discussed": "2025-01-02 03:04"}],
            "current_discussion": {"topic": "", "description": "", "perspectives": "", "direction": ""},
        }
    )
    view = seams.summary_view(summary, 1_735_787_045_000_000_000)
    assert view is not None and view.summary is summary and view.cursor_ns == 1_735_787_045_000_000_000
    page = summary_html(view)
    assert "Do: x" in page and "<b>t</b> <small>(2025-01-02 03:04)</small>" in page
    assert page.count("<i>none</i>") == 1  # the empty current discussion
    assert seams.summary_view(EMPTY, 0) is None
    assert seams.summary_view(EMPTY, 1) is not None  # summarized, nothing kept
    day = 86_400 * 1_000_000_000
    record = ErrorRecord("ab" * 32, "t", ("k",), "s", "", "a", "resolved", 1, 90 * day)
    assert days_left(record, now_ns=0) == 90 and days_left(record, now_ns=day + 1) == 88
    assert days_left(record, now_ns=91 * day) == 0
    assert days_left(dataclasses.replace(record, expires_at=0), now_ns=0) is None
    assert seams.mask("AIzaSyA-0123456789abcdef") == "AIza…cdef" and seams.mask("short") == "…"


def test_every_outcome_the_engine_records_has_its_words() -> None:
    from desktop.viewer.errormemory import OUTCOME_WORDS
    from engine.errormemory import OUTCOMES

    assert set(OUTCOME_WORDS) == set(OUTCOMES)

"""The viewer on a seeded home (Chinese and English): sessions list, conversation, cut line, copy, export."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from desktop.state import AppState
from desktop.viewer.conversation_model import KindRole
from desktop.viewer.window import ViewerWindow
from engine import Message


@pytest.fixture
def viewer(state: AppState, qtbot: Any) -> ViewerWindow:
    window = ViewerWindow(state)
    qtbot.addWidget(window)
    window.present()
    return window


def open_session(viewer: ViewerWindow, qtbot: Any, session: str) -> None:
    with qtbot.waitSignal(viewer.conversation.model.session_did_load, timeout=5000):
        assert viewer.sessions.select(session)


def test_sessions_list_hides_temporary_and_filters(viewer: ViewerWindow) -> None:
    assert sorted(viewer.sessions.visible_sessions()) == ["english-notes", "long-chat", "proj-zh"]
    viewer.sessions.temporary.setChecked(True)
    assert "temp-subagent" in viewer.sessions.visible_sessions()
    viewer.sessions.filter.setText("ENGL")
    assert viewer.sessions.visible_sessions() == ["english-notes"]
    viewer.sessions.filter.setText("記憶體不足")  # titles match too
    assert viewer.sessions.visible_sessions() == ["proj-zh"]
    viewer.sessions.filter.setText("")
    viewer.sessions.temporary.setChecked(False)
    assert viewer.sessions.visible_sessions()[0] == "long-chat"  # the latest message first
    proxy = viewer.sessions.proxy
    row = viewer.sessions.visible_sessions().index("long-chat")
    cells = [proxy.index(row, c).data() for c in range(5)]
    assert cells[0].startswith("long chat message 0")  # its title: the first user message
    assert cells[2] != "0" and cells[3] != "0" and cells[4] == "none"  # recent and archived counts
    assert proxy.headerData(1, Qt.Orientation.Horizontal) == "Last message"
    assert proxy.index(row, 0).data(Qt.ItemDataRole.ToolTipRole).endswith("long-chat")


def test_chinese_conversation_shows_role_sender_and_time(
    viewer: ViewerWindow, qtbot: Any, screenshot: Any
) -> None:
    open_session(viewer, qtbot, "proj-zh")
    model = viewer.conversation.model
    assert model.rowCount() == 4
    assert model.message(0) is not None and model.message(0).content.startswith("我的電腦記憶體不足")  # type: ignore[union-attr]
    assert model.cut_row() is None  # never compacted: no cut line
    assert (
        "小明" in viewer.conversation.detail.toPlainText()
        or "assistant" in viewer.conversation.detail.toPlainText()
    )
    viewer.conversation.list.setCurrentIndex(model.index(0, 0))
    detail = viewer.conversation.detail.toPlainText()
    assert detail.startswith("user · 小明 · 2025-10-") and "記憶體不足" in detail
    viewer.resize(1100, 700)
    screenshot(viewer, "viewer-chinese")


def test_compacted_session_shows_the_cut_line(viewer: ViewerWindow, qtbot: Any, screenshot: Any) -> None:
    open_session(viewer, qtbot, "long-chat")
    model = viewer.conversation.model
    cut = model.cut_row()
    assert cut is not None and model.index(cut, 0).data(KindRole) == "cut"
    assert model.position_of(cut) is None and model.message(cut) is None
    hot_first = model.message(cut + 1)
    assert hot_first is not None and hot_first.id == model.cut
    assert model.rowCount() == 240 + 1  # every message and the cut line
    assert model.hot_count == 240 - cut
    assert all(model.is_loaded(row) for row in range(model.rowCount()))  # the two pages read at once
    assert model.message(0) is not None and model.message(0).content.startswith("long chat message 0:")  # type: ignore[union-attr]
    viewer.conversation._select_row(cut)
    screenshot(viewer, "viewer-compaction-cut")


def test_copy_puts_the_selected_messages_on_the_clipboard(viewer: ViewerWindow, qtbot: Any) -> None:
    open_session(viewer, qtbot, "english-notes")
    viewer.conversation.list.setCurrentIndex(viewer.conversation.model.index(3, 0))
    viewer.conversation.copy_selection()
    assert QGuiApplication.clipboard().text().endswith("The trip budget is 1,200 euros, flights included.")


def test_export_writes_the_whole_session(viewer: ViewerWindow, qtbot: Any, tmp_path: Path) -> None:
    open_session(viewer, qtbot, "proj-zh")
    target = tmp_path / "proj-zh.jsonl"
    with qtbot.waitSignal(viewer.conversation.export_did_finish, timeout=5000) as blocker:
        viewer.conversation.export_to(target, "jsonl")
    assert blocker.args[0] == (target, 4)
    records = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert records[0] == {"role": "user", "content": ZH0, "sendAt": records[0]["sendAt"], "sender": "小明"}
    md = tmp_path / "proj-zh.md"
    with qtbot.waitSignal(viewer.conversation.export_did_finish, timeout=5000):
        viewer.conversation.export_to(md, "markdown")
    assert md.read_text(encoding="utf-8").startswith("# proj-zh\n\n## user · 小明 — 2025-10-")


ZH0 = "我的電腦記憶體不足，該怎麼辦？"


def test_new_messages_show_after_refresh(viewer: ViewerWindow, state: AppState, qtbot: Any) -> None:
    assert state.memory is not None
    state.memory.append("brand-new", [Message("user", "hello there", 1)])
    with qtbot.waitSignal(state.state_did_change, timeout=5000):
        state.refresh()
    assert "brand-new" in viewer.sessions.visible_sessions()


def test_role_colours_stay_readable_in_a_dark_theme(viewer: ViewerWindow, qtbot: Any) -> None:
    from PySide6.QtGui import QColor, QPalette

    from desktop import contrast

    dark = QPalette()
    for role, color in (
        (QPalette.ColorRole.Base, "#1b1b1b"),
        (QPalette.ColorRole.Window, "#202124"),
        (QPalette.ColorRole.Text, "#e8e8e8"),
    ):
        dark.setColor(role, QColor(color))
    light = QPalette()
    light.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
    assert contrast.dark(dark) and not contrast.dark(light)
    for palette in (dark, light):
        base = palette.color(QPalette.ColorRole.Base)
        colors = [contrast.role_color(palette, r) for r in ("user", "assistant", "tool")]
        colors.append(contrast.accent(palette, contrast.CUT_ACCENT))
        assert len({c.name() for c in colors}) == 4  # each role its own colour
        for color in colors:
            assert contrast.contrast_ratio(color, base) >= contrast.READABLE, (color.name(), base.name())

    open_session(viewer, qtbot, "english-notes")
    view = viewer.conversation.list
    view.setPalette(dark)
    model = viewer.conversation.model
    roles = {model.message(row).role: row for row in range(model.rowCount())}  # type: ignore[union-attr]
    picture = view.viewport().grab().toImage()
    ratio = picture.width() / view.viewport().width()
    for role, row in roles.items():
        rect = view.visualRect(model.index(row, 0))
        if rect.bottom() > view.viewport().height():
            continue
        painted = QColor(picture.pixel(int((rect.left() + 1) * ratio), int(rect.center().y() * ratio)))
        assert painted.name() == contrast.role_color(dark, role).name(), role  # the stripe, not a fixed blue

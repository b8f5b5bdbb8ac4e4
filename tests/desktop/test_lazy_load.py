"""A 100,000-message session: every read on the store worker, rows once it answers, pages read on demand.

(The GUI stalls with the real engine and 50,000 messages are measured by ``bench/desktop_freeze.py``.)
"""

from __future__ import annotations

import bisect
import threading
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from desktop.state import AppState
from desktop.tasks import TaskRunner
from desktop.viewer.conversation_model import MAX_PAGES, PAGE, MessageRole
from desktop.viewer.window import ViewerWindow
from engine import Message

BIG = 100_000
HOT = 2_000


def text_of(i: int) -> str:
    return f"message {i} 第{i}則訊息"


class BigMemory:
    """The reads the conversation uses, over 100,000 messages in memory; each call notes its thread.

    ``gate`` holds the first read until the test sets it, so the test sees the view before the answer.
    """

    def __init__(self, count: int = BIG) -> None:
        self.messages = [self._make(i) for i in range(count)]
        self.ids = [m.id or 0 for m in self.messages]
        self.cut = self.ids[-HOT]
        self.threads: list[str] = []
        self.gate = threading.Event()
        self.gate.set()

    @staticmethod
    def _make(i: int) -> Message:
        role = "user" if i % 2 == 0 else "assistant"
        return Message(role, text_of(i), 1_700_000_000 * 10**9 + i * 10**9, "", 3 * i + 1, "big")

    def _note(self) -> None:
        self.threads.append(threading.current_thread().name)

    def add(self, n: int) -> None:
        for _ in range(n):
            self.messages.append(self._make(len(self.messages)))
            self.ids.append(self.messages[-1].id or 0)

    def archive_count(self, session: str) -> int:
        self._note()
        assert self.gate.wait(10)
        return len(self.messages)

    def compaction_cut(self, session: str) -> int:
        self._note()
        return self.cut

    def archive_position(self, session: str, message_id: int) -> int:
        self._note()
        return bisect.bisect_left(self.ids, message_id)

    def archive_slice(self, session: str, offset: int, limit: int = 200) -> list[Message]:
        self._note()
        return self.messages[offset : offset + min(limit, 5000)]

    def history(self, session: str) -> list[Message]:
        raise AssertionError("a session with an archive is never read whole")


def visible_message(viewer: ViewerWindow, y: int) -> Message | None:
    view = viewer.conversation.list
    index = view.indexAt(QPoint(10, y))
    return index.data(MessageRole) if index.isValid() else None


def test_a_100k_session_opens_on_the_worker_and_reads_pages_on_demand(runner: TaskRunner, qtbot: Any) -> None:
    mem = BigMemory()
    state = AppState(runner)
    state.memory = mem  # type: ignore[assignment]
    viewer = ViewerWindow(state)
    qtbot.addWidget(viewer)
    viewer.present()
    pane, model, view = viewer.conversation, viewer.conversation.model, viewer.conversation.list

    mem.gate.clear()
    viewer.open_session("big")
    qtbot.wait(50)  # the worker is held: the view is empty and the GUI goes on
    assert model.rowCount() == 0 and pane.settling and "loading" in pane.title.text()
    with qtbot.waitSignal(model.session_did_load, timeout=5000):
        mem.gate.set()
    qtbot.waitUntil(lambda: not pane.settling)
    assert model.rowCount() == BIG + 1  # every message, and the cut line
    assert model.cut_row() == BIG - HOT and model.hot_count == HOT
    last = visible_message(viewer, view.viewport().height() - 3)
    assert last is not None and last.content == text_of(BIG - 1)  # the end is shown, already read
    assert "2,000 recent messages" in pane.title.text()

    # Home: the first row at once (a placeholder), its page read on the worker.
    view.setFocus()
    with qtbot.waitSignal(model.page_did_load, timeout=5000):
        QTest.keyClick(view, Qt.Key.Key_Home)
    qtbot.waitUntil(lambda: visible_message(viewer, 3) is not None)
    assert visible_message(viewer, 3).content == text_of(0)  # type: ignore[union-attr]
    assert view.currentIndex().row() == 0
    qtbot.waitUntil(lambda: bool(pane.detail.toPlainText()))
    assert pane.detail.toPlainText().endswith(text_of(0))  # the detail follows once the page is in

    # Dragging the scroll bar to the middle reads only the pages shown there.
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    qtbot.waitUntil(lambda: visible_message(viewer, 3) is not None, timeout=5000)
    middle = visible_message(viewer, 3)
    assert middle is not None and abs(int(middle.content.split()[1]) - BIG // 2) < 100
    assert len(model._pages) <= 2 + 4 + 4  # the opening's two, Home's and the middle's (with neighbours)

    # Revealing a message far away reads its page, then selects it.
    target = mem.messages[12_345]
    with qtbot.waitSignal(pane.message_did_reveal, timeout=5000) as revealed:
        pane.reveal(target.id or 0)
    assert revealed.args == [target.id]
    assert model.message(view.currentIndex().row()) == target

    # Nothing touched the engine on the GUI thread.
    main = threading.main_thread().name
    assert mem.threads and main not in mem.threads
    assert all(name.startswith("memtray-store") for name in mem.threads)


def test_new_messages_at_the_end_become_rows_and_the_view_follows(runner: TaskRunner, qtbot: Any) -> None:
    mem = BigMemory(5_000)
    state = AppState(runner)
    state.memory = mem  # type: ignore[assignment]
    viewer = ViewerWindow(state)
    qtbot.addWidget(viewer)
    viewer.present()
    pane, model, view = viewer.conversation, viewer.conversation.model, viewer.conversation.list
    with qtbot.waitSignal(model.session_did_load, timeout=5000):
        viewer.open_session("big")
    qtbot.waitUntil(lambda: not pane.settling)
    mem.add(3)
    with qtbot.waitSignal(model.rows_did_append, timeout=5000) as appended:
        pane.refresh()
    assert appended.args == [3] and model.rowCount() == 5_003 + 1 and model.hot_count == HOT + 3

    def bottom() -> str | None:
        message = visible_message(viewer, view.viewport().height() - 3)
        return message.content if message is not None else None

    qtbot.waitUntil(lambda: bottom() == text_of(5_002))


def test_pages_kept_are_bounded(runner: TaskRunner, qtbot: Any) -> None:
    mem = BigMemory()
    state = AppState(runner)
    state.memory = mem  # type: ignore[assignment]
    viewer = ViewerWindow(state)
    qtbot.addWidget(viewer)
    model = viewer.conversation.model
    with qtbot.waitSignal(model.session_did_load, timeout=5000):
        viewer.open_session("big")
    for page in range(MAX_PAGES + 30):
        model.data(model.index(page * PAGE + 5, 0), MessageRole)  # as if each page were shown in turn
        qtbot.waitUntil(lambda page=page: model.message(page * PAGE + 5) is not None, timeout=5000)
    assert len(model._pages) == MAX_PAGES
    assert model.message(5) is None  # the least recently shown went first

"""A 100,000-message session opens in under a second and loads older pages only on scroll."""

from __future__ import annotations

import bisect
import time
from typing import Any

from desktop.state import AppState
from desktop.tasks import TaskRunner
from desktop.viewer.conversation_model import PAGE
from desktop.viewer.window import ViewerWindow
from engine import Message

BIG = 100_000
HOT = 2_000


class BigMemory:
    """The three reads the conversation uses, over 100,000 messages in memory (the real engine with
    100,000 messages is measured by ``bench/desktop.py``; here the viewer's side is under test)."""

    def __init__(self, count: int = BIG) -> None:
        self.messages = [
            Message(
                "user" if i % 2 == 0 else "assistant",
                f"message {i} 第{i}則訊息",
                1_700_000_000 * 10**9 + i * 10**9,
                "",
                i + 1,
                "big",
            )
            for i in range(count)
        ]
        self.reads = 0

    def history(self, session: str) -> list[Message]:
        self.reads += 1
        return self.messages[-HOT:]

    def compaction_cut(self, session: str) -> int:
        return self.messages[-HOT].id or 0

    def archive_page(self, session: str, before_id: int | None = None, limit: int = 200) -> list[Message]:
        self.reads += 1
        end = (
            bisect.bisect_left([m.id for m in self.messages], before_id) if before_id else len(self.messages)
        )
        return list(reversed(self.messages[max(0, end - limit) : end]))


def test_a_100k_session_opens_fast_and_scrolls_lazily(runner: TaskRunner, qtbot: Any) -> None:
    mem = BigMemory()
    state = AppState(runner)
    state.memory = mem  # type: ignore[assignment]
    viewer = ViewerWindow(state)
    qtbot.addWidget(viewer)
    viewer.present()
    model = viewer.conversation.model
    started = time.perf_counter()
    with qtbot.waitSignal(model.session_did_load, timeout=10_000):
        viewer.open_session("big")
    qtbot.waitUntil(lambda: not viewer.conversation.settling)
    opened = time.perf_counter() - started
    assert opened < 1.0, f"opening took {opened:.2f} s"
    loaded = model.rowCount()
    assert loaded < 10_000  # far from all 100,000
    assert model.message(loaded - 1).content == f"message {BIG - 1} 第{BIG - 1}則訊息"  # type: ignore[union-attr]
    assert model.cut_row() is not None
    # Scrolling to the top prepends exactly one older page, and keeps the reader's place.
    bar = viewer.conversation.list.verticalScrollBar()
    first_before = model.message(0)
    with qtbot.waitSignal(model.older_did_load, timeout=5000) as blocker:
        bar.setValue(bar.minimum())
    assert blocker.args == [PAGE]
    assert model.rowCount() == loaded + PAGE
    assert model.message(PAGE) == first_before
    qtbot.waitUntil(lambda: bar.value() > bar.minimum())  # the view stayed on what the reader saw
    # Revealing a message far back loads down to it in one cancellable task.
    with qtbot.waitSignal(viewer.conversation.message_did_reveal, timeout=10_000):
        viewer.conversation.reveal(model.oldest_id - 20_000)  # type: ignore[operator]
    assert model.rowCount() > 20_000

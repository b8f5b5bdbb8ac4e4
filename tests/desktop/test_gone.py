"""A view never shows what was deleted: after Remove…, Reset… or Forget… (here, or by another program),
the conversation, its detail, the search results, the quick search and the chat window drop that text,
and Copy and Export are disabled once nothing of the session is shown."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.chat.window import ChatWindow
from desktop.operations import Operations
from desktop.quicksearch import QuickSearchWindow
from desktop.state import AppState
from desktop.viewer.window import ViewerWindow
from engine import Memory
from tests.clirun import run_cli

BUDGET = "The trip budget is 1,200 euros, flights included."


@pytest.fixture
def shown(state: AppState, qtbot: Any) -> tuple[ViewerWindow, QuickSearchWindow, ChatWindow]:
    """english-notes on screen everywhere: the conversation (its last message selected), a search for
    "budget" in the viewer and in the quick search, and its chat window."""
    viewer = ViewerWindow(state)
    qtbot.addWidget(viewer)
    viewer.present()
    model = viewer.conversation.model
    with qtbot.waitSignal(model.session_did_load, timeout=5000):
        viewer.sessions.select("english-notes")
    qtbot.waitUntil(lambda: BUDGET in viewer.conversation.detail.toPlainText(), timeout=5000)
    assert viewer.conversation.copy_button.isEnabled() and viewer.conversation.export_button.isEnabled()
    viewer.search.box.setText("budget")
    with qtbot.waitSignal(viewer.search.search_did_finish, timeout=5000):
        viewer.search.search()
    assert BUDGET in viewer.search.view.toPlainText()
    quick = QuickSearchWindow(state)
    qtbot.addWidget(quick)
    with qtbot.waitSignal(quick.search_did_finish, timeout=5000):
        quick.box.setText("budget")
    assert any(r.hit.message.session == "english-notes" for r in quick.results)
    chat = ChatWindow(state, "english-notes")
    qtbot.addWidget(chat)
    qtbot.waitUntil(lambda: BUDGET in chat.transcript.toPlainText(), timeout=5000)
    return viewer, quick, chat


def nothing_of_it_shown(viewer: ViewerWindow, quick: QuickSearchWindow, chat: ChatWindow) -> bool:
    pane = viewer.conversation
    return (
        pane.model.rowCount() == 0
        and not pane.detail.toPlainText()
        and not pane.copy_button.isEnabled()
        and not pane.export_button.isEnabled()
        and BUDGET not in viewer.search.view.toPlainText()
        and not any(r.hit.message.session == "english-notes" for r in viewer.search.results)
        and not any(r.hit.message.session == "english-notes" for r in quick.results)
        and "budget" not in chat.transcript.toPlainText()
    )


def test_remove_clears_every_view_of_the_session(
    shown: tuple[ViewerWindow, QuickSearchWindow, ChatWindow], memory: Memory, qtbot: Any
) -> None:
    viewer, quick, chat = shown
    with qtbot.waitSignal(viewer.editor.edit_did_finish, timeout=10_000):
        viewer.editor.remove("english-notes")
    assert not memory.exists("english-notes")
    assert nothing_of_it_shown(viewer, quick, chat)  # at once, not at the next refresh
    assert "were deleted" in viewer.conversation.title.text()
    assert "deleted" in chat.status.text()


def test_reset_clears_every_view_of_the_session(
    shown: tuple[ViewerWindow, QuickSearchWindow, ChatWindow], state: AppState, memory: Memory, qtbot: Any
) -> None:
    viewer, quick, chat = shown
    operations = Operations(state)
    with qtbot.waitSignal(operations.operation_did_finish, timeout=10_000):
        operations.reset("english-notes")
    assert memory.history("english-notes") == []
    assert nothing_of_it_shown(viewer, quick, chat)


def test_forget_drops_the_message_from_every_view(
    shown: tuple[ViewerWindow, QuickSearchWindow, ChatWindow], memory: Memory, qtbot: Any
) -> None:
    viewer, quick, chat = shown
    pane = viewer.conversation
    last = pane.model.message(pane.model.rowCount() - 1)
    assert last is not None and last.content == BUDGET and last.id is not None
    with qtbot.waitSignal(viewer.editor.edit_did_finish, timeout=10_000):
        viewer.editor.forget(last.id)
    assert BUDGET not in pane.detail.toPlainText()
    assert BUDGET not in viewer.search.view.toPlainText()
    assert all(m.id != last.id for r in quick.results for m in r.context)
    qtbot.waitUntil(lambda: not pane.model.loading and pane.model.rowCount() == 3, timeout=5000)
    contents = [m.content for m in (pane.model.message(r) for r in range(3)) if m is not None]
    assert BUDGET not in contents and len(contents) == 3  # the rest of the session stays
    qtbot.waitUntil(lambda: "Remind me of the budget" in chat.transcript.toPlainText(), timeout=5000)
    assert BUDGET not in chat.transcript.toPlainText()


def test_a_removal_by_another_program_clears_the_views(
    shown: tuple[ViewerWindow, QuickSearchWindow, ChatWindow], state: AppState, memory: Memory, qtbot: Any
) -> None:
    viewer, quick, chat = shown
    done = run_cli(memory.paths.home, "remove", "--session", "english-notes")
    assert done.returncode == 0, done.stderr
    with qtbot.waitSignal(state.session_did_go, timeout=5000):
        state.refresh()  # what the change watch does when the database changes
    qtbot.waitUntil(lambda: nothing_of_it_shown(viewer, quick, chat), timeout=5000)

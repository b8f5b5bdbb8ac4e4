"""The chat window (offscreen) against the fake Gemini server: streamed replies, stop, errors in words."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from desktop.chat.transcript import Entry, markdown
from desktop.chat.window import ChatWindow
from desktop.state import AppState
from desktop.tray import Tray
from engine import Memory
from engine.chat import Chat
from engine.llm.keys import Keys
from tests.fakegemini import FakeGemini, one_try_client

WAIT_MS = 20_000  # a guard against hangs, not a timing assertion


class _NoKeyring:
    def get_password(self, _service: str, _user: str) -> None:
        return None


@pytest.fixture
def fake(memory: Memory) -> Iterator[FakeGemini]:
    with FakeGemini() as server:
        memory.update_settings(gemini_base_url=server.url, decision_model="")
        yield server


def make_window(
    state: AppState, qtbot: Any, session: str, *, is_new: bool, key: str | None = "k"
) -> ChatWindow:
    keys = Keys(environ={"GEMINI_API_KEY": key}) if key else Keys(environ={}, backend=_NoKeyring())
    window = ChatWindow(
        state,
        session,
        is_new=is_new,
        chat_factory=lambda mem: Chat(mem, keys=keys, client_factory=one_try_client),
    )
    qtbot.addWidget(window)
    return window


def test_send_streams_the_reply_as_markdown_and_saves_the_turn(
    state: AppState, memory: Memory, fake: FakeGemini, qtbot: Any
) -> None:
    gate = threading.Event()
    fake.reply_stream(["**Roses** need ", "sun and water."], gate=gate)
    window = make_window(state, qtbot, "chat-new", is_new=True)
    window.input.setPlainText("How do I care for roses?")
    with qtbot.waitSignal(window.reply_did_grow, timeout=WAIT_MS):
        window.send_button.click()
    qtbot.waitUntil(lambda: "Roses need" in window.transcript.toPlainText(), timeout=WAIT_MS)
    assert window.busy and window.stop_button.isEnabled() and not window.send_button.isEnabled()
    assert not memory.exists("chat-new")  # nothing saved while the reply streams
    with qtbot.waitSignal(window.turn_did_finish, timeout=WAIT_MS) as finished:
        gate.set()
    shown = window.transcript.toPlainText()
    assert "Roses need sun and water." in shown and "**" not in shown  # rendered, not raw Markdown
    assert [(m.role, m.content) for m in memory.history("chat-new")] == [
        ("user", "How do I care for roses?"),
        ("assistant", "**Roses** need sun and water."),
    ]
    assert finished.args[0].reply.content == "**Roses** need sun and water."
    assert not window.busy and window.send_button.isEnabled() and window.input.toPlainText() == ""
    assert window.status.text().startswith("Saved")


def test_stop_cancels_the_turn_and_saves_nothing(
    state: AppState, memory: Memory, fake: FakeGemini, qtbot: Any
) -> None:
    gate = threading.Event()
    fake.reply_stream(["A long ", "answer"], gate=gate)
    window = make_window(state, qtbot, "chat-stop", is_new=True)
    window.input.setPlainText("tell me a story")
    with qtbot.waitSignal(window.reply_did_grow, timeout=WAIT_MS):
        window.send_button.click()
    window.stop_button.click()
    assert window.status.text() == "Stopping…"
    with qtbot.waitSignal(window.turn_did_fail, timeout=WAIT_MS) as failed:
        gate.set()
    assert failed.args[0] == "The reply was stopped. Nothing was saved."
    assert not memory.exists("chat-stop")
    assert window.entries == [] and window.input.toPlainText() == "tell me a story"
    assert not window.busy and window.send_button.isEnabled()


@pytest.mark.parametrize(
    ("script", "key", "words"),
    [
        ("quota", "k", "quota"),
        ("down", "k", "could not be reached"),
        ("none", None, "No Gemini API key"),
    ],
)
def test_errors_are_shown_in_words_and_nothing_is_saved(
    state: AppState, memory: Memory, fake: FakeGemini, qtbot: Any, script: str, key: str | None, words: str
) -> None:
    if script == "quota":
        fake.reply_error(429, "quota")
    elif script == "down":
        fake.reply_error(503, "unavailable")
    window = make_window(state, qtbot, "english-notes", is_new=False, key=key)
    qtbot.waitSignal(window.history_did_load, timeout=WAIT_MS).wait()
    window.input.setPlainText("and the hotel?")
    with qtbot.waitSignal(window.turn_did_fail, timeout=WAIT_MS) as failed:
        window.send_button.click()
    assert words in failed.args[0] and words in window.status.text()
    assert len(memory.history("english-notes")) == 4  # unchanged
    assert window.input.toPlainText() == "and the hotel?"


def test_continue_shows_the_recent_messages_and_sends_them_as_context(
    state: AppState, memory: Memory, fake: FakeGemini, qtbot: Any
) -> None:
    window = make_window(state, qtbot, "english-notes", is_new=False)
    with qtbot.waitSignal(window.history_did_load, timeout=WAIT_MS) as loaded:
        pass
    assert loaded.args == [4]
    assert "budget figure for the trip" in window.transcript.toPlainText()
    fake.reply_stream(["It was 1,200 euros."])
    window.input.setPlainText("What was the budget?")
    with qtbot.waitSignal(window.turn_did_finish, timeout=WAIT_MS):
        window.send()
    sent = fake.calls()[0].text()
    assert "The trip budget is 1,200 euros" in sent and "What was the budget?" in sent
    assert len(memory.history("english-notes")) == 6


def test_the_tray_offers_new_chat_and_continue(state: AppState, qtbot: Any) -> None:

    tray = Tray(state)
    asked: list[object] = []
    tray.actions.chat_requested.connect(asked.append)
    tray.rebuild()
    tray.action("new-chat").trigger()
    tray.action("continue:proj-zh").trigger()
    assert asked == [None, "proj-zh"]
    names = [a.objectName() for a in tray._all_actions(tray.menu)]
    assert not any(n.startswith("continue:temp-") for n in names)


def test_transcript_quotes_the_user_and_keeps_reply_markdown() -> None:
    text = markdown([Entry("user", "# not a heading\nsecond"), Entry("assistant", "## A heading")])
    assert "> # not a heading\n> second" in text and "\n## A heading" in text

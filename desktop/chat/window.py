"""The chat window: one session's conversation with Gemini, the memory taking part in every turn.

The transcript shows the session's recent messages (read on the store worker) and the replies as they
stream, rendered as Markdown. A turn (:meth:`engine.chat.Chat.send`) runs on the task runner's network
pool; the growing reply, the tool calls and the outcome come back to the GUI thread through this window's
signals (queued: they are emitted on the worker). Stop cancels the turn: the worker notices before its next
step and nothing is saved; closing the window stops a running turn too. Errors are told in words through
:func:`desktop.errors.describe`; the message that failed goes back into the input box.

Nothing handed to a worker holds the window: a worker that dropped the last reference to a widget would
have it deleted off the GUI thread (a crash). Workers emit through :class:`_Relay`, a child QObject, and
results come back through weak references.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QSize, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop import contrast
from desktop.a11y import accessible
from desktop.chat.transcript import Entry, markdown
from desktop.errors import describe
from desktop.icons import app_icon
from desktop.placement import fit_to_screen
from desktop.tasks import CancelToken
from desktop.titles import name_of, title_of
from desktop.windowkeys import add_close_keys
from engine.chat import Chat, TurnResult
from engine.errors import TurnCancelled

if TYPE_CHECKING:
    from desktop.state import AppState
    from engine import Memory, Message

log = logging.getLogger("memtray.desktop.chat")

ChatFactory = Callable[["Memory"], Chat]
MINIMUM = QSize(420, 360)
"""Room for a few lines of the transcript, the input box and the buttons (fits 800×500)."""

translate = QCoreApplication.translate


class _Relay(QObject):
    """Carries a running turn's events from the worker to the window (owned by the window).

    Signals:
        reply_did_grow(str): the visible reply so far.
        tool_did_run(str): the name of a tool the model called.
    """

    reply_did_grow = Signal(str)
    tool_did_run = Signal(str)


class _ChatHolder:
    """The window's :class:`engine.chat.Chat`, made on the worker at the first turn (no widget inside)."""

    def __init__(self, factory: ChatFactory) -> None:
        self.factory = factory
        self.chat: Chat | None = None

    def get(self, mem: Memory) -> Chat:
        if self.chat is None:
            self.chat = self.factory(mem)
        return self.chat


class ChatWindow(QWidget):
    """A chat with Gemini in one session.

    Signals:
        reply_did_grow(str): the visible reply so far (emitted on the worker while a turn streams).
        tool_did_run(str): the model called a memory tool (its name; emitted on the worker).
        turn_did_finish(object): a turn was saved (the :class:`engine.chat.TurnResult`).
        turn_did_fail(str): a turn failed or was stopped, nothing saved (the words shown).
        history_did_load(int): the session's recent messages are shown (how many).
    """

    reply_did_grow = Signal(str)
    tool_did_run = Signal(str)
    turn_did_finish = Signal(object)
    turn_did_fail = Signal(str)
    history_did_load = Signal(int)

    def __init__(
        self,
        state: AppState,
        session: str,
        *,
        is_new: bool = False,
        chat_factory: ChatFactory = Chat,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.runner = state.runner
        self.session = session
        self._chat = _ChatHolder(chat_factory)
        self._relay = _Relay(self)
        self._token: CancelToken | None = None
        self._entries: list[Entry] = []
        self.setWindowIcon(app_icon())
        self._update_title()
        add_close_keys(self, escape_hides=False)  # Esc must not lose the conversation
        state.state_did_change.connect(self._update_title)
        state.session_did_go.connect(self._on_session_did_go)
        state.messages_did_go.connect(self._on_messages_did_go)

        self.transcript = QTextBrowser()
        self.transcript.setObjectName("transcript")
        self.transcript.setTabChangesFocus(True)
        accessible(
            self.transcript, translate("Chat", "Conversation"), translate("Chat", "The conversation so far")
        )
        self.transcript.setOpenExternalLinks(True)
        self.input = QPlainTextEdit()
        self.input.setObjectName("input")
        self.input.setTabChangesFocus(True)
        accessible(
            self.input,
            translate("Chat", "Message"),
            translate("Chat", "Your next message; Ctrl+Enter sends it"),
        )
        self.input.setPlaceholderText(translate("Chat", "Write a message… (Ctrl+Enter sends)"))
        self.input.setFixedHeight(96)
        self.send_button = QPushButton(translate("Chat", "Send"))
        self.send_button.setObjectName("send")
        self.stop_button = QPushButton(translate("Chat", "Stop"))
        self.stop_button.setObjectName("stop")
        self.stop_button.setEnabled(False)
        self.status = QLabel(
            translate("Chat", "New conversation.")
            if is_new
            else translate("Chat", "Loading the conversation…")
        )
        self.status.setObjectName("status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.send_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.transcript, 1)
        layout.addWidget(self.input)
        layout.addLayout(buttons)

        self.send_button.clicked.connect(self.send)
        self.stop_button.clicked.connect(self.stop)
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            shortcut = QShortcut(QKeySequence(keys), self.input)
            shortcut.activated.connect(self.send)
        self._relay.reply_did_grow.connect(self.reply_did_grow)
        self._relay.tool_did_run.connect(self.tool_did_run)
        self.reply_did_grow.connect(self._on_reply_did_grow)
        self.tool_did_run.connect(self._on_tool_did_run)
        self.transcript.setMinimumHeight(80)
        fit_to_screen(self, 0.45, 0.75, MINIMUM)
        self._render()
        if not is_new:
            self._load_history()

    # -- state ------------------------------------------------------------------------------------

    def _update_title(self) -> None:
        """The session's title (its id until it has one), from the state the app holds."""
        title = title_of(self.state.session(self.session), self.session)
        self.setWindowTitle(translate("Chat", "memtray — chat {session}").format(session=title))

    @property
    def busy(self) -> bool:
        """Whether a turn is running."""
        return self._token is not None

    @property
    def entries(self) -> list[Entry]:
        return list(self._entries)

    def _load_history(self) -> None:
        mem = self.state.memory
        if mem is None:
            return
        session = self.session
        self.runner.run_query(
            lambda: mem.window(session) if mem.exists(session) else [],
            self._weak(lambda w, messages: w._on_history_read(messages)),
            self._weak(lambda w, exc: w._on_history_failed(exc)),
        )

    def _on_history_read(self, messages: list[Message]) -> None:
        earlier = [Entry(m.role, m.content) for m in messages if m.content.strip()]
        self._entries = earlier + self._entries
        self._render()
        if not self.busy:
            self.status.setText(
                translate("Chat", "%Ln recent message(s) of {session}.", "", len(earlier)).format(
                    session=name_of(self.state.session(self.session), self.session)
                )
                if earlier
                else ""
            )
        self.history_did_load.emit(len(earlier))

    def _on_history_failed(self, exc: BaseException) -> None:
        self._show_error(exc, translate("Chat", "loading the conversation"))

    def _on_session_did_go(self, session: str) -> None:
        """The session's messages were deleted: the transcript keeps only the turn running now."""
        if session != self.session:
            return
        self._entries = [e for e in self._entries if not e.saved]
        self._render()
        if not self.busy:
            self.status.setStyleSheet("")
            self.status.setText(translate("Chat", "The messages of this conversation were deleted."))

    def _on_messages_did_go(self, session: str, _ids: object) -> None:
        """Messages of the session were forgotten: the transcript is read again (the turn running now
        stays)."""
        if session != self.session:
            return
        self._entries = [e for e in self._entries if not e.saved]
        self._render()
        self._load_history()

    # -- a turn -----------------------------------------------------------------------------------

    def send(self) -> None:
        """Send the input box's text as the next turn (ignored while a turn runs or when it is empty)."""
        text = self.input.toPlainText().strip()
        mem = self.state.memory
        if not text or self.busy or mem is None:
            return
        token = CancelToken()
        self._token = token
        self.input.clear()
        self._entries += [Entry("user", text, saved=False), Entry("assistant", "", saved=False)]
        self._render()
        self._set_busy(True, translate("Chat", "Thinking…"))
        session, holder = self.session, self._chat
        grow, tool = self._relay.reply_did_grow.emit, self._relay.tool_did_run.emit

        def op() -> TurnResult:
            return holder.get(mem).send(
                session,
                text,
                on_text=grow,
                on_tool=lambda call: tool(call.name),
                cancelled=lambda: token.cancelled,
            )

        self.runner.run_query(
            op,
            self._weak(lambda w, result: w._on_turn_done(token, result)),
            self._weak(lambda w, exc: w._on_turn_failed(token, text, exc)),
            pool="network",
            label=translate("Chat", "Chat in {session}").format(
                session=name_of(self.state.session(session), session)
            ),
        )

    def stop(self) -> None:
        """Stop the running turn; nothing of it is saved."""
        if self._token is None:
            return
        self._token.cancel()
        self.stop_button.setEnabled(False)
        self.status.setText(translate("Chat", "Stopping…"))

    def _on_reply_did_grow(self, text: str) -> None:
        if self.busy and self._entries and self._entries[-1].role == "assistant":
            self._entries[-1] = Entry("assistant", text, saved=False)
            self._render()
            if not self._token or not self._token.cancelled:
                self.status.setText(translate("Chat", "Answering…"))

    def _on_tool_did_run(self, name: str) -> None:
        if self.busy and self._token is not None and not self._token.cancelled:
            self.status.setText(translate("Chat", "Looked into the memory ({tool})…").format(tool=name))

    def _on_turn_done(self, token: CancelToken, result: TurnResult) -> None:
        if token is not self._token:
            return
        self._token = None
        self._entries[-2:] = [Entry("user", result.user.content), Entry("assistant", result.reply.content)]
        self._render()
        if result.tool_calls:
            done = translate("Chat", "Saved, %n memory lookup(s).", "", len(result.tool_calls))
        else:
            done = translate("Chat", "Saved.")
        self._set_busy(False, done)
        self.turn_did_finish.emit(result)

    def _on_turn_failed(self, token: CancelToken, text: str, exc: BaseException) -> None:
        if token is not self._token:
            return
        self._token = None
        if len(self._entries) >= 2 and not self._entries[-1].saved:
            del self._entries[-2:]
        self._render()
        if not self.input.toPlainText().strip():
            self.input.setPlainText(text)
        self._set_busy(False, "")
        words = self._show_error(exc, translate("Chat", "sending the message"))
        self.turn_did_fail.emit(words)

    def _weak(self, call: Callable[[ChatWindow, Any], None]) -> Callable[[Any], None]:
        """A result callback that holds this window weakly (dropped if the window is gone)."""
        ref = weakref.ref(self)

        def deliver(value: Any) -> None:
            window = ref()
            if window is not None and shiboken6.isValid(window):
                call(window, value)

        return deliver

    # -- display ----------------------------------------------------------------------------------

    def _set_busy(self, busy: bool, status: str) -> None:
        self.send_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)
        self.status.setStyleSheet("")
        self.status.setText(status)

    def _show_error(self, exc: BaseException, doing: str) -> str:
        message = describe(exc, doing)
        if message.bug:
            log.error("chat: %s failed", doing, exc_info=exc)
        elif not isinstance(exc, TurnCancelled):
            log.info("chat: %s failed: %s", doing, type(exc).__name__)
        red = contrast.warning(self.palette()).name()
        self.status.setStyleSheet("" if isinstance(exc, TurnCancelled) else f"color:{red};")
        self.status.setText(message.text)
        return message.text

    def _render(self) -> None:
        self.transcript.setMarkdown(markdown(self._entries, you=translate("Chat", "You")))
        self.transcript.moveCursor(QTextCursor.MoveOperation.End)
        bar = self.transcript.verticalScrollBar()
        bar.setValue(bar.maximum())

    def closeEvent(self, event: QCloseEvent) -> None:
        self.stop()
        super().closeEvent(event)

    def present(self) -> None:
        self.show()
        self.raise_()
        self.activateWindow()
        self.input.setFocus()

"""Changing the memory from the viewer: rename a session, remove a session, forget one message.

Each asks first in a non-modal dialog: the rename asks for the title; removing and forgetting say what is
deleted and what is kept, with Cancel as the default button. The work runs on the store worker
(``Memory.set_title``, ``Memory.remove``, ``Memory.forget_message``); :attr:`SessionEditor.edit_did_finish`
tells the outcome in words and the state is read again, so every view follows.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import QInputDialog, QLineEdit, QMessageBox, QWidget

from desktop.confirm import ask_destructive
from desktop.errors import describe
from desktop.operations import Outcome
from desktop.state import AppState
from desktop.titles import elide_middle, name_of
from engine import Message, ResetResult

log = logging.getLogger("memtray.desktop.viewer.editing")

translate = QCoreApplication.translate


class SessionEditor(QObject):
    """Asks, then renames, removes or forgets on the store worker.

    Signals:
        edit_did_finish(object): an :class:`~desktop.operations.Outcome` (done, or failed in words).
    """

    edit_did_finish = Signal(object)

    def __init__(self, state: AppState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.dialog: QWidget | None = None
        """The question on screen (tests answer it), or None."""

    # -- rename -----------------------------------------------------------------------------------

    def ask_rename(self, session: str, parent: QWidget | None = None) -> QInputDialog:
        """Ask for ``session``'s new title (empty: back to its first message)."""
        info = self.state.session(session)
        dialog = QInputDialog(parent)
        dialog.setObjectName("rename-dialog")
        dialog.setWindowTitle(translate("Editing", "memtray: rename session"))
        dialog.setLabelText(
            translate("Editing", "A title for “{session}” (leave it empty to use its first message):").format(
                session=name_of(info, session)
            )
        )
        dialog.setInputMode(QInputDialog.InputMode.TextInput)
        dialog.setTextEchoMode(QLineEdit.EchoMode.Normal)
        dialog.setTextValue(info.title if info is not None else "")
        dialog.setOkButtonText(translate("Editing", "Rename"))

        def on_finished(result: int) -> None:
            self.dialog = None
            dialog.deleteLater()
            if result:
                self.rename(session, dialog.textValue())

        dialog.finished.connect(on_finished)
        self.dialog = dialog
        dialog.open()
        return dialog

    def rename(self, session: str, title: str) -> None:
        mem = self.state.memory
        if mem is not None:
            before = name_of(self.state.session(session), session)
            self._run(
                lambda: mem.set_title(session, title),
                lambda stored: Outcome(
                    translate("Editing", "Renamed"),
                    translate("Editing", "“{session}” is now called “{title}”.").format(
                        session=before, title=elide_middle(stored) if stored else session
                    ),
                ),
                translate("Editing", "renaming “{session}”").format(session=before),
            )

    # -- remove -----------------------------------------------------------------------------------

    def ask_remove(self, session: str, parent: QWidget | None = None) -> QMessageBox:
        """Ask before removing ``session`` entirely."""
        info = self.state.session(session)
        count = info.total_messages if info is not None else 0
        what = translate(
            "Editing",
            "This deletes the whole session: its %Ln message(s) (the recent history and the archive, with "
            "their search index), its summary and its folder. The error memory is kept (it is shared by "
            "all sessions). This cannot be undone.",
            "",
            count,
        )
        return self._confirm(
            parent,
            "remove-confirmation",
            translate("Editing", "memtray: remove session"),
            translate("Editing", "Remove the session “{title}”?").format(title=name_of(info, session)),
            what,
            translate("Editing", "Remove"),
            lambda: self.remove(session),
        )

    def remove(self, session: str) -> None:
        mem = self.state.memory
        if mem is not None:
            name = name_of(self.state.session(session), session)
            self._run(
                lambda: mem.remove(session),
                lambda result: _removed_words(result, name),
                translate("Editing", "removing “{session}”").format(session=name),
                lambda _result: self.state.tell_session_gone(session),
            )

    # -- forget -----------------------------------------------------------------------------------

    def ask_forget(self, message: Message, parent: QWidget | None = None) -> QMessageBox | None:
        """Ask before forgetting ``message`` (None: it is not archived, so there is nothing to forget)."""
        if message.id is None:
            return None
        preview = message.content.strip().replace("\n", " ")
        if len(preview) > 80:
            preview = preview[:79] + "…"
        what = translate(
            "Editing",
            "It is deleted everywhere: the recent history, the archive, the search index and the vectors, "
            "and its text is overwritten on disk. The session's summary is deleted too; the next summary "
            "run writes it again from the messages that remain.",
        )
        message_id = message.id
        return self._confirm(
            parent,
            "forget-confirmation",
            translate("Editing", "memtray: forget message"),
            translate("Editing", "Forget this message?\n\n“{text}”").format(text=preview),
            what,
            translate("Editing", "Forget"),
            lambda: self.forget(message_id),
        )

    def forget(self, message_id: int) -> None:
        mem = self.state.memory
        if mem is not None:
            self._run(
                lambda: mem.forget_message(message_id),
                lambda _message: Outcome(
                    translate("Editing", "Forgot a message"),
                    translate("Editing", "Message #{id} was deleted everywhere.").format(id=message_id),
                ),
                translate("Editing", "forgetting a message"),
                lambda message: self.state.tell_message_gone(message.session, message_id),
            )

    # -- helpers ----------------------------------------------------------------------------------

    def _confirm(
        self,
        parent: QWidget | None,
        name: str,
        title: str,
        text: str,
        informative: str,
        verb: str,
        then: Callable[[], None],
    ) -> QMessageBox:
        def closed() -> None:
            self.dialog = None

        box = ask_destructive(
            parent,
            name=name,
            title=title,
            text=text,
            informative=informative,
            verb=verb,
            on_confirmed=then,
            on_closed=closed,
        )
        self.dialog = box
        return box

    def _run(
        self,
        op: Callable[[], Any],
        words: Callable[[Any], Outcome],
        doing: str,
        gone: Callable[[Any], None] | None = None,
    ) -> None:
        """Run ``op`` on the store worker; then ``gone(result)`` (the views let go of deleted text) and
        the outcome in ``words``."""

        def done(result: Any) -> None:
            if gone is not None:
                gone(result)
            outcome = words(result)
            log.info("%s: %s", outcome.title, outcome.text)
            self.state.refresh()
            self.edit_did_finish.emit(outcome)

        def failed(exc: BaseException) -> None:
            message = describe(exc, doing)
            if message.bug:
                log.error("%s failed", doing, exc_info=exc)
            else:
                log.warning("%s failed: %s", doing, exc)
            self.state.refresh()
            self.edit_did_finish.emit(Outcome(message.title, message.text, ok=False))

        self.state.runner.run_query(op, done, failed)


def _removed_words(result: ResetResult, name: str) -> Outcome:
    """Say what a removal did (``name``: the session as messages name it, read before it went)."""
    return Outcome(
        translate("Editing", "Removed “{session}”").format(session=name),
        translate(
            "Editing",
            "%Ln message(s) deleted with the session; the error memory was kept.",
            "",
            result.messages_deleted,
        ),
    )

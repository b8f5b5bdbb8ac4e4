"""The conversation pane: the lazy message list, the full text of the current message, copy and export."""

from __future__ import annotations

import html
import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop.a11y import accessible
from desktop.tasks import CancelToken, TaskRunner
from desktop.titles import name_of, tooltip_of
from desktop.viewer.conversation_model import ConversationModel
from desktop.viewer.delegate import MessageDelegate, header_text, row_height
from desktop.viewer.export import FORMATS, write_export
from engine import Memory, Message, SessionInfo

log = logging.getLogger("memtray.desktop.viewer.conversation")

translate = QCoreApplication.translate


def as_text(messages: list[Message]) -> str:
    """Messages as plain text for the clipboard."""
    return "\n\n".join(f"{header_text(m.role, m.sender, m.send_at)}\n{m.content}" for m in messages)


class MessageList(QTableView):
    """The message rows: one column, no headers, every row as high as the delegate paints it.

    A table view, not a list view: its rows are sections of the vertical header, all of one fixed
    height, so a model of any number of rows lays out without asking the model about each row (a list
    view asks for every row's index on each layout, which for 50,000 rows freezes the GUI). Home and End
    go to the first and last row, as in a list.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setItemDelegate(MessageDelegate(self))
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.setTabKeyNavigation(False)
        self.setCornerButtonEnabled(False)
        self.horizontalHeader().hide()
        self.horizontalHeader().setStretchLastSection(True)
        self.verticalHeader().hide()
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self._fit_rows()

    def _fit_rows(self) -> None:
        height = row_height(self.font())
        self.verticalHeader().setMinimumSectionSize(height)
        self.verticalHeader().setDefaultSectionSize(height)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_rows()

    def moveCursor(
        self, cursorAction: QAbstractItemView.CursorAction, modifiers: Qt.KeyboardModifier
    ) -> QModelIndex:
        model = self.model()
        rows = model.rowCount() if model is not None else 0
        if rows and cursorAction == QAbstractItemView.CursorAction.MoveHome:
            return model.index(0, 0)
        if rows and cursorAction == QAbstractItemView.CursorAction.MoveEnd:
            return model.index(rows - 1, 0)
        return super().moveCursor(cursorAction, modifiers)


class ConversationPane(QWidget):
    """One session's conversation.

    Signals:
        message_did_reveal(int): the message with this id was scrolled to and selected.
        export_did_finish(object): an export ended: ``(path, count)`` or an exception.
    """

    message_did_reveal = Signal(int)
    export_did_finish = Signal(object)

    def __init__(self, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.memory: Memory | None = None
        self.info: SessionInfo | None = None  # the open session as the snapshot knows it (its title)
        self._counts: tuple[int, bool] | None = None  # recent messages, compacted; None while loading
        self.model = ConversationModel(runner, self)
        self.title = QLabel(translate("Conversation", "Choose a session on the left."))
        self.title.setObjectName("conversation-title")
        self.copy_button = QPushButton(translate("Conversation", "Copy"))
        self.copy_button.setObjectName("copy")
        self.copy_button.setToolTip(translate("Conversation", "Copy the selected messages as text"))
        self.export_button = QPushButton(translate("Conversation", "Export…"))
        self.export_button.setObjectName("export")
        self.export_button.setToolTip(translate("Conversation", "Save the whole session to a file"))
        self.export_button.setEnabled(False)
        self.list = MessageList()
        self.list.setObjectName("conversation-list")
        accessible(
            self.list,
            translate("Conversation", "Messages"),
            translate(
                "Conversation", "The session's messages, oldest first; Ctrl+C copies the selected ones"
            ),
        )
        self.list.setModel(self.model)
        self.detail = QTextBrowser()
        self.detail.setObjectName("message-detail")
        self.detail.setTabChangesFocus(True)  # Tab moves on instead of walking the text's links
        accessible(
            self.detail,
            translate("Conversation", "Selected message"),
            translate("Conversation", "The whole text of the selected message"),
        )
        self.detail.setOpenExternalLinks(False)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.copy_button)
        top.addWidget(self.export_button)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.list)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(split, 1)

        self._reveal_id: int | None = None
        self._scroll_to_end = False
        self._settling = False
        self._follow = False  # the view was at the bottom when new rows came: keep it there
        self.model.rowsAboutToBeInserted.connect(self._on_rows_about_to_be_inserted)
        self.model.session_did_load.connect(self._on_session_did_load)
        self.model.page_did_load.connect(self._on_page_did_load)
        self.model.rows_did_append.connect(self._on_rows_did_append)
        self.model.layout_did_change.connect(self._on_layout_did_change)
        self.model.message_did_locate.connect(self._on_message_did_locate)
        self.model.load_did_fail.connect(self._on_load_did_fail)
        self.list.selectionModel().currentChanged.connect(self._on_current_changed)
        self.list.selectionModel().selectionChanged.connect(self._on_selection_changed)
        self.model.modelReset.connect(self._on_selection_changed)
        self.copy_button.setEnabled(False)
        self.copy_button.clicked.connect(self.copy_selection)
        self.export_button.clicked.connect(self._on_export_clicked)
        QShortcut(QKeySequence.StandardKey.Copy, self.list, self.copy_selection)

    # -- opening and revealing --------------------------------------------------------------------

    @property
    def settling(self) -> bool:
        """True from :meth:`open` until the session's rows are shown and the view has scrolled to them."""
        return self._settling

    def open(
        self, mem: Memory, session: str, reveal: int | None = None, info: SessionInfo | None = None
    ) -> None:
        """Show ``session`` at its end; with ``reveal`` (a message id), at that message. ``info``: what
        the snapshot knows of it (its title heads the pane; without it, the title known so far or the id)."""
        self.memory = mem
        if info is not None or (self.info is not None and self.info.id != session):
            self.info = info
        self._reveal_id = reveal
        self._scroll_to_end = reveal is None
        self._settling = True
        self._counts = None
        self._show_title(session)
        self.detail.clear()
        self.export_button.setEnabled(True)
        self.model.open(mem, session, reveal)

    def close_session(self, why: str) -> None:
        """Show none of the open session any more (its messages were deleted): no rows, no detail,
        Copy and Export disabled, and ``why`` in the title."""
        self.model.close_session()
        self.detail.clear()
        self.title.setText(html.escape(why))
        self.export_button.setEnabled(False)
        self.copy_button.setEnabled(False)
        self._reveal_id = None
        self._settling = False

    def set_info(self, info: SessionInfo) -> None:
        """The snapshot's news of the open session: a new title (a rename) heads the pane at once."""
        session = self.model.session
        if session is None or info.id != session:
            return
        changed = self.info is None or self.info.title != info.title
        self.info = info
        if changed:
            self._show_title(session)

    def _show_title(self, session: str) -> None:
        """The heading: the session's title (elided in the middle; the whole title and the id in its
        tooltip), then what is shown of it."""
        if self._counts is None:
            text = translate("Conversation", "<b>{session}</b> — loading…")
        elif self._counts[1]:
            text = translate(
                "Conversation", "<b>{session}</b> — %Ln recent message(s) · compacted", "", self._counts[0]
            )
        else:
            text = translate("Conversation", "<b>{session}</b> — %Ln recent message(s)", "", self._counts[0])
        self.title.setText(text.format(session=html.escape(name_of(self.info, session))))
        self.title.setToolTip(tooltip_of(self.info, session))

    def reveal(self, message_id: int) -> None:
        """Scroll to message ``message_id`` and select it (its page is read first if it is not loaded)."""
        self.model.locate_message(message_id)

    def refresh(self) -> None:
        """Show what the session holds now: new messages at the end (the view follows them when it was
        at the bottom), or, after a compaction or a removal, the session opened again at the same place
        (its end, or the last selected message)."""
        self.model.refresh()

    def at_bottom(self) -> bool:
        bar = self.list.verticalScrollBar()
        return bar.value() >= bar.maximum() - 4

    def _select_row(self, row: int) -> None:
        index = self.model.index(row, 0)
        self.list.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        self.list.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)

    # -- copy and export --------------------------------------------------------------------------

    def selected_messages(self) -> list[Message]:
        rows = sorted(i.row() for i in self.list.selectionModel().selectedRows())
        return [m for m in (self.model.message(r) for r in rows) if m is not None]

    def copy_selection(self) -> None:
        messages = self.selected_messages()
        if messages:
            QGuiApplication.clipboard().setText(as_text(messages))

    def export_to(self, path: Path, fmt: str) -> None:
        """Export the whole session to ``path`` on the store worker (cancellable)."""
        mem, session = self.memory, self.model.session
        if mem is None or session is None:
            return
        token = CancelToken()
        self.runner.run_query(
            lambda: (path, write_export(path, session, mem.iter_archive(session), fmt, token)),
            self.export_did_finish.emit,
            self.export_did_finish.emit,
            label=translate("Conversation", "Exporting “{session}”").format(
                session=name_of(self.info, session)
            ),
            token=token,
            owner=self,
        )

    def _on_export_clicked(self) -> None:
        session = self.model.session or "session"
        filters = {fmt: translate("Export", label) for fmt, label in FORMATS.items()}
        dialog = QFileDialog(
            self,
            translate("Conversation", "Export session"),
            str(Path.home() / f"{session}.md"),
            ";;".join(filters.values()),
        )
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def on_selected(name: str) -> None:
            fmt = "jsonl" if dialog.selectedNameFilter() == filters["jsonl"] else "markdown"
            self.export_to(Path(name), fmt)

        dialog.fileSelected.connect(on_selected)
        dialog.open()

    # -- slots ------------------------------------------------------------------------------------

    def _on_session_did_load(self, session: str) -> None:
        self._counts = (self.model.hot_count, self.model.cut_row() is not None)
        self._show_title(session)
        focus = self.model.layout.focus
        if self._reveal_id is not None and focus is not None:
            self._select_row(self.model.row_at(focus))
            self.message_did_reveal.emit(self._reveal_id)
        elif self.model.rowCount() and self._settling:
            self.list.scrollToBottom()
            self._select_row(self.model.rowCount() - 1)
        self._reveal_id = None
        QTimer.singleShot(0, self, self._on_layout_settled)  # the scroll range is final after the next layout

    def _on_layout_settled(self) -> None:
        if self._scroll_to_end and self.model.rowCount():
            self.list.scrollToBottom()
        self._scroll_to_end = False
        self._settling = False

    def _on_page_did_load(self, first: int, last: int) -> None:
        current = self.list.currentIndex()
        if current.isValid() and first <= current.row() <= last:
            self._on_current_changed(current, current)

    def _on_rows_about_to_be_inserted(self, *_args: object) -> None:
        self._follow = self.at_bottom()

    def _on_rows_did_append(self, _count: int) -> None:
        if self._follow:
            QTimer.singleShot(0, self.list, self.list.scrollToBottom)

    def _on_layout_did_change(self) -> None:
        self.reopen()

    def reopen(self) -> None:
        """Open the session again where the view is (its end, or the last selected message): after a
        compaction, or once messages of it were deleted (their rows go at once)."""
        mem, session = self.memory, self.model.session
        if mem is None or session is None:
            return
        selected = self.selected_messages()
        keep = None if self.at_bottom() or not selected else selected[-1].id
        self.open(mem, session, reveal=keep)

    def _on_message_did_locate(self, message_id: int, row: int) -> None:
        self._select_row(row)
        self.message_did_reveal.emit(message_id)

    def _on_load_did_fail(self, exc: BaseException) -> None:
        from desktop.errors import describe

        self.title.setText(describe(exc, translate("Conversation", "loading the conversation")).text)

    def _on_selection_changed(self, *_args: object) -> None:
        self.copy_button.setEnabled(self.list.selectionModel().hasSelection())

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        message = self.model.message(current.row()) if current.isValid() else None
        if message is None:
            self.detail.clear()
            return
        self.detail.setPlainText(
            f"{header_text(message.role, message.sender, message.send_at)}\n\n{message.content}"
        )

"""The conversation pane: the lazy message list, the full text of the current message, copy and export."""

from __future__ import annotations

import html
import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListView,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop.tasks import CancelToken, TaskRunner
from desktop.viewer.conversation_model import ConversationModel
from desktop.viewer.delegate import MessageDelegate, header_text
from desktop.viewer.export import FORMATS, write_export
from engine import Memory, Message

log = logging.getLogger("memtray.desktop.viewer.conversation")

translate = QCoreApplication.translate


def as_text(messages: list[Message]) -> str:
    """Messages as plain text for the clipboard."""
    return "\n\n".join(f"{header_text(m.role, m.sender, m.send_at)}\n{m.content}" for m in messages)


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
        self.model = ConversationModel(runner, self)
        self.title = QLabel(translate("Conversation", "Choose a session on the left."))
        self.title.setObjectName("conversation-title")
        self.copy_button = QPushButton(translate("Conversation", "Copy"))
        self.copy_button.setToolTip(translate("Conversation", "Copy the selected messages as text"))
        self.export_button = QPushButton(translate("Conversation", "Export…"))
        self.export_button.setToolTip(translate("Conversation", "Save the whole session to a file"))
        self.export_button.setEnabled(False)
        self.list = QListView()
        self.list.setObjectName("conversation-list")
        self.list.setModel(self.model)
        self.list.setItemDelegate(MessageDelegate(self.list))
        self.list.setUniformItemSizes(True)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setWordWrap(True)
        self.detail = QTextBrowser()
        self.detail.setObjectName("message-detail")
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

        self._keep_bottom_distance: int | None = None
        self._reveal_id: int | None = None
        self._scroll_to_end = False
        self._settling = False
        bar = self.list.verticalScrollBar()
        bar.valueChanged.connect(self._on_scroll_value_changed)
        bar.rangeChanged.connect(self._on_scroll_range_changed)
        self.model.rowsAboutToBeInserted.connect(self._on_rows_about_to_be_inserted)
        self.model.session_did_load.connect(self._on_session_did_load)
        self.model.older_did_load.connect(self._on_older_did_load)
        self.model.load_did_fail.connect(self._on_load_did_fail)
        self.list.selectionModel().currentChanged.connect(self._on_current_changed)
        self.copy_button.clicked.connect(self.copy_selection)
        self.export_button.clicked.connect(self._on_export_clicked)
        QShortcut(QKeySequence.StandardKey.Copy, self.list, self.copy_selection)

    # -- opening and revealing --------------------------------------------------------------------

    @property
    def settling(self) -> bool:
        """True from :meth:`open` until the newest messages are shown and the view has scrolled to them."""
        return self._settling

    def open(self, mem: Memory, session: str, reveal: int | None = None) -> None:
        """Show ``session``; with ``reveal``, scroll to that message once it is loaded."""
        self.memory = mem
        self._reveal_id = reveal
        self._scroll_to_end = reveal is None
        self._settling = True  # no older pages until the newest messages are shown and scrolled to
        self.title.setText(
            translate("Conversation", "<b>{session}</b> — loading…").format(session=html.escape(session))
        )
        self.detail.clear()
        self.export_button.setEnabled(True)
        self.model.open(mem, session)

    def reveal(self, message_id: int) -> None:
        """Scroll to message ``message_id``, loading older pages first if it is not loaded yet."""
        row = self.model.row_of(message_id)
        if row is not None:
            self._select_row(row)
            self.message_did_reveal.emit(message_id)
            return
        oldest = self.model.oldest_id
        if oldest is not None and message_id < oldest:
            self._reveal_id = message_id
            self.model.load_older(until_id=message_id, token=CancelToken())
        else:
            log.info("message %s is not in session %s", message_id, self.model.session)

    def _select_row(self, row: int) -> None:
        index = self.model.index(row, 0)
        self.list.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        self.list.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)

    # -- copy and export --------------------------------------------------------------------------

    def selected_messages(self) -> list[Message]:
        rows = sorted(i.row() for i in self.list.selectionModel().selectedIndexes())
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
            label=f"Exporting {session}",
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
        hot = sum(1 for r in self.model.rows[(self.model.cut_row() or -1) + 1 :] if isinstance(r, Message))
        if self.model.cut:
            title = translate("Conversation", "<b>{session}</b> — %Ln recent message(s) · compacted", "", hot)
        else:
            title = translate("Conversation", "<b>{session}</b> — %Ln recent message(s)", "", hot)
        self.title.setText(title.format(session=html.escape(session)))
        if self._reveal_id is not None:
            target, self._reveal_id = self._reveal_id, None
            self.reveal(target)
        elif self.model.rowCount():
            self.list.scrollToBottom()
            self._select_row(self.model.rowCount() - 1)
        QTimer.singleShot(0, self._on_layout_settled)  # the scroll range is final after the next layout

    def _on_layout_settled(self) -> None:
        if self._scroll_to_end and self.model.rowCount():
            self.list.scrollToBottom()
        self._scroll_to_end = False
        self._settling = False
        self._update_reader_at_top()

    def _on_older_did_load(self, _count: int) -> None:
        if self._reveal_id is not None:
            target, self._reveal_id = self._reveal_id, None
            self.reveal(target)
        self._update_reader_at_top()

    def _on_load_did_fail(self, exc: BaseException) -> None:
        from desktop.errors import describe

        self.title.setText(describe(exc, translate("Conversation", "loading the conversation")).text)

    def _on_rows_about_to_be_inserted(self, parent: QModelIndex, first: int, _last: int) -> None:
        if first == 0 and self.model.rowCount() and self._reveal_id is None:
            bar = self.list.verticalScrollBar()
            self._keep_bottom_distance = bar.maximum() - bar.value()

    def _on_scroll_range_changed(self, _minimum: int, maximum: int) -> None:
        if self._keep_bottom_distance is not None:
            self.list.verticalScrollBar().setValue(maximum - self._keep_bottom_distance)
            self._keep_bottom_distance = None

    def _on_scroll_value_changed(self, _value: int) -> None:
        self._update_reader_at_top()

    def _update_reader_at_top(self) -> None:
        if self._settling:
            self.model.reader_at_top = False
            return
        bar = self.list.verticalScrollBar()
        row_height = max(1, self.list.sizeHintForRow(0)) if self.model.rowCount() else 1
        at_top = bar.value() <= bar.minimum() + 2 * row_height
        self.model.reader_at_top = at_top
        root = QModelIndex()
        if at_top and self.model.canFetchMore(root):
            self.model.fetchMore(root)

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        message = self.model.message(current.row()) if current.isValid() else None
        if message is None:
            self.detail.clear()
            return
        self.detail.setPlainText(
            f"{header_text(message.role, message.sender, message.send_at)}\n\n{message.content}"
        )

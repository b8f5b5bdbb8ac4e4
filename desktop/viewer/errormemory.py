"""The error memory tab: a table (tool, symptom, action, outcome, expires in), a search box, and forget.

Built against :class:`desktop.seams.ErrorSource`; the window adds it only when the engine has an error
memory. Every call runs on the store worker. Listing shows the newest records (it does not refresh their
expiry); a search shows the best matches, and, as for the agent's own searches, each hit's 90 days start
again.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.errors import describe
from desktop.seams import ErrorRecordView, ErrorSource
from desktop.tasks import TaskRunner

COLUMNS = ("Tool", "Symptom", "Action", "Outcome", "Expires in")
Index = QModelIndex | QPersistentModelIndex


class ErrorTableModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.records: list[ErrorRecordView] = []

    def set_records(self, records: list[ErrorRecordView]) -> None:
        self.beginResetModel()
        self.records = list(records)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.records)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        r = self.records[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            days = r.expires_in_days()
            expires = "unknown" if days is None else f"{days} day{'s' if days != 1 else ''}"
            return (r.tool, r.symptom, r.action, r.outcome, expires)[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return "\n".join(
                x
                for x in (
                    f"id {r.id}",
                    f"cause: {r.cause}" if r.cause else "",
                    "keywords: " + ", ".join(r.keywords),
                )
                if x
            )
        return None


class ErrorMemoryPanel(QWidget):
    """Lists, searches and forgets error-memory records.

    Signals:
        records_did_load(object): the records now shown.
        record_did_forget(str): a record was forgotten (its id).
    """

    records_did_load = Signal(object)
    record_did_forget = Signal(str)

    def __init__(self, runner: TaskRunner, source: ErrorSource, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.source = source
        self.model = ErrorTableModel(self)
        self.box = QLineEdit()
        self.box.setObjectName("errors-search")
        self.box.setPlaceholderText("Search the error memory (tool, symptom, cause)")
        self.box.setClearButtonEnabled(True)
        self.forget_button = QPushButton("Forget")
        self.status = QLabel("")
        self.table = QTableView()
        self.table.setObjectName("errors-table")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        for col in (1, 2):
            self.table.horizontalHeader().setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)
        top = QHBoxLayout()
        top.addWidget(self.box, 1)
        top.addWidget(self.forget_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.status)
        self.box.returnPressed.connect(self.refresh)
        self.forget_button.clicked.connect(self.forget_selected)

    def refresh(self) -> None:
        """List every record, or search when the box has text."""
        query = self.box.text().strip()
        source = self.source

        def op() -> tuple[list[ErrorRecordView], int | None]:
            if query:
                return source.search(query), None
            return source.list(), source.count()

        self.runner.run_query(op, lambda res: self._on_loaded(*res), self._on_failed, owner=self)

    def forget_selected(self) -> None:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        ids = [self.model.records[r].id for r in rows]
        source = self.source
        for record_id in ids:

            def op(rid: str = record_id) -> str:
                source.forget(rid)
                return rid

            self.runner.run_query(op, self._on_forgotten, self._on_failed)

    def _on_loaded(self, records: list[ErrorRecordView], total: int | None = None) -> None:
        self.model.set_records(records)
        shown = f"{len(records)} record{'s' if len(records) != 1 else ''}"
        if total is None:
            text = f"{shown} found" if self.box.text().strip() else shown
        elif total > len(records):
            text = f"The newest {shown} of {total:,}"
        else:
            text = shown
        self.status.setText(text)
        self.records_did_load.emit(records)

    def _on_forgotten(self, record_id: str) -> None:
        self.status.setText(f"Forgot {record_id[:12]}")
        self.record_did_forget.emit(record_id)
        self.refresh()

    def _on_failed(self, exc: BaseException) -> None:
        self.status.setText(describe(exc, "using the error memory").text)
